/**
 * GET /corporates/suggest: companies whose name key, reading key or romaji key starts with
 * what was typed (kanji, kana or Latin), for autocomplete. Exact keys first, then shorter
 * names, then name order; then the companies that only a former name of theirs starts with
 * (renamed in the register: answered with the current name and the former one). Closed
 * companies are left out, as searches leave them out by default. Read from doc values only.
 *
 *   q='ﾏﾙｶ' (folded by queryKeys of src/names/keys.ts to the keys k, k.reading, ...)
 *   -> {bool: {must: {dis_max: {queries: [
 *        {constant_score: {filter: {term:   {nameKey: k}}, boost: 2}},
 *        {constant_score: {filter: {prefix: {nameKey: k}}, boost: 1}},  (same for reading, romaji)
 *        {constant_score: {filter: {term:   {formerNameKeys: k}}, boost: 0.6}},
 *        {constant_score: {filter: {prefix: {formerNameKeys: k}}, boost: 0.5}},
 *      ]}}, must_not: {term: {closed: true}}}}, sort: [_score desc, nameKeyLength asc, name asc, corporateNumber asc]
 *
 * When nothing starts with it (a typo), a second search: keys one edit away from its start, then
 * keys sharing most of its grams, one company per name key (`nearSuggestions`).
 */

import type { Deadline } from '../deadline.js';
import type { API } from '../opensearch/engine.js';
import { indexName } from '../opensearch/indices.js';
import { engineSearch, hitsOf } from '../search/paging/pit-search.js';
import type { Services } from '../services.js';
import { nameKey, queryKeys } from './keys.js';
import { gramQuery } from './lookup.js';

export interface Suggestion {
  corporateNumber: string;
  name: string;
  furigana: string | null;
  prefectureId: number | null;
  cityName: string | null;
  /** The former name the typed text starts, when only a former name does; else null. */
  formerName: string | null;
  /**
   * How it was found: `prefix` (its name, reading or romaji starts with the typed text),
   * `formerName` (only a former name does), `nearName` (nothing starts with the text: a name
   * one edit away or sharing most of its grams, as match's similar names).
   */
  foundBy: SuggestionSource;
}

export type SuggestionSource = 'prefix' | 'formerName' | 'nearName';

export const defaultSuggestLimit = 10;

const fields = [
  'corporateNumber',
  'name',
  'furigana',
  'prefectureId',
  'cityName',
  'formerNames.name',
] as const;

/** A score below this is a former name's alone (boosts 0.6 / 0.5, below every current key's). */
const currentNameScore = 1;

function keyQueries(keys: ReturnType<typeof queryKeys>): object[] {
  // [field, key, boost of the exact key, boost of a prefix]
  const byField: Array<[string, string | undefined, number, number]> = [
    ['nameKey', keys.name, 2, 1],
    ['readingKey', keys.reading, 2, 1],
    ['romajiKey', keys.romaji, 2, 1],
    // former names: their name keys only (the registry gives no reading of a former name)
    ['formerNameKeys', keys.name, 0.6, 0.5],
  ];
  return byField
    .filter((entry): entry is [string, string, number, number] => Boolean(entry[1]))
    .flatMap(([field, key, exact, prefix]) => [
      { constant_score: { filter: { term: { [field]: key } }, boost: exact } },
      { constant_score: { filter: { prefix: { [field]: key } }, boost: prefix } },
    ]);
}

/** The former name whose key starts with the typed key (the names are few: one fold each). */
function formerNameOf(names: unknown[] | undefined, key: string): string | null {
  const found = (names ?? []).find((name) => typeof name === 'string' && nameKey(name).startsWith(key));
  return typeof found === 'string' ? found : null;
}

export async function suggestCorporates(
  services: Pick<Services, 'opensearch' | 'logger' | 'config'> & { deadline?: Deadline | undefined },
  q: string,
  limit: number = defaultSuggestLimit,
): Promise<Suggestion[]> {
  const keys = queryKeys(q);
  const queries = keyQueries(keys);
  // a text that folds to nothing (株式会社) names no prefix
  if (queries.length === 0) return [];
  const index = indexName(services.config.indexPrefix, 'corporates');
  const body = await engineSearch(
    services,
    suggestBody(index, { must: { dis_max: { queries } } }, [{ name: 'asc' }], limit),
  );
  const found = suggestionsOf(hitsOf(body), keys);
  if (found.length > 0) return found;
  return nearSuggestions(services, index, keys, limit);
}

/** Typed keys shorter than this are not looked up by grams or by one edit (too many are near). */
const minimumNearKey = 4;
/** A typed key longer than this is compared with one edit by its first this many characters. */
const oneEditKeyLength = 12;
/**
 * A typed key of this many characters or more is compared by its 3-character grams alone
 * (match's similarity search keeps the 2-character ones up to 8: src/names/lookup.ts). A
 * 2-character gram is held by a large share of the register, and a typo of one character is
 * found by the one-edit prefixes before the grams: at 1,000,000 companies prefixes of 6 to 8
 * characters with one wrong answered in p95 12-13 ms instead of 15-23, their company's key found
 * as often or more; two characters swapped in 6 found it less often (6 of 111, before 9), in 7
 * and 8 more often (docs/names.md).
 */
const suggestTrigramsFrom = 6;
/** A one-edit prefix outranks the grams' scores (tens to hundreds; they add to it, ranking its hits). */
const oneEditBoost = 10_000;

/** A character as a literal of the engine's regular expressions (every non-letter escaped). */
function literal(char: string): string {
  return /[\p{L}\p{N}]/u.test(char) ? char : `\\${char}`;
}

/**
 * The prefixes one edit away from `key`, as regular expressions over whole keys: one character
 * typed wrong (サクヨ精 for サクラ精), one typed too many (サククラ), one left out (サラ精 for
 * サクラ精). They match the typed key's own start too (a substitution at its end); the first
 * search, for an exact prefix, found nothing when they are asked.
 */
export function oneEditPrefixes(key: string): string[] {
  const chars = [...key].slice(0, oneEditKeyLength).map(literal);
  const patterns = new Set<string>();
  for (let i = 0; i < chars.length; i++) {
    const before = chars.slice(0, i).join('');
    const after = chars.slice(i + 1).join('');
    patterns.add(`${before}.${after}.*`);
    patterns.add(`${before}${after}.*`);
    patterns.add(`${before}.${chars.slice(i).join('')}.*`);
  }
  return [...patterns];
}

/**
 * A mistyped prefix (マルカ物留サ for マルカ物流サービス): no key starts with it, so first the
 * companies a key of which starts one edit away from it (a character wrong, one too many, one
 * left out: `oneEditPrefixes`), most alike by grams first; after them the companies whose keys
 * hold most of its 2-3 character grams (3-character only from 6 characters; match's
 * similarity search, `gramQuery` of src/names/lookup.ts, from 9), best first as the engine
 * scores them; one company per name key. One engine call, a second of the request, only when
 * the first found nothing.
 */
async function nearSuggestions(
  services: Parameters<typeof suggestCorporates>[0],
  index: string,
  keys: ReturnType<typeof queryKeys>,
  limit: number,
): Promise<Suggestion[]> {
  const should = nearQueries(keys);
  if (should.length === 0) return [];
  const search = suggestBody(index, { should, minimum_should_match: 1 }, [], namesPerPlace * limit, [
    'nameKey',
  ]);
  // one company per name key: a typo leaves open which name was meant, so the list spreads over
  // the names like it, not over one name's legal forms (its namesakes are found by typing the
  // name itself). The engine collapses by name, and the first company of each key is kept here:
  // collapsing by the key itself was slower at 1,000,000 companies (docs/names.md). The names
  // read may hold fewer keys than `limit`: the list is then shorter (reading more when they do
  // took the p95 from 11 to 40 ms there)
  (search.body as Record<string, unknown>).collapse = { field: 'name' };
  const body = await engineSearch(services, search);
  // never a former name: these are companies like the text, not ones it starts
  return suggestionsOf(firstOfEachKey(hitsOf(body)), {}, true).slice(0, limit);
}

/**
 * The near search's clauses for a typed text's keys of `minimumNearKey` characters or more
 * (name, reading, romaji): its one-edit prefixes, boosted above the grams, then its grams.
 * None when every key is shorter.
 */
export function nearQueries(keys: ReturnType<typeof queryKeys>): object[] {
  const byField = (
    [
      ['nameKey', keys.name],
      ['readingKey', keys.reading],
      ['romajiKey', keys.romaji],
    ] as Array<[string, string | undefined]>
  ).filter((entry): entry is [string, string] => (entry[1]?.length ?? 0) >= minimumNearKey);
  if (byField.length === 0) return [];
  const oneEdit = byField.flatMap(([field, key]) =>
    oneEditPrefixes(key).map((pattern) => ({ regexp: { [field]: { value: pattern } } })),
  );
  return [
    { constant_score: { filter: { bool: { should: oneEdit } }, boost: oneEditBoost } },
    ...byField.map(([field, key]) => gramQuery(`${field}.grams`, key, suggestTrigramsFrom)),
  ];
}

/**
 * Names the near search reads per place of the list: a key is written in several legal forms
 * (マルカ物流株式会社, 合同会社マルカ物流, ...), each a name of its own.
 */
const namesPerPlace = 3;

/** The hits whose name key no hit before them has (each hit read with its `nameKey`). */
export function firstOfEachKey<T extends { fields?: Record<string, unknown[] | undefined> }>(hits: T[]): T[] {
  const seen = new Set<unknown>();
  return hits.filter((hit) => {
    const key = hit.fields?.nameKey?.[0];
    if (key !== undefined && seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * A suggest search: `bool` (closed companies left out) by score, then shorter keys, then
 * `tieBreak`, then corporate number; read from doc values only (the suggestion's fields, and
 * `read` beside them).
 */
function suggestBody(index: string, bool: object, tieBreak: object[], limit: number, read: string[] = []) {
  return {
    index,
    body: {
      query: { bool: { ...bool, must_not: { term: { closed: true } } } },
      sort: [{ _score: 'desc' }, { nameKeyLength: 'asc' }, ...tieBreak, { corporateNumber: 'asc' }],
      size: limit,
      track_total_hits: false,
      _source: false,
      stored_fields: ['_none_'],
      docvalue_fields: [...fields, ...read],
    } as API.Search_Request['body'],
  };
}

/**
 * The suggestions of the hits; a former name when only a former name starts with `keys.name`;
 * `near`: the near search's hits, none found by a prefix.
 */
function suggestionsOf(hits: ReturnType<typeof hitsOf>, keys: { name?: string }, near = false): Suggestion[] {
  return hits.map((hit) => {
    const { fields: values = {}, sort = [] } = hit as {
      fields?: Record<string, unknown[] | undefined>;
      sort?: unknown[];
    };
    const value = (field: string) => values[field]?.[0] ?? null;
    const former = Number(sort[0]) < currentNameScore;
    return {
      corporateNumber: String(value('corporateNumber')),
      name: String(value('name') ?? ''),
      furigana: (value('furigana') as string | null) ?? null,
      prefectureId: (value('prefectureId') as number | null) ?? null,
      cityName: (value('cityName') as string | null) ?? null,
      formerName: former && keys.name ? formerNameOf(values['formerNames.name'], keys.name) : null,
      foundBy: near ? 'nearName' : former ? 'formerName' : 'prefix',
    };
  });
}
