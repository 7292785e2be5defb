/**
 * Parses a search body into its plan (src/search/parse-request.ts) at the validation step,
 * before credits are reserved: an invalid body is a 400 that never touches the ledger. The
 * route then runs `locals(res).plan`; the body is validated once.
 */
import { type NextFunction, type Request, type Response, Router } from 'express';
import { corporateSearch, jobSearch } from '../catalogue/searches.js';
import { parseSearchRequest } from '../search/parse-request.js';
import { locals } from './locals.js';

export function parseSearchBodies(): Router {
  const router = Router();
  for (const [path, search] of [
    ['/corporates/search', corporateSearch],
    ['/jobs/search', jobSearch],
  ] as const) {
    router.post(path, (req: Request, res: Response, next: NextFunction) => {
      locals(res).plan = { search, plan: parseSearchRequest(search, req.body ?? {}) };
      next();
    });
  }
  return router;
}
