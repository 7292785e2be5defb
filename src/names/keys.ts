/**
 * The company name key: one definition of "the same name", used wherever a name is compared
 * (indexing, matching, suggest, the exact and partial name filters). What it folds, and what it
 * does not, is docs/names.md; the tables are data/names/*.tsv, read once per process.
 *
 *   nameKey('㈱ マルカ物流') === nameKey('マルカ物流株式会社 東京支店') === 'まるか物流'
 *   readingKey('カブシキガイシャ マルカ') === readingKey('ﾏﾙｶ') === 'まるか'
 *   romajiKey('マルカブツリュウ') === romajiKey('Maruka Butsuryū') === 'marukabuturyu'
 *
 * This is not the engine's text fold (src/text/normalize.ts): that one keeps legal forms and
 * every letter, so that a partial match finds what was written.
 */
import { toRomaji } from 'wanakana';
import {
  branchPlaceColumns,
  branchWordColumns,
  kanjiVariantColumns,
  latinLetterColumns,
  legalFormColumns,
  loanwordColumns,
  readTable,
  symbolWordColumns,
} from './tables.js';

/**
 * Characters that separate words: spaces, punctuation, symbols, controls and every dash or
 * long-vowel mark all become one space when the name is first folded; ( and ) are kept until
 * the legal forms written with them, (株), are gone.
 */
const toSpace = /[\p{S}\p{Z}\p{C}]|(?![()])\p{P}/gu;
/**
 * Long-vowel marks are dropped outright, not made separators: a separator would split a word
 * (アーク物産 -> 'あ く物産') and the branch step would take the rest for a branch. A dash or
 * wave written after kana is a long-vowel mark too (コ－ヒ－, ア〜ク).
 */
const longVowel = /ー|(?<=[\u3041-\u30ff])[-‐‑‒–—―〜~]/gu;
/**
 * A separator: a space or a bracket as written, or U+3000, which stands where a legal form was
 * dropped (the fold has made every written ideographic space a plain one by then).
 */
const SEP = '[ ()\u3000]';
const separators = new RegExp(`${SEP}+`, 'gu');
const onlySeparators = new RegExp(`^${SEP}*$`, 'u');
const trailingSeparators = new RegExp(`${SEP}+$`, 'u');
/** The separator before the last word: 'まるか 東京支店' -> index 3. */
const lastSeparator = /[ ()\u3000][^ ()\u3000]*$/u;
const ignorable = /\p{Default_Ignorable_Code_Point}/gu;
const han = /\p{Script=Han}/u;

type Where = 'any' | 'edge' | 'start' | 'end';

interface LegalTable {
  /**
   * Every legal form as one alternation, longest first, each with its place in the name
   * built in (a start-only form must be preceded by nothing but separators).
   */
  pattern: RegExp;
  /** The folded form with separators removed -> the full form it stands for. */
  fullForm: Map<string, string>;
}

interface Tables {
  variants: Map<string, string>;
  /** Legal forms for the key (small kana folded) and for romaji (small kana kept). */
  legal: LegalTable;
  legalSmallKept: LegalTable;
  branch: RegExp;
  /** A branch written straight after the name: an optional place, then a glued word. */
  gluedBranch: RegExp;
  /** (株) -> 株式会社 and the like, on NFKC text. */
  abbreviations: { pattern: RegExp; fullForm: Map<string, string> };
  /** A site after a separator: its own name (up to five characters), then a site word. */
  site: RegExp;
  /** For the spoken key: letter -> its name, English word -> katakana (both folded), symbols. */
  spoken: {
    letters: Map<string, string>;
    words: Map<string, string>;
    symbols: { pattern: RegExp; word: Map<string, string> };
  };
}

let tables: Tables | undefined;

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');

function legalTable(
  rows: Array<{ from: string; to: string; where: Where }>,
  fold: (text: string) => string,
): LegalTable {
  const seen = new Set<string>();
  const forms = rows
    .map(({ from, to, where }) => ({
      // 'Co., Ltd.' -> 'coltd', matched as c SEP* o SEP* l SEP* t SEP* d: 'CO.,LTD' and
      // 'Co. Ltd.' are the same form.
      from: fold(from).replace(/ +/g, ''),
      to,
      where,
    }))
    .filter((form) => {
      const id = `${form.from}\t${form.where}`;
      if (form.from === '' || seen.has(id)) return false;
      seen.add(id);
      return true;
    })
    .sort((a, b) => b.from.length - a.from.length);
  const fullForm = new Map<string, string>();
  const alternatives = forms.map(({ from, to, where }) => {
    fullForm.set(from.replace(separators, ''), to);
    // 株式会社 -> 株SEP*式SEP*会SEP*社: the form spelled with spaces or dots between its
    // characters is the same form (and the key stays a fixed point: nameKey(nameKey(x))).
    let body = [...from].map(escapeRegExp).join(`${SEP}*`);
    // A Latin form stands as a word: 'inc' in 'Zinc' or 'Incubate' is not a legal form.
    if (/^[a-z0-9]/.test(from)) body = `(?<![a-z0-9])${body}`;
    if (/[a-z0-9]$/.test(from)) body = `${body}(?![a-z0-9])`;
    // The place is checked after the form has matched (a look-behind to the start of the
    // name at every position would cost the name's length each time).
    const atStart = `${body}(?<=^${SEP}*${body})`;
    const atEnd = `${body}(?=${SEP}*$)`;
    if (where === 'start') return atStart;
    if (where === 'end') return atEnd;
    if (where === 'edge') return `${atStart}|${atEnd}`;
    return body;
  });
  return { pattern: new RegExp(alternatives.join('|'), 'gu'), fullForm };
}

function loadTables(): Tables {
  const variants = new Map<string, string>();
  for (const { from, to } of readTable('kanji-variants.tsv', kanjiVariantColumns)) variants.set(from, to);
  const legalRows = readTable('legal-forms.tsv', legalFormColumns);
  const partial = { variants } as Tables;
  const fold = (text: string) => foldChars(text, partial, true);
  const legal = legalTable(legalRows, fold);
  const legalSmallKept = legalTable(legalRows, (text) => foldChars(text, partial, false));
  const branchRows = readTable('branch-words.tsv', branchWordColumns);
  const words = branchRows.map(({ word }) => escapeRegExp(fold(word)));
  const alone = (...kinds: string[]) =>
    branchRows.filter(({ alone }) => kinds.includes(alone)).map(({ word }) => escapeRegExp(fold(word)));
  const glued = alone('glued');
  const separated = alone('glued', 'separated');
  const siteWords = branchRows
    .filter(({ site }) => site === 'yes')
    .map(({ word }) => escapeRegExp(fold(word)));
  const places = readTable('branch-places.tsv', branchPlaceColumns).map(({ place }) =>
    escapeRegExp(fold(place)),
  );
  // what may stand before a branch word in a branch part: a place (and a quarter of it), an
  // ordinal, 営業: '横浜事業所', '大阪北営業所', '第二工場', '営業本部'
  const where = `(?:(?:${places.join('|')})[東西南北中央]?|第?[一二三四五六七八九十〇0-9]+|営業|[東西南北中央])`;
  // after a separator: any branch word with one of those before it, or a word that may stand alone
  const branch = new RegExp(`^(?:${where}(?:${words.join('|')})|(?:${separated.join('|')}))$`, 'u');
  const gluedBranch = new RegExp(`(?:${places.join('|')})?(?:${glued.join('|')})$`, 'u');
  const site = new RegExp(`^[^ ()]{1,5}(?:${siteWords.join('|')})$`, 'u');
  const fullForm = new Map<string, string>();
  for (const { from, to } of legalRows) {
    const nfkc = from.normalize('NFKC');
    if (/^\(\p{Script=Han}+\)$/u.test(nfkc)) fullForm.set(nfkc, to);
  }
  const abbreviations = {
    pattern: new RegExp([...fullForm.keys()].map(escapeRegExp).join('|'), 'gu'),
    fullForm,
  };
  const symbolRows = readTable('symbol-words.tsv', symbolWordColumns);
  const spoken = {
    letters: new Map(readTable('latin-letters.tsv', latinLetterColumns).map((row) => [row.letter, row.name])),
    words: new Map(readTable('loanwords.tsv', loanwordColumns).map((row) => [row.english, row.katakana])),
    symbols: {
      pattern: new RegExp(
        symbolRows.map(({ symbol }) => escapeRegExp(symbol.normalize('NFKC'))).join('|'),
        'gu',
      ),
      word: new Map(symbolRows.map((row) => [row.symbol.normalize('NFKC'), row.katakana])),
    },
  };
  return { variants, legal, legalSmallKept, branch, gluedBranch, abbreviations, site, spoken };
}

/** 'abcd' -> Map { a => b, c => d }: the tables below read as from/to pairs. */
function pairs(text: string): Map<string, string> {
  const chars = [...text];
  const map = new Map<string, string>();
  for (let i = 0; i + 1 < chars.length; i += 2) map.set(chars[i] ?? '', chars[i + 1] ?? '');
  return map;
}

/**
 * Small kana -> large (キャ -> きや, ッ -> つ). ヶ and ヵ, read ka or ga in place names and
 * counters (霞ヶ関, 八ヵ岳), both become け: ヶ = ケ = ヵ. Also the small ㇰ ㇱ ... of Ainu names.
 */
const smallKana = pairs(
  'ぁあぃいぅうぇえぉおっつゃやゅゆょよゎわゕけゖけㇰくㇱしㇲすㇳとㇴぬㇵはㇶひㇷふㇸへㇹほㇺむㇻらㇼりㇽるㇾれㇿろ',
);
/** ヴ followed by a small vowel: ヴァ -> ば, ヴィ -> び; ヴ alone -> ぶ. */
const vuWith = pairs('ぁばぃびぅぶぇべぉぼ');
/** ヷ ヸ ヹ ヺ (va vi ve vo) -> ば び べ ぼ. */
const vaRow = pairs('ヷばヸびヹべヺぼ');

/**
 * Width, case, kana and variant kanji, character by character; separators are kept (as any
 * separator) for the legal-form and branch steps that follow.
 *   'ｶﾌﾞｼｷｶﾞｲｼｬ ヴィレッヂ髙島屋' -> 'かぶしきがいしや びれつぢ高島屋'   (small kana folded)
 *   'キャッシュ' -> 'きゃっしゅ'                                           (small kana kept, for romaji)
 */
function foldChars(text: string, t: Pick<Tables, 'variants'>, foldSmall: boolean): string {
  const s = text
    .replace(ignorable, '')
    .normalize('NFKC')
    .toLowerCase()
    .normalize('NFKC')
    .replace(longVowel, '')
    .replace(toSpace, ' ');
  let out = '';
  for (let i = 0; i < s.length; i++) {
    let c = s[i] ?? '';
    const code = c.charCodeAt(0);
    if (code >= 0xd800 && code <= 0xdbff) {
      c = s.slice(i, i + 2);
      i++;
      out += t.variants.get(c) ?? c;
      continue;
    }
    // Katakana -> hiragana (ア -> あ, ヶ -> ゖ); ヽヾ -> ゝゞ.
    if ((code >= 0x30a1 && code <= 0x30f6) || code === 0x30fd || code === 0x30fe)
      c = String.fromCharCode(code - 0x60);
    if (c === 'ゔ') {
      const next = vuWith.get(s[i + 1] === undefined ? '' : toHiragana(s[i + 1] ?? ''));
      out += next ?? 'ぶ';
      if (next !== undefined) i++;
      continue;
    }
    const va = vaRow.get(c);
    if (va !== undefined) {
      out += va;
      continue;
    }
    out += (foldSmall ? smallKana.get(c) : undefined) ?? t.variants.get(c) ?? c;
  }
  return out;
}

function toHiragana(c: string): string {
  const code = c.charCodeAt(0);
  return code >= 0x30a1 && code <= 0x30f6 ? String.fromCharCode(code - 0x60) : c;
}

/**
 * Drops every legal form the table allows where it stands, replacing it with a separator.
 *   'まるか(株) 東京支店' -> 'まるか  東京支店';  '協同組合まるか' -> ' まるか' (at the start)
 *   '全国農業協同組合連合会' unchanged (協同組合 is dropped only at either end)
 */
function dropLegalForms(text: string, legal: LegalTable, found?: string[]): string {
  return text.replace(legal.pattern, (match) => {
    const full = legal.fullForm.get(match.replace(separators, ''));
    if (found !== undefined && full !== undefined) found.push(full);
    return '\u3000';
  });
}

/**
 * Drops the last part of a name when it is a branch (東京支店, 本社, 第二工場), if it follows a
 * separator or a dropped legal form and a name is left before it; or when it is written
 * straight after the name as a place and a word no registered name ends with
 * (data/names/branch-words.tsv, glued = yes).
 *   'まるか物流  大阪営業所' -> 'まるか物流  ';  'まるか物流大阪営業所' -> 'まるか物流';
 *   'まるか設計事務所' unchanged;  '  本社' unchanged
 */
function dropBranch(text: string, t: Pick<Tables, 'branch' | 'gluedBranch' | 'site'>): string {
  const trimmed = text.replace(trailingSeparators, '');
  const cut = trimmed.search(lastSeparator);
  if (cut >= 0) {
    const head = trimmed.slice(0, cut + 1);
    const part = trimmed.slice(cut + 1);
    // a site needs a separator as written (a space, a dot, an opening bracket), not a dropped
    // legal form: 'まるか(株)物流せんた' keeps its 物流センター
    const written = trimmed[cut] === ' ' || trimmed[cut] === '(';
    if (!onlySeparators.test(head) && (t.branch.test(part) || (written && t.site.test(part)))) return head;
  }
  // glued: 'まるか物流大阪営業所' -> 'まるか物流', with at least two characters of name left
  const glued = trimmed.match(t.gluedBranch);
  if (!glued || glued[0] === '') return text;
  const head = trimmed.slice(0, trimmed.length - glued[0].length);
  return head.replace(separators, '').length >= 2 ? head : text;
}

/**
 * 々 repeats the kanji before it, ゝ the kana before it, ゞ that kana voiced; done last, on the
 * joined key, so the key holds no iteration mark that a second pass would resolve.
 *   '佐々木' -> '佐佐木';  'いすゞ' -> 'いすず'
 */
function resolveIterationMarks(text: string): string {
  if (!/[々ゝゞ]/u.test(text)) return text;
  const chars = [...text];
  for (let i = 1; i < chars.length; i++) {
    const prev = chars[i - 1] ?? '';
    const c = chars[i];
    if (c === '々' && han.test(prev)) chars[i] = prev;
    else if ((c === 'ゝ' || c === 'ゞ') && /^[\u3041-\u3096]$/u.test(prev)) {
      const voiced = `${prev}\u3099`.normalize('NFC');
      chars[i] = c === 'ゞ' && voiced.length === 1 ? voiced : prev;
    }
  }
  return chars.join('');
}

function load(): Tables {
  tables ??= loadTables();
  return tables;
}

/**
 * Forgets the tables read, so the next key reads data/names/ again. For tests: a mutation run
 * (stryker.config.mjs, per-test coverage) credits the code that builds the tables to the one
 * test that first needs them and checks a change to it with that test alone; the name-key
 * test files forget the tables before each test, so every test that keys a name checks them.
 */
export function forgetNameTables(): void {
  tables = undefined;
}

type KeyKind = 'name' | 'spoken' | 'reading' | 'romaji';

/**
 * The shared steps, repeated until nothing changes (a branch dropped can bring a legal form
 * to the end: 'まるか協同組合 本店' -> 'まるか協同組合' -> 'まるか'). Readings have no branch
 * words; romaji keeps small kana (きゃ is kya, not kiya).
 */
/**
 * The key, taken again until it no longer changes (at most 4 times): dropping the separators at
 * the end can bring a legal form to an end of the key, where the next pass drops it
 * ('協同協同組合 協同組合…' -> '協同協同組合' -> '協同'). A key is a fixed point, so a key
 * stored at ingest and one taken from it again at match time agree (test/names/name-key.test.ts).
 */
function keyOf(name: string, t: Tables, kind: KeyKind, found?: string[]): string {
  let key = onePass(name, t, kind, found);
  for (let round = 0; round < 4; round++) {
    const again = onePass(key, t, kind, found);
    if (again === key) break;
    key = again;
  }
  return key;
}

function onePass(name: string, t: Tables, kind: KeyKind, found?: string[]): string {
  const legal = kind === 'romaji' ? t.legalSmallKept : t.legal;
  const named = kind === 'name' || kind === 'spoken';
  let current = foldChars(kind === 'spoken' ? spellOutSymbols(name, t) : name, t, kind !== 'romaji');
  for (let round = 0; round < 4; round++) {
    let next = dropLegalForms(current, legal, found);
    if (named) next = dropLegalForms(dropBranch(next, t), legal, found);
    if (next === current) break;
    current = next;
  }
  if (kind === 'spoken') current = spellOutLatin(current, t);
  const key = resolveIterationMarks(current.replace(separators, ''));
  if (kind === 'spoken') return foldVowelLength(digitsForNumerals(key));
  return named ? digitsForNumerals(key) : key;
}

const kanjiDigits = new Map([...'〇一二三四五六七八九'].map((c, value) => [c, value]));
const kanjiUnits = new Map([
  ['十', 10],
  ['百', 100],
  ['千', 1000],
]);
const kanjiMyriads = new Map([
  ['万', 10_000],
  ['億', 100_000_000],
]);

/**
 * Kanji numerals as digits: each run of 〇一二三四五六七八九十百千 (万 and 億 inside a run) is
 * its value, read positionally or with its units.
 *   '第一物流' -> '第1物流';  '二十一世紀' -> '21世紀';  '二〇二四' -> '2024';  '三万五千' -> '35000'
 * Kanji numerals inside words fold too ('一光' -> '1光', '千代田' -> '1000代田'): both sides of a
 * comparison fold the same way, so a name and its digit spelling meet and nothing else moves.
 */
function digitsForNumerals(key: string): string {
  return key.replace(/[〇一二三四五六七八九十百千][〇一二三四五六七八九十百千万億]*/gu, (run) => {
    let total = 0;
    let section = 0;
    let digits = 0;
    let pending = false;
    for (const c of run) {
      const digit = kanjiDigits.get(c);
      if (digit !== undefined) {
        digits = digits * 10 + digit;
        pending = true;
        continue;
      }
      const unit = kanjiUnits.get(c);
      if (unit !== undefined) {
        section += (pending ? digits : 1) * unit;
      } else {
        total += (section + (pending ? digits : 0) || 1) * (kanjiMyriads.get(c) as number);
        section = 0;
      }
      digits = 0;
      pending = false;
    }
    return String(total + section + (pending ? digits : 0));
  });
}

/** The symbols a name also spells out (& -> アンド), as words between separators. */
function spellOutSymbols(name: string, t: Tables): string {
  const { pattern, word } = t.spoken.symbols;
  return name.normalize('NFKC').replace(pattern, (symbol) => ` ${word.get(symbol) ?? ''} `);
}

/**
 * The Latin words of a folded name in katakana (as hiragana, like the rest of the key): a word
 * of data/names/loanwords.tsv as its katakana, a run made only of such words as those words, any
 * other run letter by letter (data/names/latin-letters.tsv); digits stay.
 *   'abc technologies' -> 'えーびーしー てくのろじーず' (before the key's later folds)
 */
function spellOutLatin(text: string, t: Tables): string {
  return text.replace(/[a-z]+/g, (run) => {
    const words = loanwordsOf(run, t.spoken.words);
    const spelled = words ?? [...run].map((letter) => t.spoken.letters.get(letter) ?? letter);
    return foldChars(spelled.join(''), t, true);
  });
}

/** The run as a sequence of listed words (longest first), or undefined when it is not one. */
function loanwordsOf(run: string, words: Map<string, string>): string[] | undefined {
  const whole = words.get(run);
  if (whole !== undefined) return [whole];
  for (let end = run.length - 1; end >= 2; end--) {
    const head = words.get(run.slice(0, end));
    if (head === undefined) continue;
    const rest = loanwordsOf(run.slice(end), words);
    if (rest) return [head, ...rest];
  }
  return undefined;
}

/** The vowel of each hiragana (small ones already folded to large), for the vowel-length fold. */
const vowelOf = new Map<string, string>();
for (const [vowel, row] of [
  ['a', 'あかさたなはまやらわがざだばぱ'],
  ['i', 'いきしちにひみりぎじぢびぴ'],
  ['u', 'うくすつぬふむゆるぐずづぶぷ'],
  ['e', 'えけせてねへめれげぜでべぺ'],
  ['o', 'おこそとのほもよろをごぞどぼぽ'],
] as const)
  for (const c of row) vowelOf.set(c, vowel);
/** The vowel kana that lengthen a kana of each vowel: ああ, いい, うう, えい / ええ, おう / おお. */
const lengthens: Record<string, string> = { a: 'あ', i: 'い', u: 'う', e: 'えい', o: 'おう' };

/**
 * A long vowel written with a vowel kana is one vowel: 'けい' = 'け' (ケイ, ケー), 'こう' = 'こ'
 * (コウ, コー), 'びい' = 'び' (ビイ, ビー); the long-vowel mark is already gone. For the spoken
 * key only: it joins the usual variants of letter names and loanwords, and would join names
 * the name key keeps apart.
 */
function foldVowelLength(key: string): string {
  let out = '';
  let last = '';
  for (const c of key) {
    const vowel = vowelOf.get(last);
    if (vowel !== undefined && lengthens[vowel]?.includes(c)) continue;
    out += c;
    last = c;
  }
  return out;
}

/**
 * The name with width folded (NFKC) and old or variant kanji replaced by their common form,
 * nothing else: '髙島屋㈱' -> '高島屋(株)'. For the reading analyser, whose dictionary knows the
 * common forms.
 */
export function commonKanji(name: string): string {
  const { variants } = load();
  let out = '';
  for (const c of name.normalize('NFKC')) out += variants.get(c) ?? c;
  return out;
}

/**
 * The name (NFKC) with its bracketed legal-form abbreviations written out:
 * '㈱マルカ（有）' -> '株式会社マルカ有限会社'. For the reading analyser, which would read (株) as カブ.
 */
export function spellOutLegalForms(name: string): string {
  const { abbreviations } = load();
  return name
    .normalize('NFKC')
    .replace(abbreviations.pattern, (match) => abbreviations.fullForm.get(match) ?? match);
}

/** The key of a company name as written; '' when nothing is left (株式会社 alone). */
export function nameKey(name: string): string {
  return keyOf(name, load(), 'name');
}

/**
 * The name as it is said: the name key with its Latin letters and words, and the symbols it
 * spells out, in kana (data/names/latin-letters.tsv, loanwords.tsv, symbol-words.tsv), and long
 * vowels written with a vowel kana folded. Looser than the name key: two spellings with one
 * spoken key are probably one name, and the judge weighs them so.
 *   spokenKey('ABC Technologies Inc.') === spokenKey('エービーシー・テクノロジーズ㈱') === 'えびしてくのろじず'
 *   spokenKey('K&S') === spokenKey('ケイ・アンド・エス')
 */
export function spokenKey(name: string): string {
  return keyOf(name, load(), 'spoken');
}

/**
 * The full legal forms a name carries, in the order found (what nameKey drops); the match
 * endpoint can tell 株式会社マルカ from 有限会社マルカ by them.
 *   legalForms('㈲マルカ 本店') -> ['有限会社']
 */
export function legalForms(name: string): string[] {
  return nameKeyAndForms(name).forms;
}

/**
 * The name key and the legal forms it drops, from one folding of the name (a match record
 * needs both: nameKey and legalForms each fold it anew).
 *   nameKeyAndForms('㈲マルカ 本店') -> {key: 'まるか', forms: ['有限会社']}
 */
export function nameKeyAndForms(name: string): { key: string; forms: string[] } {
  const found: string[] = [];
  const key = keyOf(name, load(), 'name', found);
  return { key, forms: [...new Set(found)] };
}

/** The key of a reading (furigana) in kana; '' when nothing is left. */
export function readingKey(reading: string): string {
  return keyOf(reading, load(), 'reading');
}

/**
 * Romaji as people type it, folded to one spelling:
 *   macrons and long vowels (ō, ou, oo, oh -> o; ū, uu -> u), Hepburn and Nihon-shiki
 *   (shi/si, chi/ti, tsu/tu, fu/hu, ji/zi, sha/sya, cha/tya, ja/zya/jya), ん written m before
 *   b/m/p, n' and nn, and double consonants (tch, kk, pp) are all one.
 *   'Shimbashi Butsuryū', 'shinbashi butsuryuu', 'SINBASI BUTURYU' -> 'sinbasibuturyu'
 */
function foldRomaji(latin: string): string {
  return (
    latin
      .normalize('NFD')
      .replace(/\p{M}/gu, '')
      .toLowerCase()
      .replace(/[^a-z0-9]/g, '')
      .replace(/oh(?![aiueoy])/g, 'o')
      .replace(/[tc]ch/g, 'ch')
      .replace(/sh/g, 'sy')
      .replace(/ch|cy/g, 'ty')
      .replace(/ts/g, 't')
      .replace(/jy?/g, 'zy')
      .replace(/([stz])yi/g, '$1i')
      .replace(/fu/g, 'hu')
      // ヴ is keyed as バ行 (ヴィーナス -> びなす), so a typed v is a b
      .replace(/v/g, 'b')
      .replace(/m(?=[bmp])/g, 'n')
      .replace(/ou/g, 'o')
      .replace(/([aiueo])\1+/g, '$1')
      .replace(/([b-df-hj-np-tv-z])\1+/g, '$1')
  );
}

const kanaOnly = /^[\u3041-\u3096\u309d\u309e]*$/u;
/**
 * Loan-word sounds as people type them (wanakana writes ディ as 'dei', フォ as 'fuo'):
 * 'トレーディング' is typed 'toredingu', 'ビューティー' 'byuti', 'リフォーム' 'rifomu'.
 */
const loanSounds = {
  てぃ: 'ti',
  でぃ: 'di',
  とぅ: 'tu',
  どぅ: 'du',
  てゅ: 'tyu',
  でゅ: 'dyu',
  ふぁ: 'fa',
  ふぃ: 'fi',
  ふぇ: 'fe',
  ふぉ: 'fo',
  うぃ: 'wi',
  うぇ: 'we',
  うぉ: 'wo',
  しぇ: 'she',
  ちぇ: 'che',
  じぇ: 'je',
};
/** Latin letters (with or without diacritics: Tōkyō) and digits, at least one letter. */
const latinOnly = /^[\p{Script=Latin}0-9]*\p{Script=Latin}[\p{Script=Latin}0-9]*$/u;

/**
 * The romaji key of a reading in kana, or of a name typed in Latin letters ('' when it has
 * none): legal forms dropped, kana romanised (Hepburn, by wanakana), then the spellings people
 * type folded to one.
 *   romajiKey('マルカブツリュウ') === romajiKey('Maruka Butsuryu') === romajiKey('MARUKA BUTURYU')
 */
export function romajiKey(reading: string): string {
  const folded = keyOf(reading, load(), 'romaji');
  if (kanaOnly.test(folded)) return foldRomaji(toRomaji(folded, { customRomajiMapping: loanSounds }));
  if (latinOnly.test(folded)) return foldRomaji(folded);
  return '';
}

/**
 * The keys a name typed by a user may be compared on: always its name key; its reading key
 * when it is written in kana; its romaji key when it is written in Latin letters (a Latin name
 * such as "Sony Group" may also be a registered name: the name key keeps it too). `name`: the
 * text's name key, when the caller has it already.
 */
export function queryKeys(
  text: string,
  name = nameKey(text),
): { name: string; reading?: string; romaji?: string } {
  if (name !== '' && kanaOnly.test(name)) return { name, reading: readingKey(text) };
  if (latinOnly.test(name)) {
    const romaji = romajiKey(text);
    return romaji === '' ? { name } : { name, romaji };
  }
  return { name };
}
