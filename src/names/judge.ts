/**
 * The judge: for each company a record may name, the features compared and a confidence, the
 * probability that it is the company the record names; then the decision.
 *
 *   record {name: 'ABCテクノロジーズ', prefectureId: 13}
 *   company エービーシー・テクノロジーズ株式会社 (東京都), the only one with that spoken key
 *   -> features [{id: 'spokenKey', value: true}, {id: 'similarity', value: 0.53},
 *                {id: 'legalForm', ...absent: the record names none}, {id: 'prefecture', value: true}, ...]
 *   -> confidence 0.74 (0.99 with the record's legal form agreeing: 株式会社ABCテクノロジーズ); the
 *      match when it reaches minConfidence and leads the next by the margin
 *
 * The confidence is the share of right answers among candidates like this one: the weights
 * (data/names/judge-weights.json) give each company of the record odds e^z; a company's share
 * of the record's odds, "none of them" counting 1, is read through the calibration table of the
 * same file (measured on a fit set, docs/names.md). Features of a company that the record says
 * nothing about are left out, not false.
 *
 *   one company, z = 3     -> 0.95 of the odds -> calibrated
 *   two namesakes, z = 3   -> 0.49 each         -> calibrated: one of the two is right
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { distance } from 'fastest-levenshtein';
import { projectRoot } from '../project-root.js';
import { foldAddress } from '../text/address.js';
import type { Evidence } from './evidence.js';
import { legalForms } from './keys.js';
import type { Company } from './lookup.js';

/** How a company's name agrees with the record's, strongest first. */
export type NameAgreement = 'nameKey' | 'spokenKey' | 'reading' | 'romaji' | 'formerName' | 'similar';

export interface Features {
  nameKey: boolean;
  spokenKey: boolean;
  reading: boolean;
  romaji: boolean;
  formerName: boolean;
  /** Both the record and the company have a spoken key (so spokenKey false is a difference). */
  spokenKeyKnown: boolean;
  /** 0-1: one less the edit distance over the longer key, the best pair of keys. */
  similarity: number;
  /** The record's legal form is the company's (true) or another (false); absent: one of them has none. */
  legalForm?: boolean;
  prefecture?: boolean;
  city?: boolean;
  phone?: boolean;
  website?: boolean;
  corporateNumber?: boolean;
  closed: boolean;
  /**
   * Other companies the name agrees with as well, none contradicted, none with less support: of
   * an equal key, those whose key of the same kind is equal too; of a near name, the other near
   * names at least as similar (its namesakes among them).
   */
  rivals: number;
  /** Another company, not contradicted, agrees with the name more strongly (an equal key of a stronger kind). */
  outranked: boolean;
}

export type FeatureList = Array<{ id: keyof Features; value: boolean | number }>;

export interface Weights {
  intercept: number;
  nameKey: number;
  /** an equal spoken key, reading or romaji: one strength (countRivals), one weight */
  spokenKey: number;
  formerName: number;
  similarity: number;
  legalFormAgrees: number;
  legalFormDisagrees: number;
  prefectureAgrees: number;
  prefectureDisagrees: number;
  city: number;
  cityDisagrees: number;
  phone: number;
  phoneDisagrees: number;
  website: number;
  websiteDisagrees: number;
  closed: number;
  corporateNumberDisagrees: number;
  /** per log(1 + rivals), of a company whose key is equal */
  rivals: number;
  /** per log(1 + rivals), of a near name */
  nearRivals: number;
  outranked: number;
}

/**
 * The calibration: steps [share of the odds from which it applies, confidence], both rising.
 * A share below the first step gets the first step's confidence.
 */
export type Calibration = Array<[from: number, confidence: number]>;

interface WeightsFile {
  source: string;
  weights: Weights;
  calibration: Calibration;
}

export type WeightName = keyof Weights;

export const weightNames: WeightName[] = [
  'intercept',
  'nameKey',
  'spokenKey',
  'formerName',
  'similarity',
  'legalFormAgrees',
  'legalFormDisagrees',
  'prefectureAgrees',
  'prefectureDisagrees',
  'city',
  'cityDisagrees',
  'phone',
  'phoneDisagrees',
  'website',
  'websiteDisagrees',
  'closed',
  'corporateNumberDisagrees',
  'rivals',
  'nearRivals',
  'outranked',
];

/**
 * The judge table shipped (MATCH_JUDGE_FILE unset): fitted on labelled records of the bench's
 * register of 1,000,000 companies (docs/names.md, "The judge fitted at 1,000,000").
 */
export const defaultJudgeFile = path.join(projectRoot, 'data', 'names', 'judge-weights.json');

/** Reads and checks a judge table's weights: every weight a finite number, none unknown. */
export function readWeights(file = defaultJudgeFile): Weights {
  const parsed = JSON.parse(readFileSync(file, 'utf8')) as WeightsFile;
  const weights = parsed.weights as unknown as Record<string, unknown>;
  for (const name of weightNames)
    if (typeof weights[name] !== 'number' || !Number.isFinite(weights[name]))
      throw new Error(`${path.basename(file)}: weight ${name} is not a number`);
  const unknown = Object.keys(weights).filter((name) => !weightNames.includes(name as keyof Weights));
  if (unknown.length > 0) throw new Error(`${path.basename(file)}: unknown weights ${unknown.join(', ')}`);
  return parsed.weights;
}

/** Reads and checks the calibration of the same file: steps from 0, both columns rising, within 0-1. */
export function readCalibration(file = defaultJudgeFile): Calibration {
  const steps = (JSON.parse(readFileSync(file, 'utf8')) as WeightsFile).calibration;
  const bad = (why: string) => new Error(`${path.basename(file)}: calibration ${why}`);
  if (!Array.isArray(steps) || steps.length === 0) throw bad('has no steps');
  steps.forEach((step, i) => {
    const [from, confidence] = Array.isArray(step) ? step : [];
    const inRange = (n: unknown) => typeof n === 'number' && n >= 0 && n <= 1;
    if (step.length !== 2 || !inRange(from) || !inRange(confidence))
      throw bad(`step ${i + 1} is not [from, confidence] within 0-1`);
    const previous = steps[i - 1];
    if (previous && (previous[0] >= (from as number) || previous[1] > (confidence as number)))
      throw bad(`step ${i + 1} does not rise`);
  });
  if (steps[0]?.[0] !== 0) throw bad('does not start at 0');
  return steps;
}

/** A judge table: the weights and the calibration of one file. */
export interface JudgeTable {
  weights: Weights;
  calibration: Calibration;
}

const tables = new Map<string, JudgeTable>();
/**
 * The judge table of a file, read and checked once per process. A calibration holds for the
 * register it was fitted on: the share of near names and namesakes that are right depends on
 * how crowded the register's names are (docs/names.md).
 */
export function judgeTableOf(file: string = defaultJudgeFile): JudgeTable {
  let table = tables.get(file);
  if (!table) {
    table = { weights: readWeights(file), calibration: readCalibration(file) };
    tables.set(file, table);
  }
  return table;
}
const weights = (): Weights => judgeTableOf().weights;

/** The similarity of two keys: 1 - edit distance / the longer length (0 when either is empty). */
export function keySimilarity(a: string | undefined, b: string | undefined): number {
  if (!a || !b) return 0;
  const [left, right] = [[...a], [...b]];
  const longer = Math.max(left.length, right.length);
  // fastest-levenshtein counts UTF-16 units: a kanji outside the BMP (𩸽) would count twice
  const edits = surrogate.test(a) || surrogate.test(b) ? charDistance(left, right) : distance(a, b);
  return Math.max(0, 1 - edits / longer);
}

const surrogate = /[\uD800-\uDFFF]/;

/** Levenshtein distance over characters (code points), for the keys with astral characters. */
function charDistance(a: readonly string[], b: readonly string[]): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      row.push(Math.min((previous[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, substitution));
    }
    previous = row;
  }
  return previous[b.length] ?? 0;
}

/**
 * The legal forms of a business company, among which a company changes (有限会社 -> 株式会社 is
 * common) and a list may lag behind: a difference among them says nothing either way.
 */
const businessForms = new Set(['株式会社', '有限会社', '合同会社', '合名会社', '合資会社']);

/**
 * Whether the record's legal form is the company's: true (the same form), false (another kind
 * of body: a 学校法人 is not a 株式会社), undefined (either has none, or both are business forms).
 */
export function legalFormAgreement(record: string[], company: string[]): boolean | undefined {
  if (record.length === 0 || company.length === 0) return undefined;
  if (record.some((form) => company.includes(form))) return true;
  const business = (forms: string[]) => forms.every((form) => businessForms.has(form));
  return business(record) && business(company) ? undefined : false;
}

/**
 * A company's legal forms, read from its name once per name: a company is judged for every
 * record naming it, and namesakes mostly share their very name (at 1,000,000 companies reading
 * the forms of each namesake of a request of 1,000 records anew took 0.3 s of the request).
 * At most `formsCached` names are kept; then the cache starts again.
 */
const companyForms = new Map<string, string[]>();
const formsCached = 100_000;
function formsOf(company: Company): string[] {
  let forms = companyForms.get(company.name);
  if (!forms) {
    forms = legalForms(company.name);
    if (companyForms.size >= formsCached) companyForms.clear();
    companyForms.set(company.name, forms);
  }
  return forms;
}

const equalKey = (a: string | undefined, b: string | undefined) => Boolean(a) && a === b;

/** The features of a company for a record, rivals not yet counted. */
export function featuresOf(company: Company, evidence: Evidence): Features {
  const { keys } = evidence;
  const named = !evidence.unmatchable;
  const nameKey = named && company.keys.name === keys.name;
  const spokenKey = named && keys.spoken !== '' && company.keys.spoken === keys.spoken;
  const features: Features = {
    nameKey,
    spokenKey,
    // a reading derived from the record's name (evidence.ts withDerivedReading) counts only
    // where the name itself does not agree: beside an equal name it says nothing more
    reading:
      named &&
      keys.reading !== undefined &&
      company.keys.reading === keys.reading &&
      !(evidence.readingDerived && (nameKey || spokenKey)),
    romaji: named && keys.romaji !== undefined && company.keys.romaji === keys.romaji,
    formerName: named && company.keys.former.includes(keys.name),
    spokenKeyKnown: named && keys.spoken !== '' && Boolean(company.keys.spoken),
    // an equal key is as similar as keys get (a namesake: no distances to compute)
    similarity: !named
      ? 0
      : equalKey(keys.name, company.keys.name) ||
          equalKey(keys.spoken, company.keys.spoken) ||
          equalKey(keys.reading, company.keys.reading) ||
          equalKey(keys.romaji, company.keys.romaji)
        ? 1
        : Math.max(
            keySimilarity(keys.name, company.keys.name),
            keySimilarity(keys.spoken, company.keys.spoken),
            keySimilarity(keys.reading, company.keys.reading),
            keySimilarity(keys.romaji, company.keys.romaji),
            ...company.keys.former.map((former) => keySimilarity(keys.name, former)),
          ),
    closed: company.closed,
    rivals: 0,
    outranked: false,
  };
  // the company's forms are read only for a record that gives one (none: nothing to agree with)
  const agrees =
    evidence.legalForms.length > 0 ? legalFormAgreement(evidence.legalForms, formsOf(company)) : undefined;
  if (agrees !== undefined) features.legalForm = agrees;
  if (evidence.prefectures.length > 0)
    features.prefecture =
      evidence.prefectures.length === 1 && company.prefectureId === evidence.prefectures[0];
  if (evidence.addressRest !== undefined && company.cityName) {
    // an address without a prefecture may not name a city at all: only its agreement counts
    const agrees = evidence.addressRest.startsWith(foldAddress(company.cityName));
    if (agrees || evidence.addressHasPrefecture) features.city = agrees;
  }
  if (evidence.phone && company.phone) features.phone = company.phone === evidence.phone;
  if (evidence.host && company.host) features.website = company.host === evidence.host;
  if (evidence.corporateNumber)
    features.corporateNumber = company.corporateNumber === evidence.corporateNumber;
  return features;
}

/** The strongest way the name agrees, or undefined when only evidence brought the company in. */
export function agreementOf(features: Features): NameAgreement | undefined {
  if (features.nameKey) return 'nameKey';
  if (features.spokenKey) return 'spokenKey';
  if (features.reading) return 'reading';
  if (features.romaji) return 'romaji';
  if (features.formerName) return 'formerName';
  return features.similarity >= nearSimilarity ? 'similar' : undefined;
}

/** The similarity from which a name is near (`nearName`): less is a chance resemblance. */
export const nearSimilarity = 0.4;

const contradicted = (features: Features) => features.prefecture === false || features.legalForm === false;
/** What singles a company out among namesakes: city, phone, website, and its very legal form. */
const support = (features: Features) =>
  Number(features.city === true) +
  Number(features.phone === true) +
  Number(features.website === true) +
  Number(features.legalForm === true);

const strength: Record<NameAgreement, number> = {
  nameKey: 5,
  spokenKey: 4,
  reading: 4,
  romaji: 4,
  formerName: 3,
  similar: 1,
};
const strengthOf = (features: Features) => {
  const agreement = agreementOf(features);
  // equal name keys whose spoken keys differ (a symbol or letters apart) fit no better than
  // equal spoken keys or readings do: ソリューションズ＆エイム and Solutions Aim for ソリューションズエイム
  if (agreement === 'nameKey' && features.spokenKeyKnown && !features.spokenKey) return strength.spokenKey;
  return agreement === undefined ? 0 : strength[agreement];
};

/**
 * A company the name agrees with as strongly as a name can (an equal name, spoken, reading or
 * romaji key), open, and not contradicted by the record: a similar name is outranked by it
 * (countRivals) and can never be the match while it stands.
 */
export function isStandingNamesake(features: Features): boolean {
  const agreement = agreementOf(features);
  return (
    agreement !== undefined &&
    agreement !== 'similar' &&
    agreement !== 'formerName' &&
    !features.closed &&
    !contradicted(features)
  );
}

/**
 * Counts each company's rivals: the other companies whose name agrees at the same strength (an
 * equal key of as strong a kind; for a near name, a near name at least as similar), none
 * contradicted by the record, with as much support or more. Two namesakes in the record's
 * prefecture are each other's rivals; the one the city singles out has none. Three namesakes of
 * a name one character from the record's are each other's rivals too: in a large register such
 * a spelling is seldom any of the three (docs/names.md, "The judge fitted at 1,000,000"). A
 * company is outranked when another, not contradicted, agrees more strongly (a similar name
 * below an equal one); a former holder of a name below today's holder even when the record
 * contradicts today's holder.
 */
export function countRivals(all: Features[]): void {
  // one pass to tally, one to read: a common name has a thousand namesakes in a large register,
  // and comparing each with each would cost a million steps per record
  const strengths = all.map(strengthOf);
  const supports = all.map(support);
  // the most support at each strength, among all companies and among the uncontradicted
  const mostSupport = { all: [] as number[], uncontradicted: [] as number[] };
  // uncontradicted companies by strength and support (both small whole numbers)
  const tally = new Map<number, number[]>();
  all.forEach((features, at) => {
    const own = strengths[at] as number;
    const backing = supports[at] as number;
    mostSupport.all[own] = Math.max(mostSupport.all[own] ?? -1, backing);
    if (contradicted(features)) return;
    mostSupport.uncontradicted[own] = Math.max(mostSupport.uncontradicted[own] ?? -1, backing);
    const bySupport = tally.get(own) ?? [];
    bySupport[backing] = (bySupport[backing] ?? 0) + 1;
    tally.set(own, bySupport);
  });
  // the similarities of the uncontradicted near names at each level of support, highest first
  const nearBySupport: number[][] = [];
  all.forEach((features, at) => {
    if (strengths[at] !== strength.similar || contradicted(features)) return;
    const level = supports[at] as number;
    const similarities = nearBySupport[level] ?? [];
    similarities.push(features.similarity);
    nearBySupport[level] = similarities;
  });
  for (const similarities of nearBySupport) similarities?.sort((a, b) => b - a);
  /** The other uncontradicted near names at least as similar, with as much support or more. */
  const nearRivals = (features: Features, backing: number): number => {
    let rivals = 0;
    for (let level = backing; level < nearBySupport.length; level++)
      rivals += atLeast(nearBySupport[level] ?? [], features.similarity);
    return rivals - (contradicted(features) ? 0 : 1);
  };
  all.forEach((features, at) => {
    const agreement = agreementOf(features);
    const own = strengths[at] as number;
    const backing = supports[at] as number;
    // a former name is outranked by another company's current name even where the record's
    // prefecture rules that company out (a list may hold the old name, which is another's today);
    // anything else only by a company the record does not contradict. A company whose key agrees
    // (spoken, reading, romaji, former) is outranked only by a stronger one with as much support:
    // a record in kana with the phone of 株式会社若葉ネットワークス names it, not ﾜｶﾊﾞﾈｯﾄﾜｰｸｽ株式会社
    // without a phone, whose name key is the record's
    const byKey = agreement !== undefined && agreement !== 'similar';
    const stronger = agreement === 'formerName' ? mostSupport.all : mostSupport.uncontradicted;
    features.outranked = stronger.some(
      (most, strength) => strength > own && most !== undefined && (!byKey || most >= backing),
    );
    if (agreement === 'similar') features.rivals = nearRivals(features, backing);
    if (!byKey) return;
    const bySupport = tally.get(own) ?? [];
    let rivals = 0;
    for (let level = backing; level < bySupport.length; level++) rivals += bySupport[level] ?? 0;
    // the company itself is among those counted when nothing contradicts it
    features.rivals = rivals - (contradicted(features) ? 0 : 1);
  });
}

/** How many of `descending` are `value` or more (a binary search). */
function atLeast(descending: readonly number[], value: number): number {
  let [low, high] = [0, descending.length];
  while (low < high) {
    const middle = (low + high) >> 1;
    if ((descending[middle] as number) >= value) low = middle + 1;
    else high = middle;
  }
  return low;
}

const zeroVector = Object.fromEntries(weightNames.map((name) => [name, 0])) as Record<WeightName, number>;

/** The features as the weights read them: each weight's input, 0 where it does not apply. */
export function featureVector(features: Features): Record<WeightName, number> {
  // a copy of a zero vector made once: a request judges tens of thousands of companies
  const x = { ...zeroVector };
  x.intercept = 1;
  x.similarity = features.similarity;
  // the strongest key counts (a company equal by name is equal by its spoken key too), at its
  // strength (countRivals): one weight for an equal spoken key, reading or romaji, and for equal
  // name keys whose spoken keys differ (a symbol or letters the name key drops:
  // ソリューションズ＆エイム and ソリューションズエイム), so rivals of one strength weigh alike
  const agreement = agreementOf(features);
  if (agreement === 'nameKey' && features.spokenKeyKnown && !features.spokenKey) x.spokenKey = 1;
  else if (agreement === 'reading' || agreement === 'romaji') x.spokenKey = 1;
  else if (agreement !== undefined && agreement !== 'similar') x[agreement] = 1;
  if (features.legalForm !== undefined) x[features.legalForm ? 'legalFormAgrees' : 'legalFormDisagrees'] = 1;
  if (features.prefecture !== undefined)
    x[features.prefecture ? 'prefectureAgrees' : 'prefectureDisagrees'] = 1;
  // a company has more than one phone and site, and moves: a difference weighs less than a match
  if (features.city !== undefined) x[features.city ? 'city' : 'cityDisagrees'] = 1;
  if (features.phone !== undefined) x[features.phone ? 'phone' : 'phoneDisagrees'] = 1;
  if (features.website !== undefined) x[features.website ? 'website' : 'websiteDisagrees'] = 1;
  if (features.closed) x.closed = 1;
  x[agreement === 'similar' ? 'nearRivals' : 'rivals'] = Math.log1p(features.rivals);
  if (features.outranked) x.outranked = 1;
  // a valid corporate number the company does not have: the record names another company
  if (features.corporateNumber === false) x.corporateNumberDisagrees = 1;
  return x;
}

/** The odds the weights give a company, e^z (z: the weighted sum of its features, zOf). */
export function oddsOf(features: Features, w: Weights = weights()): number {
  return Math.exp(Math.min(zOf(features, w), 50));
}

/**
 * The weighted sum of a company's features: featureVector's terms in the order of `weightNames`,
 * those that are 0 left out (adding 0 leaves a sum as it is), so the very z that
 * `oddsOfVector(featureVector(features))` sums, without a vector per company: a request of 1,000
 * records judges about 35,000 companies, each a vector copied and read by name (with
 * `calibrate`'s walk, the judge's time; test/names/judge-units.test.ts holds the two sums equal).
 */
export function zOf(features: Features, w: Weights): number {
  const agreement = agreementOf(features);
  let z = w.intercept;
  // the strongest key at its strength, as featureVector gives it
  if (agreement === 'nameKey') z += features.spokenKeyKnown && !features.spokenKey ? w.spokenKey : w.nameKey;
  else if (agreement === 'spokenKey' || agreement === 'reading' || agreement === 'romaji') z += w.spokenKey;
  else if (agreement === 'formerName') z += w.formerName;
  z += w.similarity * features.similarity;
  if (features.legalForm !== undefined) z += features.legalForm ? w.legalFormAgrees : w.legalFormDisagrees;
  if (features.prefecture !== undefined)
    z += features.prefecture ? w.prefectureAgrees : w.prefectureDisagrees;
  if (features.city !== undefined) z += features.city ? w.city : w.cityDisagrees;
  if (features.phone !== undefined) z += features.phone ? w.phone : w.phoneDisagrees;
  if (features.website !== undefined) z += features.website ? w.website : w.websiteDisagrees;
  if (features.closed) z += w.closed;
  if (features.corporateNumber === false) z += w.corporateNumberDisagrees;
  z += (agreement === 'similar' ? w.nearRivals : w.rivals) * Math.log1p(features.rivals);
  if (features.outranked) z += w.outranked;
  return z;
}

/** The odds of a feature vector (featureVector): e^z, z capped at 50 so that a sum stays finite. */
export function oddsOfVector(x: Record<WeightName, number>, w: Weights): number {
  let z = 0;
  for (const name of weightNames) z += w[name] * x[name];
  return Math.exp(Math.min(z, 50));
}

/** The highest confidence a name can earn; a corporate number that agrees gives it outright. */
export const topConfidence = 0.99;

/** The confidence the calibration gives a share of the odds. */
export function calibrate(share: number, calibration: Calibration = judgeTableOf().calibration): number {
  // the steps rise (readCalibration): the last one the share reaches is its step, found by
  // halving (a table has about 50 steps, and a request calibrates 35,000 shares); a share that
  // reaches none (NaN) gets the first step's
  let [low, high] = [0, calibration.length];
  while (low < high) {
    const middle = (low + high) >> 1;
    if (share >= (calibration[middle] as [number, number])[0]) low = middle + 1;
    else high = middle;
  }
  const step = calibration[low === 0 ? 0 : low - 1];
  return Math.min(topConfidence, step?.[1] ?? 0);
}

/**
 * The confidences (0-1) of the companies a record may name, in their order: each one's share of
 * the odds (the others' and 1 for "none of them"), calibrated; the answer cuts them to two
 * decimals.
 */
export function confidencesOf(
  all: readonly Features[],
  w: Weights = weights(),
  calibration: Calibration = judgeTableOf().calibration,
): number[] {
  const odds = all.map((features) => oddsOf(features, w));
  const total = 1 + odds.reduce((sum, value) => sum + value, 0);
  return all.map((features, i) =>
    features.corporateNumber === true ? topConfidence : calibrate((odds[i] as number) / total, calibration),
  );
}

/** The confidence of a company alone among the candidates. */
export function confidenceOf(features: Features, w?: Weights, calibration?: Calibration): number {
  return confidencesOf([features], w, calibration)[0] as number;
}

/**
 * Whether a candidate may be a match at all: its name agrees by a key (not only by similarity),
 * or a corporate number agrees, or a phone or a website agrees with a name at least near
 * (`nearSimilarity`). A similar name with nothing but the prefecture and the legal form is a
 * candidate, never a match, however few others there are; so is a name that resembles the
 * company's by chance only, whatever phone or website agrees (a group's companies share a
 * number, and a number passes to another holder; the evaluation's generator never does either,
 * so the fitted weights rate a phone highly: 0.94 for a phone and a prefecture beside a name
 * sharing nothing with the company's);
 * so is a company closed in the register, or one another company fits more strongly
 * (`outranked`: the former holder of a name that is another's today, even when the record's
 * prefecture rules today's holder out), unless its corporate number is the record's (a list
 * that names a closed company by name alone more often means its successor).
 */
export function mayMatch(features: Features): boolean {
  if (features.corporateNumber === true) return true;
  if (features.closed || features.outranked) return false;
  const agreement = agreementOf(features);
  if (agreement === undefined) return false;
  return agreement !== 'similar' || features.phone === true || features.website === true;
}

/**
 * The features back from the list an answer gives (featureList), for fitting the weights to
 * answers: what the list leaves out was not compared.
 */
export function featuresFromList(list: FeatureList): Features {
  const value = (id: keyof Features) => list.find((entry) => entry.id === id)?.value;
  const flag = (id: keyof Features) => value(id) === true;
  const known = (id: keyof Features) => (value(id) === undefined ? {} : { [id]: value(id) === true });
  return {
    nameKey: flag('nameKey'),
    spokenKey: flag('spokenKey'),
    spokenKeyKnown: value('spokenKey') !== undefined,
    reading: flag('reading'),
    romaji: flag('romaji'),
    formerName: flag('formerName'),
    similarity: Number(value('similarity') ?? 0),
    ...known('legalForm'),
    ...known('prefecture'),
    ...known('city'),
    ...known('phone'),
    ...known('website'),
    ...known('corporateNumber'),
    closed: flag('closed'),
    rivals: Number(value('rivals') ?? 0),
    outranked: flag('outranked'),
  };
}

/** The features as the answer lists them: only what was compared, in a fixed order. */
export function featureList(features: Features): FeatureList {
  const order: Array<keyof Features> = [
    'nameKey',
    'spokenKey',
    'reading',
    'romaji',
    'formerName',
    'similarity',
    'legalForm',
    'prefecture',
    'city',
    'phone',
    'website',
    'corporateNumber',
    'closed',
    'rivals',
    'outranked',
  ];
  return order
    .filter((id) => features[id] !== undefined && (id !== 'spokenKey' || features.spokenKeyKnown))
    .map((id) => ({
      id,
      value:
        id === 'similarity'
          ? Math.round((features[id] as number) * 100) / 100
          : (features[id] as number | boolean),
    }));
}

/** The default lowest confidence of a match, and the lead it needs over the next candidate. */
export const defaultMinConfidence = 0.9;
export const matchMargin = 0.15;
