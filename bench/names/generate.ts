/**
 * Every labelled record of the name-matching evaluation: bench/name-variants.ts's twenty classes
 * and bench/names/crm-classes.ts's CRM classes, the fit/evaluation split, and the extra companies
 * a test adds to a sample so that the rare classes (letter names in katakana, English names,
 * numbers, symbols, one core name under two legal forms) have material.
 */
import { Random } from '../../sample-data/index.js';
import { corporateCheckDigit } from '../../src/text/corporate-number.js';
import {
  type LabelledRecord,
  makeVariants,
  nearMissClasses,
  type SampleCompany,
  spellingClasses,
} from '../name-variants.js';
import { crmClasses, LabelIndex, labelRecord, lossyClasses, makeCrmRecords } from './crm-classes.js';
import { loanwords, spellLetters } from './rules.js';

export const allClasses: readonly string[] = [...spellingClasses, ...nearMissClasses, ...crmClasses];

export interface EvaluationOptions {
  seed: number;
  perClass: number;
  /** the companies records are written from (default: all) */
  sources?: readonly SampleCompany[];
}

/**
 * The labelled records of every class. The old near misses that drop or change part of a name
 * (one-character-changed, same-prefix) are labelled by the lossy rule (crm-classes.ts, rule 3)
 * where it keeps them: the source with `certain: false`; otherwise as before.
 */
export function makeEvaluationRecords(
  companies: readonly SampleCompany[],
  options: EvaluationOptions & { index?: LabelIndex },
): LabelledRecord[] {
  const index = options.index ?? new LabelIndex(companies);
  const bySource = new Map(companies.map((c) => [c.corporateNumber, c]));
  const old = makeVariants(companies, options).map((entry, n) => {
    if (!lossyClasses.includes(entry.kind) || entry.from === null) return entry;
    const source = bySource.get(entry.from) as SampleCompany;
    return labelRecord(index, entry.kind, source, { name: entry.record.name }, n) ?? entry;
  });
  return [...old, ...makeCrmRecords(companies, { ...options, index })];
}

/** A stable half of the companies: by a hash of the corporate number, whatever the seed. */
export function inFitHalf(corporateNumber: string): boolean {
  let hash = 2166136261;
  for (let i = 0; i < corporateNumber.length; i++) {
    hash ^= corporateNumber.charCodeAt(i);
    hash = Math.imul(hash, 16777619);
  }
  return ((hash >>> 0) & 1) === 0;
}

/**
 * Two sets of labelled records from disjoint companies: `fit` written from one half (by a hash
 * of the corporate number) with `fitSeed`, `evaluation` from the other half with
 * `evaluationSeed`. The labels of both look at every company, so a namesake in the other half
 * still makes a name uncertain. Fit confidence on `fit`, measure it on `evaluation`.
 */
export function makeFitAndEvaluation(
  companies: readonly SampleCompany[],
  options: { fitSeed: number; evaluationSeed: number; perClass: number },
): { fit: LabelledRecord[]; evaluation: LabelledRecord[] } {
  const index = new LabelIndex(companies);
  const fitSources = companies.filter((c) => inFitHalf(c.corporateNumber));
  const evaluationSources = companies.filter((c) => !inFitHalf(c.corporateNumber));
  return {
    fit: makeEvaluationRecords(companies, {
      seed: options.fitSeed,
      perClass: options.perClass,
      sources: fitSources,
      index,
    }),
    evaluation: makeEvaluationRecords(companies, {
      seed: options.evaluationSeed,
      perClass: options.perClass,
      sources: evaluationSources,
      index,
    }),
  };
}

/** A company added to a sample: its name and reading, the other facts copied from `copyOf`. */
export interface ExtraCompany extends SampleCompany {
  copyOf: string;
  name: string;
  furigana: string;
}

const trades: ReadonlyArray<readonly [string, string]> = [
  ['物産', 'ブッサン'],
  ['建設', 'ケンセツ'],
  ['商事', 'ショウジ'],
  ['運輸', 'ウンユ'],
  ['工業', 'コウギョウ'],
];

/**
 * Companies that give the rare classes material, `count` of each kind, each a copy of a sample
 * company (its prefecture, telephone and web site) under another name with a fresh corporate
 * number: letter names in katakana (エービーシー物産), English names (Global Trading株式会社),
 * numbers (第一物産, 二十一世紀商事), symbols (サクラ＆パートナーズ), and a second legal form
 * for a core name already held (学校法人X beside 株式会社X, in its prefecture).
 */
export function extraCompanies(
  companies: readonly SampleCompany[],
  seed: number,
  count: number,
): ExtraCompany[] {
  const random = new Random(seed);
  const plain = companies.filter(
    (c) => /^(株式会社.+|.+株式会社)$/.test(c.name) && !/^[=+\-@＝]/.test(c.name),
  );
  const out: ExtraCompany[] = [];
  let serial = 0;
  const number = () => {
    const base = `98${String(seed % 1000).padStart(3, '0')}${String(serial++).padStart(7, '0')}`;
    return `${corporateCheckDigit(base)}${base}`;
  };
  const add = (name: string, furigana: string, like: SampleCompany = random.pick(plain)) =>
    out.push({ ...like, copyOf: like.corporateNumber, corporateNumber: number(), name, furigana });
  const acronyms = ['ABC', 'KSK', 'JTW', 'GDA', 'NKT', 'HKS', 'TAK', 'WGS', 'MKJ', 'DKG'];
  for (let i = 0; i < count; i++) {
    const [trade, tradeReading] = trades[i % trades.length] as (typeof trades)[number];
    const letters = acronyms[i % acronyms.length] as string;
    const spelled = spellLetters(letters);
    add(`株式会社${spelled}${trade}${i > 9 ? i : ''}`, `カブシキガイシャ${spelled}${tradeReading}`);
    const [kana1, english1] = loanwords[i % loanwords.length] as (typeof loanwords)[number];
    const [kana2, english2] = loanwords[(i * 7 + 3) % loanwords.length] as (typeof loanwords)[number];
    if (kana1 !== kana2) add(`${english1} ${english2}株式会社`, `${kana1}${kana2}カブシキガイシャ`);
    const numeral = ['一', '二', '三', '五', '十', '二十一'][i % 6] as string;
    const numeralReading = ['イチ', 'ニ', 'サン', 'ゴ', 'ジュウ', 'ニジュウイチ'][i % 6] as string;
    add(`第${numeral}${trade}株式会社`, `ダイ${numeralReading}${tradeReading}カブシキガイシャ`);
    add(`株式会社${numeral}世紀${trade}`, `カブシキガイシャ${numeralReading}セイキ${tradeReading}`);
    const digit = 2 + (i % 8);
    const digitReading = ['ニ', 'サン', 'ヨン', 'ゴ', 'ロク', 'ナナ', 'ハチ', 'キュウ'][i % 8] as string;
    add(`第${digit}${trade}株式会社`, `ダイ${digitReading}${tradeReading}カブシキガイシャ`);
    add(`${kana1}＆${kana2}株式会社`, `${kana1}アンド${kana2}カブシキガイシャ`);
    const twinOf = random.pick(plain);
    const core = twinOf.name.replace('株式会社', '');
    const reading = (twinOf.furigana ?? '').replace('カブシキガイシャ', '');
    const [form, formReading] = (
      i % 2 === 0 ? ['学校法人', 'ガッコウホウジン'] : ['有限会社', 'ユウゲンガイシャ']
    ) as [string, string];
    add(`${form}${core}`, `${formReading}${reading}`, twinOf);
  }
  return out;
}
