/**
 * Regenerates data/names/kanji-variants.tsv: the old and variant kanji the company name key
 * folds to one form (國 -> 国, 髙 -> 高), a conservative, Japanese-only subset of Unicode's
 * Unihan database.
 *
 * Source: Unihan 15.0.0 (Unicode License), as Debian's `unicode-data` package ships it under
 * /usr/share/unicode (`apt-get install unicode-data`; UNIHAN_DIR overrides the folder):
 *
 *   1. `kJinmeiyoKanji` values "2010:U+XXXX" and `kJoyoKanji` values "U+XXXX": the variants
 *      that the Japanese lists of kanji for general use (Jōyō) and for personal names
 *      (Jinmeiyō) name beside their standard form, mostly old forms (國 -> 国, 澁 -> 渋).
 *      Pairs that NFKC already folds (compatibility ideographs such as U+F91D) are left out.
 *   2. `SEMANTIC`: itaiji of surnames and names that Unihan_Variants.txt records as a
 *      kSemanticVariant (髙 ~ 高) or kSpoofingVariant (𠮷 ~ 吉) of a Jōyō or Jinmeiyō kanji.
 *      Chosen one by one: those links also join characters that are distinct in Japanese
 *      names (see `EXCLUDED`).
 *   3. `PROJECT`: old forms common in company names and surnames that Unihan 15.0 does not
 *      link to their new form (澤 -> 沢). The project's own entries, each a plain fact of
 *      Japanese orthography.
 *
 * Run after changing either list or the Unihan version, and commit the table:
 *
 *   npx tsx scripts/gen-kanji-variants.ts
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const out = path.join(root, 'data', 'names', 'kanji-variants.tsv');
const unihanDir = process.env.UNIHAN_DIR ?? '/usr/share/unicode';

/** Itaiji (variant -> standard) checked against Unihan's kSemanticVariant or kSpoofingVariant links. */
const SEMANTIC: Array<[string, string]> = [
  ['𠮷', '吉'],
  ['髙', '高'],
  ['﨑', '崎'],
  ['嵜', '崎'],
  ['碕', '崎'],
  ['邨', '村'],
  ['栁', '柳'],
  ['會', '会'],
];

/** Variant -> standard pairs Unihan 15.0 does not link: the project's own entries. */
const PROJECT: Array<[string, string, string]> = [
  ['澤', '沢', 'old form'],
  ['濱', '浜', 'old form'],
  ['齋', '斎', 'old form'],
  ['邊', '辺', 'old form'],
  ['邉', '辺', 'itaiji of 邊'],
  ['嶌', '島', 'itaiji'],
  ['桒', '桑', 'itaiji'],
  ['舩', '船', 'itaiji'],
];

/**
 * Pairs deliberately NOT folded although some Unihan field links them; the list is checked
 * against the output so that a later edit cannot slip one in.
 */
const EXCLUDED: Array<[string, string, string]> = [
  ['斎', '斉', 'distinct kanji (sai / sei): 斎藤 and 斉藤 are different registered names'],
  ['齋', '齊', 'old forms of the two distinct kanji above (齋 -> 斎, 齊 -> 斉)'],
  ['斎', '齊', 'Unihan links 齋 and 齊 (kSpecializedSemanticVariant): not followed'],
];

function unihan(file: string): string[] {
  return execFileSync('bzcat', [path.join(unihanDir, `${file}.txt.bz2`)], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  }).split('\n');
}

const char = (code: string): string => String.fromCodePoint(Number.parseInt(code.slice(2), 16));
const hex = (c: string): string => `U+${(c.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;

const mappings = unihan('Unihan_OtherMappings');
const version = mappings
  .find((line) => line.startsWith('# Unicode version:'))
  ?.split(':')[1]
  ?.trim();
if (version === undefined) throw new Error('no "# Unicode version" line in Unihan_OtherMappings');

const listed = new Set<string>();
const rows = new Map<string, { to: string; source: string }>();
for (const line of mappings) {
  const [code, field, value] = line.split('\t');
  if (code === undefined || value === undefined) continue;
  if (field !== 'kJoyoKanji' && field !== 'kJinmeiyoKanji') continue;
  const from = char(code);
  listed.add(from);
  const pointer = /U\+[0-9A-F]+/.exec(value)?.[0];
  if (pointer === undefined) continue;
  const to = char(pointer);
  if (from.normalize('NFKC') === to) continue;
  rows.set(from, { to, source: field });
}

const semantic = new Set<string>();
for (const line of unihan('Unihan_Variants')) {
  const [code, field, value] = line.split('\t');
  if (code === undefined || value === undefined) continue;
  if (field !== 'kSemanticVariant' && field !== 'kSpoofingVariant') continue;
  for (const target of value.split(' '))
    semantic.add(`${char(code)}${char(target.split('<')[0] ?? '')}\t${field}`);
}
for (const [from, to] of SEMANTIC) {
  const field = ['kSemanticVariant', 'kSpoofingVariant'].find(
    (f) => semantic.has(`${from}${to}\t${f}`) || semantic.has(`${to}${from}\t${f}`),
  );
  if (field === undefined) throw new Error(`${from} ${to}: not a variant pair in Unihan ${version}`);
  if (!listed.has(to)) throw new Error(`${to} is neither Jōyō nor Jinmeiyō`);
  rows.set(from, { to, source: field });
}
for (const [from, to, why] of PROJECT) {
  if (rows.has(from)) throw new Error(`${from}: already in Unihan ${version}, drop it from PROJECT`);
  rows.set(from, { to, source: `project (${why})` });
}

// One representative per group: a target that is itself a source (A -> B -> C) points on.
for (const [from, row] of rows) {
  let to = row.to;
  for (let hops = 0; rows.has(to); hops++) {
    if (hops > 4) throw new Error(`variant cycle at ${from}`);
    to = rows.get(to)?.to ?? to;
  }
  row.to = to;
}
for (const [a, b, why] of EXCLUDED) {
  const ta = rows.get(a)?.to ?? a;
  const tb = rows.get(b)?.to ?? b;
  if (ta === tb) throw new Error(`${a} and ${b} fold together, yet EXCLUDED says: ${why}`);
}

const header = [
  '# Old and variant kanji -> the form the company name key uses (src/names/keys.ts).',
  `# Source: Unicode Unihan database ${version} (Unihan_OtherMappings.txt kJoyoKanji and`,
  '# kJinmeiyoKanji variant pointers; Unihan_Variants.txt kSemanticVariant and',
  '# kSpoofingVariant, chosen pairs),',
  '# plus entries marked "project", the project\'s own. Unihan: Copyright © Unicode, Inc.,',
  '# Unicode License (https://www.unicode.org/license.txt), which allows redistribution.',
  '# Generated by scripts/gen-kanji-variants.ts; do not edit by hand.',
  '# Not folded, on purpose:',
  ...EXCLUDED.map(([a, b, why]) => `#   ${a} ${b}: ${why}`),
  'from\tto\tfrom_code\tto_code\tsource',
];
const body = [...rows]
  .sort(([a], [b]) => (a.codePointAt(0) ?? 0) - (b.codePointAt(0) ?? 0))
  .map(([from, { to, source }]) => `${from}\t${to}\t${hex(from)}\t${hex(to)}\t${source}`);
writeFileSync(out, `${[...header, ...body].join('\n')}\n`);
console.log(`${body.length} variants (Unihan ${version}) -> ${path.relative(root, out)}`);
