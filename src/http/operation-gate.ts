/**
 * First step under /rest/v1 (src/http/app.ts): only a path spelled exactly as one of the API's
 * operations goes on (src/catalogue/operations.ts). Express matches routes in any letter case
 * and with a trailing slash, while the rate limit and the price are the operation's, so a
 * spelling the table does not know must end here, before any handler, as a 404 that names the
 * spelling meant:
 *
 *   POST /rest/v1/corporates/search    -> on, locals.operation = company search ('search')
 *   POST /REST/V1/corporates/search    -> 404 "… did you mean POST /rest/v1/corporates/search?"
 *   POST /rest/v1//corporates/search/  -> 404 (the same hint)
 *   PUT  /rest/v1/corporates/search    -> on, without an operation (the validator's 405)
 *
 * Every answer of a rate-limited or charged operation (a `limit` in the table: search, count,
 * export, detail), its errors included, carries `Cache-Control: no-store`: it is one user's
 * paid answer (balance, cursor, records), never for a shared or browser cache to keep or
 * replay. Set here, before anything can answer, so no path to an answer misses it; the
 * masters keep their own `private, max-age=86400` (src/http/routes/masters.ts).
 */
import type { NextFunction, Request, Response } from 'express';
import { findOperation, pathHasOtherMethods, suggestSpelling } from '../catalogue/operations.js';
import { errors } from '../errors/catalogue.js';
import { locals } from './locals.js';

export const apiBase = '/rest/v1';

/** `/jobs/{jobId}/detail` (openapi.yaml, the operations table) -> `/jobs/:jobId/detail` (Express). */
export function expressTemplate(path: string): string {
  return path.replace(/\{([^}]+)\}/g, ':$1');
}

export function operationGate() {
  return (req: Request, res: Response, next: NextFunction): void => {
    const operation = req.baseUrl === apiBase ? findOperation(req.method, req.path) : undefined;
    if (operation) {
      if (operation.limit) res.setHeader('Cache-Control', 'no-store');
      locals(res).operation = operation;
      // the metrics label, set before anything can refuse (401, 402, 429): in the Express
      // spelling (`:jobId`) the route's own 200s get, so one operation is one label
      locals(res).routeTemplate = `${apiBase}${expressTemplate(operation.path)}`;
      next();
      return;
    }
    if (req.baseUrl === apiBase && pathHasOtherMethods(req.path)) {
      next();
      return;
    }
    const path = req.originalUrl.split('?')[0] ?? req.path;
    next(errors.routeNotFound({ method: req.method, path, didYouMean: suggestSpelling(req.method, path) }));
  };
}
