/**
 * The API's operations under /rest/v1, one row each, with what each costs: the single place
 * that says which requests are rate limited and charged (docs/decisions/http-contract.md).
 *
 *   POST /corporates/search      -> 'search'  (rate limited, charged per request)
 *   POST /jobs/count             -> 'count'   (rate limited, free)
 *   POST /jobs/export            -> 'export'  (rate limited, charged per record sent)
 *   GET  /jobs/{jobId}/detail    -> 'detail'  (rate limited, charged at the detail price)
 *   POST /corporates/match       -> 'match'   (rate limited as a search, charged per certain match)
 *   GET  /corporates/suggest     -> 'suggest' (a rate limit of its own, free)
 *   GET  /reconcile              -> no limit  (the reconciliation manifest: free, unlimited)
 *   POST /reconcile              -> 'match'   (a reconciliation batch: as a match)
 *   GET  /reconcile/suggest/..., /reconcile/preview -> 'suggest' (as the suggest)
 *   POST /corporates/match-jobs  -> 'matchJob' (rate limited; the worker charges per certain match)
 *   POST /saved-searches         -> 'savedSearch' (rate limited, free)
 *   GET  /saved-searches/{id}/changes -> 'changes' (rate limited, charged as a search)
 *   POST /webhooks, ...          -> 'webhook' (rate limited as a count, free)
 *   GET  /usage, /usage/entries  -> 'usage'   (a rate limit of its own, free)
 *   GET  /master/prefectures     -> no limit  (free, unlimited)
 *
 * A request reaches a handler only when its path is one of these spelled exactly: letter case
 * as written here, no trailing or doubled slash, no `.` or `..` segment. Any other spelling is
 * a 404 (src/http/operation-gate.ts), so no spelling of a path can skip its limit or price.
 * test/http/path-spellings.test.ts keeps this list and openapi.yaml in step.
 */

import { masterNames } from '../masters/masters.js';

export type LimitKind =
  | 'search'
  | 'count'
  | 'export'
  | 'detail'
  | 'match'
  | 'suggest'
  | 'matchJob'
  | 'savedSearch'
  | 'changes'
  | 'webhook'
  | 'usage';

export interface Operation {
  method: 'GET' | 'POST' | 'DELETE';
  /** The path under /rest/v1 as openapi.yaml writes it (`{jobId}` for a path parameter). */
  path: string;
  /** Absent: neither rate limited nor charged. */
  limit?: LimitKind;
}

export const operations: readonly Operation[] = [
  ...(['corporates', 'jobs'] as const).flatMap((resource) =>
    (['search', 'count', 'export'] as const).map(
      (action): Operation => ({ method: 'POST', path: `/${resource}/${action}`, limit: action }),
    ),
  ),
  { method: 'GET', path: '/jobs/{jobId}/detail', limit: 'detail' },
  { method: 'POST', path: '/corporates/match', limit: 'match' },
  { method: 'GET', path: '/corporates/suggest', limit: 'suggest' },
  // the W3C Reconciliation Service API (docs/reconciliation.md)
  { method: 'GET', path: '/reconcile' },
  { method: 'POST', path: '/reconcile', limit: 'match' },
  { method: 'GET', path: '/reconcile/suggest/entity', limit: 'suggest' },
  { method: 'GET', path: '/reconcile/suggest/property', limit: 'suggest' },
  { method: 'GET', path: '/reconcile/preview', limit: 'suggest' },
  // match jobs: rate limited as a count; the worker charges each job's certain matches
  { method: 'POST', path: '/corporates/match-jobs', limit: 'matchJob' },
  { method: 'GET', path: '/corporates/match-jobs', limit: 'matchJob' },
  { method: 'GET', path: '/corporates/match-jobs/{jobId}', limit: 'matchJob' },
  { method: 'DELETE', path: '/corporates/match-jobs/{jobId}', limit: 'matchJob' },
  { method: 'GET', path: '/corporates/match-jobs/{jobId}/results', limit: 'matchJob' },
  { method: 'POST', path: '/corporates/match-jobs/{jobId}/resume', limit: 'matchJob' },
  // saved searches: rate limited as a count, free
  { method: 'POST', path: '/saved-searches', limit: 'savedSearch' },
  { method: 'GET', path: '/saved-searches', limit: 'savedSearch' },
  { method: 'GET', path: '/saved-searches/{savedSearchId}', limit: 'savedSearch' },
  { method: 'DELETE', path: '/saved-searches/{savedSearchId}', limit: 'savedSearch' },
  // a page of a watched search's changes: charged as a search page
  { method: 'GET', path: '/saved-searches/{savedSearchId}/changes', limit: 'changes' },
  // webhooks on watched saved searches: rate limited as a count, free
  { method: 'POST', path: '/webhooks', limit: 'webhook' },
  { method: 'GET', path: '/webhooks', limit: 'webhook' },
  { method: 'GET', path: '/webhooks/{webhookId}', limit: 'webhook' },
  { method: 'DELETE', path: '/webhooks/{webhookId}', limit: 'webhook' },
  { method: 'POST', path: '/webhooks/{webhookId}/rotate-secret', limit: 'webhook' },
  { method: 'POST', path: '/webhooks/{webhookId}/enable', limit: 'webhook' },
  { method: 'GET', path: '/webhooks/{webhookId}/deliveries', limit: 'webhook' },
  // the caller's usage and ledger entries (docs/credits.md): free, a rate limit of their own
  { method: 'GET', path: '/usage', limit: 'usage' },
  { method: 'GET', path: '/usage/entries', limit: 'usage' },
  ...masterNames.map((name): Operation => ({ method: 'GET', path: `/master/${name}` })),
];

/** A path parameter: one non-empty segment that is not `.` or `..`. */
const parameterSegment = '(?!\\.\\.?/)[^/]+';

const byExactPath = new Map<string, Operation>();
const withParameters: Array<{ operation: Operation; pattern: RegExp }> = [];
for (const operation of operations) {
  if (!operation.path.includes('{')) {
    byExactPath.set(`${operation.method} ${operation.path}`, operation);
    continue;
  }
  const source = operation.path
    .split(/\{[^}]+\}/)
    .map((part) => part.replace(/[.*+?^$()|[\]\\]/g, '\\$&'))
    .join(parameterSegment);
  // the lookahead above sees the segment's end as `/`: a parameter at the path's end
  // (/corporates/match-jobs/{jobId}) refuses `.` and `..` by its own lookahead
  const atEnd = operation.path.endsWith('}') ? '(?<!/\\.\\.?)' : '';
  withParameters.push({ operation, pattern: new RegExp(`^${source}${atEnd}$`) });
}

/**
 * The operation a request names, spelled exactly (HEAD is answered as GET, so it is limited
 * and charged as GET is); undefined for any other spelling.
 *
 *   ('POST', '/corporates/search')  -> the company search
 *   ('POST', '/Corporates/search')  -> undefined
 *   ('HEAD', '/jobs/J-1/detail')    -> the job detail
 */
export function findOperation(method: string, path: string): Operation | undefined {
  const asMethod = method === 'HEAD' ? 'GET' : method;
  const exact = byExactPath.get(`${asMethod} ${path}`);
  if (exact) return exact;
  for (const { operation, pattern } of withParameters) {
    if (operation.method === asMethod && pattern.test(path)) return operation;
  }
  return undefined;
}

/** Whether some operation has this exact path with another method (a 405, not a 404). */
export function pathHasOtherMethods(path: string): boolean {
  return operations.some((operation) => findOperation(operation.method, path) !== undefined);
}

/**
 * The exact spelling a near miss most likely meant, for the 404's message: letter case
 * folded, percent-encoding decoded, doubled and trailing slashes dropped, `.` segments removed.
 *
 *   ('POST', '/REST/V1/Corporates/Search/') -> '/rest/v1/corporates/search'
 */
export function suggestSpelling(method: string, fullPath: string): string | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(fullPath);
  } catch {
    return undefined;
  }
  const segments = decoded.split('/').filter((segment) => segment !== '' && segment !== '.');
  if (segments.length < 2 || segments[0]?.toLowerCase() !== 'rest' || segments[1]?.toLowerCase() !== 'v1')
    return undefined;
  const rest = segments.slice(2);
  if (rest.includes('..')) return undefined;
  // a path parameter (a job id) keeps its spelling; every other segment is folded to lower case
  const asMethod = method === 'HEAD' ? 'GET' : method;
  for (const operation of operations) {
    const template = operation.path.split('/').slice(1);
    if (operation.method !== asMethod || template.length !== rest.length) continue;
    const folded = rest.map((segment, index) =>
      template[index]?.startsWith('{') ? segment : segment.toLowerCase(),
    );
    const candidate = `/${folded.join('/')}`;
    if (findOperation(method, candidate) === operation) return `/rest/v1${candidate}`;
  }
  return undefined;
}
