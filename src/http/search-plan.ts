/**
 * Steps "search plan" and "export plan" of a route's chain (src/http/route-table.ts): a
 * search, count or export body parsed after validation, before credits are reserved: an
 * invalid body is a 400 that never touches the ledger, and so is one whose query has more
 * clauses than the engine runs (`maxClauseCount`, src/search/clause-count.ts). The handler
 * then runs `searchPlanOf(res)` or `exportRequestOf(res)` (./locals.ts); each body is
 * validated once.
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { SearchCatalogue } from '../catalogue/searches.js';
import { assertWithinClauseLimit } from '../search/clause-count.js';
import { parseExportRequest } from '../search/export.js';
import { parseSearchRequest } from '../search/parse-request.js';
import { locals } from './locals.js';

export function parseSearchPlan(search: SearchCatalogue, maxClauseCount: number): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const plan = parseSearchRequest(search, req.body ?? {});
    assertWithinClauseLimit(plan, maxClauseCount);
    locals(res).plan = { search, plan };
    next();
  };
}

export function parseExportPlan(search: SearchCatalogue, maxClauseCount: number): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const request = parseExportRequest(search, req.body ?? {});
    assertWithinClauseLimit(request.plan, maxClauseCount);
    locals(res).exportRequest = { search, request };
    next();
  };
}
