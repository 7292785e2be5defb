/**
 * Parses a search, count or export body at the validation step, before credits are reserved:
 * an invalid body is a 400 that never touches the ledger, and so is one whose query has more
 * clauses than the engine runs (`maxClauseCount`, src/search/clause-count.ts). The route then runs
 * `locals(res).plan` (search, count) or `locals(res).exportRequest`; each body is validated
 * once.
 */
import { type NextFunction, type Request, type Response, Router } from 'express';
import { corporateSearch, jobSearch } from '../catalogue/searches.js';
import { assertWithinClauseLimit } from '../search/clause-count.js';
import { parseExportRequest } from '../search/export.js';
import { parseSearchRequest } from '../search/parse-request.js';
import { locals } from './locals.js';

export function parseSearchBodies(maxClauseCount: number): Router {
  const router = Router();
  for (const [prefix, search] of [
    ['/corporates', corporateSearch],
    ['/jobs', jobSearch],
  ] as const) {
    const parsePlan = (req: Request, res: Response, next: NextFunction) => {
      const plan = parseSearchRequest(search, req.body ?? {});
      assertWithinClauseLimit(plan, maxClauseCount);
      locals(res).plan = { search, plan };
      next();
    };
    router.post(`${prefix}/search`, parsePlan);
    router.post(`${prefix}/count`, parsePlan);
    router.post(`${prefix}/export`, (req: Request, res: Response, next: NextFunction) => {
      const request = parseExportRequest(search, req.body ?? {});
      assertWithinClauseLimit(request.plan, maxClauseCount);
      locals(res).exportRequest = { search, request };
      next();
    });
  }
  return router;
}
