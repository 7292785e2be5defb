/**
 * A search, stage by stage, each a function of the previous stage's value:
 *
 *   parse    body -> SearchPlan                       ./parse-request.ts (the HTTP path parses
 *                                                     before credits are reserved: src/http/search-plan.ts)
 *   resolve  SearchPlan -> Resolved                   what the plan must reckon with before it
 *                                                     is compiled: companies past the nested
 *                                                     posting limit (./posting-overflow.ts)
 *   compile  Resolved -> Compiled                     the engine request, compiled once
 *   execute  Compiled -> Executed                     the page (from/size, or a point in time for
 *                                                     deep and cursor pages: ./paging/pages.ts)
 *                                                     and the facet counts of marked companies
 *   shape    Executed -> the answer's JSON text       records spliced from their copies
 *
 * A company page within the result window with posting conditions while some company is past
 * the nested limit is resolved with a check only (`Resolved.check`): the page is asked beside
 * the marked companies' answers in one round trip, and compiled a second time only when those
 * answers show the nested copy out of date (the jobs-first search), or when the engine refused
 * a part of the round trip (the answers are then asked alone first). What differs between
 * company and job search is data (src/catalogue/searches.ts, ./records.ts `recordReaders`).
 */
import { corporateSearch, jobSearch, type SearchCatalogue } from '../catalogue/searches.js';
import type { Deadline } from '../deadline.js';
import { exportCost } from '../limits/export-cost.js';
import { metrics } from '../metrics.js';
import type { Services } from '../services.js';
import type { PostingOverflow } from './compile-query.js';
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
  jobsAnswersRequest,
  nestedAnswersRequest,
  type OverflowCheck,
  overflowFacetCounts,
  overflowToReckon,
  readAnswers,
  resolvePostingOverflow,
} from './posting-overflow.js';
import { answerBytes, asByteText, type ByteText } from './record-text.js';
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
   * gets the time left; without one (tools, tests) the engine's own (10 s a call) apply.
   */
  deadline?: Deadline;
}

/** Stage 2: the plan and what it must reckon with before it is compiled. */
export interface Resolved {
  search: SearchCatalogue;
  plan: SearchPlan;
  /** The jobs index's answers for companies past the nested limit, decided before compiling. */
  overflow?: PostingOverflow;
  /** Companies past the limit to check in the page's own round trip (a page within the window). */
  check?: OverflowCheck;
}

/** Stage 3: the engine request, compiled once. */
export interface Compiled {
  resolved: Resolved;
  request: SearchRequest;
}

/** Stage 4: the page fetched, and the facet counts of companies past the nested limit. */
export interface Executed {
  compiled: Compiled;
  body: SearchBody;
  hits: EngineHit[];
  /** Cursor searches only: the next page's cursor, null after the last page. */
  nextCursor?: string | null;
  additions?: FacetAdditions | undefined;
}

/**
 * Resolve. `withinWindow`: the page is read by from/size (a count too), where the marked
 * companies are checked in the page's own round trip; deep pages, cursors and exports get the
 * jobs index's answers first. Searches with a posting facet always do (their facets count the
 * marked companies from the jobs index).
 */
export async function resolveSearch(
  services: SearchServices,
  search: SearchCatalogue,
  plan: SearchPlan,
  deadline: Deadline | undefined,
  withinWindow: boolean,
): Promise<Resolved> {
  if (!search.nestedPostings) return { search, plan };
  return { search, plan, ...(await overflowToReckon(services, plan, deadline, withinWindow)) };
}

/** Compile: the one engine request of the resolved search. */
export function compileResolved(resolved: Resolved, indexPrefix: string): Compiled {
  const { search, plan, overflow } = resolved;
  return { resolved, request: compileSearch(search, plan, indexPrefix, overflow) };
}

/**
 * The search request, with jobs-first answers for companies past the nested posting limit
 * when company search has posting conditions (./posting-overflow.ts): what an export reads.
 */
export async function compileWithOverflow(
  services: SearchServices,
  search: SearchCatalogue,
  plan: SearchPlan,
  deadline: Deadline | undefined,
): Promise<SearchRequest> {
  const resolved = await resolveSearch(services, search, plan, deadline, false);
  return compileResolved(resolved, services.config.indexPrefix).request;
}

/**
 * Whether a page is read by from/size (else from a point in time, which a page opens, walks
 * or closes): such a page only reads, so it may be asked before its request is admitted
 * (src/http/route-table.ts, the search route's `admitBeside`).
 */
export function withinWindow(services: SearchServices, plan: SearchPlan): boolean {
  const { resultWindow, walkFrom } = services.paging;
  return plan.cursor === undefined && plan.offset < walkFrom && plan.offset + plan.limit <= resultWindow;
}

/**
 * Execute a page within the result window (`shape` turns the request into the one sent: the
 * page, or a count). With a check, the page goes beside the marked companies' answers from the
 * jobs index and from their own nested postings; when the two agree for every posting query the
 * page is exact; else (a marked company decided by a posting its nested copy no longer holds)
 * the search is compiled again with the jobs index's answers and sent again.
 */
async function executeInWindow(
  services: SearchServices,
  compiled: Compiled,
  shape: (request: SearchRequest) => SearchRequest,
  deadline: Deadline | undefined,
): Promise<SearchBody> {
  const context = { ...services, deadline };
  const { search, plan, check } = compiled.resolved;
  const sent = shape(compiled.request);
  if (!check) return engineSearch(context, sent);
  const prefix = services.config.indexPrefix;
  const answers = await engineMsearch(context, [
    sent,
    jobsAnswersRequest(prefix, check),
    nestedAnswersRequest(prefix, check),
  ]);
  // the engine refused a part: the answers one search at a time (whose refusal maps as a search's)
  const recompiled = async (overflow: PostingOverflow | undefined) =>
    engineSearch(context, shape(compileSearch(search, plan, prefix, overflow)));
  if (!answers) return recompiled(await resolvePostingOverflow(services, plan, deadline));
  const [body, fromJobs, fromNested] = answers as [SearchBody, SearchBody, SearchBody];
  const overflow = readAnswers(check, fromJobs);
  const agree = answersAgree(overflow, readAnswers(check, fromNested));
  metrics.postingOverflowSearches.inc({ outcome: agree ? 'one_trip' : 'jobs_first' });
  if (!agree) return recompiled(overflow);
  // a hit without its compact copy is read again from `_source` (engineSearch does so)
  return sourceFetchFor(sent.body as Record<string, unknown>, hitsOf(body))
    ? engineSearch(context, sent)
    : body;
}

/** Execute: the page, by from/size, from a point in time, or by a cursor. */
async function executePage(
  services: SearchServices,
  compiled: Compiled,
  userId: string,
  deadline: Deadline | undefined,
): Promise<Omit<Executed, 'additions'>> {
  const { search, plan, overflow } = compiled.resolved;
  const context = { ...services, deadline };
  const { request } = compiled;
  if (withinWindow(services, plan)) {
    const body = await executeInWindow(services, compiled, (sent) => sent, deadline);
    return { compiled, body, hits: hitsOf(body) };
  }
  if (plan.cursor !== undefined) {
    // the search as asked: a cursor stays valid when a company past the nested limit gains or
    // loses a matching posting between pages (that company is then in or out, live)
    const asked = overflow ? compileSearch(search, plan, services.config.indexPrefix) : request;
    const page = await cursorPage(context, request, {
      cursor: plan.cursor,
      user: userId,
      key: listKey(asked),
      limit: plan.limit,
      counted: plan.includeTotalResults,
    });
    return { compiled, ...page };
  }
  const page = await deepPage(context, request, {
    key: `${userId}:${listKey(request)}`,
    offset: plan.offset,
    limit: plan.limit,
  });
  return { compiled, ...page };
}

/** Resolve, compile and execute a plan (a deep or cursor page's engine time is the whole of its steps). */
async function executePlan(
  services: SearchServices,
  search: SearchCatalogue,
  plan: SearchPlan,
  options: SearchOptions,
): Promise<Executed> {
  const timer = metrics.engineDuration.startTimer({ operation: `${search.index}_search` });
  try {
    const resolved = await resolveSearch(
      services,
      search,
      plan,
      options.deadline,
      withinWindow(services, plan),
    );
    const compiled = compileResolved(resolved, services.config.indexPrefix);
    const page = await executePage(services, compiled, options.userId ?? '', options.deadline);
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
    return { ...page, additions };
  } catch (error) {
    timer({ outcome: 'error' });
    throw error;
  }
}

/** The members of the response after `results`, in the response's order. */
function responseTail(executed: Executed) {
  const { search, plan } = executed.compiled.resolved;
  return {
    ...(executed.nextCursor !== undefined ? { nextCursor: executed.nextCursor } : {}),
    ...(plan.facets.length > 0
      ? {
          facets: readFacets(
            search,
            plan.facets,
            executed.body.aggregations as Record<string, unknown>,
            executed.additions,
          ),
        }
      : {}),
  };
}

/**
 * Shape: the answer's JSON text in UTF-8, the records spliced from their copies' bytes. Built
 * as byte text (./record-text.ts): the copies' bytes are never decoded nor the answer encoded.
 */
export function shapeAnswer(executed: Executed): Buffer {
  const { search, plan } = executed.compiled.resolved;
  const toText = recordReaders[search.index].texts(plan.fields);
  const total = plan.includeTotalResults ? totalOf(executed.body) : null;
  const tail = asByteText(JSON.stringify(responseTail(executed)));
  const records = executed.hits.map(toText).join(',');
  // the tail object's members follow `results`; `{}` adds none
  const text = `{"totalResults":${JSON.stringify(total)},"results":[${records}]${tail === '{}' ? '' : `,${tail.slice(1, -1)}`}}`;
  return answerBytes(text as ByteText);
}

/**
 * The answer of a search as the UTF-8 bytes of its JSON text, the one way every search answer
 * is made: built from parts, each record spliced from its copy (./records.ts), never parsed and
 * written again (docs/decisions/record-copies.md); the same bytes `JSON.stringify` makes of the
 * answer.
 */
export async function runPlanBytes(
  services: SearchServices,
  search: SearchCatalogue,
  plan: SearchPlan,
  options: SearchOptions = {},
): Promise<Buffer> {
  return shapeAnswer(await executePlan(services, search, plan, options));
}

/** The answer as a value: the bytes of `runPlanBytes`, parsed (tools, tests, an answer kept for an Idempotency-Key). */
export async function runPlan(
  services: SearchServices,
  search: SearchCatalogue,
  plan: SearchPlan,
  options: SearchOptions = {},
): Promise<SearchResponse> {
  return JSON.parse((await runPlanBytes(services, search, plan, options)).toString('utf8')) as SearchResponse;
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
  const resolved = await resolveSearch(services, search, plan, deadline, true);
  const compiled = compileResolved(resolved, services.config.indexPrefix);
  return totalOf(await executeInWindow(services, compiled, countOnly, deadline));
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
