/**
 * The one route table: every operation of the API under /rest/v1 (the rows of
 * src/catalogue/operations.ts, which says what each is limited and charged), with the chain of
 * steps it runs, in order, and its handler. Which middleware a route runs is decided here and
 * nowhere else; src/http/app.ts mounts the table after the two steps every request under
 * /rest/v1 takes first (the operation gate, the deadline).
 *
 *   POST /corporates/search   auth -> rate limit -> validation -> search plan -> credits -> search
 *                             (its engine call beside its admission: `admitBeside` below)
 *   POST /corporates/count    auth -> rate limit -> validation -> search plan -> count
 *   POST /corporates/export   auth -> rate limit -> validation -> export plan -> export (charges itself)
 *   GET  /jobs/{jobId}/detail auth -> rate limit -> validation -> credits -> detail
 *   POST /corporates/match    auth -> rate limit -> validation -> credits -> match
 *   GET  /corporates/suggest  auth -> rate limit -> validation -> suggest
 *   POST /corporates/match-jobs        auth -> rate limit -> upload (checks its own parameters)
 *   GET|DELETE /corporates/match-jobs… auth -> rate limit -> validation -> the job's handler
 *   POST|GET|DELETE /saved-searches…   auth -> rate limit -> validation -> its handler (free)
 *   GET  /saved-searches/{id}/changes   auth -> rate limit -> validation -> credits -> changes
 *   POST|GET|DELETE /webhooks…          auth -> rate limit -> validation -> its handler (free)
 *   GET  /usage, /usage/entries         auth -> rate limit (its own) -> validation -> its handler (free)
 *   GET  /master/{name}       auth -> master (free, unlimited, a cached answer)
 *   GET  /reconcile           reconcile key -> optional auth -> manifest (free, unlimited)
 *   POST /reconcile           reconcile key -> auth -> rate limit -> validation -> reconcile plan -> credits -> reconcile
 *   GET  /reconcile/suggest/entity, /suggest/property, /preview
 *                             reconcile key -> auth -> rate limit -> validation -> its handler
 *   another method on one of these paths: auth -> validation (its 405)
 *
 * 'credits' also brings the error step that counts a rate count put off until the reservation
 * (a request refused before it, src/http/limits/rate-limit.ts) and, after the handler, the
 * refund of a failed charged request before its error answer (src/http/limits/credits.ts).
 */
import {
  type ErrorRequestHandler,
  type NextFunction,
  type Request,
  type RequestHandler,
  type Response,
  Router,
} from 'express';
import { type Operation, operations } from '../catalogue/operations.js';
import { corporateSearch, jobSearch, type SearchCatalogue } from '../catalogue/searches.js';
import { type LoadedMaster, masterNames } from '../masters/masters.js';
import { batchWhileBusy } from '../redis.js';
import { withinWindow } from '../search/run-search.js';
import type { Services } from '../services.js';
import { creditsMiddleware, refundOnErrorMiddleware } from './limits/credits.js';
import { countDeferredRateOnError, rateLimitMiddleware } from './limits/rate-limit.js';
import { locals, searchPlanOf } from './locals.js';
import { detailHandler } from './routes/detail.js';
import { mastersRouter } from './routes/masters.js';
import { matchHandler } from './routes/match.js';
import {
  cancelMatchJobHandler,
  createMatchJobHandler,
  getMatchJobHandler,
  listMatchJobsHandler,
  matchJobResultsHandler,
  resumeMatchJobHandler,
} from './routes/match-jobs.js';
import {
  manifestHandler,
  optionalAuth,
  previewHandler,
  reconcileHandler,
  reconcileKey,
  reconcilePlan,
  suggestEntityHandler,
  suggestPropertyHandler,
} from './routes/reconcile.js';
import {
  createSavedSearchHandler,
  deleteSavedSearchHandler,
  getSavedSearchHandler,
  listSavedSearchesHandler,
  savedSearchChangesHandler,
} from './routes/saved-searches.js';
import { countHandler, exportHandler, searchHandler } from './routes/search.js';
import { suggestHandler } from './routes/suggest.js';
import { ledgerEntriesHandler, usageHandler } from './routes/usage.js';
import { webhookHandlers } from './routes/webhooks.js';
import { parseExportPlan, parseSearchPlan } from './search-plan.js';
import { validateRequests } from './validation.js';

export type Step =
  | 'reconcile key'
  | 'optional auth'
  | 'auth'
  | 'rate limit'
  | 'validation'
  | 'search plan'
  | 'export plan'
  | 'reconcile plan'
  | 'credits';
export type HandlerName =
  | 'search'
  | 'count'
  | 'export'
  | 'detail'
  | 'match'
  | 'suggest'
  | 'master'
  | 'reconcile manifest'
  | 'reconcile'
  | 'reconcile suggest entity'
  | 'reconcile suggest property'
  | 'reconcile preview'
  | 'matchJobCreate'
  | 'matchJobList'
  | 'matchJob'
  | 'matchJobCancel'
  | 'matchJobResults'
  | 'matchJobResume'
  | 'savedSearchCreate'
  | 'savedSearchList'
  | 'savedSearch'
  | 'savedSearchDelete'
  | 'changes'
  | 'webhookCreate'
  | 'webhookList'
  | 'webhook'
  | 'webhookDelete'
  | 'webhookRotate'
  | 'webhookEnable'
  | 'webhookDeliveries'
  | 'usage'
  | 'usageEntries';

export interface Route {
  chain: readonly Step[];
  handler: HandlerName;
  /**
   * The handler may start its engine call while step 'credits' still waits on the store (a
   * page read by from/size, when the user's room is known); it answers only once the request
   * is admitted (src/http/limits/credits.ts `admissionOf`).
   */
  admitBeside?: true;
}

const search: Route = {
  chain: ['auth', 'rate limit', 'validation', 'search plan', 'credits'],
  handler: 'search',
  admitBeside: true,
};
const count: Route = { chain: ['auth', 'rate limit', 'validation', 'search plan'], handler: 'count' };
const exportAll: Route = { chain: ['auth', 'rate limit', 'validation', 'export plan'], handler: 'export' };
const master: Route = { chain: ['auth'], handler: 'master' };
const webhookRoute = (handler: HandlerName): Route => ({
  chain: ['auth', 'rate limit', 'validation'],
  handler,
});

/** By `METHOD /path` as src/catalogue/operations.ts writes it; every operation has one row. */
export const routeTable: Readonly<Record<string, Route>> = {
  'POST /corporates/search': search,
  'POST /corporates/count': count,
  'POST /corporates/export': exportAll,
  'POST /jobs/search': search,
  'POST /jobs/count': count,
  'POST /jobs/export': exportAll,
  'GET /jobs/{jobId}/detail': { chain: ['auth', 'rate limit', 'validation', 'credits'], handler: 'detail' },
  'POST /corporates/match': { chain: ['auth', 'rate limit', 'validation', 'credits'], handler: 'match' },
  'GET /corporates/suggest': { chain: ['auth', 'rate limit', 'validation'], handler: 'suggest' },
  // the upload is a CSV or JSONL stream, not a JSON body: its handler checks its parameters
  'POST /corporates/match-jobs': { chain: ['auth', 'rate limit'], handler: 'matchJobCreate' },
  'GET /corporates/match-jobs': { chain: ['auth', 'rate limit', 'validation'], handler: 'matchJobList' },
  'GET /corporates/match-jobs/{jobId}': { chain: ['auth', 'rate limit', 'validation'], handler: 'matchJob' },
  'DELETE /corporates/match-jobs/{jobId}': {
    chain: ['auth', 'rate limit', 'validation'],
    handler: 'matchJobCancel',
  },
  'GET /corporates/match-jobs/{jobId}/results': {
    chain: ['auth', 'rate limit', 'validation'],
    handler: 'matchJobResults',
  },
  'POST /corporates/match-jobs/{jobId}/resume': {
    chain: ['auth', 'rate limit', 'validation'],
    handler: 'matchJobResume',
  },
  'POST /saved-searches': { chain: ['auth', 'rate limit', 'validation'], handler: 'savedSearchCreate' },
  'GET /saved-searches': { chain: ['auth', 'rate limit', 'validation'], handler: 'savedSearchList' },
  'GET /saved-searches/{savedSearchId}': {
    chain: ['auth', 'rate limit', 'validation'],
    handler: 'savedSearch',
  },
  'DELETE /saved-searches/{savedSearchId}': {
    chain: ['auth', 'rate limit', 'validation'],
    handler: 'savedSearchDelete',
  },
  'GET /saved-searches/{savedSearchId}/changes': {
    chain: ['auth', 'rate limit', 'validation', 'credits'],
    handler: 'changes',
  },
  'POST /webhooks': webhookRoute('webhookCreate'),
  'GET /webhooks': webhookRoute('webhookList'),
  'GET /webhooks/{webhookId}': webhookRoute('webhook'),
  'DELETE /webhooks/{webhookId}': webhookRoute('webhookDelete'),
  'POST /webhooks/{webhookId}/rotate-secret': webhookRoute('webhookRotate'),
  'POST /webhooks/{webhookId}/enable': webhookRoute('webhookEnable'),
  'GET /webhooks/{webhookId}/deliveries': webhookRoute('webhookDeliveries'),
  'GET /usage': { chain: ['auth', 'rate limit', 'validation'], handler: 'usage' },
  'GET /usage/entries': { chain: ['auth', 'rate limit', 'validation'], handler: 'usageEntries' },
  ...Object.fromEntries(masterNames.map((name) => [`GET /master/${name}`, master])),
  // the W3C Reconciliation Service API (src/http/routes/reconcile.ts): the key may come as ?apiKey=
  'GET /reconcile': { chain: ['reconcile key', 'optional auth'], handler: 'reconcile manifest' },
  'POST /reconcile': {
    chain: ['reconcile key', 'auth', 'rate limit', 'validation', 'reconcile plan', 'credits'],
    handler: 'reconcile',
  },
  'GET /reconcile/suggest/entity': {
    chain: ['reconcile key', 'auth', 'rate limit', 'validation'],
    handler: 'reconcile suggest entity',
  },
  'GET /reconcile/suggest/property': {
    chain: ['reconcile key', 'auth', 'rate limit', 'validation'],
    handler: 'reconcile suggest property',
  },
  'GET /reconcile/preview': {
    chain: ['reconcile key', 'auth', 'rate limit', 'validation'],
    handler: 'reconcile preview',
  },
};

/** Another method on an operation's path (the operation gate lets it on): the validator answers 405. */
export const otherMethodChain: readonly Step[] = ['auth', 'validation'];

export function routeKey(operation: Pick<Operation, 'method' | 'path'>): string {
  return `${operation.method} ${operation.path}`;
}

/** The middleware a step stands for; built once per app (src/http/app.ts). */
interface StepMiddleware {
  auth: RequestHandler;
  rateLimit: RequestHandler;
  validation: RequestHandler[];
  countDeferredRate: ErrorRequestHandler;
  credits: RequestHandler;
  creditsBeside: RequestHandler;
  refundOnError: ErrorRequestHandler;
}

/** The search an operation's path names: `/corporates/...` or `/jobs/...`. */
function searchOf(operation: Operation): SearchCatalogue {
  return operation.path.startsWith('/corporates/') ? corporateSearch : jobSearch;
}

function middlewareOf(
  step: Step,
  steps: StepMiddleware,
  operation: Operation | undefined,
  maxClauseCount: number,
  admitBeside = false,
): Array<RequestHandler | ErrorRequestHandler> {
  if (step === 'auth') return [steps.auth];
  if (step === 'reconcile key') return [reconcileKey()];
  if (step === 'optional auth') return [optionalAuth(steps.auth)];
  if (step === 'reconcile plan') return [reconcilePlan()];
  if (step === 'rate limit') return [steps.rateLimit];
  if (step === 'validation') return steps.validation;
  if (step === 'credits') return [steps.countDeferredRate, admitBeside ? steps.creditsBeside : steps.credits];
  if (!operation) throw new Error(`step '${step}' needs an operation`);
  return step === 'search plan'
    ? [parseSearchPlan(searchOf(operation), maxClauseCount)]
    : [parseExportPlan(searchOf(operation), maxClauseCount)];
}

function handlersOf(
  services: Services,
  masters: Map<string, LoadedMaster>,
): Record<HandlerName, RequestHandler> {
  return {
    search: searchHandler(services),
    count: countHandler(services),
    export: exportHandler(services),
    detail: detailHandler(services),
    match: matchHandler(services),
    suggest: suggestHandler(services),
    master: mastersRouter(masters),
    'reconcile manifest': manifestHandler(),
    reconcile: reconcileHandler(services),
    'reconcile suggest entity': suggestEntityHandler(services),
    'reconcile suggest property': suggestPropertyHandler(),
    'reconcile preview': previewHandler(services),
    matchJobCreate: createMatchJobHandler(services),
    matchJobList: listMatchJobsHandler(services),
    matchJob: getMatchJobHandler(services),
    matchJobCancel: cancelMatchJobHandler(services),
    matchJobResults: matchJobResultsHandler(services),
    matchJobResume: resumeMatchJobHandler(services),
    savedSearchCreate: createSavedSearchHandler(services),
    savedSearchList: listSavedSearchesHandler(services),
    savedSearch: getSavedSearchHandler(services),
    savedSearchDelete: deleteSavedSearchHandler(services),
    changes: savedSearchChangesHandler(services),
    ...webhookHandlers(services),
    usage: usageHandler(services),
    usageEntries: ledgerEntriesHandler(services),
  };
}

/**
 * Mounts the table on `api` (the router under /rest/v1): the operation the gate found
 * (src/http/operation-gate.ts, `locals(res).operation`) runs its row's chain, in a router of
 * its own; any other request there (another method on an operation's path) runs
 * `otherMethodChain`. Dispatched by the operation rather than matched by path again, so a path
 * parameter is decoded only by its handler, after validation has refused one that does not
 * decode. A row without an operation, or an operation without a row, is a wiring fault: the
 * app does not start.
 */
export function mountRoutes(
  api: Router,
  services: Services,
  auth: RequestHandler,
  /** the master lists as loaded at start (src/masters/masters.ts), shared with the masters' fast path */
  masters: Map<string, LoadedMaster>,
): void {
  const keys = new Set(operations.map(routeKey));
  const stray = Object.keys(routeTable).filter((key) => !keys.has(key));
  if (stray.length > 0) throw new Error(`routes without an operation: ${stray.join(', ')}`);
  // the charged requests in flight, for the Redis connection to batch its commands while
  // there are several (src/redis.ts)
  const busy = services.redis ? batchWhileBusy(services.redis) : undefined;
  const steps: StepMiddleware = {
    auth,
    rateLimit: rateLimitMiddleware(services.limits, services.logger),
    validation: validateRequests(),
    countDeferredRate: countDeferredRateOnError(services.limits, services.logger),
    credits: creditsMiddleware(services.limits, services.logger, { busy }),
    // a page that only reads (from/size): one of a point in time opens or closes it
    creditsBeside: creditsMiddleware(services.limits, services.logger, {
      beside: (res) => withinWindow(services, searchPlanOf(res).plan),
      busy,
    }),
    refundOnError: refundOnErrorMiddleware(services.limits, services.logger),
  };
  const handlers = handlersOf(services, masters);
  const { maxClauseCount } = services.config;
  const chains = new Map<string, Router>();
  for (const operation of operations) {
    const route = routeTable[routeKey(operation)];
    if (!route) throw new Error(`no route for ${routeKey(operation)} in src/http/route-table.ts`);
    const chain = Router();
    chain.use(
      ...route.chain.flatMap((step) =>
        middlewareOf(step, steps, operation, maxClauseCount, route.admitBeside),
      ),
    );
    chain.use(handlers[route.handler]);
    if (route.chain.includes('credits')) chain.use(steps.refundOnError);
    chains.set(routeKey(operation), chain);
  }
  api.use((req: Request, res: Response, next: NextFunction) => {
    const operation = locals(res).operation;
    const chain = operation && chains.get(routeKey(operation));
    if (chain) chain(req, res, next);
    else next();
  });
  api.use(...otherMethodChain.flatMap((step) => middlewareOf(step, steps, undefined, maxClauseCount)));
}
