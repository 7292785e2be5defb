/**
 * Labelled test records for company-name matching (`POST /rest/v1/corporates/match`): from
 * sample companies, records that spell a company's name another way, one class of spelling
 * at a time, each labelled with the corporate number a confident match must name, or null
 * when no confident match is right.
 *
 * The label follows the endpoint's contract: a record matches when its name, folded, equals a
 * company's name (or reading, or romaji of the reading), folded, and exactly one such company
 * is left after the record's evidence (prefecture, telephone, web site). Folding here is this
 * file's own reference (`referenceKey`, `romajiKey`), written from the classes below and
 * independent of src/names/keys.ts: the labels must not inherit the product's mistakes.
 * The kana tables are Unicode's own layout (hiragana = katakana - 0x60) and the Hepburn and
 * Kunrei-shiki romanizations as taught; the half-width forms come from the sample generator.
 *
 * Pure and deterministic: the same companies and seed give the same records.
 */
import { Random, toFullWidth, toHalfWidthKana } from '../sample-data/index.js';
import type { CrmClass } from './names/classes.js';

export interface SampleCompany {
  corporateNumber: string;
  name: string;
  furigana?: string | null;
  prefectureId?: number | null;
  phoneNumber?: string | null;
  websiteUrl?: string | null;
}

/** One record of a match request, as the contract spells it. */
export interface MatchRecord {
  name: string;
  prefectureId?: number;
  phoneNumber?: string;
  websiteUrl?: string;
  /** the corporate number as the list writes it (separators, full-width digits, ...) */
  corporateNumber?: string;
}

export const spellingClasses = [
  'legal-form-moved',
  'legal-form-abbreviated',
  'legal-form-dropped',
  'width',
  'hiragana',
  'small-kana-large',
  'vu-as-b',
  'long-vowel',
  'separators',
  'old-new-kanji',
  'repeat-mark-written-out',
  'branch-word',
  'reading-only',
  'romaji',
] as const;

export const nearMissClasses = [
  'one-character-changed',
  'same-prefix',
  'generic-name',
  'namesakes-same-prefecture',
  'namesakes-no-evidence',
  'namesakes-right-prefecture',
] as const;

export type VariantClass = (typeof spellingClasses)[number] | (typeof nearMissClasses)[number] | CrmClass;

export interface LabelledRecord {
  kind: VariantClass;
  record: MatchRecord;
  /** the corporate number a confident match must name; null: no confident match is right */
  expected: string | null;
  /** the company the record was written from (null for a generic name) */
  from: string | null;
  /**
   * false: a person could not be sure (a word missing, a typo): a confident match to `expected`
   * is acceptable but not required, a confident match to any other company is wrong. Absent or
   * true: the label is definite (`expected`, or no confident match when it is null).
   */
  certain?: boolean;
}

// ---------------------------------------------------------------------------------------------
// tables

/** Legal forms as written, with their short and half-width spellings. */
const legalForms: ReadonlyArray<{ word: string; reading: string; short: readonly string[] }> = [
  { word: '株式会社', reading: 'カブシキガイシャ', short: ['㈱', '(株)', '（株）', 'ｶﾌﾞｼｷｶﾞｲｼｬ'] },
  { word: '有限会社', reading: 'ユウゲンガイシャ', short: ['㈲', '(有)', '（有）', 'ﾕｳｹﾞﾝｶﾞｲｼｬ'] },
  { word: '合同会社', reading: 'ゴウドウガイシャ', short: ['(同)', '（同）', 'ｺﾞｳﾄﾞｳｶﾞｲｼｬ'] },
  { word: '合名会社', reading: 'ゴウメイガイシャ', short: ['(名)', 'ｺﾞｳﾒｲｶﾞｲｼｬ'] },
  { word: '合資会社', reading: 'ゴウシガイシャ', short: ['(資)', 'ｺﾞｳｼｶﾞｲｼｬ'] },
];

/** Forms of other bodies: folded away as the company forms are, never moved or shortened here. */
const otherForms: ReadonlyArray<readonly [string, string]> = [
  ['一般社団法人', 'イッパンシャダンホウジン'],
  ['一般財団法人', 'イッパンザイダンホウジン'],
  ['特定非営利活動法人', 'トクテイヒエイリカツドウホウジン'],
  ['医療法人社団', 'イリョウホウジンシャダン'],
  ['社会福祉法人', 'シャカイフクシホウジン'],
  ['学校法人', 'ガッコウホウジン'],
  ['独立行政法人', 'ドクリツギョウセイホウジン'],
];

/** [new, old] kanji: registers keep the old or variant form a company was named with. */
const kanjiPairs: ReadonlyArray<readonly [string, string]> = [
  ['高', '髙'],
  ['崎', '﨑'],
  ['斎', '齋'],
  ['辺', '邊'],
  ['沢', '澤'],
  ['広', '廣'],
  ['徳', '德'],
  ['浜', '濱'],
  ['国', '國'],
  ['会', '會'],
];

const smallKana = 'ァィゥェォッャュョヮヵヶ';
const largeKana = 'アイウエオツヤユヨワカケ';
/** ヴ with the vowel after it, and how it is written with バ行 */
const vuSpellings: ReadonlyArray<readonly [string, string]> = [
  ['ヴァ', 'バ'],
  ['ヴィ', 'ビ'],
  ['ヴェ', 'ベ'],
  ['ヴォ', 'ボ'],
  ['ヴ', 'ブ'],
];
const longVowelMarks = ['', 'ｰ', '－'];
const branchWords = ['東京支店', '本社', '大阪営業所', ' 名古屋支店'];
const branchPattern =
  /(東京|大阪|名古屋|横浜|札幌|福岡|仙台|広島|京都|神戸)?(支店|営業所|本社|本店|支社|出張所)$/;
const genericNames = [
  '株式会社',
  '有限会社',
  '日本',
  '株式会社日本',
  '総合サービス',
  '株式会社システム',
  'ホールディングス株式会社',
  '株式会社東京',
];
/** kana a changed character is drawn from: none of them folds into another */
const plainKana = 'アイウエオカキクケコサシスセソタチテトナニヌネノハヒフヘホマミムメモヤユヨラリルレロワ';
const plainKanji = '東西南北山川田中本木林森';

/** Hepburn (as passports and signs write it) of each katakana and digraph. */
// biome-ignore format: a table reads as a table
const hepburn: Record<string, string> = {
  ア: 'a', イ: 'i', ウ: 'u', エ: 'e', オ: 'o',
  カ: 'ka', キ: 'ki', ク: 'ku', ケ: 'ke', コ: 'ko',
  サ: 'sa', シ: 'shi', ス: 'su', セ: 'se', ソ: 'so',
  タ: 'ta', チ: 'chi', ツ: 'tsu', テ: 'te', ト: 'to',
  ナ: 'na', ニ: 'ni', ヌ: 'nu', ネ: 'ne', ノ: 'no',
  ハ: 'ha', ヒ: 'hi', フ: 'fu', ヘ: 'he', ホ: 'ho',
  マ: 'ma', ミ: 'mi', ム: 'mu', メ: 'me', モ: 'mo',
  ヤ: 'ya', ユ: 'yu', ヨ: 'yo',
  ラ: 'ra', リ: 'ri', ル: 'ru', レ: 're', ロ: 'ro',
  ワ: 'wa', ヲ: 'o', ン: 'n',
  ガ: 'ga', ギ: 'gi', グ: 'gu', ゲ: 'ge', ゴ: 'go',
  ザ: 'za', ジ: 'ji', ズ: 'zu', ゼ: 'ze', ゾ: 'zo',
  ダ: 'da', ヂ: 'ji', ヅ: 'zu', デ: 'de', ド: 'do',
  バ: 'ba', ビ: 'bi', ブ: 'bu', ベ: 'be', ボ: 'bo',
  パ: 'pa', ピ: 'pi', プ: 'pu', ペ: 'pe', ポ: 'po',
  ヴ: 'vu', ァ: 'a', ィ: 'i', ゥ: 'u', ェ: 'e', ォ: 'o', ャ: 'ya', ュ: 'yu', ョ: 'yo',
  キャ: 'kya', キュ: 'kyu', キョ: 'kyo', シャ: 'sha', シュ: 'shu', ショ: 'sho',
  チャ: 'cha', チュ: 'chu', チョ: 'cho', ニャ: 'nya', ニュ: 'nyu', ニョ: 'nyo',
  ヒャ: 'hya', ヒュ: 'hyu', ヒョ: 'hyo', ミャ: 'mya', ミュ: 'myu', ミョ: 'myo',
  リャ: 'rya', リュ: 'ryu', リョ: 'ryo', ギャ: 'gya', ギュ: 'gyu', ギョ: 'gyo',
  ジャ: 'ja', ジュ: 'ju', ジョ: 'jo', ビャ: 'bya', ビュ: 'byu', ビョ: 'byo',
  ピャ: 'pya', ピュ: 'pyu', ピョ: 'pyo',
  シェ: 'she', ジェ: 'je', チェ: 'che', ティ: 'ti', ディ: 'di', デュ: 'dyu',
  ファ: 'fa', フィ: 'fi', フェ: 'fe', フォ: 'fo', ウィ: 'wi', ウェ: 'we', ウォ: 'wo',
  ヴァ: 'va', ヴィ: 'vi', ヴェ: 've', ヴォ: 'vo',
};

/** Where Kunrei-shiki (as typed by many) differs from Hepburn. */
// biome-ignore format: a table reads as a table
const kunrei: Record<string, string> = {
  シ: 'si', チ: 'ti', ツ: 'tu', フ: 'hu', ジ: 'zi', ヂ: 'zi',
  シャ: 'sya', シュ: 'syu', ショ: 'syo', チャ: 'tya', チュ: 'tyu', チョ: 'tyo',
  ジャ: 'zya', ジュ: 'zyu', ジョ: 'zyo', シェ: 'sye', ジェ: 'zye', チェ: 'tye',
};

export type RomajiStyle = 'hepburn' | 'ou' | 'oo' | 'kunrei';
export const romajiStyles: readonly RomajiStyle[] = ['hepburn', 'ou', 'oo', 'kunrei'];

// ---------------------------------------------------------------------------------------------
// folding: what "the same name" means for the labels

const toKatakana = (text: string) =>
  text.replace(/[\u3041-\u3096]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 0x60));
const toHiragana = (text: string) =>
  text.replace(/[\u30a1-\u30f6]/g, (c) => String.fromCharCode(c.charCodeAt(0) - 0x60));
const escapeParens = (text: string) => text.replace(/[()]/g, '\\$&');
const formWords = [
  // (the half-width spellings fold to the readings)
  ...legalForms.flatMap((f) => [f.word, f.reading, ...f.short.map((short) => short.normalize('NFKC'))]),
  ...otherForms.flat(),
]
  .map(escapeParens)
  .join('|');
const leadingForm = new RegExp(`^(${formWords})`);
const trailingForm = new RegExp(`(${formWords})$`);

/**
 * The reference fold of a name or a reading: width, case, hiragana, spaces and separators,
 * branch words, legal forms (either end, any spelling), 々, old kanji, ヴ, small kana and
 * long-vowel marks. '' when nothing is left.
 *
 *   referenceKey('㈱ ヴィーナス・ラボ東京支店') === referenceKey('びーなすらぼ株式会社') === 'ビナスラボ'
 */
export function referenceKey(text: string): string {
  let key = toKatakana(text.normalize('NFKC').toLowerCase()).replace(/[\s・]/g, '');
  // before the legal forms: 株式會社 is 株式会社
  key = key.replace(/(.)々/g, '$1$1');
  for (const [modern, old] of kanjiPairs) key = key.replaceAll(old, modern);
  key = key.replace(branchPattern, '').replace(leadingForm, '').replace(trailingForm, '');
  for (const [vu, b] of vuSpellings) key = key.replaceAll(vu, b);
  key = key.replace(/[ァィゥェォッャュョヮヵヶ]/g, (c) => largeKana[smallKana.indexOf(c)] as string);
  return key.replace(/[ー\-‐−～〜.,'’&]/g, '');
}

/** A reading without the reading of its legal form at either end. */
export function readingCore(reading: string): string {
  const forms = [...legalForms.map((f) => f.reading), ...otherForms.map(([, r]) => r)].join('|');
  return reading.replace(new RegExp(`^(${forms})|(${forms})$`, 'g'), '');
}

/** Katakana in romaji of one style; long-vowel marks are dropped. */
export function kanaToRomaji(kana: string, style: RomajiStyle): string {
  const table = (part: string) => (style === 'kunrei' ? (kunrei[part] ?? hepburn[part]) : hepburn[part]);
  let out = '';
  let doubled = false;
  for (let i = 0; i < kana.length; i++) {
    const pair = kana.slice(i, i + 2);
    const char = kana[i] as string;
    if (char === 'ッ') {
      doubled = true;
      continue;
    }
    let syllable = pair.length === 2 ? table(pair) : undefined;
    if (syllable) i++;
    else syllable = table(char) ?? (char === 'ー' ? '' : char);
    // ッチ: tchi in Hepburn, tti in Kunrei-shiki
    if (doubled && syllable) out += style !== 'kunrei' && syllable.startsWith('ch') ? 't' : syllable[0];
    doubled = false;
    out += syllable;
  }
  if (style === 'hepburn') return out.replace(/ou|oo/g, 'o').replace(/uu/g, 'u');
  if (style === 'oo') return out.replace(/ou/g, 'oo');
  return out;
}

/** The reference fold of romaji: one spelling for si/shi, tu/tsu, ti/chi, hu/fu, zi/ji, ou/oo/o. */
export function romajiKey(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^a-z]/g, '')
    .replace(/shi/g, 'si')
    .replace(/sh/g, 'sy')
    .replace(/chi/g, 'ti')
    .replace(/ch/g, 'ty')
    .replace(/tsu/g, 'tu')
    .replace(/fu/g, 'hu')
    .replace(/ji/g, 'zi')
    .replace(/j/g, 'zy')
    .replace(/ou|oo/g, 'o')
    .replace(/uu/g, 'u');
}

const isKana = (text: string) => /^[\u3041-\u3096\u30a1-\u30fc・\s]+$/.test(text.normalize('NFKC'));
const isLatin = (text: string) => /^[A-Za-z][A-Za-z\s.,'&-]*$/.test(text.normalize('NFKC'));
const digits = (text: string) => text.replace(/\D/g, '');
const host = (url: string) =>
  url
    .toLowerCase()
    .replace(/^https?:\/\//, '')
    .replace(/^www\./, '')
    .replace(/\/.*$/, '');

/** The companies a record's name folds to, and the label its evidence leaves. */
export class ReferenceIndex {
  private readonly byName = new Map<string, SampleCompany[]>();
  private readonly byReading = new Map<string, SampleCompany[]>();
  private readonly byRomaji = new Map<string, SampleCompany[]>();

  constructor(companies: readonly SampleCompany[]) {
    const add = (map: Map<string, SampleCompany[]>, key: string, company: SampleCompany) => {
      if (!key) return;
      const list = map.get(key);
      if (list) list.push(company);
      else map.set(key, [company]);
    };
    for (const company of companies) {
      add(this.byName, referenceKey(company.name), company);
      if (company.furigana) {
        add(this.byReading, referenceKey(company.furigana), company);
        add(this.byRomaji, romajiKey(kanaToRomaji(readingCore(company.furigana), 'hepburn')), company);
      }
    }
  }

  /** Companies whose name, reading or romaji folds to the record's name. */
  candidates(name: string): SampleCompany[] {
    const found = new Map<string, SampleCompany>();
    const key = referenceKey(name);
    for (const company of this.byName.get(key) ?? []) found.set(company.corporateNumber, company);
    if (isKana(name))
      for (const company of this.byReading.get(key) ?? []) found.set(company.corporateNumber, company);
    if (isLatin(name))
      for (const company of this.byRomaji.get(romajiKey(name)) ?? [])
        found.set(company.corporateNumber, company);
    return [...found.values()];
  }

  /**
   * The right confident match of a record by the contract: the one company left, or null. A
   * legal form in the record rules out the companies of another kind of body (docs/api.md: a
   * 学校法人 is not a 株式会社 of the same core name; the business forms are one kind), and
   * among the companies left the ones of its very form, if any, are the ones left.
   */
  expected(record: MatchRecord): string | null {
    const kind = bodyKind(record.name);
    const left = this.candidates(record.name).filter(
      (company) =>
        (kind === undefined || bodyKind(company.name) === undefined || bodyKind(company.name) === kind) &&
        (record.prefectureId === undefined || company.prefectureId === record.prefectureId) &&
        (record.phoneNumber === undefined ||
          digits(company.phoneNumber ?? '') === digits(record.phoneNumber)) &&
        (record.websiteUrl === undefined || host(company.websiteUrl ?? '') === host(record.websiteUrl)),
    );
    // among those left, the record's very legal form singles its company out (株式会社X beside
    // 有限会社X); a business form of its own does not rule the others out
    const form = formOf(record.name);
    const exact = form === undefined ? [] : left.filter((company) => formOf(company.name) === form);
    const decided = exact.length > 0 ? exact : left;
    return decided.length === 1 ? (decided[0] as SampleCompany).corporateNumber : null;
  }

  /** Groups of two or more companies whose names fold alike. */
  namesakes(): SampleCompany[][] {
    return [...this.byName.values()].filter((list) => list.length > 1);
  }
}

// ---------------------------------------------------------------------------------------------
// the classes of spelling: each returns the name written another way, or null when the class
// does not apply to the name (nothing to change)

interface FormSplit {
  form: (typeof legalForms)[number];
  written: string;
  core: string;
  front: boolean;
}

/**
 * The kind of body a name's legal form says: 'company' for the business forms of legalForms
 * (株式会社, 有限会社, ...), the form itself for the others (学校法人, 一般社団法人, ...),
 * undefined for a name without one. Old kanji read as the common ones (株式會社).
 */
export function bodyKind(name: string): string | undefined {
  // a branch written after the name (朝日ストア株式会社東京支店) leaves the form before it
  const text = name.normalize('NFKC').replace(/會/g, '会').replace(branchPattern, '');
  const other = otherForms.find(([word]) => text.includes(word));
  if (other) return other[0];
  return splitForm(text) ? 'company' : undefined;
}

/** The legal form a name carries (株式会社 for ㈱ too, 学校法人, ...), or undefined. */
export function formOf(name: string): string | undefined {
  const text = name.normalize('NFKC').replace(/會/g, '会').replace(branchPattern, '');
  const other = otherForms.find(([word]) => text.includes(word));
  return other ? other[0] : (splitForm(text)?.form.word ?? formRead(text));
}

/**
 * The company form a name writes as its reading at either end (NFKC makes ｶﾌﾞｼｷｶﾞｲｼｬ the
 * table's カブシキガイシャ, which splitForm does not list).
 */
function formRead(text: string): string | undefined {
  return legalForms.find(
    ({ reading }) => text.length > reading.length && (text.startsWith(reading) || text.endsWith(reading)),
  )?.word;
}

/** The company legal form at either end of a name, as written (株式会社, ㈱, (株), ...). */
export function splitForm(name: string): FormSplit | null {
  for (const form of legalForms)
    for (const written of [form.word, ...form.short]) {
      if (name.startsWith(written) && name.length > written.length)
        return { form, written, core: name.slice(written.length), front: true };
      if (name.endsWith(written) && name.length > written.length)
        return { form, written, core: name.slice(0, -written.length), front: false };
    }
  return null;
}

const nth = <T>(list: readonly T[], n: number) => list[n % list.length] as T;

function halfToFullKana(text: string): string {
  return text.replace(/[\uff61-\uff9f]+/g, (run) => run.normalize('NFKC'));
}

function fullToHalfLatin(text: string): string {
  return text.replace(/[\uff01-\uff5e]/g, (c) => String.fromCharCode(c.charCodeAt(0) - 0xfee0));
}

type Writer = (company: SampleCompany, n: number) => string | null;

const writers: Record<(typeof spellingClasses)[number], Writer> = {
  'legal-form-moved': ({ name }) => {
    const split = splitForm(name);
    if (!split) return null;
    return split.front ? `${split.core}${split.written}` : `${split.written}${split.core}`;
  },
  'legal-form-abbreviated': ({ name }, n) => {
    const split = splitForm(name);
    if (!split) return null;
    const written = split.written === split.form.word ? nth(split.form.short, n) : split.form.word;
    return split.front ? `${written}${split.core}` : `${split.core}${written}`;
  },
  'legal-form-dropped': ({ name }) => splitForm(name)?.core ?? null,
  width: ({ name }) => {
    if (/[\uff21-\uff3a\uff41-\uff5a]/.test(name)) return fullToHalfLatin(name);
    if (/[A-Za-z]/.test(name)) return toFullWidth(name);
    if (/[\uff61-\uff9f]/.test(name)) return halfToFullKana(name);
    if (/[\u30a1-\u30fc]/.test(name)) return toHalfWidthKana(name);
    return null;
  },
  hiragana: ({ name }) => {
    if (/[\u30a1-\u30f6]/.test(name)) return toHiragana(name);
    if (/[\u3041-\u3096]/.test(name)) return toKatakana(name);
    return null;
  },
  'small-kana-large': ({ name }) => {
    // not after ヴ: ヴイ is read ブイ, not ビ, so ヴィーナス written ヴイーナス is another name
    const small = /(?<!ヴ)[ァィゥェォッャュョヮヵヶ]/g;
    if (!small.test(name)) return null;
    return name.replace(small, (c) => largeKana[smallKana.indexOf(c)] as string);
  },
  'vu-as-b': ({ name }) => {
    if (!name.includes('ヴ')) return null;
    let out = name;
    for (const [vu, b] of vuSpellings) out = out.replaceAll(vu, b);
    return out;
  },
  'long-vowel': ({ name }, n) => (name.includes('ー') ? name.replaceAll('ー', nth(longVowelMarks, n)) : null),
  separators: ({ name }, n) => {
    if (/[・\s]/.test(name)) return name.replace(/[・\s]/g, '');
    const split = splitForm(name);
    const style = n % 3;
    if (split && style < 2) {
      const gap = style === 0 ? ' ' : '　';
      return split.front ? `${split.written}${gap}${split.core}` : `${split.core}${gap}${split.written}`;
    }
    const core = split?.core ?? name;
    if (core.length < 2) return null;
    const at = Math.ceil(core.length / 2);
    const dotted = `${core.slice(0, at)}・${core.slice(at)}`;
    return split ? name.replace(core, dotted) : dotted;
  },
  'old-new-kanji': ({ name }) => {
    const old = kanjiPairs.filter(([, o]) => name.includes(o));
    if (old.length > 0) return old.reduce((text, [modern, o]) => text.replaceAll(o, modern), name);
    // the name's own kanji first; only a name with none gets 株式會社
    const core = splitForm(name)?.core ?? name;
    const modern = kanjiPairs.find(([m]) => core.includes(m)) ?? kanjiPairs.find(([m]) => name.includes(m));
    if (!modern) return null;
    return core.includes(modern[0])
      ? name.replace(core, core.replace(modern[0], modern[1]))
      : name.replace(modern[0], modern[1]);
  },
  'repeat-mark-written-out': ({ name }) => (name.includes('々') ? name.replace(/(.)々/g, '$1$1') : null),
  'branch-word': ({ name }, n) => `${name}${nth(branchWords, n)}`,
  'reading-only': ({ furigana }, n) => {
    if (!furigana) return null;
    return [furigana, readingCore(furigana), toHiragana(furigana)][n % 3] as string;
  },
  romaji: ({ furigana }, n) => {
    if (!furigana) return null;
    const romaji = kanaToRomaji(readingCore(furigana), nth(romajiStyles, n));
    if (!/^[a-z]+$/.test(romaji)) return null;
    return `${romaji[0]?.toUpperCase()}${romaji.slice(1)}`;
  },
};

/** The name of `company` written as `kind` writes it (`n` turns through the ways of writing it), or null. */
export function writeVariant(
  kind: (typeof spellingClasses)[number],
  company: SampleCompany,
  n: number,
): string | null {
  return writers[kind](company, n);
}

/** One character of the name (not of its legal form) changed to one that does not fold into it. */
function oneCharacterChanged(company: SampleCompany, n: number): string | null {
  const split = splitForm(company.name);
  const core = split?.core ?? company.name;
  const key = referenceKey(company.name);
  for (let step = 0; step < core.length; step++) {
    const at = (n + step) % core.length;
    const char = core[at] as string;
    const pool = /[\u4e00-\u9fff]/.test(char) ? plainKanji : /[\u30a1-\u30f6]/.test(char) ? plainKana : null;
    if (!pool) continue;
    const other = pool[
      (pool.indexOf(char) + 1 + (n % (pool.length - 1)) + pool.length) % pool.length
    ] as string;
    if (other === char) continue;
    const changed = `${core.slice(0, at)}${other}${core.slice(at + 1)}`;
    const name = split ? company.name.replace(core, changed) : changed;
    if (referenceKey(name) !== key) return name;
  }
  return null;
}

/** A longer or shorter name that starts as this company's does. */
function samePrefix(company: SampleCompany, n: number): string | null {
  const split = splitForm(company.name);
  const core = split?.core ?? company.name;
  const changed =
    n % 2 === 0 ? `${core}${nth(['ホールディングス', '工業', 'サービス'], n >> 1)}` : core.slice(0, -2);
  if (changed.length < 2) return null;
  return split ? company.name.replace(core, changed) : changed;
}

// ---------------------------------------------------------------------------------------------

export interface VariantOptions {
  seed: number;
  /** records per class (fewer where fewer companies fit the class) */
  perClass: number;
  /** the companies records are written from (default: all of them); the labels look at all */
  sources?: readonly SampleCompany[];
}

function shuffled<T>(items: readonly T[], random: Random): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = random.int(0, i);
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

/**
 * A record spelling `company` as `name`, with the least evidence that tells the company apart:
 * none, its prefecture, then its telephone number, then its web site. Where none of them
 * does, the first (name and prefecture), labelled as the reference index labels it.
 */
function withEvidence(
  index: ReferenceIndex,
  company: SampleCompany,
  name: string,
  n: number,
): { record: MatchRecord; expected: string | null } {
  // one in four with no evidence at all where the name alone is enough
  if (n % 4 === 3 && index.expected({ name }) === company.corporateNumber)
    return { record: { name }, expected: company.corporateNumber };
  const prefecture = company.prefectureId != null ? { prefectureId: company.prefectureId } : {};
  const steps: MatchRecord[] = [{ name, ...prefecture }];
  if (company.phoneNumber) steps.push({ name, ...prefecture, phoneNumber: company.phoneNumber });
  if (company.websiteUrl)
    steps.push({
      name,
      ...prefecture,
      ...(company.phoneNumber ? { phoneNumber: company.phoneNumber } : {}),
      websiteUrl: company.websiteUrl,
    });
  for (const record of steps)
    if (index.expected(record) === company.corporateNumber)
      return { record, expected: company.corporateNumber };
  const record = steps[0] as MatchRecord;
  return { record, expected: index.expected(record) };
}

/** What every class's records are drawn with: one random sequence, one reference index. */
interface VariantDraw {
  companies: readonly SampleCompany[];
  random: Random;
  index: ReferenceIndex;
  perClass: number;
}

/**
 * Up to `perClass` records of one class, from the companies in a fresh shuffle: a positive
 * class's name with evidence (withEvidence), a negative class's with its prefecture only.
 */
function takeClass(
  draw: VariantDraw,
  kind: VariantClass,
  write: Writer,
  positive: boolean,
): LabelledRecord[] {
  const { companies, random, index, perClass } = draw;
  const out: LabelledRecord[] = [];
  let n = 0;
  for (const company of shuffled(companies, random)) {
    if (n >= perClass) break;
    const name = write(company, n);
    if (name === null || name === company.name) continue;
    if (positive) out.push({ kind, ...withEvidence(index, company, name, n), from: company.corporateNumber });
    else {
      const record: MatchRecord = {
        name,
        ...(company.prefectureId != null ? { prefectureId: company.prefectureId } : {}),
      };
      out.push({ kind, record, expected: index.expected(record), from: company.corporateNumber });
    }
    n++;
  }
  return out;
}

/** Generic names (no company's own), every other one with a company's prefecture. */
function genericNameRecords(draw: VariantDraw): LabelledRecord[] {
  const { companies, random, index, perClass } = draw;
  const out: LabelledRecord[] = [];
  const pick = shuffled(companies, random);
  for (let n = 0; n < Math.min(perClass, genericNames.length * 8); n++) {
    const name = nth(genericNames, n);
    const where = pick[n % Math.max(1, pick.length)]?.prefectureId;
    const record: MatchRecord = n % 2 === 1 && where != null ? { name, prefectureId: where } : { name };
    out.push({ kind: 'generic-name', record, expected: index.expected(record), from: null });
  }
  return out;
}

/**
 * Namesakes: the groups of companies whose names fold alike, by prefecture. Two in one
 * prefecture, a name alone, and one alone in its prefecture, up to `perClass` of each.
 */
function namesakeRecords(draw: VariantDraw): LabelledRecord[] {
  const { random, index, perClass } = draw;
  const groups = shuffled(index.namesakes(), random);
  const samePrefecture: LabelledRecord[] = [];
  const noEvidence: LabelledRecord[] = [];
  const rightPrefecture: LabelledRecord[] = [];
  for (const group of groups) {
    const byPrefecture = new Map<number, SampleCompany[]>();
    for (const company of group)
      if (company.prefectureId != null)
        byPrefecture.set(company.prefectureId, [...(byPrefecture.get(company.prefectureId) ?? []), company]);
    for (const [prefectureId, here] of byPrefecture) {
      const company = here[0] as SampleCompany;
      const record = { name: company.name, prefectureId };
      if (here.length > 1)
        samePrefecture.push({
          kind: 'namesakes-same-prefecture',
          record,
          expected: index.expected(record),
          from: company.corporateNumber,
        });
      else if (byPrefecture.size > 1)
        rightPrefecture.push({
          kind: 'namesakes-right-prefecture',
          record,
          expected: index.expected(record),
          from: company.corporateNumber,
        });
    }
    if (byPrefecture.size > 1) {
      const company = group[0] as SampleCompany;
      const record = { name: company.name };
      noEvidence.push({
        kind: 'namesakes-no-evidence',
        record,
        expected: index.expected(record),
        from: company.corporateNumber,
      });
    }
  }
  return [samePrefecture, noEvidence, rightPrefecture].flatMap((list) => list.slice(0, perClass));
}

/**
 * Labelled records for every class. A record spelling a company another way carries its
 * prefecture, and its telephone number and web site only when the prefecture leaves other
 * companies with the same folded name: the label is then that company. Where no evidence
 * the company has tells it apart, the label is null.
 */
export function makeVariants(companies: readonly SampleCompany[], options: VariantOptions): LabelledRecord[] {
  const draw: VariantDraw = {
    companies: options.sources ?? companies,
    random: new Random(options.seed),
    index: new ReferenceIndex(companies),
    perClass: options.perClass,
  };
  const out: LabelledRecord[] = [];
  for (const kind of spellingClasses) out.push(...takeClass(draw, kind, writers[kind], true));
  out.push(...takeClass(draw, 'one-character-changed', oneCharacterChanged, false));
  out.push(...takeClass(draw, 'same-prefix', samePrefix, false));
  out.push(...genericNameRecords(draw));
  const drawn = options.sources ? new Set(options.sources.map((c) => c.corporateNumber)) : null;
  out.push(...namesakeRecords(draw).filter((r) => !drawn || drawn.has(r.from as string)));
  return out;
}
