/**
 * GET /corporates/suggest: companies whose name key, reading key or romaji key starts with
 * what was typed (kanji, kana or Latin), for autocomplete. Exact keys first, then shorter
 * names, then name order; read from doc values only.
 *
 *   q='ﾏﾙｶ' (folded by queryKeys of src/text/name-key.ts to the keys k, k.reading, ...)
 *   -> {dis_max: {queries: [
 *        {constant_score: {filter: {term:   {nameKey: k}}, boost: 2}},
 *        {constant_score: {filter: {prefix: {nameKey: k}}, boost: 1}},  (same for reading, romaji)
 *      ]}}, sort: [_score desc, nameKeyLength asc, name asc, corporateNumber asc]
 */
import type { API } from '@opensearch-project/opensearch';
import type { Deadline } from '../deadline.js';
import { indexName } from '../opensearch/indices.js';
import type { Services } from '../services.js';
import { queryKeys } from '../text/name-key.js';
import { engineSearch, hitsOf } from './paging/pit-search.js';

export interface Suggestion {
  corporateNumber: string;
  name: string;
  furigana: string | null;
  prefectureId: number | null;
  cityName: string | null;
}

export const defaultSuggestLimit = 10;

const fields = ['corporateNumber', 'name', 'furigana', 'prefectureId', 'cityName'] as const;

export async function suggestCorporates(
  services: Pick<Services, 'opensearch' | 'logger' | 'config'> & { deadline?: Deadline | undefined },
  q: string,
  limit: number = defaultSuggestLimit,
): Promise<Suggestion[]> {
  const keys = queryKeys(q);
  const byField: Array<[string, string | undefined]> = [
    ['nameKey', keys.name],
    ['readingKey', keys.reading],
    ['romajiKey', keys.romaji],
  ];
  const queries = byField
    .filter((entry): entry is [string, string] => Boolean(entry[1]))
    .flatMap(([field, key]) => [
      { constant_score: { filter: { term: { [field]: key } }, boost: 2 } },
      { constant_score: { filter: { prefix: { [field]: key } }, boost: 1 } },
    ]);
  // a text that folds to nothing (株式会社) names no prefix
  if (queries.length === 0) return [];
  const body = await engineSearch(services, {
    index: indexName(services.config.indexPrefix, 'corporates'),
    body: {
      query: { dis_max: { queries } },
      sort: [{ _score: 'desc' }, { nameKeyLength: 'asc' }, { name: 'asc' }, { corporateNumber: 'asc' }],
      size: limit,
      track_total_hits: false,
      _source: false,
      stored_fields: ['_none_'],
      docvalue_fields: [...fields],
    } as API.Search_Request['body'],
  });
  return hitsOf(body).map((hit) => {
    const values = (hit as { fields?: Record<string, unknown[] | undefined> }).fields ?? {};
    const value = (field: string) => values[field]?.[0] ?? null;
    return {
      corporateNumber: String(value('corporateNumber')),
      name: String(value('name') ?? ''),
      furigana: (value('furigana') as string | null) ?? null,
      prefectureId: (value('prefectureId') as number | null) ?? null,
      cityName: (value('cityName') as string | null) ?? null,
    };
  });
}
