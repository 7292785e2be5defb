/**
 * Runs a search: compile a plan, ask OpenSearch, map the hits. `runPlan` takes a plan parsed
 * earlier (the HTTP path parses before credits are reserved: src/http/search-plan.ts);
 * `searchCorporates` / `searchJobs` parse the body first.
 * `{ totalResults, results }`; totalResults is the exact count, or null when not asked for.
 */
import type { API } from '@opensearch-project/opensearch';
import { corporateSearch, jobSearch, type SearchCatalogue } from '../catalogue/searches.js';
import { type Deadline, DeadlineExceeded } from '../deadline.js';
import { metrics } from '../metrics.js';
import { withinDeadline } from '../opensearch/deadline.js';
import type { Services } from '../services.js';
import { compileSearch } from './compile-search.js';
import { assertComplete, engineTimeouts, toSearchError } from './opensearch-errors.js';
import { parseSearchRequest } from './parse-request.js';
import type { SearchPlan } from './plan.js';
import { toCorporateRecord, toJobRecord } from './records.js';

export interface SearchResponse {
  totalResults: number | null;
  results: Record<string, unknown>[];
}

interface Hit {
  _source?: Record<string, unknown>;
  highlight?: Record<string, string[]>;
}

const toRecords = new Map<SearchCatalogue, (hit: Hit) => Record<string, unknown>>([
  [corporateSearch, (hit) => toCorporateRecord(hit._source ?? {})],
  [jobSearch, (hit) => toJobRecord(hit._source ?? {}, hit.highlight)],
]);

export async function runPlan(
  services: Pick<Services, 'opensearch' | 'config' | 'logger'>,
  search: SearchCatalogue,
  plan: SearchPlan,
  deadline?: Deadline,
): Promise<SearchResponse> {
  const toRecord = toRecords.get(search);
  if (!toRecord) throw new Error(`no record mapping for the ${search.index} search`);
  const request = {
    ...compileSearch(search, plan, services.config.indexPrefix),
    ...engineTimeouts(deadline),
  };
  let response: API.Search_ResponseBody;
  const timer = metrics.engineDuration.startTimer({ operation: `${search.index}_search` });
  try {
    response = (
      await withinDeadline(deadline, 'search', (options) => services.opensearch.search(request, options))
    ).body;
    timer({ outcome: 'ok' });
  } catch (error) {
    timer({ outcome: 'error' });
    if (error instanceof DeadlineExceeded) throw error;
    throw toSearchError(error, services.logger);
  }
  assertComplete(response);
  const total = response.hits.total;
  return {
    totalResults: plan.includeTotalResults ? (typeof total === 'number' ? total : (total?.value ?? 0)) : null,
    results: response.hits.hits.map((hit) => toRecord(hit as Hit)),
  };
}

/** `deadline`: the request's (src/deadline.ts); without one the client's own timeout applies. */
export async function searchCorporates(
  services: Pick<Services, 'opensearch' | 'config' | 'logger'>,
  body: unknown,
  deadline?: Deadline,
) {
  return runPlan(services, corporateSearch, parseSearchRequest(corporateSearch, body), deadline);
}

export async function searchJobs(
  services: Pick<Services, 'opensearch' | 'config' | 'logger'>,
  body: unknown,
  deadline?: Deadline,
) {
  return runPlan(services, jobSearch, parseSearchRequest(jobSearch, body), deadline);
}
