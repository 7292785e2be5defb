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
  engineMsearch,
  engineSearch,
  hitsOf,
  listKey,
  type SearchBody,
  type SearchRequest,
  totalOf,
} from './paging/pit-search.js';
import { parseSearchRequest } from './parse-request.js';
import type { SearchPlan } from './plan.js';
import {
  answersAgree,
  hasPostingFacet,
  jobsAnswersRequest,
  nestedAnswersRequest,
  overflowCheck,
  overflowFacetCounts,
  readAnswers,
  resolvePostingOverflow,
} from './posting-overflow.js';
import { recordReaders, sourceFetchFor } from './records.js';

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

async function fetchPage(
  services: SearchServices,
  search: SearchCatalogue,
  plan: SearchPlan,
  userId: string,
  deadline: Deadline | undefined,
): Promise<Fetched> {
  const context = { ...services, deadline };
  const { resultWindow, walkFrom } = services.paging;
  // a page from walkFrom on (or past the result window) is read from the list's point in time
  if (plan.cursor === undefined && plan.offset < walkFrom && plan.offset + plan.limit <= resultWindow) {
    const body = await searchOnce(services, search, plan, (request) => request, deadline);
    return { body, hits: hitsOf(body) };
  }
  const request = await compileWithOverflow(services, search, plan, deadline);
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
  return deepPage(context, request, {
    key: `${userId}:${listKey(request)}`,
    offset: plan.offset,
    limit: plan.limit,
  });
}

/**
 * One search within the result window (`shape` turns the compiled search into the request
 * sent: a page, or a count). A company search with posting conditions while some company is
 * past the nested limit asks, in one round trip, the plain nested search beside the marked
 * companies' answers from the jobs index and from their own nested postings: when the two
 * answers agree for every posting query the plain search is exact and is the answer; else
 * (a marked company decided by a posting its nested copy no longer holds) the jobs-first
 * search follows. Searches with a posting facet keep the two-step path (their facets count
 * the marked companies from the jobs index).
 */
async function searchOnce(
  services: SearchServices,
  search: SearchCatalogue,
  plan: SearchPlan,
  shape: (request: SearchRequest) => SearchRequest,
  deadline: Deadline | undefined,
): Promise<SearchBody> {
  const context = { ...services, deadline };
  const prefix = services.config.indexPrefix;
  const check =
    search.nestedPostings && !hasPostingFacet(plan)
      ? await overflowCheck(services, plan, deadline)
      : undefined;
  if (!check)
    return engineSearch(context, shape(await compileWithOverflow(services, search, plan, deadline)));
  const plain = shape(compileSearch(search, plan, prefix));
  const answers = await engineMsearch(context, [
    plain,
    jobsAnswersRequest(prefix, check),
    nestedAnswersRequest(prefix, check),
  ]);
  if (!answers)
    return engineSearch(context, shape(await compileWithOverflow(services, search, plan, deadline)));
  const [body, fromJobs, fromNested] = answers as [SearchBody, SearchBody, SearchBody];
  const overflow = readAnswers(check, fromJobs);
  const agree = answersAgree(overflow, readAnswers(check, fromNested));
  metrics.postingOverflowSearches.inc({ outcome: agree ? 'one_trip' : 'jobs_first' });
  if (!agree) return engineSearch(context, shape(compileSearch(search, plan, prefix, overflow)));
  // a hit without its compact copy is read again from `_source` (engineSearch does so)
  return sourceFetchFor(plain.body as Record<string, unknown>, hitsOf(body))
    ? engineSearch(context, plain)
    : body;
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
  const overflow = search.nestedPostings ? await resolvePostingOverflow(services, plan, deadline) : undefined;
  return compileSearch(search, plan, services.config.indexPrefix, overflow);
}

/** What a search fetched: the page, and the facet counts of companies past the nested limit. */
interface Answer {
  page: Fetched;
  additions: FacetAdditions | undefined;
}

async function answerPlan(
  services: SearchServices,
  search: SearchCatalogue,
  plan: SearchPlan,
  options: SearchOptions,
): Promise<Answer> {
  // a deep or cursor page's engine time is the whole of its steps
  const timer = metrics.engineDuration.startTimer({ operation: `${search.index}_search` });
  try {
    const page = await fetchPage(services, search, plan, options.userId ?? '', options.deadline);
    let additions: FacetAdditions | undefined;
    if (search.nestedPostings && plan.facets.length > 0) {
      const aggregations = page.body.aggregations as Record<string, unknown> | undefined;
      additions = await overflowFacetCounts(
        services,
        plan,
        overflowInResults(aggregations),
        options.deadline,
      );
    }
    timer({ outcome: 'ok' });
    return { page, additions };
  } catch (error) {
    timer({ outcome: 'error' });
    throw error;
  }
}

/** The members of the response after `results`, in the response's order. */
function responseTail(search: SearchCatalogue, plan: SearchPlan, { page, additions }: Answer) {
  return {
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

/**
 * The answer of a search as its JSON text, the one way every search answer is made: built from
 * parts, each record spliced from its copy's text (./records.ts), never parsed and written
 * again (docs/decisions/record-copies.md); the same bytes `JSON.stringify` makes of the answer.
 */
export async function runPlanText(
  services: SearchServices,
  search: SearchCatalogue,
  plan: SearchPlan,
  options: SearchOptions = {},
): Promise<string> {
  const toText = recordReaders[search.index].texts(plan.fields);
  const answer = await answerPlan(services, search, plan, options);
  const total = plan.includeTotalResults ? totalOf(answer.page.body) : null;
  const tail = JSON.stringify(responseTail(search, plan, answer));
  const records = answer.page.hits.map(toText).join(',');
  // the tail object's members follow `results`; `{}` adds none
  return `{"totalResults":${JSON.stringify(total)},"results":[${records}]${tail === '{}' ? '' : `,${tail.slice(1, -1)}`}}`;
}

/** The answer as a value: the text of `runPlanText`, parsed (tools, tests, an answer kept for an Idempotency-Key). */
export async function runPlan(
  services: SearchServices,
  search: SearchCatalogue,
  plan: SearchPlan,
  options: SearchOptions = {},
): Promise<SearchResponse> {
  return JSON.parse(await runPlanText(services, search, plan, options)) as SearchResponse;
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
  const countOnly = (request: SearchRequest): SearchRequest => {
    const { query } = request.body as { query: unknown };
    return { ...request, body: { query, size: 0, track_total_hits: true } as SearchRequest['body'] };
  };
  return totalOf(await searchOnce(services, search, plan, countOnly, deadline));
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
