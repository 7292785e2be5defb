/**
 * The classes of spelling a real sales list holds, beyond bench/name-variants.ts's twenty, and
 * their labels. Each class writes a company's name as its rule (in the comment beside it) says;
 * the rules' tables are bench/names/rules.ts. Pure and seeded.
 *
 * THE LABEL RULE. A record is written from one company (`from`). Which companies could it mean?
 *   1. Same-name classes (the rule changes the spelling, never the name): every company whose
 *      canonical key (rules.ts) equals the record's, whose reading does when the record is kana
 *      only, whose reading's romaji does when it is Latin only, and the source's own namesakes.
 *      A legal form the record states (any spelling) leaves out the companies of another form:
 *      学校法人X is not 株式会社X. The record's evidence (prefecture, telephone, web site; added
 *      as bench/name-variants.ts adds it, the least that tells the company apart) leaves out
 *      the companies it contradicts. When one company is left, `expected` is it and the label
 *      is certain; when several are, `expected` is null (a confident match to any is wrong).
 *   2. A corporate number in the record, in any writing of its 13 digits, is the company: certain.
 *   3. Lossy classes (a word dropped or added, one character mistyped): a person could not be
 *      sure. The record is left out when its name is another company's (canonical key equal), or
 *      another company's name is as near (as few edits; for a shortened name, another name that
 *      starts or ends with it; for a lengthened one, another name it starts or ends with, as long
 *      as the source's). Otherwise `expected` is the source with `certain: false` when the
 *      evidence leaves the source alone among its namesakes, else null (certain).
 *   4. Names of no company: `expected` null, `from` null, certain. Kept only when no company's
 *      key equals it, is within two edits of it, or starts or ends it (4 characters or more).
 */
import { distance } from 'fastest-levenshtein';
import { Random, toFullWidth, toHalfWidthKana } from '../../sample-data/index.js';
import {
  kanaToRomaji,
  type LabelledRecord,
  type MatchRecord,
  readingCore,
  referenceKey,
  romajiKey,
  type SampleCompany,
  splitForm,
} from '../name-variants.js';
import { type CrmClass, crmClasses } from './classes.js';
import {
  canonicalKey,
  canonicalReading,
  departmentPlaces,
  departmentWords,
  englishOrRomaji,
  type FormId,
  formOf,
  invisibleCharacters,
  isKanaOnly,
  isLatinOnly,
  kanjiToNumber,
  latinReadingKey,
  letterNames,
  loanwords,
  numberToKanji,
  numeralPattern,
  readingOfWord,
  readLetterNames,
  spellLetters,
  words,
} from './rules.js';

export { type CrmClass, crmClasses };

/** The classes whose records a person could not be sure of (label rule 3). */
export const lossyClasses: readonly string[] = [
  'word-dropped',
  'word-added',
  'typo-dropped',
  'typo-doubled',
  'typo-swapped',
  'typo-replaced',
  'one-character-changed',
  'same-prefix',
];

interface Written {
  name: string;
  /** the record's corporateNumber (label rule 2) */
  corporateNumber?: string;
  /** the record carries no evidence at all */
  bare?: boolean;
}
type Writer = (company: SampleCompany, n: number) => Written | string | null;

const nth = <T>(list: readonly T[], n: number) => list[n % list.length] as T;
/** Names with a spreadsheet formula in front (a hard case of the sample): no list holds them as a name. */
const formulaStart = /^[=+\-@＝＋－＠]/;
const coreOf = (name: string) => splitForm(name)?.core ?? name;
const withCore = (name: string, core: string) => {
  const split = splitForm(name);
  return split ? (split.front ? `${split.written}${core}` : `${core}${split.written}`) : core;
};
const toKatakana = (text: string) =>
  text.replace(/[\u3041-\u3096]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 0x60));
const halfLatin = (text: string) =>
  text.replace(/[\uff01-\uff5e]/g, (c) => String.fromCharCode(c.charCodeAt(0) - 0xfee0));

/** The company forms' bank-transfer (全銀) abbreviations, half-width. */
const bankForms: Partial<Record<FormId, string>> = { kk: 'ｶ', yk: 'ﾕ', gk: 'ﾄﾞ', gomei: 'ﾒ', goshi: 'ｼ' };
/** The Latin suffixes of each company form, as English-language letterheads write them. */
const latinSuffixes: Partial<Record<FormId, readonly string[]>> = {
  kk: [' Inc.', ' Corp.', ' Corporation', ' K.K.', ' Co., Ltd.'],
  yk: [' Co., Ltd.', ' Ltd.'],
  gk: [' LLC', ' G.K.'],
};
const lengthenings = ['工業', '商事', 'サービス', 'ジャパン', 'グループ', '東京'];
const kanjiPool = '東西南北山川田中本木林森';
const kanaPool = 'アイウエオカキクケコサシスセソタチテトナニヌネノハヒフヘホマミムメモヤユヨラリルレロワ';
const isTypable = (char: string) => /[\u4e00-\u9fff\u30a1-\u30f6]/.test(char);

/** The position of the n-th typable (kana or kanji) character of a core, or -1. */
function typablePosition(core: string, n: number): number {
  const places = [...core].map((c, i) => (isTypable(c) ? i : -1)).filter((i) => i >= 0);
  return places.length > 0 ? (places[n % places.length] as number) : -1;
}

/** Sample names: plain spellings of the writers are given in the comments as `source -> record`. */
const writers: Record<Exclude<CrmClass, 'legal-form-decides' | 'name-of-no-company'>, Writer> = {
  // ＡＢＣ商事 -> エービーシー商事: a run of 2-5 capital letters whose letter names the reading
  // holds is written as those names (the usual spelling)
  'letters-as-letter-names': ({ name, furigana }) => {
    const run = halfLatin(name).match(/(?<![A-Za-z])[A-Z]{2,5}(?![A-Za-z])/)?.[0];
    if (!run || !furigana) return null;
    if (!referenceKey(furigana).includes(referenceKey(spellLetters(run)))) return null;
    return halfLatin(name).replace(run, spellLetters(run));
  },
  // ＫＳＫ電子 -> ケイエスケイ電子: the same, with the other spelling of each letter that has
  // one (エイ, ケイ, ジィ, ダブリュ, ...); left out when no letter of the run has one
  'letter-names-variant-spelling': ({ name, furigana }) => {
    const run = halfLatin(name).match(/(?<![A-Za-z])[A-Z]{2,5}(?![A-Za-z])/)?.[0];
    if (!run || !furigana) return null;
    if (!referenceKey(furigana).includes(referenceKey(spellLetters(run)))) return null;
    if (![...run].some((letter) => (letterNames[letter]?.length ?? 0) > 1)) return null;
    return halfLatin(name).replace(run, spellLetters(run, 1));
  },
  // エービーシー商事 -> ABC商事 (ＡＢＣ商事 every other one): a katakana run of letter names only
  'letter-names-as-letters': ({ name }, n) => {
    for (const run of name.match(/[\u30a1-\u30fc]+/g) ?? []) {
      const letters = readLetterNames(run);
      if (letters) return name.replace(run, n % 2 === 0 ? letters : toFullWidth(letters));
    }
    return null;
  },
  // 東洋ソリューションズ -> 東洋Solutions (東洋 Solutions every other one)
  'loanword-as-english': ({ name }, n) => {
    const core = coreOf(name);
    const hit = loanwords.find(([kana]) => core.includes(kana));
    if (!hit) return null;
    const space = n % 2 === 1 && core.indexOf(hit[0]) > 0 ? ' ' : '';
    return withCore(name, core.replace(hit[0], `${space}${hit[1]}`));
  },
  // Global Trading -> グローバルトレーディング: an English word of the table written in katakana
  'english-as-loanword': ({ name }) => {
    const core = halfLatin(coreOf(name));
    let changed = false;
    const out = core.replace(/[A-Za-z]+/g, (word) => {
      const hit = loanwords.find(([, english]) => english.toLowerCase() === word.toLowerCase());
      if (!hit) return word;
      changed = true;
      return hit[0];
    });
    return changed ? withCore(name, out.replace(/(?<=[\u30a1-\u30fc]) (?=[\u30a1-\u30fc])/g, '')) : null;
  },
  // 第一物産 -> 第1物産 (第１物産), 二十一世紀 -> 21世紀: numerals that stand for a number
  'numerals-as-digits': ({ name }, n) => {
    if (!new RegExp(numeralPattern.source).test(name)) return null;
    return name.replace(numeralPattern, (run) => {
      const digits = String(kanjiToNumber(run));
      return n % 2 === 0 ? digits : toFullWidth(digits);
    });
  },
  // 第1物産 -> 第一物産, 21世紀 -> 二十一世紀
  'digits-as-numerals': ({ name }) => {
    if (formulaStart.test(name)) return null;
    const text = halfLatin(name);
    if (!/\d/.test(text)) return null;
    return text.replace(/\d+/g, (digits) => {
      const value = Number(digits);
      return value >= 1 && value <= 9999 ? numberToKanji(value) : digits;
    });
  },
  // A＆B -> AアンドB, ＋ -> プラス, and back (アンド -> ＆ or &); else ・ dropped
  'symbol-words': ({ name }, n) => {
    if (formulaStart.test(name)) return null;
    if (/[&＆+＋]/.test(name)) return name.replace(/[&＆]/g, 'アンド').replace(/[+＋]/g, 'プラス');
    if (/アンド|プラス/.test(name))
      return name.replace(/アンド/g, n % 2 === 0 ? '&' : '＆').replace(/プラス/g, n % 2 === 0 ? '+' : '＋');
    if (name.includes('・')) return name.replaceAll('・', '');
    return null;
  },
  // 東洋ソリューションズ株式会社 -> Toyo Solutions Inc.: the reading's words in English where
  // the loanword table has them, else in Hepburn, then the form's English suffix (株式会社:
  // Inc., Corp., Corporation, K.K., Co., Ltd.; 有限会社: Co., Ltd., Ltd.; 合同会社: LLC, G.K.)
  'latin-legal-suffix': ({ name, furigana }, n) => {
    const form = formOf(name);
    const suffixes = form ? latinSuffixes[form] : undefined;
    if (!suffixes || !furigana || /[A-Za-zＡ-Ｚａ-ｚ]/.test(name)) return null;
    const reading = readingCore(furigana);
    if (!/^[\u30a1-\u30fc]+$/.test(reading)) return null;
    // a piece of one or two kana between loanwords (ミ|ライフ|ズ) is no word: one romaji word then
    const parts = words(reading);
    const english = parts.some((part) => !loanwords.some(([kana]) => kana === part) && part.length < 3)
      ? [englishOrRomaji(reading)]
      : parts.map(englishOrRomaji);
    return `${english.join(' ')}${nth(suffixes, n)}`;
  },
  // 株式会社X -> ㈱X / X(株); 一般社団法人X -> ㈳X / (一社)X; 一般財団法人X -> ㈶X / (一財)X;
  // 有限会社X -> ㈲X / X(有): the form as one character or in brackets, at its own end
  'legal-form-one-character': ({ name }, n) => {
    const form = formOf(name);
    const written: Partial<Record<FormId, readonly string[]>> = {
      kk: ['㈱', '(株)', '（株）'],
      yk: ['㈲', '(有)', '（有）'],
      shadan: ['㈳', '(一社)', '（一社）'],
      zaidan: ['㈶', '(一財)', '（一財）'],
    };
    const words = {
      kk: '株式会社',
      yk: '有限会社',
      shadan: '一般社団法人',
      zaidan: '一般財団法人',
    } as const;
    if (!form || !(form in words)) return null;
    const word = words[form as keyof typeof words];
    const short = nth(written[form] as readonly string[], n);
    if (name.startsWith(word)) return `${short}${name.slice(word.length)}`;
    if (name.endsWith(word)) return `${name.slice(0, -word.length)}${short}`;
    return null;
  },
  // 株式会社X -> ㍿X, X株式会社 -> X㍿
  'legal-form-square': ({ name }) => {
    if (name.startsWith('株式会社')) return `㍿${name.slice(4)}`;
    if (name.endsWith('株式会社')) return `${name.slice(0, -4)}㍿`;
    return null;
  },
  // 株式会社マルカ -> (ｶ)ﾏﾙｶ, マルカ株式会社 -> ﾏﾙｶ(ｶ), or ｶﾌﾞｼｷｶﾞｲｼｬﾏﾙｶ (every third): the reading
  // in half-width katakana as bank transfers write it (small kana large, ー as -), the form's
  // bank abbreviation in brackets where the form stands
  'bank-transfer-kana': ({ name, furigana }, n) => {
    const form = formOf(name);
    const short = form ? bankForms[form] : undefined;
    const split = splitForm(name);
    if (!short || !split || !furigana) return null;
    const core = readingCore(furigana)
      .replace(/[ァィゥェォッャュョヮ]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 1))
      .replace(/ー/g, '-');
    if (!/^[\u30a1-\u30f6-]+$/.test(core)) return null;
    const kana = toHalfWidthKana(core);
    if (n % 3 === 2) {
      const formReading = toHalfWidthKana(furigana.replace(readingCore(furigana), ''));
      return split.front ? `${formReading}${kana}` : `${kana}${formReading}`;
    }
    return split.front ? `(${short})${kana}` : `${kana}(${short})`;
  },
  // a zero-width space, joiner, word joiner, BOM or soft hyphen inside the name (two every third)
  'invisible-characters': ({ name }, n) => {
    if (name.length < 2) return null;
    const at = 1 + (n % (name.length - 1));
    const once = `${name.slice(0, at)}${nth(invisibleCharacters, n)}${name.slice(at)}`;
    return n % 3 === 2 ? `${nth(invisibleCharacters, n + 1)}${once}` : once;
  },
  // X -> X本社, X 東京支店, X　新宿営業部, X梅田店: a department or site after the name, with or
  // without a place before it, with or without a space (店 only after a place)
  'department-word': ({ name }, n) => {
    const word = nth(departmentWords, n);
    const place = word === '店' || n % 2 === 1 ? nth(departmentPlaces, n >> 1) : '';
    return `${name}${nth(['', ' ', '　'], n >> 2)}${place}${word}`;
  },
  // the company's own corporate number written 1234-5678-9012-3, in full-width digits, in groups
  // with spaces, or as the invoice number T1234567890123; the name as registered or without its
  // legal form, and no other evidence
  'corporate-number-written': ({ name, corporateNumber }, n) => {
    const d = corporateNumber;
    const written = [
      `${d.slice(0, 4)}-${d.slice(4, 8)}-${d.slice(8, 12)}-${d.slice(12)}`,
      toFullWidth(d),
      `${d.slice(0, 4)} ${d.slice(4, 8)} ${d.slice(8, 12)} ${d.slice(12)}`,
      `T${d}`,
    ];
    return { name: n % 2 === 0 ? name : coreOf(name), corporateNumber: nth(written, n), bare: true };
  },
  // 山田建設 (ヤマダケンセツ) -> ヤマダ建設, or 山田ケンセツ: one word of the name whose reading the
  // word table gives written in katakana, or every word but one; kept only when the record read
  // word by word is the company's reading
  'reading-partly-kanji': ({ name, furigana }, n) => {
    if (!furigana || formulaStart.test(name)) return null;
    const core = coreOf(name);
    const parts = words(core);
    const known = parts.map((part, i) => (readingOfWord(part) ? i : -1)).filter((i) => i >= 0);
    if (parts.length < 2 || known.length === 0) return null;
    const pick = nth(known, n >> 1);
    const written =
      n % 2 === 0
        ? parts.map((part, i) => (i === pick ? (readingOfWord(part) as string) : part))
        : parts.map((part, i) => (i === pick ? part : (readingOfWord(part) ?? toKatakana(part))));
    const asReading = written.map((part) => readingOfWord(part) ?? part).join('');
    if (asReading !== readingCore(furigana) || written.join('') === core) return null;
    return withCore(name, written.join(''));
  },
  // label rule 3 from here on
  // 朝日ケアサービス -> 朝日ケア (or ケアサービス): the last word of the name dropped, or the first
  'word-dropped': ({ name }, n) => {
    if (formulaStart.test(name)) return null;
    const parts = words(coreOf(name));
    if (parts.length < 2) return null;
    const kept = n % 2 === 0 ? parts.slice(0, -1) : parts.slice(1);
    const core = kept.join('');
    return core.length >= 2 ? withCore(name, core) : null;
  },
  // 朝日ケアサービス -> 朝日ケアサービス工業: a business word added after the name's words
  'word-added': ({ name }, n) =>
    formulaStart.test(name) ? null : withCore(name, `${coreOf(name)}${nth(lengthenings, n)}`),
  // one kana or kanji of the name (not of its form) left out
  'typo-dropped': ({ name }, n) => {
    const core = coreOf(name);
    const at = typablePosition(core, n);
    if (at < 0 || core.length < 3 || formulaStart.test(name)) return null;
    return withCore(name, `${core.slice(0, at)}${core.slice(at + 1)}`);
  },
  // one kana or kanji typed twice
  'typo-doubled': ({ name }, n) => {
    const core = coreOf(name);
    const at = typablePosition(core, n);
    if (at < 0 || formulaStart.test(name)) return null;
    return withCore(name, `${core.slice(0, at + 1)}${core.slice(at)}`);
  },
  // two neighbouring different kana or kanji swapped
  'typo-swapped': ({ name }, n) => {
    const core = coreOf(name);
    if (formulaStart.test(name)) return null;
    for (let step = 0; step < core.length - 1; step++) {
      const at = (n + step) % (core.length - 1);
      const [a, b] = [core[at] as string, core[at + 1] as string];
      if (a !== b && isTypable(a) && isTypable(b))
        return withCore(name, `${core.slice(0, at)}${b}${a}${core.slice(at + 2)}`);
    }
    return null;
  },
  // one kana replaced by another kana, one kanji by another kanji (from pools none of which
  // folds into another)
  'typo-replaced': ({ name }, n) => {
    const core = coreOf(name);
    const at = typablePosition(core, n);
    if (at < 0 || formulaStart.test(name)) return null;
    const char = core[at] as string;
    const pool = /[\u4e00-\u9fff]/.test(char) ? kanjiPool : kanaPool;
    const other = nth(
      [...pool].filter((c) => c !== char),
      n,
    );
    return withCore(name, `${core.slice(0, at)}${other}${core.slice(at + 1)}`);
  },
};

// ---------------------------------------------------------------------------------------------
// the labels

const digits = (text: string) => text.replace(/\D/g, '');
const host = (url: string) =>
  url
    .toLowerCase()
    .replace(/^https?:\/\//, '')
    .replace(/^www\./, '')
    .replace(/\/.*$/, '');

function push<K, V>(map: Map<K, V[]>, key: K, value: V) {
  if (key === '') return;
  const list = map.get(key as K);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** Every company by its canonical keys, and the distinct keys for the nearness checks of rule 3. */
export class LabelIndex {
  readonly byName = new Map<string, SampleCompany[]>();
  readonly byReading = new Map<string, SampleCompany[]>();
  readonly byRomaji = new Map<string, SampleCompany[]>();
  private readonly nameKeys = new Map<string, string>();
  private sortedKeys: string[] | null = null;
  private reversedKeys: string[] | null = null;
  private deletions: Map<string, string[]> | null = null;

  constructor(readonly companies: readonly SampleCompany[]) {
    for (const company of companies) {
      const key = canonicalKey(company.name);
      this.nameKeys.set(company.corporateNumber, key);
      push(this.byName, key, company);
      if (company.furigana) {
        push(this.byReading, canonicalReading(company.furigana), company);
        push(this.byRomaji, romajiKey(kanaToRomaji(readingCore(company.furigana), 'hepburn')), company);
      }
    }
  }

  keyOf(company: SampleCompany): string {
    return this.nameKeys.get(company.corporateNumber) ?? canonicalKey(company.name);
  }

  /** The companies a same-name record may mean (label rule 1, before the evidence). */
  sameName(name: string, source: SampleCompany | null): SampleCompany[] {
    const found = new Map<string, SampleCompany>();
    const add = (list: readonly SampleCompany[] | undefined) => {
      for (const company of list ?? []) found.set(company.corporateNumber, company);
    };
    const key = canonicalKey(name);
    add(this.byName.get(key));
    if (isKanaOnly(name.replace(/[()]/g, ''))) add(this.byReading.get(key));
    if (isLatinOnly(name)) add(this.byRomaji.get(latinReadingKey(name)));
    if (source) {
      add([source]);
      add(this.byName.get(this.keyOf(source)));
    }
    const form = formOf(name);
    return [...found.values()].filter((company) => {
      const theirs = formOf(company.name);
      return form === null || theirs === null || theirs === form;
    });
  }

  /** Whether any key of a company is exactly `key` (by name or by reading). */
  hasKey(key: string): boolean {
    return this.byName.has(key) || this.byReading.has(key);
  }

  private distinctKeys(): string[] {
    return [...new Set([...this.byName.keys(), ...this.byReading.keys()])];
  }

  /** Keys that start with `key` (excluding `except`). */
  keysStartingWith(key: string, except: ReadonlySet<string>): boolean {
    this.sortedKeys ??= this.distinctKeys().sort();
    return rangeHas(this.sortedKeys, key, except);
  }

  /** Keys that end with `key`. */
  keysEndingWith(key: string, except: ReadonlySet<string>): boolean {
    this.reversedKeys ??= this.distinctKeys()
      .map((k) => [...k].reverse().join(''))
      .sort();
    const reversedExcept = new Set([...except].map((k) => [...k].reverse().join('')));
    return rangeHas(this.reversedKeys, [...key].reverse().join(''), reversedExcept);
  }

  /** Keys within `edits` Levenshtein edits of `key` (found by shared one-character deletions). */
  keysNear(key: string, edits: number, except: ReadonlySet<string>): boolean {
    if (!this.deletions) {
      this.deletions = new Map();
      for (const k of this.distinctKeys()) for (const d of deletionsOf(k)) push(this.deletions, d, k);
    }
    for (const d of deletionsOf(key))
      for (const other of this.deletions.get(d) ?? [])
        if (!except.has(other) && distance(other, key) <= edits) return true;
    return false;
  }
}

/** The key itself and every key one character shorter. */
function deletionsOf(key: string): string[] {
  const out = [key];
  for (let i = 0; i < key.length; i++) out.push(`${key.slice(0, i)}${key.slice(i + 1)}`);
  return out;
}

/** Whether a sorted list holds a string starting with `prefix` other than those in `except`. */
function rangeHas(sorted: readonly string[], prefix: string, except: ReadonlySet<string>): boolean {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if ((sorted[mid] as string) < prefix) low = mid + 1;
    else high = mid;
  }
  for (let i = low; i < sorted.length && (sorted[i] as string).startsWith(prefix); i++)
    if (!except.has(sorted[i] as string)) return true;
  return false;
}

const agrees = (record: MatchRecord) => (company: SampleCompany) =>
  (record.prefectureId === undefined || company.prefectureId === record.prefectureId) &&
  (record.phoneNumber === undefined || digits(company.phoneNumber ?? '') === digits(record.phoneNumber)) &&
  (record.websiteUrl === undefined || host(company.websiteUrl ?? '') === host(record.websiteUrl));

/**
 * The record with the least evidence that leaves only `source` of `could` (none one time in
 * four, then prefecture, telephone, web site), and its label; the prefecture-only record and a
 * null label when nothing does.
 */
function withEvidence(
  could: readonly SampleCompany[],
  source: SampleCompany,
  name: string,
  n: number,
): { record: MatchRecord; expected: string | null } {
  const only = (record: MatchRecord) => {
    const left = could.filter(agrees(record));
    return left.length === 1 && left[0]?.corporateNumber === source.corporateNumber;
  };
  if (n % 4 === 3 && only({ name })) return { record: { name }, expected: source.corporateNumber };
  const prefecture = source.prefectureId != null ? { prefectureId: source.prefectureId } : {};
  const steps: MatchRecord[] = [{ name, ...prefecture }];
  if (source.phoneNumber) steps.push({ name, ...prefecture, phoneNumber: source.phoneNumber });
  if (source.websiteUrl)
    steps.push({
      name,
      ...prefecture,
      ...(source.phoneNumber ? { phoneNumber: source.phoneNumber } : {}),
      websiteUrl: source.websiteUrl,
    });
  for (const record of steps) if (only(record)) return { record, expected: source.corporateNumber };
  return { record: steps[0] as MatchRecord, expected: null };
}

/** Label rule 3: whether another company's name is as near to the lossy record as the source's. */
function anotherAsNear(
  index: LabelIndex,
  kind: string,
  key: string,
  source: SampleCompany,
  namesakes: ReadonlySet<string>,
): boolean {
  const own = index.keyOf(source);
  if (key === '' || key === own || index.hasKey(key)) return true;
  if (kind === 'word-dropped' || kind === 'same-prefix')
    if (index.keysStartingWith(key, namesakes) || index.keysEndingWith(key, namesakes)) return true;
  if (kind === 'word-added' || kind === 'same-prefix')
    for (let cut = own.length; cut < key.length; cut++)
      if (
        (index.hasKey(key.slice(0, cut)) && !namesakes.has(key.slice(0, cut))) ||
        (index.hasKey(key.slice(key.length - cut)) && !namesakes.has(key.slice(key.length - cut)))
      )
        return true;
  if (kind === 'word-dropped' || kind === 'word-added' || kind === 'same-prefix') return false;
  // a typo: another name as few edits away
  const edits = Math.max(1, distance(key, own));
  return edits <= 2 && index.keysNear(key, edits, namesakes);
}

/** A labelled record of `kind` spelling `source` as `written`, or null when label rule 3 leaves it out. */
export function labelRecord(
  index: LabelIndex,
  kind: string,
  source: SampleCompany,
  written: Written,
  n: number,
): LabelledRecord | null {
  const from = source.corporateNumber;
  if (written.corporateNumber !== undefined)
    return {
      kind: kind as LabelledRecord['kind'],
      record: { name: written.name, corporateNumber: written.corporateNumber },
      expected: from,
      from,
      certain: true,
    };
  if (lossyClasses.includes(kind)) {
    const namesakes = index.byName.get(index.keyOf(source)) ?? [source];
    const keys = new Set(namesakes.map((c) => index.keyOf(c)));
    if (source.furigana) keys.add(canonicalReading(source.furigana));
    if (anotherAsNear(index, kind, canonicalKey(written.name), source, keys)) return null;
    const { record, expected } = withEvidence(namesakes, source, written.name, n);
    return {
      kind: kind as LabelledRecord['kind'],
      record,
      expected,
      from,
      certain: expected === null,
    };
  }
  const could = index.sameName(written.name, source);
  const { record, expected } = written.bare
    ? { record: { name: written.name }, expected: could.length === 1 ? from : null }
    : withEvidence(could, source, written.name, n);
  return { kind: kind as LabelledRecord['kind'], record, expected, from, certain: true };
}

// ---------------------------------------------------------------------------------------------
// the two classes that are not one company's name rewritten

/**
 * 学校法人X and 株式会社X: a record giving a company's name with its legal form (as registered,
 * or the form written short), where another company of the same core name and another form
 * exists in the same prefecture. The form decides (label rule 1).
 */
function formDecidesRecords(index: LabelIndex, sources: readonly SampleCompany[], perClass: number) {
  const out: LabelledRecord[] = [];
  for (const source of sources) {
    if (out.length >= perClass) break;
    const form = formOf(source.name);
    if (!form) continue;
    const others = (index.byName.get(index.keyOf(source)) ?? []).filter((c) => {
      const theirs = formOf(c.name);
      return theirs !== null && theirs !== form && c.prefectureId === source.prefectureId;
    });
    if (others.length === 0) continue;
    const n = out.length;
    const name = n % 2 === 0 ? source.name : (writers['legal-form-one-character'](source, n) ?? source.name);
    const label = labelRecord(index, 'legal-form-decides', source, { name: String(name) }, n);
    if (label) out.push(label);
  }
  return out;
}

// the made-up names' parts: none is a word of the sample's vocabulary
const noOnePlaces = [
  '北辰',
  '青嵐',
  '白鷺',
  '旭光',
  '翠明',
  '東雲',
  '若竹',
  '松風',
  '鳳凰',
  '千早',
  '常盤',
  '暁星',
  '瑞穂',
  '紫苑',
];
const noOneKana = [
  'ルミナ',
  'オルビス',
  'セレクト',
  'アルファ',
  'ノヴァ',
  'ステラ',
  'ヴェルデ',
  'クレスト',
  'プリズム',
  'ゼフィール',
];
const noOneTrades = [
  '工業',
  '商事',
  '精機',
  '電工',
  '製作所',
  '運輸',
  '技研',
  '産業',
  '開発',
  '食品',
  '印刷',
  '硝子',
];

/** Plausible names no company has (label rule 4), every other one with a prefecture. */
function noCompanyRecords(index: LabelIndex, random: Random, perClass: number): LabelledRecord[] {
  const out: LabelledRecord[] = [];
  const none = new Set<string>();
  for (let attempt = 0; out.length < perClass && attempt < perClass * 20; attempt++) {
    const first = random.chance(0.5) ? random.pick(noOnePlaces) : '';
    const middle = first === '' || random.chance(0.5) ? random.pick(noOneKana) : '';
    const core = `${first}${middle}${random.pick(noOneTrades)}`;
    const name = random.chance(0.5)
      ? `株式会社${core}`
      : random.chance(0.5)
        ? `${core}株式会社`
        : `${core}有限会社`;
    const key = canonicalKey(name);
    if (none.has(key) || index.hasKey(key) || index.keysNear(key, 2, new Set())) continue;
    if (key.length >= 4 && (index.keysStartingWith(key, new Set()) || index.keysEndingWith(key, new Set())))
      continue;
    let inside = false;
    for (let cut = 4; cut < key.length && !inside; cut++)
      inside = index.hasKey(key.slice(0, cut)) || index.hasKey(key.slice(key.length - cut));
    if (inside) continue;
    none.add(key);
    const record: MatchRecord = out.length % 2 === 1 ? { name, prefectureId: random.int(1, 47) } : { name };
    out.push({ kind: 'name-of-no-company', record, expected: null, from: null, certain: true });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------

function shuffled<T>(items: readonly T[], random: Random): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = random.int(0, i);
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

export interface CrmOptions {
  seed: number;
  perClass: number;
  /** the companies records are written from (default: all); labels always look at all */
  sources?: readonly SampleCompany[];
  /** a label index of all the companies, when the caller has one already */
  index?: LabelIndex;
}

/** Up to `perClass` labelled records of each CRM class, from the sources in a fresh shuffle per class. */
export function makeCrmRecords(companies: readonly SampleCompany[], options: CrmOptions): LabelledRecord[] {
  const random = new Random(options.seed);
  const index = options.index ?? new LabelIndex(companies);
  const sources = (options.sources ?? companies).filter((c) => !formulaStart.test(c.name));
  const out: LabelledRecord[] = [];
  for (const kind of crmClasses) {
    if (kind === 'legal-form-decides') {
      out.push(...formDecidesRecords(index, shuffled(sources, random), options.perClass));
      continue;
    }
    if (kind === 'name-of-no-company') {
      out.push(...noCompanyRecords(index, random, options.perClass));
      continue;
    }
    // n turns through the ways of writing at every company tried, so that a way no company
    // admits is not tried forever
    let n = 0;
    let taken = 0;
    for (const source of shuffled(sources, random)) {
      if (taken >= options.perClass) break;
      n++;
      const made = writers[kind](source, n);
      const written = typeof made === 'string' ? { name: made } : made;
      if (!written || (written.name === source.name && written.corporateNumber === undefined)) continue;
      if (written.name.length > 500) continue;
      const label = labelRecord(index, kind, source, written, n);
      if (label) {
        out.push(label);
        taken++;
      }
    }
  }
  return out;
}

/** The name `kind` writes for `company` (n turns through the ways), for tests and the docs. */
export function writeCrm(
  kind: Exclude<CrmClass, 'legal-form-decides' | 'name-of-no-company'>,
  company: SampleCompany,
  n: number,
): Written | null {
  const made = writers[kind](company, n);
  return typeof made === 'string' ? { name: made } : made;
}
