/**
 * POST /corporates/match: company names of a caller's list (a CRM export) -> corporate numbers.
 * A decision, not a ranking: `match` is set only when one company remains after the evidence;
 * every other record gets candidates with the reasons (docs/api.md, "Matching company names").
 *
 *   {records: [{name: '㈱マルカ物流', prefectureId: 14}]}
 *   -> one `terms` search over the whole request's keys (nameKey / readingKey / romajiKey,
 *      plus corporateNumber for the valid numbers given), then per record:
 *      companies whose key equals the record's (queryKeys of src/names/keys.ts)
 *      -> a valid corporate number decides alone
 *      -> a prefecture given (prefectureId, or named at the start of the address) removes the
 *         companies elsewhere (a contradiction: they stay candidates, never the match)
 *      -> one left: the match; several: city (address), phone or website may single one out
 *   -> no company has the key as its current name: companies that had it as a former name
 *      (formerNameKeys, kept by the registry import) are weighed the same way, one left: the match
 *   -> records with no equal key: a prefix of the key (near names, one msearch), candidates only
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { API } from '@opensearch-project/opensearch';
import type { Deadline } from '../deadline.js';
import { DeadlineExceeded } from '../deadline.js';
import { errors } from '../errors/catalogue.js';
import { withinDeadline } from '../opensearch/deadline.js';
import { indexName } from '../opensearch/indices.js';
import { projectRoot } from '../project-root.js';
import { assertComplete, engineTimeouts, toSearchError } from '../search/opensearch-errors.js';
import { engineSearch, hitsOf, totalOf } from '../search/paging/pit-search.js';
import type { Services } from '../services.js';
import { foldAddress, parseAddress, phoneDigits, websiteHost } from '../text/address.js';
import { isValidCorporateNumber } from '../text/corporate-number.js';
import { nameKey, queryKeys } from './keys.js';

export interface MatchRecord {
  name: string;
  prefectureId?: number;
  address?: string;
  phoneNumber?: string;
  websiteUrl?: string;
  corporateNumber?: string;
}

/** A body the validator (openapi.yaml, MatchRequest) has accepted. */
export interface MatchRequest {
  records: MatchRecord[];
  candidates?: number;
  maxCredits?: number;
}

export type MatchedOn =
  | 'name'
  | 'reading'
  | 'romaji'
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
  score: number;
  matchedOn: MatchedOn[];
}

export interface MatchResult {
  /** The one company the evidence leaves (the candidate that decided), else null. */
  match: Candidate | null;
  candidates: Candidate[];
  /** A certain match withheld because `maxCredits` was spent: send the record again. */
  overMaxCredits: boolean;
}

export const defaultCandidates = 3;

/** Companies one engine search may return; beyond it the lookup is incomplete (no match). */
export const lookupSize = 10_000;
/** Near names are looked up for keys of at least this many characters. */
const nearNameMinLength = 2;

const generic = new Set(
  (
    JSON.parse(readFileSync(path.join(projectRoot, 'data', 'names', 'generic-names.json'), 'utf8')) as {
      names: string[];
    }
  ).names.map((name) => nameKey(name)),
);

/** A key that names no one company: empty (株式会社 alone) or a generic word (data/names/generic-names.json). */
export function isUnmatchableKey(key: string): boolean {
  return key === '' || generic.has(key);
}

interface Company {
  corporateNumber: string;
  name: string;
  furigana: string | null;
  prefectureId: number | null;
  cityName: string | null;
  phone: string | undefined;
  host: string | undefined;
  keys: { name?: string; reading?: string; romaji?: string; former: string[] };
  /** Closed in the register: never a match unless the record gives its corporate number. */
  closed: boolean;
}

/** What a record says, folded once. */
interface Evidence {
  keys: { name: string; reading?: string; romaji?: string };
  unmatchable: boolean;
  /** Prefectures the record names (prefectureId, the address's); two different: none can agree. */
  prefectures: number[];
  /** The address after its prefecture, folded; a company's cityName is looked for at its start. */
  addressRest?: string;
  phone?: string;
  host?: string;
  /** Only a number with a correct check digit is evidence. */
  corporateNumber?: string;
}

const fetchedFields = [
  'corporateNumber',
  'name',
  'furigana',
  'prefectureId',
  'cityName',
  'phoneNumber',
  'websiteUrl',
  'nameKey',
  'readingKey',
  'romajiKey',
  // the name keys of the company's former names (the registry import)
  'formerNameKeys',
  // set by the registry import for a company closed, merged away or erased
  'registry.closed',
] as const;

function evidenceOf(record: MatchRecord): Evidence {
  const keys = queryKeys(record.name);
  const prefectures = new Set<number>();
  if (record.prefectureId !== undefined) prefectures.add(record.prefectureId);
  let addressRest: string | undefined;
  if (record.address !== undefined) {
    const parsed = parseAddress(record.address);
    if (parsed.prefectureId !== undefined) prefectures.add(parsed.prefectureId);
    if (parsed.rest !== '') addressRest = parsed.rest;
  }
  const phone = record.phoneNumber === undefined ? undefined : phoneDigits(record.phoneNumber);
  const number = record.corporateNumber?.normalize('NFKC').trim();
  return {
    keys,
    unmatchable: isUnmatchableKey(keys.name),
    prefectures: [...prefectures],
    ...(addressRest !== undefined ? { addressRest } : {}),
    ...(phone && phone.length >= 6 ? { phone } : {}),
    ...(record.websiteUrl !== undefined && websiteHost(record.websiteUrl)
      ? { host: websiteHost(record.websiteUrl) }
      : {}),
    ...(number && isValidCorporateNumber(number) ? { corporateNumber: number } : {}),
  };
}

type HitFields = Record<string, unknown[] | undefined>;

function first(fields: HitFields, field: string): unknown {
  return fields[field]?.[0];
}

function companyOf(fields: HitFields): Company {
  const text = (field: string) => {
    const value = first(fields, field);
    return typeof value === 'string' && value !== '' ? value : undefined;
  };
  const phone = text('phoneNumber');
  const website = text('websiteUrl');
  const prefectureId = first(fields, 'prefectureId');
  return {
    corporateNumber: String(first(fields, 'corporateNumber')),
    name: String(first(fields, 'name') ?? ''),
    furigana: text('furigana') ?? null,
    prefectureId: typeof prefectureId === 'number' ? prefectureId : null,
    cityName: text('cityName') ?? null,
    phone: phone ? phoneDigits(phone) : undefined,
    host: website ? websiteHost(website) : undefined,
    keys: {
      ...(text('nameKey') ? { name: text('nameKey') } : {}),
      ...(text('readingKey') ? { reading: text('readingKey') } : {}),
      ...(text('romajiKey') ? { romaji: text('romajiKey') } : {}),
      former: (fields.formerNameKeys ?? []).filter((key): key is string => typeof key === 'string'),
    },
    closed: first(fields, 'registry.closed') === true,
  };
}

/** How a company's keys equal the record's: name, reading, romaji (queryKeys pairs them). */
function keyMatches(company: Company, evidence: Evidence): MatchedOn[] {
  const on: MatchedOn[] = [];
  if (evidence.unmatchable) return on;
  if (company.keys.name === evidence.keys.name) on.push('name');
  if (evidence.keys.reading && company.keys.reading === evidence.keys.reading) on.push('reading');
  if (evidence.keys.romaji && company.keys.romaji === evidence.keys.romaji) on.push('romaji');
  return on;
}

interface Judged {
  company: Company;
  on: MatchedOn[];
  /** A prefecture given and this company is elsewhere. */
  contradicted: boolean;
  /** City, phone or website agree. */
  supported: boolean;
  base: number;
}

function judge(company: Company, evidence: Evidence, nameOn: MatchedOn[], base: number): Judged {
  const on = [...nameOn];
  let contradicted = false;
  let supported = false;
  if (evidence.prefectures.length > 0) {
    const agrees = evidence.prefectures.length === 1 && company.prefectureId === evidence.prefectures[0];
    if (agrees) on.push('prefecture');
    else contradicted = true;
  }
  if (
    evidence.addressRest !== undefined &&
    company.cityName &&
    evidence.addressRest.startsWith(foldAddress(company.cityName))
  ) {
    on.push('address');
    supported = true;
  }
  if (evidence.phone && company.phone === evidence.phone) {
    on.push('phone');
    supported = true;
  }
  if (evidence.host && company.host === evidence.host) {
    on.push('website');
    supported = true;
  }
  if (evidence.corporateNumber && company.corporateNumber === evidence.corporateNumber)
    on.push('corporateNumber');
  return { company, on, contradicted, supported, base };
}

/** 0-1, for ordering the candidates: the key's kind, plus agreeing evidence, less a contradiction. */
function scoreOf(judged: Judged, decided: boolean): number {
  if (decided) return 1;
  const evidence = judged.on.filter(
    (on) => !['name', 'reading', 'romaji', 'nearName', 'formerName'].includes(on),
  );
  const raw = judged.base + 0.05 * evidence.length - (judged.contradicted ? 0.4 : 0);
  return Math.round(Math.min(0.99, Math.max(0, raw)) * 100) / 100;
}

function toCandidate(judged: Judged, decided: boolean): Candidate {
  const { company } = judged;
  return {
    corporateNumber: company.corporateNumber,
    name: company.name,
    furigana: company.furigana,
    prefectureId: company.prefectureId,
    cityName: company.cityName,
    score: scoreOf(judged, decided),
    matchedOn: judged.on,
  };
}

/** What the lookups found, by the values looked up. */
interface Found {
  byName: Map<string, Company[]>;
  byReading: Map<string, Company[]>;
  byRomaji: Map<string, Company[]>;
  /** companies by the key of a former name of theirs */
  byFormerName: Map<string, Company[]>;
  byNumber: Map<string, Company>;
  /**
   * Keys (`field:value`) sharing more companies than a lookup returns: a record with one of
   * them is answered without a match (its candidates are a part of the companies).
   */
  incompleteKeys: Set<string>;
}

const keyId = (field: string, value: string) => `${field}:${value}`;

function emptyFound(): Found {
  return {
    byName: new Map(),
    byReading: new Map(),
    byRomaji: new Map(),
    byFormerName: new Map(),
    byNumber: new Map(),
    incompleteKeys: new Set(),
  };
}

/** The keys a record is looked up by, as `keyId`s. */
function recordKeys(item: Evidence): string[] {
  const ids = item.corporateNumber ? [keyId('corporateNumber', item.corporateNumber)] : [];
  if (item.unmatchable) return ids;
  ids.push(keyId('nameKey', item.keys.name), keyId('formerNameKeys', item.keys.name));
  if (item.keys.reading) ids.push(keyId('readingKey', item.keys.reading));
  if (item.keys.romaji) ids.push(keyId('romajiKey', item.keys.romaji));
  return ids;
}

function push(map: Map<string, Company[]>, key: string | undefined, company: Company): void {
  if (!key) return;
  const list = map.get(key);
  if (list) list.push(company);
  else map.set(key, [company]);
}

type Ctx = Pick<Services, 'opensearch' | 'logger' | 'config'> & { deadline?: Deadline | undefined };

/**
 * Every key of the request in one search:
 *   {bool: {should: [{terms: {nameKey: [...]}}, {terms: {readingKey: [...]}},
 *                    {terms: {romajiKey: [...]}}, {terms: {corporateNumber: [...]}}]}}
 * reading only doc values (no `_source`).
 */
async function lookUpKeys(ctx: Ctx, evidence: Evidence[], size: number): Promise<Found> {
  const names = new Set<string>();
  const readings = new Set<string>();
  const romaji = new Set<string>();
  const numbers = new Set<string>();
  // the prefectures a key is asked in: a key every record of which names one prefecture needs
  // no namesake elsewhere to be decided (another prefecture contradicts the record)
  const scopes = new Map<string, Set<number> | 'any'>();
  for (const item of evidence) {
    if (item.corporateNumber) numbers.add(item.corporateNumber);
    if (item.unmatchable) continue;
    names.add(item.keys.name);
    if (item.keys.reading) readings.add(item.keys.reading);
    if (item.keys.romaji) romaji.add(item.keys.romaji);
    for (const id of recordKeys(item)) {
      const scope = scopes.get(id);
      const only = item.prefectures.length === 1 ? (item.prefectures[0] as number) : undefined;
      if (only === undefined || scope === 'any') scopes.set(id, 'any');
      else scopes.set(id, new Set([...(scope ?? []), only]));
    }
  }
  const found = emptyFound();
  const should = [
    ['nameKey', names],
    ['readingKey', readings],
    ['romajiKey', romaji],
    ['formerNameKeys', names],
    ['corporateNumber', numbers],
  ]
    .filter(([, values]) => (values as Set<string>).size > 0)
    .map(([field, values]) => ({ terms: { [field as string]: [...(values as Set<string>)] } }));
  if (should.length === 0) return found;
  const body = await engineSearch(ctx, {
    index: indexName(ctx.config.indexPrefix, 'corporates'),
    body: {
      query: { bool: { should, minimum_should_match: 1 } },
      size,
      track_total_hits: size + 1,
      _source: false,
      stored_fields: ['_none_'],
      docvalue_fields: [...fetchedFields],
    } as API.Search_Request['body'],
  });
  const hits = hitsOf(body);
  // more companies share the request's keys than one search returns (common names in a large
  // index): each key is looked up on its own, so only the records of a key that still
  // overflows go unmatched, not the whole request
  if (totalOf(body) > hits.length)
    return lookUpKeysOneByOne(ctx, { names, readings, romaji, numbers }, size, scopes);
  for (const hit of hits)
    file(found, companyOf((hit as { fields?: HitFields }).fields ?? {}), {
      names,
      readings,
      romaji,
      numbers,
    });
  return found;
}

interface KeySets {
  names: Set<string>;
  readings: Set<string>;
  romaji: Set<string>;
  numbers: Set<string>;
}

/** Files a company under each key of the request it has. */
function file(found: Found, company: Company, keys: KeySets): void {
  if (company.keys.name && keys.names.has(company.keys.name)) push(found.byName, company.keys.name, company);
  if (company.keys.reading && keys.readings.has(company.keys.reading))
    push(found.byReading, company.keys.reading, company);
  if (company.keys.romaji && keys.romaji.has(company.keys.romaji))
    push(found.byRomaji, company.keys.romaji, company);
  for (const former of company.keys.former)
    if (keys.names.has(former)) push(found.byFormerName, former, company);
  if (keys.numbers.has(company.corporateNumber)) found.byNumber.set(company.corporateNumber, company);
}

/** Keys per search of a key-by-key lookup: a few searches, each likely to fit in `size`. */
const keysPerGroup = 64;

/**
 * The request's keys in groups of `keysPerGroup`, one search each, in one msearch (a key whose
 * records each name one prefecture is looked up in those prefectures only: its namesakes
 * elsewhere could not be its match, and are left out of its candidates too); a group
 * whose companies are more than `size` is looked up again one key per search, and a key that
 * still overflows is recorded in `incompleteKeys`:
 *   [{index}, {query: {bool: {should: [{terms: {nameKey: [64 keys]}}]}}, size, track_total_hits: size + 1}, ...]
 *   -> overflowing group: [{index}, {query: {terms: {nameKey: ['まるか物流']}}, ...}, ...]
 */
async function lookUpKeysOneByOne(
  ctx: Ctx,
  keys: KeySets,
  size: number,
  scopes: Map<string, Set<number> | 'any'>,
): Promise<Found> {
  const found = emptyFound();
  const each = (
    [
      ['nameKey', keys.names],
      ['readingKey', keys.readings],
      ['romajiKey', keys.romaji],
      ['formerNameKeys', keys.names],
      ['corporateNumber', keys.numbers],
    ] as const
  ).flatMap(([field, values]) =>
    [...values].map((value) => {
      const scope = scopes.get(keyId(field, value));
      return {
        field,
        value,
        prefectures: scope instanceof Set ? [...scope].sort((a, b) => a - b) : undefined,
      };
    }),
  );
  type Entry = (typeof each)[number];
  // keys asked in the same prefectures share a search
  const byScope = new Map<string, Entry[]>();
  for (const entry of each) {
    const scope = entry.prefectures?.join(',') ?? 'any';
    byScope.set(scope, [...(byScope.get(scope) ?? []), entry]);
  }
  const groups: Entry[][] = [];
  for (const entries of byScope.values())
    for (let at = 0; at < entries.length; at += keysPerGroup)
      groups.push(entries.slice(at, at + keysPerGroup));
  const index = indexName(ctx.config.indexPrefix, 'corporates');
  const timeouts = engineTimeouts(ctx.deadline);
  const searchOf = (group: Entry[]) => {
    const byField = new Map<string, string[]>();
    for (const { field, value } of group) byField.set(field, [...(byField.get(field) ?? []), value]);
    return [
      { index },
      {
        query: {
          bool: {
            should: [...byField].map(([field, values]) => ({ terms: { [field]: values } })),
            minimum_should_match: 1,
            ...(group[0]?.prefectures ? { filter: [{ terms: { prefectureId: group[0].prefectures } }] } : {}),
          },
        },
        size,
        track_total_hits: size + 1,
        _source: false,
        stored_fields: ['_none_'],
        docvalue_fields: [...fetchedFields],
        ...(timeouts.timeout ? { timeout: timeouts.timeout } : {}),
      },
    ];
  };
  const overflowing: Entry[][] = [];
  const read = (responses: MsearchResponse[], asked: Entry[][]) =>
    responses.forEach((response, position) => {
      const group = asked[position] as Entry[];
      const hits = response.hits?.hits ?? [];
      const total = response.hits?.total;
      if ((typeof total === 'number' ? total : (total?.value ?? 0)) > hits.length) {
        if (group.length > 1) overflowing.push(...group.map((entry) => [entry]));
        else for (const { field, value } of group) found.incompleteKeys.add(keyId(field, value));
        return;
      }
      for (const hit of hits) file(found, companyOf(hit.fields ?? {}), keys);
    });
  read(await msearchAll(ctx, groups.flatMap(searchOf), 'key lookups'), groups);
  if (overflowing.length > 0) {
    const singles = overflowing.splice(0);
    read(await msearchAll(ctx, singles.flatMap(searchOf), 'key lookups'), singles);
  }
  return found;
}

type MsearchResponse = {
  error?: unknown;
  hits?: { total?: number | { value: number }; hits?: Array<{ fields?: HitFields }> };
};

/** An msearch within the request's deadline; a part the engine refused is a 503, as a search's. */
async function msearchAll(ctx: Ctx, searches: unknown[], part: string): Promise<MsearchResponse[]> {
  const timeouts = engineTimeouts(ctx.deadline);
  let responses: MsearchResponse[];
  try {
    const { body } = await withinDeadline(ctx.deadline, 'match', (options) =>
      ctx.opensearch.msearch(
        {
          body: searches as API.Msearch_Request['body'],
          ...(timeouts.cancel_after_time_interval
            ? { cancel_after_time_interval: timeouts.cancel_after_time_interval }
            : {}),
        },
        options,
      ),
    );
    responses = (body as { responses: MsearchResponse[] }).responses;
  } catch (error) {
    if (error instanceof DeadlineExceeded) throw error;
    throw toSearchError(error, ctx.logger);
  }
  for (const response of responses) {
    if (response.error) {
      ctx.logger.warn({ opensearch: { part } }, 'search engine refused a match lookup');
      throw errors.searchUnavailable();
    }
    assertComplete(response as Parameters<typeof assertComplete>[0]);
  }
  return responses;
}

/**
 * Near names of the records no key equals, one msearch:
 *   per key: {query: {prefix: {nameKey: key}}, sort: [nameKeyLength, name], size: candidates}
 */
async function lookUpNearNames(ctx: Ctx, keys: string[], size: number): Promise<Map<string, Company[]>> {
  const near = new Map<string, Company[]>();
  if (keys.length === 0) return near;
  const index = indexName(ctx.config.indexPrefix, 'corporates');
  const timeouts = engineTimeouts(ctx.deadline);
  const searches = keys.flatMap((key) => [
    { index },
    {
      query: { prefix: { nameKey: key } },
      sort: [{ nameKeyLength: 'asc' }, { name: 'asc' }, { corporateNumber: 'asc' }],
      size,
      track_total_hits: false,
      _source: false,
      stored_fields: ['_none_'],
      docvalue_fields: [...fetchedFields],
      ...(timeouts.timeout ? { timeout: timeouts.timeout } : {}),
    },
  ]);
  const responses = await msearchAll(ctx, searches, 'near names');
  responses.forEach((response, position) => {
    near.set(
      keys[position] as string,
      (response.hits?.hits ?? []).map((hit) => companyOf(hit.fields ?? {})),
    );
  });
  return near;
}

/** The one company the evidence leaves: alone after contradictions, else alone in agreeing evidence. */
function singledOut(judged: Judged[]): Judged | undefined {
  const remaining = judged.filter((item) => !item.contradicted);
  if (remaining.length === 1) return remaining[0];
  const supported = remaining.filter((item) => item.supported);
  return supported.length === 1 ? supported[0] : undefined;
}

/** One record's decision from what the lookups found. */
function decide(evidence: Evidence, found: Found, near: Map<string, Company[]>, limit: number): MatchResult {
  const judged = new Map<string, Judged>();
  const consider = (company: Company, nameOn: MatchedOn[], base: number) => {
    if (!judged.has(company.corporateNumber))
      judged.set(company.corporateNumber, judge(company, evidence, nameOn, base));
  };
  if (!evidence.unmatchable) {
    const equal = [
      ...(found.byName.get(evidence.keys.name) ?? []),
      ...(evidence.keys.reading ? (found.byReading.get(evidence.keys.reading) ?? []) : []),
      ...(evidence.keys.romaji ? (found.byRomaji.get(evidence.keys.romaji) ?? []) : []),
    ];
    for (const company of equal) {
      const on = keyMatches(company, evidence);
      consider(company, on, on.includes('name') ? 0.8 : 0.75);
    }
  }
  const equalKeys = [...judged.values()];
  // former names: only companies no current key already brought, ranked below them (base 0.7)
  const formerNames = evidence.unmatchable
    ? []
    : (found.byFormerName.get(evidence.keys.name) ?? []).filter(
        (company) => !judged.has(company.corporateNumber),
      );
  for (const company of formerNames) consider(company, ['formerName'], 0.7);
  const formerKeys = formerNames.map((company) => judged.get(company.corporateNumber) as Judged);
  const numbered = evidence.corporateNumber ? found.byNumber.get(evidence.corporateNumber) : undefined;
  if (numbered) consider(numbered, keyMatches(numbered, evidence), 0.8);
  if (equalKeys.length === 0 && formerKeys.length === 0 && !numbered && !evidence.unmatchable)
    for (const company of near.get(evidence.keys.name) ?? []) {
      const ratio = [...evidence.keys.name].length / Math.max(1, [...(company.keys.name ?? '')].length);
      consider(company, ['nearName'], 0.2 + 0.3 * ratio);
    }

  let decided: Judged | undefined;
  if (!recordKeys(evidence).some((key) => found.incompleteKeys.has(key))) {
    if (evidence.corporateNumber) {
      // the number alone decides; a valid number no company has contradicts every name
      decided = numbered ? judged.get(numbered.corporateNumber) : undefined;
    } else {
      // a former name decides only where no company has the name as its current one: a
      // company's current name is never outweighed by another's old one
      decided = singledOut(equalKeys.length > 0 ? equalKeys : formerKeys);
      // a closed company left alone by the name is a list's stale entry, not a certainty: it
      // stays a candidate (its namesakes still count as others left, so nothing is guessed)
      if (decided?.company.closed) decided = undefined;
    }
  }
  const ranked = [...judged.values()]
    .map((item) => ({ item, candidate: toCandidate(item, item === decided) }))
    .sort(
      (a, b) =>
        b.candidate.score - a.candidate.score ||
        a.candidate.name.localeCompare(b.candidate.name) ||
        a.candidate.corporateNumber.localeCompare(b.candidate.corporateNumber),
    );
  const candidates = ranked.slice(0, limit).map((entry) => entry.candidate);
  const match = decided ? (ranked.find((entry) => entry.item === decided)?.candidate ?? null) : null;
  return { match, candidates, overMaxCredits: false };
}

/**
 * The results of a validated match body, one per record in input order. `options.lookupSize`:
 * tests make the one lookup overflow with it.
 */
export async function runMatch(
  ctx: Ctx,
  request: MatchRequest,
  options: { lookupSize?: number } = {},
): Promise<MatchResult[]> {
  const limit = request.candidates ?? defaultCandidates;
  const evidence = request.records.map(evidenceOf);
  const found = await lookUpKeys(ctx, evidence, options.lookupSize ?? lookupSize);
  const nearKeys = new Set<string>();
  for (const item of evidence) {
    if (item.unmatchable || [...item.keys.name].length < nearNameMinLength) continue;
    const hasEqual =
      found.byName.has(item.keys.name) ||
      (item.keys.reading !== undefined && found.byReading.has(item.keys.reading)) ||
      (item.keys.romaji !== undefined && found.byRomaji.has(item.keys.romaji)) ||
      found.byFormerName.has(item.keys.name) ||
      (item.corporateNumber !== undefined && found.byNumber.has(item.corporateNumber));
    if (!hasEqual) nearKeys.add(item.keys.name);
  }
  const near = await lookUpNearNames(ctx, [...nearKeys], limit);
  return evidence.map((item) => decide(item, found, near, limit));
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
