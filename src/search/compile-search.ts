/**
 * A search plan -> the complete OpenSearch search request: query, sort, paging, totals,
 * highlighting, and the guards of docs/decisions/filters.md (no partial results, a timeout shorter than the
 * client's own request timeout of 10 s).
 *
 *   plan { conditions: [], limit: 25, offset: 50, includeTotalResults: false, sort: name asc }
 *   -> { index: '<prefix>corporates', allow_partial_search_results: false, timeout: '5s', ...,
 *        body: { query: { match_all: {} }, from: 50, size: 25, track_total_hits: false,
 *                sort: [{ name: { order: 'asc', missing: '_last' } }, { corporateNumber: { order: 'asc' } }] } }
 */

import type { SearchCatalogue } from '../catalogue/searches.js';
import type { API, Types } from '../opensearch/engine.js';
import { indexName } from '../opensearch/indices.js';
import { compileQuery, leftOutField, type PostingOverflow } from './compile-query.js';
import { compileSort } from './compile-sort.js';
import { compileFacets } from './facets.js';
import { openingField } from './opening.js';
import type { SearchPlan } from './plan.js';
import { compactFetch, compactJobFetch } from './records.js';
import { compileSnippetHighlight, highlightsDetailText } from './snippets.js';

/** The engine stops collecting after this long; the task is cancelled after `cancelAfter`. */
export const searchTimeout = '5s';
export const cancelAfter = '8s';

/**
 * What a search fetches of each hit: the record's compact copy (./records.ts), whatever
 * `fields` asks for (the copy is read whole; `fields` selects from the record). Only the
 * snippets asked alone need no record. `opening`: the snippets come from the opening
 * excerpt's doc values (./opening.ts) rather than the highlighter.
 */
function fetchOf(
  search: SearchCatalogue,
  includes: string[] | undefined,
  opening: boolean,
): Record<string, unknown> {
  if (!search.snippets) return compactFetch;
  const withOpening = (fields: readonly unknown[]) => (opening ? [...fields, openingField] : [...fields]);
  if (includes?.length === 0) {
    const docvalues = withOpening([]);
    return {
      _source: false,
      stored_fields: ['_none_'],
      ...(docvalues.length > 0 ? { docvalue_fields: docvalues } : {}),
    };
  }
  return opening
    ? { ...compactJobFetch, docvalue_fields: withOpening(compactJobFetch.docvalue_fields) }
    : compactJobFetch;
}

/**
 * How a job search gets its snippets: not at all (`fields` leaves them out), the highlighter
 * (a positive detail-text condition: the matches marked), or the opening's doc values.
 */
function snippetSource(search: SearchCatalogue, plan: SearchPlan): 'none' | 'highlighter' | 'opening' {
  if (!search.snippets) return 'none';
  if (plan.fields && !plan.fields.includes('descriptionSnippets')) return 'none';
  return highlightsDetailText(plan) ? 'highlighter' : 'opening';
}

export function compileSearch(
  search: SearchCatalogue,
  plan: SearchPlan,
  indexPrefix: string,
  /** Jobs-first answers for companies past the nested posting limit (./posting-overflow.ts). */
  overflow?: PostingOverflow,
): API.Search_Request {
  const snippets = snippetSource(search, plan);
  const highlight = snippets === 'highlighter' ? compileSnippetHighlight(plan) : undefined;
  // `fields`: fetch only what the records show (snippets come from the highlighter or the
  // opening's doc values, not _source)
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
      ...fetchOf(search, includes, snippets === 'opening'),
      ...(highlight ? { highlight } : {}),
      ...(aggs ? { aggs: aggs as Record<string, Types.Common_Aggregations.AggregationContainer> } : {}),
    },
  };
}
