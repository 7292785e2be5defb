/**
 * POST /corporates/match: company names of a caller's list (a CRM export) -> corporate numbers.
 * Retrieval, then a judge (docs/api.md, "Matching company names"; docs/names.md):
 *
 *   {records: [{name: '㈱マルカ物流 厚木工場', prefectureId: 14}], minConfidence: 0.9}
 *   -> evidenceOf: the record's keys (name, spoken, reading, romaji), legal forms and evidence
 *   -> lookUpKeys: one msearch for the companies any key of the request equals, in the
 *      prefectures the key's records name (the evidence keys, phone digits, website host and
 *      corporate number, bring companies in on their own)
 *   -> judge each company: its features and their confidence (./judge.ts)
 *   -> records with no match yet: lookUpSimilar, companies with similar names (2-3 character
 *      grams of the keys, 3-character only for a key of 9 or more: lookup.ts gramQuery),
 *      judged the same way
 *   -> the match: the best candidate when its confidence reaches minConfidence and leads the
 *      next by matchMargin, and no key of the record overflowed the lookup
 */
import type { Evidence, MatchRecord } from './evidence.js';
import { evidenceOf, wantsDerivedReading, withDerivedReading } from './evidence.js';
import {
  agreementOf,
  confidencesOf,
  countRivals,
  defaultMinConfidence,
  type FeatureList,
  type Features,
  featureList,
  featuresOf,
  isStandingNamesake,
  type JudgeTable,
  judgeTableOf,
  matchMargin,
  mayMatch,
} from './judge.js';
import {
  type Company,
  type Ctx,
  type Found,
  foundUnder,
  keyId,
  lookUpKeys,
  lookUpSimilar,
  lookupValues,
} from './lookup.js';
import { loadReadingAnalyser, type ReadingAnalyser } from './reading.js';

export type { MatchRecord } from './evidence.js';
export { isUnmatchableKey } from './evidence.js';

/** A body the validator (openapi.yaml, MatchRequest) has accepted. */
export interface MatchRequest {
  records: MatchRecord[];
  candidates?: number;
  maxCredits?: number;
  /** The lowest confidence of a match (default defaultMinConfidence). */
  minConfidence?: number;
}

export type MatchedOn =
  | 'name'
  /** the spoken keys are equal (letters, loanwords, symbols said as words) */
  | 'spokenName'
  | 'reading'
  | 'romaji'
  /** a similar name (shortened, lengthened, mistyped): its similarity is in `features` */
  | 'nearName'
  /** the company had this name before (the registry's former names); the answer is its current name */
  | 'formerName'
  | 'prefecture'
  | 'address'
  | 'phone'
  | 'website'
  | 'corporateNumber';

export interface Candidate {
  corporateNumber: string;
  name: string;
  furigana: string | null;
  prefectureId: number | null;
  cityName: string | null;
  /** 0-1: the probability that this is the company the record names. */
  confidence: number;
  /** The confidence again, under the name the first version of the endpoint gave it. */
  score: number;
  matchedOn: MatchedOn[];
  features: FeatureList;
}

export interface MatchResult {
  /** The candidate the judge is sure of (confidence and margin), else null. */
  match: Candidate | null;
  candidates: Candidate[];
  /** A certain match withheld because `maxCredits` was spent: send the record again. */
  overMaxCredits: boolean;
}

export const defaultCandidates = 3;

/** Companies one engine search may return; beyond it the lookup is incomplete (no match). */
export const lookupSize = 10_000;
/** Companies with similar names asked per record, at least. */
const similarSize = 5;

/** What agreed, in the words of `matchedOn`. */
function matchedOnOf(features: Features): MatchedOn[] {
  const on: MatchedOn[] = [];
  const agreement = agreementOf(features);
  if (features.nameKey) on.push('name');
  else if (features.spokenKey) on.push('spokenName');
  if (features.reading) on.push('reading');
  if (features.romaji) on.push('romaji');
  if (features.formerName && !features.nameKey) on.push('formerName');
  if (agreement === 'similar') on.push('nearName');
  if (features.prefecture) on.push('prefecture');
  if (features.city) on.push('address');
  if (features.phone) on.push('phone');
  if (features.website) on.push('website');
  if (features.corporateNumber) on.push('corporateNumber');
  return on;
}

function candidateOf(
  company: Company,
  features: Features,
  exact: number,
): Candidate & { exact: number; eligible: boolean } {
  const confidence = twoDecimalsDown(exact);
  return {
    exact,
    eligible: mayMatch(features),
    corporateNumber: company.corporateNumber,
    name: company.name,
    furigana: company.furigana,
    prefectureId: company.prefectureId,
    cityName: company.cityName,
    confidence,
    score: confidence,
    matchedOn: matchedOnOf(features),
    features: featureList(features),
  };
}

/**
 * The order of candidates of equal confidence, as `localeCompare` gives it, from one collator:
 * `localeCompare` sets one up per call, and a record with a thousand namesakes sorts them.
 */
const byName = new Intl.Collator();

/**
 * The positions of the first `count` companies in candidate order: higher confidence (unrounded)
 * first, then name, then corporate number, as one collator orders them. A selection, not a sort:
 * each company is compared with the last one kept, so a name with hundreds of namesakes costs
 * about one comparison each.
 */
function firstInOrder(
  judged: ReadonlyArray<{ company: Company }>,
  confidences: readonly number[],
  count: number,
): number[] {
  const before = (a: number, b: number) => {
    const x = judged[a]?.company as Company;
    const y = judged[b]?.company as Company;
    return (
      (confidences[b] as number) - (confidences[a] as number) ||
      byName.compare(x.name, y.name) ||
      byName.compare(x.corporateNumber, y.corporateNumber)
    );
  };
  const kept: number[] = [];
  for (let at = 0; at < judged.length; at++) {
    if (kept.length === count && before(at, kept[count - 1] as number) >= 0) continue;
    let place = kept.length === count ? count - 1 : kept.length;
    while (place > 0 && before(at, kept[place - 1] as number) < 0) place--;
    kept.splice(place, 0, at);
    if (kept.length > count) kept.pop();
  }
  return kept;
}

/**
 * The companies the key lookups found for one record, as it would have them alone: a record
 * naming one prefecture gets, under each of its keys, the companies in that prefecture, or all
 * of them when none is there (the lookups asked a key in every prefecture its records name, or
 * everywhere when one of them names none: src/names/lookup.ts lookUpKeys).
 */
function companiesFound(evidence: Evidence, found: Found): Company[] {
  const only = evidence.prefectures.length === 1 ? evidence.prefectures[0] : undefined;
  const companies = new Map<string, Company>();
  for (const [field, value] of lookupValues(evidence)) {
    const all = foundUnder(found, field, value);
    const inPrefecture = only === undefined ? all : all.filter((company) => company.prefectureId === only);
    for (const company of inPrefecture.length > 0 ? inPrefecture : all)
      companies.set(company.corporateNumber, company);
  }
  return [...companies.values()];
}

/**
 * One record's answer from the companies it may name, and how many of them stand as namesakes
 * (isStandingNamesake): `listed` of them fill the candidates (the request's count; every one
 * judged for a fit's dump), and no similar name could change the answer.
 */
function decide(
  table: JudgeTable,
  evidence: Evidence,
  companies: Company[],
  incomplete: boolean,
  listed: number,
  minConfidence: number,
): { result: MatchResult; namesakes: number } {
  const judged = companies.map((company) => ({ company, features: featuresOf(company, evidence) }));
  const features = judged.map((item) => item.features);
  countRivals(features);
  const confidences = confidencesOf(features, table.weights, table.calibration);
  // the first `listed` (and the one after the best, for the margin) in candidate order; only
  // they become candidates (a common name has hundreds of namesakes, most never shown)
  const top = firstInOrder(judged, confidences, Math.max(listed, 2));
  const ranked = top.map((at) => {
    const { company, features: own } = judged[at] as (typeof judged)[number];
    return candidateOf(company, own, confidences[at] as number);
  });
  const [first] = ranked;
  const [best, next] = ranked;
  const sure =
    !incomplete &&
    best !== undefined &&
    first?.eligible === true &&
    best.confidence >= minConfidence &&
    (next === undefined || best.confidence - next.confidence >= matchMargin);
  const candidates = ranked.slice(0, listed).map(({ exact: _, eligible: __, ...candidate }) => candidate);
  return {
    result: { match: sure ? (candidates[0] ?? null) : null, candidates, overMaxCredits: false },
    namesakes: judged.filter((item) => isStandingNamesake(item.features)).length,
  };
}

/**
 * The results of a validated match body, one per record in input order. `options.lookupSize`:
 * tests make the one lookup overflow with it; `options.readingAnalyser`: tests make the
 * dictionary fail to load with it; `options.listEveryJudged`: each result lists every company
 * judged for its record, in candidate order, the answer otherwise as `candidates` gives it (the
 * fit's dumps: a record's confidences are shares of the odds of all of them, bench/fit-judge.ts).
 */
export async function runMatch(
  ctx: Ctx,
  request: MatchRequest,
  options: {
    lookupSize?: number;
    readingAnalyser?: () => Promise<ReadingAnalyser>;
    listEveryJudged?: boolean;
  } = {},
): Promise<MatchResult[]> {
  const limit = request.candidates ?? defaultCandidates;
  const listed = options.listEveryJudged ? Number.POSITIVE_INFINITY : limit;
  const table = judgeTableOf(ctx.config.matchJudgeFile);
  const minConfidence = request.minConfidence ?? defaultMinConfidence;
  let evidence = request.records.map(evidenceOf);
  // names written partly in their reading: the analyser's reading too (loaded on first need);
  // a dictionary that fails to load costs those records their derived reading, not the request
  if (evidence.some(wantsDerivedReading)) {
    const analyser = await (options.readingAnalyser ?? loadReadingAnalyser)().catch(() => {
      ctx.logger.warn({ names: { part: 'reading dictionary' } }, 'matching without derived readings');
      return undefined;
    });
    if (analyser)
      evidence = evidence.map((item, at) =>
        withDerivedReading(item, request.records[at]?.name ?? '', analyser),
      );
  }
  const found = await lookUpKeys(ctx, evidence, options.lookupSize ?? lookupSize);
  const byRecord = evidence.map((item) => companiesFound(item, found));
  const incomplete = evidence.map((item) =>
    lookupValues(item).some(([field, value]) => found.incompleteKeys.has(keyId(field, value))),
  );
  const decided = evidence.map((item, at) =>
    decide(table, item, byRecord[at] as Company[], incomplete[at] as boolean, listed, minConfidence),
  );
  const results = decided.map((item) => item.result);
  // the records left without a match: companies with similar names too, unless namesakes the
  // record does not contradict fill the candidates already (a similar name is outranked by
  // them and could never be the match: in a large register a common name has hundreds of
  // namesakes, and its similar names thousands)
  const open = decided.flatMap(({ result, namesakes }, at) =>
    result.match || evidence[at]?.unmatchable || namesakes >= limit ? [] : [at],
  );
  if (open.length === 0) return results;
  const similar = await lookUpSimilar(ctx, evidence, open, Math.max(limit, similarSize));
  for (const at of open) {
    const more = similar.get(at) ?? [];
    const known = new Set((byRecord[at] as Company[]).map((company) => company.corporateNumber));
    const companies = [
      ...(byRecord[at] as Company[]),
      ...more.filter((company) => !known.has(company.corporateNumber)),
    ];
    results[at] = decide(
      table,
      evidence[at] as Evidence,
      companies,
      incomplete[at] as boolean,
      listed,
      minConfidence,
    ).result;
  }
  return results;
}

/**
 * Withholds the certain matches past what `maxCredits` pays for, in input order: such a
 * record is answered without match or candidates (the candidates would name the company for
 * free) and flagged `overMaxCredits`, for the caller to send again. `price` 0: nothing is
 * withheld. Returns the credits the answered matches cost.
 *
 *   price 1, maxCredits 2, matches at records 0, 3, 5 -> 0 and 3 answered, 5 withheld; 2 credits
 */
export function applyBudget(results: MatchResult[], price: number, maxCredits: number | undefined): number {
  if (price === 0) return 0;
  const affordable = maxCredits === undefined ? Number.POSITIVE_INFINITY : Math.floor(maxCredits / price);
  let matched = 0;
  for (const result of results) {
    if (!result.match) continue;
    if (matched < affordable) {
      matched += 1;
      continue;
    }
    result.match = null;
    result.candidates = [];
    result.overMaxCredits = true;
  }
  return matched * price;
}

/**
 * A confidence as answered: cut to two decimals, never rounded up. A calibrated value is the
 * share of right answers of its step (docs/names.md, "Fitting"); rounding up could carry it
 * past a band's edge (0.498, two namesakes each right half the time, would read 0.50) and
 * overstate it. The epsilon keeps a value written with two decimals (0.29) from becoming the
 * one below through binary floating point.
 */
export function twoDecimalsDown(value: number): number {
  return Math.floor(value * 100 + 1e-9) / 100;
}
