/**
 * Which requests are rate limited and charged: the limit of the operation the path names
 * (src/catalogue/operations.ts), set by the first step under /rest/v1
 * (src/http/operation-gate.ts). Only an exactly spelled path has one, and only such a path
 * reaches a handler, so a request without an operation is neither limited nor charged because
 * it is never answered by a search, count, export or detail.
 *
 *   POST /rest/v1/corporates/search -> 'search'
 *   POST /rest/v1/jobs/count        -> 'count'
 *   POST /rest/v1/jobs/export       -> 'export'
 *   GET  /rest/v1/jobs/J-1/detail   -> 'detail'  (HEAD too)
 *   GET  /rest/v1/master/prefectures -> undefined
 */
import type { Response } from 'express';
import type { LimitKind, Operation } from '../catalogue/operations.js';

export type LimitedRoute = LimitKind;

export function limitedRoute(res: Response): LimitedRoute | undefined {
  return (res.locals.operation as Operation | undefined)?.limit;
}
