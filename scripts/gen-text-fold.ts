/**
 * Regenerates the `text_fold` char filter of mappings/analysis.json: the one text fold of the
 * index, applied by the engine to indexed text and to query text alike (every text field's
 * analyzer is also its search analyzer).
 *
 * The fold of one code point c is `fold(c)`: drop default-ignorable code points (soft hyphen,
 * zero-width space, variation selectors), NFKC, full case folding (upper then lower case, so
 * ς/σ, ß/ss, ſ/s, Ⅲ/ⅲ meet), NFKC again, repeated until nothing changes. Every code point whose
 * fold differs from itself gets a rule (㈱ => (株), Ⅲ => iii, Ａ => a, U+00A0 => space).
 *
 * NFKC composes across characters (ｶﾞ => ガ, e + U+0301 => é, か + U+3099 => が), which a
 * per-character table cannot; so every pair "a b" where a folds to one code point and the fold
 * of "a b" composes into fewer code points gets a two-character rule. The char filter takes the
 * longest rule at each position. Longer combining sequences (several marks needing canonical
 * reordering) and conjoining Hangul jamo are folded character by character: the same on both
 * sides, since queries go through the same analyzer.
 *
 * Unicode data: Node's ICU (`process.versions.unicode`, recorded in the table's comment). The
 * engine-side test (test/text/text-fold.test.ts) checks the engine against Node's data for every code
 * point; rerun this after a Node upgrade brings a new Unicode version:
 *
 *   npx tsx scripts/gen-text-fold.ts
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const file = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'mappings', 'analysis.json');

const ignorable = /\p{Default_Ignorable_Code_Point}/gu;
const unassigned = /^[\p{Cn}\p{Cs}]$/u;

function foldOracle(text: string): string {
  let current = text;
  for (;;) {
    const next = current
      .replace(ignorable, '')
      .normalize('NFKC')
      .toUpperCase()
      .toLowerCase()
      .normalize('NFKC')
      .replace(ignorable, '');
    if (next === current) return next;
    current = next;
  }
}

/** Hangul jamo and syllables compose algorithmically (L+V, LV+T); not in the pair rules. */
function isHangul(cp: number): boolean {
  return (
    (cp >= 0x1100 && cp <= 0x11ff) ||
    (cp >= 0x3130 && cp <= 0x318f) ||
    (cp >= 0xa960 && cp <= 0xa97f) ||
    (cp >= 0xac00 && cp <= 0xd7ff) ||
    (cp >= 0xffa0 && cp <= 0xffdc)
  );
}

/**
 * The mapping parser trims each side and splits on "=>", and `.` stops at line breaks, so
 * white space, controls, "=", ">", "\" and line separators are written as \uXXXX escapes;
 * marks and format characters too, so that the file stays readable.
 */
function escapeRule(text: string): string {
  let out = '';
  for (const ch of text) {
    const cp = ch.codePointAt(0) as number;
    if (cp <= 0x20 || /[\p{C}\p{Z}\p{M}=>\\]/u.test(ch)) {
      for (let i = 0; i < ch.length; i++) out += `\\u${ch.charCodeAt(i).toString(16).padStart(4, '0')}`;
    } else {
      out += ch;
    }
  }
  return out;
}

function rules(): string[] {
  const single = new Map<string, string>();
  const assigned: number[] = [];
  for (let cp = 0; cp <= 0x10ffff; cp++) {
    const ch = String.fromCodePoint(cp);
    if (unassigned.test(ch)) continue;
    assigned.push(cp);
    const folded = foldOracle(ch);
    if (folded !== ch) single.set(ch, folded);
  }
  const fold = (ch: string) => single.get(ch) ?? ch;

  // candidates for the second character: folds starting with a mark or a character that
  // canonical composition can take as the second of a pair (e.g. the Kannada/Sinhala vowel signs)
  const firsts = new Set<string>();
  const seconds = new Set<string>();
  for (const cp of assigned) {
    const ch = String.fromCodePoint(cp);
    const parts = [...ch.normalize('NFD')];
    if (parts.length > 1) {
      firsts.add(parts[0] as string);
      for (const part of parts.slice(1)) seconds.add(part);
    }
  }
  // a first character that can compose: a starter of some decomposition, or a composed one
  const composable = (ch: string) => firsts.has(ch) || ch.normalize('NFD') !== ch;
  const second = assigned.filter((cp) => {
    if (isHangul(cp)) return false;
    const first = [...fold(String.fromCodePoint(cp))][0];
    return first !== undefined && (seconds.has(first) || /\p{M}/u.test(first));
  });
  const pairs: [string, string][] = [];
  for (const a of assigned) {
    if (isHangul(a)) continue;
    const ca = String.fromCodePoint(a);
    const fa = fold(ca);
    if ([...fa].length !== 1 || !composable(fa)) continue;
    for (const b of second) {
      const cb = String.fromCodePoint(b);
      const fb = fold(cb);
      const whole = foldOracle(ca + cb);
      if (whole !== fa + fb && [...whole].length < 1 + [...fb].length) pairs.push([ca + cb, whole]);
    }
  }
  return [
    ...pairs.map(([from, to]) => `${escapeRule(from)}=>${escapeRule(to)}`),
    ...[...single].map(([from, to]) => `${escapeRule(from)}=>${escapeRule(to)}`),
  ];
}

const settings = JSON.parse(readFileSync(file, 'utf8')) as {
  _comment: string;
  analysis: { char_filter: Record<string, unknown> };
};
const mappings = rules();
settings._comment = settings._comment.replace(
  /Unicode \d+(\.\d+)* data/,
  `Unicode ${process.versions.unicode} data`,
);
settings.analysis.char_filter = { text_fold: { type: 'mapping', mappings } };
writeFileSync(file, `${JSON.stringify(settings, null, 2)}\n`);
// in the repository's JSON style, so that `npm run lint` passes on the generated file
spawnSync('npx', ['biome', 'format', '--write', file], { stdio: 'ignore' });
process.stderr.write(`text_fold: ${mappings.length} rules (Unicode ${process.versions.unicode})\n`);
