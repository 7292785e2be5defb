/**
 * Parses a search, count or export body at the validation step, before credits are reserved:
 * an invalid body is a 400 that never touches the ledger. The route then runs
 * `locals(res).plan` (search, count) or `locals(res).exportRequest`; each body is validated
 * once.
 */
import { type NextFunction, type Request, type Response, Router } from 'express';
import { corporateSearch, jobSearch } from '../catalogue/searches.js';
import { parseExportRequest } from '../search/export.js';
import { parseSearchRequest } from '../search/parse-request.js';
import { locals } from './locals.js';

export function parseSearchBodies(): Router {
  const router = Router();
  for (const [prefix, search] of [
    ['/corporates', corporateSearch],
    ['/jobs', jobSearch],
  ] as const) {
    const parsePlan = (req: Request, res: Response, next: NextFunction) => {
      locals(res).plan = { search, plan: parseSearchRequest(search, req.body ?? {}) };
      next();
    };
    router.post(`${prefix}/search`, parsePlan);
    router.post(`${prefix}/count`, parsePlan);
    router.post(`${prefix}/export`, (req: Request, res: Response, next: NextFunction) => {
      locals(res).exportRequest = { search, request: parseExportRequest(search, req.body ?? {}) };
      next();
    });
  }
  return router;
}
