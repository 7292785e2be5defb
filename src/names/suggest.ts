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
 * A text of 4 characters of key or more may be mistyped: beside it, in the same round trip, the
 * names like it (keys one edit away from its start, then keys sharing most of its grams:
 * `nearSearch`), given the last places of the list (`withNearNames`), or all of them when
 * nothing starts with it.
 */

import type { Deadline } from '../deadline.js';
import type { API } from '../opensearch/engine.js';
import { indexName } from '../opensearch/indices.js';
import { engineMsearch, engineSearch, hitsOf, type SearchBody } from '../search/paging/pit-search.js';
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
}

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
  const prefixed = suggestBody(index, { must: { dis_max: { queries } } }, [{ name: 'asc' }], limit);
  const near = nearSearch(index, keys, limit);
  if (!near) return suggestionsOf(hitsOf(await engineSearch(services, prefixed)), keys);
  // both in one round trip; an engine that refused a part is asked one search at a time
  const [prefixAnswer, nearAnswer] =
    (await engineMsearch(services, [prefixed, near])) ??
    (await Promise.all([engineSearch(services, prefixed), engineSearch(services, near)]));
  return withNearNames(
    suggestionsOf(hitsOf(prefixAnswer as SearchBody), keys),
    nearSuggestionsOf(hitsOf(nearAnswer as SearchBody)),
    limit,
    Math.floor(limit * nearShare),
  );
}

/**
 * The share of the suggestions kept for names like the typed text that do not start with it,
 * when it is long enough to be mistyped (`minimumNearKey`): a typo can make the start of other
 * names (サクヨ for サクラ, where サクヨ精機 exists), and the exact prefixes would then fill every
 * place. Three of ten by default (none under a limit of 4), after the exact ones; the near
 * ones fill the places the exact ones leave, and the exact ones those the near ones leave.
 */
const nearShare = 0.3;

/**
 * The exact prefixes, at most `limit - nearPlaces` of them when near names are there to follow
 * (all of them when fewer are), then the near names not among them (by company and by name),
 * best first, to `limit`:
 *   limit 10, 3 places: 10 exact, 5 near -> 7 exact, 3 near;  2 exact, 5 near -> 2 exact, 5 near;
 *   10 exact, 1 near -> 9 exact, 1 near;  nothing starts with it -> the near ones alone
 */
export function withNearNames(
  exact: Suggestion[],
  near: Suggestion[],
  limit: number,
  nearPlaces: number,
): Suggestion[] {
  const names = new Set(exact.map((suggestion) => nameKey(suggestion.name)));
  const numbers = new Set(exact.map((suggestion) => suggestion.corporateNumber));
  const others = near.filter(
    (suggestion) => !names.has(nameKey(suggestion.name)) && !numbers.has(suggestion.corporateNumber),
  );
  const first = exact.slice(0, Math.max(limit - Math.min(nearPlaces, others.length), 0));
  return [...first, ...others.slice(0, limit - first.length)];
}

/** Typed keys shorter than this are not looked up by grams or by one edit (too many are near). */
const minimumNearKey = 4;
/** A typed key longer than this is compared with one edit by its first this many characters. */
const oneEditKeyLength = 12;
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
 * The search for names like a typed text that may be mistyped (マルカ物留サ for マルカ物流サービス),
 * or undefined when its keys are too short (`minimumNearKey`): the companies a key of which
 * starts one edit away from it (a character wrong, one too many, one left out:
 * `oneEditPrefixes`), most alike by grams first; after them the companies whose keys hold most of
 * its 2-3 character grams (3-character only from 9 characters: `gramQuery` of
 * src/names/lookup.ts, as match's similarity search), best first as the engine scores them; one
 * company per name.
 */
function nearSearch(index: string, keys: ReturnType<typeof queryKeys>, limit: number) {
  const byField = (
    [
      ['nameKey', keys.name],
      ['readingKey', keys.reading],
      ['romajiKey', keys.romaji],
    ] as Array<[string, string | undefined]>
  ).filter((entry): entry is [string, string] => (entry[1]?.length ?? 0) >= minimumNearKey);
  if (byField.length === 0) return undefined;
  const oneEdit = byField.flatMap(([field, key]) =>
    oneEditPrefixes(key).map((pattern) => ({ regexp: { [field]: { value: pattern } } })),
  );
  const should = [
    { constant_score: { filter: { bool: { should: oneEdit } }, boost: oneEditBoost } },
    ...byField.map(([field, key]) => gramQuery(`${field}.grams`, key)),
  ];
  const search = suggestBody(index, { should, minimum_should_match: 1 }, [], limit);
  // one company per name key: a typo is unsure which name was meant, so the list spreads over
  // the names like it, whatever their legal forms (株式会社X, X株式会社 and 合同会社X are one
  // name key; its namesakes are found by typing the name itself)
  (search.body as Record<string, unknown>).collapse = { field: 'nameKey' };
  return search;
}

/** The near names' suggestions: never a former name (these are companies like the text, not ones it starts). */
function nearSuggestionsOf(hits: ReturnType<typeof hitsOf>): Suggestion[] {
  return suggestionsOf(hits, {});
}

/**
 * A suggest search: `bool` (closed companies left out) by score, then shorter keys, then
 * `tieBreak`, then corporate number; read from doc values only.
 */
function suggestBody(index: string, bool: object, tieBreak: object[], limit: number) {
  return {
    index,
    body: {
      query: { bool: { ...bool, must_not: { term: { closed: true } } } },
      sort: [{ _score: 'desc' }, { nameKeyLength: 'asc' }, ...tieBreak, { corporateNumber: 'asc' }],
      size: limit,
      track_total_hits: false,
      _source: false,
      stored_fields: ['_none_'],
      docvalue_fields: [...fields],
    } as API.Search_Request['body'],
  };
}

/** The suggestions of the hits; a former name when only a former name starts with `keys.name`. */
function suggestionsOf(hits: ReturnType<typeof hitsOf>, keys: { name?: string }): Suggestion[] {
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
    };
  });
}
