/**
 * The engine side of matching: which companies a request's records may name.
 *
 * 1. Equal keys, in groups of 64 keys asked in the same prefectures, one msearch for the whole
 *    request (reading each company's match card, ./card.ts, from doc values):
 *      [{index}, {query: {bool: {should: [{terms: {nameKey: [...]}}, {terms: {spokenKey: [...]}},
 *                                         {terms: {readingKey: [...]}}, {terms: {romajiKey: [...]}},
 *                                         {terms: {formerNameKeys: [...]}}, {terms: {corporateNumber: [...]}},
 *                                         {terms: {phoneKey: [...]}}, {terms: {websiteHost: [...]}}],
 *                               filter: [{terms: {prefectureId: [13]}}]}}}, ...]
 *    the evidence keys (phone digits, website host, corporate number) bring a company in on
 *    their own, whatever its name; a group sharing more companies than one search returns:
 *    key by key.
 * 2. Similar names, one msearch with a search per record that no decision was reached for:
 *      {bool: {must: {bool: {should: [{match: {'nameKey.grams': {query: key, minimum_should_match: '35%'}}},
 *                                     {match: {'spokenKey.grams': ...}}, reading, romaji]}},
 *              should: [{term: {prefectureId: given}}]}}, size: a few
 *    the 2-3 character grams of the keys (mappings/analysis.json key_grams; a key of 9
 *    characters or more by its 3-character grams only: gramQuery), scored by the
 *    engine: a shortened, lengthened or mistyped name still shares most of its grams.
 */

import type { Deadline } from '../deadline.js';
import { DeadlineExceeded } from '../deadline.js';
import { errors } from '../errors/catalogue.js';
import type { API } from '../opensearch/engine.js';
import { indexName } from '../opensearch/indices.js';
import { assertComplete, engineTimeouts, toSearchError } from '../search/opensearch-errors.js';
import type { Services } from '../services.js';
import { phoneDigits, websiteHost } from '../text/address.js';
import {
  type Company,
  cardKeyFields,
  cardRecordFields,
  companyKeys,
  companyOfCard,
  matchCardField,
} from './card.js';
import type { Evidence } from './evidence.js';

export type { Company } from './card.js';

export type Ctx = Pick<Services, 'opensearch' | 'logger' | 'config'> & { deadline?: Deadline | undefined };

/** The fields a key is looked up in, with the record's value for it. */
export const lookupFields = [
  'nameKey',
  'spokenKey',
  'readingKey',
  'romajiKey',
  'formerNameKeys',
  'corporateNumber',
  'phoneKey',
  'websiteHost',
] as const;
export type LookupField = (typeof lookupFields)[number];

/** The record's value for each lookup field (none for the name keys of an unmatchable name). */
export function lookupValues(item: Evidence): Array<[LookupField, string]> {
  const values: Array<[LookupField, string | undefined]> = [
    ['corporateNumber', item.corporateNumber],
    ['phoneKey', item.phone],
    ['websiteHost', item.host],
  ];
  if (!item.unmatchable)
    values.push(
      ['nameKey', item.keys.name],
      ['spokenKey', item.keys.spoken],
      ['readingKey', item.keys.reading],
      ['romajiKey', item.keys.romaji],
      ['formerNameKeys', item.keys.name],
    );
  return values.filter((entry): entry is [LookupField, string] => Boolean(entry[1]));
}

/** What a company without a card is read from: what its card holds, and what is read beside it. */
const fetchedFields = [
  ...cardRecordFields,
  ...cardKeyFields,
  // the name keys of the company's former names (the registry import)
  'formerNameKeys',
  // set by the registry import for a company closed, merged away or erased
  'registry.closed',
] as const;

type HitFields = Record<string, unknown[] | undefined>;
type Hit = { fields?: HitFields };

function first(fields: HitFields, field: string): unknown {
  return fields[field]?.[0];
}

/** Never changed: the former keys of the many companies without any share it. */
const noFormerKeys: string[] = [];

/** The former name keys of a hit (most companies have none). */
function formerKeysOf(fields: HitFields): string[] {
  const former = fields.formerNameKeys;
  return former ? former.filter((key): key is string => typeof key === 'string') : noFormerKeys;
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
    keys: companyKeys(
      formerKeysOf(fields),
      text('nameKey'),
      text('spokenKey'),
      text('readingKey'),
      text('romajiKey'),
    ),
    closed: first(fields, 'registry.closed') === true,
  };
}

export const keyId = (field: string, value: string) => `${field}:${value}`;

/** What the key lookups found: companies by `keyId`, and the keys whose companies overflowed. */
export interface Found {
  byKey: Map<string, Company[]>;
  /**
   * Keys sharing more companies than a lookup returns: a record with one of them is answered
   * without a match (its candidates are a part of the companies).
   */
  incompleteKeys: Set<string>;
}

/**
 * The values the request asked each field for, each with its list of companies (the very list
 * `Found.byKey` holds under its `keyId`): a company's value finds its list in one lookup, with
 * no key text made for it.
 */
type Asked = Map<LookupField, Map<string, Company[]>>;

/**
 * Files a company under each key of the request it has: its name keys, former name keys,
 * corporate number, phone digits and website host (one call per value: a lookup files
 * hundreds of thousands of companies, and a list of pairs per company was a tenth of the
 * request's garbage).
 */
function file(company: Company, asked: Asked, filed: Set<Company>): void {
  // only a company filed before (another search of the request found it too) can be on a key's
  // list already: a key's list is scanned for it only then, not for each of the thousands of
  // namesakes a common name's key holds
  const again = filed.has(company);
  if (!again) filed.add(company);
  const { keys } = company;
  fileUnder(asked, company, again, 'nameKey', keys.name);
  fileUnder(asked, company, again, 'spokenKey', keys.spoken);
  fileUnder(asked, company, again, 'readingKey', keys.reading);
  fileUnder(asked, company, again, 'romajiKey', keys.romaji);
  // a value the company holds twice is filed once (the engine's doc values are distinct
  // already; the check keeps the rule above true whatever gives the values)
  const { former } = keys;
  for (let at = 0; at < former.length; at++) {
    const key = former[at];
    if (former.indexOf(key as string) === at) fileUnder(asked, company, again, 'formerNameKeys', key);
  }
  fileUnder(asked, company, again, 'corporateNumber', company.corporateNumber);
  fileUnder(asked, company, again, 'phoneKey', company.phone);
  fileUnder(asked, company, again, 'websiteHost', company.host);
}

function fileUnder(
  asked: Asked,
  company: Company,
  again: boolean,
  field: LookupField,
  value: string | undefined,
): void {
  const list = value ? asked.get(field)?.get(value) : undefined;
  if (list && (!again || !list.includes(company))) list.push(company);
}

/** The companies found under one key of a record. */
export function foundUnder(found: Found, field: LookupField, value: string | undefined): Company[] {
  return value ? (found.byKey.get(keyId(field, value)) ?? []) : [];
}

/**
 * What a lookup reads of each hit: its match card (./card.ts), and what the register writes
 * apart. Not the corporate number: it is in the card, and a keyword doc value costs the engine
 * a term lookup per hit (at 1,000,000 companies a third of the key lookups' time).
 */
const docValues = {
  _source: false,
  stored_fields: ['_none_'],
  docvalue_fields: [matchCardField, 'formerNameKeys', 'registry.closed'],
};

/** One search of an msearch: its header and its body. */
type Search = [{ index: string }, { query: object; docvalue_fields?: string[] } & Record<string, unknown>];

/** Companies read field by field per search (a search returns 10,000 at most). */
const refetchSize = 5_000;

/** Companies by corporate number, each read field by field (they have no card to read). */
async function companiesByNumber(ctx: Ctx, numbers: string[]): Promise<Map<string, Company>> {
  if (numbers.length === 0) return new Map();
  const index = indexName(ctx.config.indexPrefix, 'corporates');
  const searches: unknown[] = [];
  for (let at = 0; at < numbers.length; at += refetchSize) {
    const some = numbers.slice(at, at + refetchSize);
    searches.push(
      { index },
      {
        query: { terms: { corporateNumber: some } },
        size: some.length,
        track_total_hits: false,
        _source: false,
        stored_fields: ['_none_'],
        docvalue_fields: [...fetchedFields],
      },
    );
  }
  const responses = await msearchAll(ctx, searches, 'companies without a match card');
  return new Map(
    responses.flatMap((response) =>
      (response.hits?.hits ?? []).map((hit) => [numberOf(hit), companyOf(hit.fields ?? {})] as const),
    ),
  );
}

const numberOf = (hit: Hit) => String(first(hit.fields ?? {}, 'corporateNumber') ?? '');

/**
 * The companies a request has read from their cards: by the card's head (`cardHead`), each
 * with its whole card, which a card met again must equal to be the same; and, by the whole
 * card, those whose head was taken by another card (the company written again between two
 * searches of the request), so that a card met again is always the same company object.
 */
export interface Decoded {
  byHead: Map<string, { card: string; company: Company }>;
  byCard: Map<string, Company>;
}

export const decodedNone = (): Decoded => ({ byHead: new Map(), byCard: new Map() });

/** The company of a card the request read before, if it did. */
export function decodedBefore(decoded: Decoded, head: string, card: string): Company | undefined {
  const known = decoded.byHead.get(head);
  if (known === undefined) return undefined;
  return known.card === card ? known.company : decoded.byCard.get(card);
}

export function keepDecoded(decoded: Decoded, head: string, card: string, company: Company): void {
  if (decoded.byHead.has(head)) decoded.byCard.set(card, company);
  else decoded.byHead.set(head, { card, company });
}

/**
 * A card's first characters: the base64 of its layout and the company's corporate number
 * (`["c1","1010001000001"`, 21 bytes, 28 characters), so as good as the whole card for telling
 * companies apart, and a seventh of its length to hash (a request reads 100,000s of cards).
 */
const cardHead = 28;

/**
 * The companies of each search's hits, from their match cards, in the hits' order (undefined
 * for a company gone meanwhile). The hits carry no corporate number (the card holds it). A
 * search with a hit whose card is missing (a company written before it, or whose card a writer
 * removed) or of another layout is asked again whole, with each company's corporate number
 * this time, and its answer replaces the first (one consistent answer, whatever was written
 * between the two); the companies without a readable card in it are then read by number, field
 * by field:
 *
 *   [{query: Q, size: 5, ...}] -> hits [card, no card, card]
 *   -> again: {query: Q, size: 5, docvalue_fields: [card, ..., 'corporateNumber']}
 *   -> {terms: {corporateNumber: [the one without]}}, its fields one by one
 */
async function companiesOfHits(
  ctx: Ctx,
  searches: Search[],
  hits: Hit[][],
  decoded: Decoded = decodedNone(),
): Promise<Array<Array<Company | undefined>>> {
  const fromCard = (fields: HitFields): Company | undefined => {
    const card = first(fields, matchCardField);
    if (typeof card !== 'string') return undefined;
    // a company several keys of the request found (its name, reading and romaji) is read once
    const head = card.slice(0, cardHead);
    const known = decodedBefore(decoded, head, card);
    if (known) return known;
    const company = companyOfCard(card, formerKeysOf(fields), first(fields, 'registry.closed') === true);
    if (company) keepDecoded(decoded, head, card, company);
    return company;
  };
  const again: number[] = [];
  const companies = hits.map((list, at) => {
    const read = list.map(({ fields = {} }) => fromCard(fields));
    if (read.includes(undefined)) again.push(at);
    return read;
  });
  if (again.length === 0) return companies;
  const timeouts = engineTimeouts(ctx.deadline);
  const responses = await msearchAll(
    ctx,
    again.flatMap((at) => {
      const [header, body] = searches[at] as Search;
      return [
        header,
        {
          ...body,
          docvalue_fields: [...docValues.docvalue_fields, 'corporateNumber'],
          ...(timeouts.timeout ? { timeout: timeouts.timeout } : {}),
        },
      ];
    }),
    'companies without a match card',
  );
  const answers = responses.map((response) => response.hits?.hits ?? []);
  const byNumber = await companiesByNumber(
    ctx,
    answers.flat().flatMap((hit) => (fromCard(hit.fields ?? {}) ? [] : [numberOf(hit)])),
  );
  again.forEach((at, position) => {
    companies[at] = (answers[position] ?? []).map(
      (hit) => fromCard(hit.fields ?? {}) ?? byNumber.get(numberOf(hit)),
    );
  });
  return companies;
}

/**
 * The companies under every key of the request (lookUpGroups): a key whose records each name
 * one prefecture is looked up in those prefectures only, whatever the request's size; each
 * record then takes its own prefecture's (match.ts companiesFound), so its candidates do not
 * depend on the records beside it (but for a key that overflows only when asked more widely).
 */
export async function lookUpKeys(ctx: Ctx, evidence: Evidence[], size: number): Promise<Found> {
  const byField = new Map<LookupField, Set<string>>();
  // the prefectures a key is asked in: a key every record of which names one prefecture needs
  // no namesake elsewhere to be decided (another prefecture contradicts the record)
  const scopes = new Map<string, Set<number> | 'any'>();
  for (const item of evidence)
    for (const [field, value] of lookupValues(item)) {
      byField.set(field, (byField.get(field) ?? new Set()).add(value));
      const id = keyId(field, value);
      const scope = scopes.get(id);
      const only = item.prefectures.length === 1 ? (item.prefectures[0] as number) : undefined;
      if (only === undefined || scope === 'any') scopes.set(id, 'any');
      else scopes.set(id, new Set([...(scope ?? []), only]));
    }
  if (byField.size === 0) return { byKey: new Map(), incompleteKeys: new Set() };
  return lookUpGroups(ctx, scopes, size);
}

type Entry = { id: string; field: string; value: string; prefectures: number[] | undefined };

/**
 * The request's keys by the prefectures they are asked in (keys asked in the same prefectures
 * share a search), each with its empty list of companies in `asked` and in `found.byKey`.
 */
function keysAsked(
  scopes: Map<string, Set<number> | 'any'>,
  found: Found,
): { asked: Asked; byScope: Map<string, Entry[]> } {
  const asked: Asked = new Map();
  const byScope = new Map<string, Entry[]>();
  for (const [id, scope] of scopes) {
    const at = id.indexOf(':');
    const prefectures = scope instanceof Set ? [...scope].sort((a, b) => a - b) : undefined;
    const entry = { id, field: id.slice(0, at), value: id.slice(at + 1), prefectures };
    const list: Company[] = [];
    found.byKey.set(id, list);
    const values = asked.get(entry.field as LookupField);
    if (values) values.set(entry.value, list);
    else asked.set(entry.field as LookupField, new Map([[entry.value, list]]));
    const group = prefectures?.join(',') ?? 'any';
    const entries = byScope.get(group);
    if (entries) entries.push(entry);
    else byScope.set(group, [entry]);
  }
  return { asked, byScope };
}

/** Keys per search of the lookup: a few searches, each likely to fit in `size`. */
const keysPerGroup = 64;

/**
 * The request's keys in groups of `keysPerGroup`, one search each, in one msearch (a key whose
 * records each name one prefecture is looked up in those prefectures: its namesakes elsewhere
 * could not be its match, and are left out of its candidates too, unless it has none there,
 * when it is looked up again everywhere); a group whose companies are more than `size` is
 * looked up again one key per search, and a key that still overflows is recorded in
 * `incompleteKeys`:
 *   [{index}, {query: {bool: {should: [{terms: {nameKey: [64 keys]}}]}}, size, track_total_hits: size + 1}, ...]
 *   -> overflowing group: [{index}, {query: {terms: {nameKey: ['まるか物流']}}, ...}, ...]
 */
async function lookUpGroups(
  ctx: Ctx,
  scopes: Map<string, Set<number> | 'any'>,
  size: number,
): Promise<Found> {
  const found: Found = { byKey: new Map(), incompleteKeys: new Set() };
  const { asked, byScope } = keysAsked(scopes, found);
  const decoded = decodedNone();
  // the companies filed so far (file)
  const filed = new Set<Company>();
  const inGroups = (entries: Entry[]) => {
    const groups: Entry[][] = [];
    for (let at = 0; at < entries.length; at += keysPerGroup)
      groups.push(entries.slice(at, at + keysPerGroup));
    return groups;
  };
  const index = indexName(ctx.config.indexPrefix, 'corporates');
  const timeouts = engineTimeouts(ctx.deadline);
  const searchOf = (group: Entry[]): Search => {
    const byField = new Map<string, string[]>();
    for (const { field, value } of group) {
      const values = byField.get(field);
      if (values) values.push(value);
      else byField.set(field, [value]);
    }
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
        ...docValues,
        ...(timeouts.timeout ? { timeout: timeouts.timeout } : {}),
      },
    ];
  };
  // the groups in one msearch; a group that overflows, key by key in another
  const lookUp = async (groups: Entry[][]) => {
    const overflowing: Entry[][] = [];
    const read = async (groupsAsked: Entry[][]) => {
      const searches = groupsAsked.map(searchOf);
      const responses = await msearchAll(ctx, searches.flat(), 'key lookups');
      const complete: Search[] = [];
      const hits: Hit[][] = [];
      responses.forEach((response, position) => {
        const group = groupsAsked[position] as Entry[];
        const returned = response.hits?.hits ?? [];
        const total = response.hits?.total;
        if ((typeof total === 'number' ? total : (total?.value ?? 0)) > returned.length) {
          if (group.length > 1) overflowing.push(...group.map((entry) => [entry]));
          else for (const { id } of group) found.incompleteKeys.add(id);
          return;
        }
        complete.push(searches[position] as Search);
        hits.push(returned);
      });
      for (const companies of await companiesOfHits(ctx, complete, hits, decoded))
        for (const company of companies) if (company) file(company, asked, filed);
    };
    await read(groups);
    if (overflowing.length > 0) await read(overflowing.splice(0));
  };
  const scoped = [...byScope.values()];
  await lookUp(scoped.flatMap(inGroups));
  // a key with no company in one of its records' prefectures: everywhere, so that the only
  // company of a name is a candidate even where the record's prefecture contradicts it (and a
  // record of that prefecture gets what it would get alone: match.ts companiesFound)
  const lacking = (id: string, prefectures: number[]) => {
    const companies = found.byKey.get(id) ?? [];
    return prefectures.some(
      (prefecture) => !companies.some((company) => company.prefectureId === prefecture),
    );
  };
  const nowhere = scoped
    .flat()
    .filter(({ id, prefectures }) => prefectures && !found.incompleteKeys.has(id) && lacking(id, prefectures))
    .map((entry) => ({ ...entry, prefectures: undefined }));
  if (nowhere.length > 0) await lookUp(inGroups(nowhere));
  return found;
}

type MsearchResponse = {
  error?: unknown;
  hits?: { total?: number | { value: number }; hits?: Hit[] };
};

const matchAnswerParts = [
  'responses.error',
  'responses.timed_out',
  'responses._shards.failed',
  'responses.hits.total',
  'responses.hits.hits.fields',
  // so that a hit with no field to show (a company without a card) stays in the answer, counted
  'responses.hits.hits._score',
];

/** An msearch within the request's deadline; a part the engine refused is a 503, as a search's. */
async function msearchAll(ctx: Ctx, searches: unknown[], part: string): Promise<MsearchResponse[]> {
  const timeouts = engineTimeouts(ctx.deadline);
  let responses: MsearchResponse[];
  try {
    const { body } = await ctx.opensearch.msearch(
      {
        body: searches as API.Msearch_Request['body'],
        // what matching reads of an answer: the hits' fields, their total, and whether it is
        // whole (each hit's index and id left out: a request of 1,000 reads 100,000s)
        filter_path: matchAnswerParts,
        ...(timeouts.cancel_after_time_interval
          ? { cancel_after_time_interval: timeouts.cancel_after_time_interval }
          : {}),
      },
      { deadline: ctx.deadline, operation: 'match' },
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

/** Grams a similar name must share with the record's key, of the key's grams. */
const sharedGrams = '35%';

/**
 * Characters of a key its grams are taken from: 20 give 18 (3-character grams: gramQuery), a
 * record's four keys 72 clauses, well under the engine's limit of 1,024 (a record's name may be
 * 500 characters). Each gram costs the engine its postings, so the search's cost follows the
 * head's length: at 1,000,000 companies the similar-name searches of two requests of 1,000 took
 * 15.3 s of engine time from heads of 32 characters, 12.3 s from 24, 8.4 s from 16 (both gram
 * sizes then; docs/names.md, "At 1,000,000 companies"). Heads of 20 and 24 answered the evaluation's records of three seeds
 * exactly as 32 did; 16 lost one typo's company from the candidates.
 */
export const gramKeyLength = 20;

/**
 * A key of this many characters or more is looked up by its 3-character grams alone: one wrong
 * character of the key spoils at most three of them and two swapped characters four, so 35 % of
 * them are still shared from 9 characters on; a shorter key keeps its 2-character grams too
 * (with 3-character grams alone a 5-character key with two characters swapped shares none).
 * The count is of the key's characters: a typo in a kanji name can change several characters of
 * its reading or romaji key, and such a record is found through its name key (a company needs
 * to match one of the record's gram queries, not all).
 */
const matchTrigramsFrom = 9;

/**
 * The engine query for the names sharing most of `key`'s grams in a `.grams` field, which
 * indexes 2- and 3-character grams: a key of `trigramsFrom` characters or more (match's 9 by
 * default; suggest asks from fewer) asks its 3-character grams only, as terms; a shorter one
 * both sizes, through the field's analyzer. A
 * 2-character gram of kana or Latin letters is held by a large share of the register, and its
 * postings were most of the search's cost: at 1,000,000 companies the evaluation's 284
 * similar-name searches took 7.0-7.3 s of engine time with both sizes for every key, 2.1 s so;
 * and the names found were as good or better (seeds 1 and 2: 12 more records had their
 * company among the candidates, 1 fewer; no match changed; docs/names.md).
 */
export function gramQuery(field: string, key: string, trigramsFrom = matchTrigramsFrom): object {
  const head = [...key].slice(0, gramKeyLength);
  if (head.length < trigramsFrom)
    return { match: { [field]: { query: head.join(''), minimum_should_match: sharedGrams } } };
  const grams = new Set<string>();
  for (let at = 0; at + 3 <= head.length; at++) grams.add(head.slice(at, at + 3).join(''));
  return {
    bool: {
      should: [...grams].map((gram) => ({ term: { [field]: gram } })),
      minimum_should_match: sharedGrams,
    },
  };
}
/** Keys shorter than this have no grams to compare (the grams are 2-3 characters). */
const minimumGramKey = 2;

/**
 * The gram queries of a record's keys, for the similarity search; none for a key too short,
 * nor for a spoken key equal to the name key (a name of kanji and kana: the same grams), nor
 * for a reading the analyser derived from a name written in kana and kanji (マルカ物流, トウヨウ
 * 物産: src/names/evidence.ts `withDerivedReading`). Such a reading is a guess, still looked up
 * as a key; its grams, a long run of kana compared with the register's readings, cost a
 * quarter of all matching's engine time at 1,000,000 companies, and the name key's grams
 * compare the name as written (the evaluation's outcomes over two seeds: two records more
 * among the candidates, two fewer; docs/names.md). A name of kana alone asks its grams of the
 * readings only: every writer of a company derives its reading (indexer/name-keys.ts), and a
 * name of kana reads as itself.
 */
export function gramQueries(item: Evidence): object[] {
  const keys: Array<[string, string | undefined]> = [
    // a name of kana alone is its reading typed: its grams are asked of the readings, which a
    // company named in kana has too (its name key's grams are the same text's)
    ['nameKey.grams', item.keys.reading === item.keys.name ? undefined : item.keys.name],
    ['spokenKey.grams', item.keys.spoken === item.keys.name ? undefined : item.keys.spoken],
    // a reading typed as kana, not one derived from a name of kana and kanji (above)
    ['readingKey.grams', item.readingDerived ? undefined : item.keys.reading],
    ['romajiKey.grams', item.keys.romaji],
  ];
  return keys
    .filter((entry): entry is [string, string] => (entry[1]?.length ?? 0) >= minimumGramKey)
    .map(([field, key]) => gramQuery(field, key));
}

/**
 * Companies whose names are like each record's (the records at `positions`), `size` each, best
 * first as the engine scores the grams they share; a prefecture the record names ranks that
 * prefecture's companies first. One msearch.
 */
export async function lookUpSimilar(
  ctx: Ctx,
  evidence: Evidence[],
  positions: number[],
  size: number,
): Promise<Map<number, Company[]>> {
  const similar = new Map<number, Company[]>();
  const asked = positions
    .map((position) => ({ position, should: gramQueries(evidence[position] as Evidence) }))
    .filter(({ should }) => should.length > 0);
  if (asked.length === 0) return similar;
  const index = indexName(ctx.config.indexPrefix, 'corporates');
  const timeouts = engineTimeouts(ctx.deadline);
  const searches = asked.map(({ position, should }): Search => {
    const prefectures = (evidence[position] as Evidence).prefectures;
    return [
      { index },
      {
        query: {
          bool: {
            must: { bool: { should, minimum_should_match: 1 } },
            // a company elsewhere than the record says could not be its match
            ...(prefectures.length > 0 ? { filter: [{ terms: { prefectureId: prefectures } }] } : {}),
          },
        },
        sort: [{ _score: 'desc' }, { corporateNumber: 'asc' }],
        size,
        track_total_hits: false,
        ...docValues,
        ...(timeouts.timeout ? { timeout: timeouts.timeout } : {}),
      },
    ];
  });
  const responses = await msearchAll(ctx, searches.flat(), 'similar names');
  const companies = await companiesOfHits(
    ctx,
    searches,
    responses.map((response) => response.hits?.hits ?? []),
  );
  asked.forEach(({ position }, at) => {
    similar.set(
      position,
      (companies[at] ?? []).filter((company): company is Company => company !== undefined),
    );
  });
  return similar;
}
