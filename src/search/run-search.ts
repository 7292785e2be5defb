/**
 * Runs a search end to end: parse and check the body, compile, ask OpenSearch, map the hits.
 * `{ totalResults, results }`; totalResults is the exact count, or null when not asked for.
 */
import type { API } from '@opensearch-project/opensearch';
import { corporateSearch, jobSearch, type SearchCatalogue } from '../catalogue/searches.js';
import type { Services } from '../services.js';
import { compileSearch } from './compile-search.js';
import { assertComplete, toSearchError } from './opensearch-errors.js';
import { parseSearchRequest } from './parse-request.js';
import { toCorporateRecord, toJobRecord } from './records.js';

export interface SearchResponse {
  totalResults: number | null;
  results: Record<string, unknown>[];
}

interface Hit {
  _source?: Record<string, unknown>;
  highlight?: Record<string, string[]>;
}

async function runSearch(
  services: Pick<Services, 'opensearch' | 'config' | 'logger'>,
  search: SearchCatalogue,
  body: unknown,
  toRecord: (hit: Hit) => Record<string, unknown>,
): Promise<SearchResponse> {
  const plan = parseSearchRequest(search, body);
  const request = compileSearch(search, plan, services.config.indexPrefix);
  let response: API.Search_ResponseBody;
  try {
    response = (await services.opensearch.search(request)).body;
  } catch (error) {
    throw toSearchError(error, services.logger);
  }
  assertComplete(response);
  const total = response.hits.total;
  return {
    totalResults: plan.includeTotalResults ? (typeof total === 'number' ? total : (total?.value ?? 0)) : null,
    results: response.hits.hits.map((hit) => toRecord(hit as Hit)),
  };
}

export function searchCorporates(
  services: Pick<Services, 'opensearch' | 'config' | 'logger'>,
  body: unknown,
) {
  return runSearch(services, corporateSearch, body, (hit) => toCorporateRecord(hit._source ?? {}));
}

export function searchJobs(services: Pick<Services, 'opensearch' | 'config' | 'logger'>, body: unknown) {
  return runSearch(services, jobSearch, body, (hit) => toJobRecord(hit._source ?? {}, hit.highlight));
}
