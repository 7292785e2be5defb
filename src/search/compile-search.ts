/**
 * A search plan -> the complete OpenSearch search request: query, sort, paging, totals,
 * highlighting, and the guards of docs/decisions/0005-detail-text-groups-snippets-guards.md (no partial results, a timeout shorter than the
 * client's own request timeout of 10 s).
 *
 *   plan { conditions: [], limit: 25, offset: 50, includeTotalResults: false, sort: name asc }
 *   -> { index: '<prefix>corporates', allow_partial_search_results: false, timeout: '5s', ...,
 *        body: { query: { match_all: {} }, from: 50, size: 25, track_total_hits: false,
 *                sort: [{ name: { order: 'asc', missing: '_last' } }, { corporateNumber: { order: 'asc' } }] } }
 */
import type { API, Types } from '@opensearch-project/opensearch';
import type { SearchCatalogue } from '../catalogue/searches.js';
import { indexName } from '../opensearch/indices.js';
import { compileQuery, leftOutField, type PostingOverflow } from './compile-query.js';
import { compileSort } from './compile-sort.js';
import { compileFacets } from './facets.js';
import type { SearchPlan } from './plan.js';
import { compactFetch, compactJobFetch } from './records.js';
import { compileSnippetHighlight } from './snippets.js';

/** The engine stops collecting after this long; the task is cancelled after `cancelAfter`. */
export const searchTimeout = '5s';
export const cancelAfter = '8s';

/**
 * What a search fetches of each hit: the record's compact copy (./records.ts), whatever
 * `fields` asks for (the copy is read whole; `fields` selects from the record). Only the
 * snippets asked alone need no record.
 */
function fetchOf(search: SearchCatalogue, includes: string[] | undefined): Record<string, unknown> {
  if (search.index === 'corporates') return compactFetch;
  if (includes?.length === 0) return { _source: false, stored_fields: ['_none_'] };
  return compactJobFetch;
}

export function compileSearch(
  search: SearchCatalogue,
  plan: SearchPlan,
  indexPrefix: string,
  /** Jobs-first answers for companies past the nested posting limit (./posting-overflow.ts). */
  overflow?: PostingOverflow,
): API.Search_Request {
  const wantsSnippets = !plan.fields || plan.fields.includes('descriptionSnippets');
  const highlight = search.index === 'jobs' && wantsSnippets ? compileSnippetHighlight(plan) : undefined;
  // `fields`: fetch only what the records show (snippets come from the highlighter, not _source)
  const includes = plan.fields?.filter((field) => field !== 'descriptionSnippets');
  const aggs = compileFacets(search, plan, overflow);
  return {
    index: indexName(indexPrefix, search.index),
    allow_partial_search_results: false,
    timeout: searchTimeout,
    cancel_after_time_interval: cancelAfter,
    body: {
      query: compileQuery(plan, overflow, leftOutField(search.filters)),
      sort: compileSort(search.sort, plan.sort),
      from: plan.offset,
      size: plan.limit,
      track_total_hits: plan.includeTotalResults,
      ...fetchOf(search, includes),
      ...(highlight ? { highlight } : {}),
      ...(aggs ? { aggs: aggs as Record<string, Types.Common_Aggregations.AggregationContainer> } : {}),
    },
  };
}
