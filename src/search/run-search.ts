/**
 * Runs a search: compile a plan, ask OpenSearch, map the hits. `runPlan` takes a plan parsed
 * earlier (the HTTP path parses before credits are reserved: src/http/search-plan.ts);
 * `searchCorporates` / `searchJobs` parse the body first.
 * `{ totalResults, results }`; totalResults is the exact count, or null when not asked for.
 * Pages near the top use from/size; pages from offset `walkFrom` (src/catalogue/paging.ts) or
 * past the result window, and cursor pages, read a point in time (src/search/paging/pages.ts);
 * a cursor search adds `nextCursor`.
 */
import { corporateSearch, jobSearch, type SearchCatalogue } from '../catalogue/searches.js';
import type { Deadline } from '../deadline.js';
import { exportCost } from '../limits/export-cost.js';
import { metrics } from '../metrics.js';
import type { Services } from '../services.js';
import { compileSearch } from './compile-search.js';
import { type FacetAdditions, type FacetBucket, overflowInResults, readFacets } from './facets.js';
import { cursorPage, deepPage } from './paging/pages.js';
import {
  type EngineHit,
  engineSearch,
  hitsOf,
  listKey,
  type SearchBody,
  totalOf,
} from './paging/pit-search.js';
import { parseSearchRequest } from './parse-request.js';
import type { SearchPlan } from './plan.js';
import { overflowFacetCounts, resolvePostingOverflow } from './posting-overflow.js';
import { corporateRecordOf, jobRecordOf, selectFields } from './records.js';

export interface SearchResponse {
  totalResults: number | null;
  results: Record<string, unknown>[];
  /** Cursor searches only: the next page's cursor, null after the last page. */
  nextCursor?: string | null;
  /** Only when the request named `facets`. */
  facets?: Record<string, FacetBucket[]>;
}

export type SearchServices = Pick<Services, 'opensearch' | 'config' | 'logger' | 'paging'>;

export interface SearchOptions {
  /** The caller; deep-paging places and cursors are per user. */
  userId?: string;
  /**
   * The request's (src/deadline.ts): every engine call and paging-store call of the search
   * gets the time left; without one (tools, tests) the client's own timeouts apply.
   */
  deadline?: Deadline;
}

interface Fetched {
  body: SearchBody;
  hits: EngineHit[];
  nextCursor?: string | null;
}

const toRecords = new Map<SearchCatalogue, (hit: EngineHit) => Record<string, unknown>>([
  [corporateSearch, (hit) => corporateRecordOf(hit)],
  [jobSearch, (hit) => jobRecordOf(hit)],
]);

async function fetchPage(
  services: SearchServices,
  search: SearchCatalogue,
  plan: SearchPlan,
  userId: string,
  deadline: Deadline | undefined,
): Promise<Fetched> {
  const request = await compileWithOverflow(services, search, plan, deadline);
  const context = { ...services, deadline };
  if (plan.cursor !== undefined)
    return cursorPage(context, request, {
      cursor: plan.cursor,
      user: userId,
      // the search as asked: a cursor stays valid when a company past the nested limit gains
      // or loses a matching posting between pages (that company is then in or out, live)
      key: listKey(compileSearch(search, plan, services.config.indexPrefix)),
      limit: plan.limit,
      counted: plan.includeTotalResults,
    });
  const { resultWindow, walkFrom } = services.paging;
  if (plan.offset >= walkFrom || plan.offset + plan.limit > resultWindow)
    return deepPage(context, request, {
      key: `${userId}:${listKey(request)}`,
      offset: plan.offset,
      limit: plan.limit,
    });
  const body = await engineSearch(context, request);
  return { body, hits: hitsOf(body) };
}

/**
 * The search request, with jobs-first answers for companies past the nested posting limit
 * when company search has posting conditions (src/search/posting-overflow.ts). Search, count,
 * deep pages, cursors and exports all compile through here.
 */
export async function compileWithOverflow(
  services: SearchServices,
  search: SearchCatalogue,
  plan: SearchPlan,
  deadline: Deadline | undefined,
) {
  const overflow =
    search.index === 'corporates' ? await resolvePostingOverflow(services, plan, deadline) : undefined;
  return compileSearch(search, plan, services.config.indexPrefix, overflow);
}

export async function runPlan(
  services: SearchServices,
  search: SearchCatalogue,
  plan: SearchPlan,
  options: SearchOptions = {},
): Promise<SearchResponse> {
  const toRecord = toRecords.get(search);
  if (!toRecord) throw new Error(`no record mapping for the ${search.index} search`);
  // a deep or cursor page's engine time is the whole of its steps
  const timer = metrics.engineDuration.startTimer({ operation: `${search.index}_search` });
  let page: Fetched;
  let additions: FacetAdditions | undefined;
  try {
    page = await fetchPage(services, search, plan, options.userId ?? '', options.deadline);
    if (search.index === 'corporates' && plan.facets.length > 0) {
      const aggregations = page.body.aggregations as Record<string, unknown> | undefined;
      additions = await overflowFacetCounts(
        services,
        plan,
        overflowInResults(aggregations),
        options.deadline,
      );
    }
    timer({ outcome: 'ok' });
  } catch (error) {
    timer({ outcome: 'error' });
    throw error;
  }
  return {
    totalResults: plan.includeTotalResults ? totalOf(page.body) : null,
    results: page.hits.map((hit) => selectFields(toRecord(hit), plan.fields)),
    ...(page.nextCursor !== undefined ? { nextCursor: page.nextCursor } : {}),
    ...(plan.facets.length > 0
      ? {
          facets: readFacets(
            search,
            plan.facets,
            page.body.aggregations as Record<string, unknown>,
            additions,
          ),
        }
      : {}),
  };
}

export async function searchCorporates(services: SearchServices, body: unknown, options: SearchOptions = {}) {
  return runPlan(services, corporateSearch, parseSearchRequest(corporateSearch, body), options);
}

export async function searchJobs(services: SearchServices, body: unknown, options: SearchOptions = {}) {
  return runPlan(services, jobSearch, parseSearchRequest(jobSearch, body), options);
}

export interface CountResponse {
  totalResults: number;
  /** Credits an export of this search would cost now. */
  exportCredits: number;
}

/**
 * The exact number of results of a parsed search (its paging fields are ignored); free. One
 * engine call, under the request's deadline like a search.
 */
export async function countPlan(
  services: SearchServices,
  search: SearchCatalogue,
  plan: SearchPlan,
  deadline?: Deadline,
): Promise<number> {
  const request = await compileWithOverflow(services, search, plan, deadline);
  const { query } = request.body as { query: unknown };
  const counted = await engineSearch(
    { ...services, deadline },
    {
      ...request,
      body: { query, size: 0, track_total_hits: true } as typeof request.body,
    },
  );
  return totalOf(counted);
}

export async function countFor(
  services: SearchServices & Pick<Services, 'limits'>,
  search: SearchCatalogue,
  plan: SearchPlan,
  deadline?: Deadline,
): Promise<CountResponse> {
  const totalResults = await countPlan(services, search, plan, deadline);
  return { totalResults, exportCredits: exportCost(services.limits.config, totalResults) };
}
