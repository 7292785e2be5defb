/** The handler of POST /corporates/match (its chain: src/http/route-table.ts); the body was validated against openapi.yaml. */
import type { Request, RequestHandler, Response } from 'express';
import { applyBudget, type MatchRequest, runMatch } from '../../names/match.js';
import type { Services } from '../../services.js';
import { deadlineOf, stillAnswering } from '../deadline.js';
import { reservedCost, setFinalCost } from '../limits/credits.js';

export function matchHandler(services: Services): RequestHandler {
  return async (req: Request, res: Response) => {
    const request = req.body as MatchRequest;
    const results = await runMatch({ ...services, deadline: deadlineOf(res) }, request);
    // the matches past what was reserved (maxCredits) are withheld; the rest is charged
    const price = services.limits.config.matchCost;
    const charged = applyBudget(results, price, price === 0 ? undefined : reservedCost(res));
    setFinalCost(res, charged);
    if (stillAnswering(res)) res.json({ results, creditsCharged: charged });
  };
}
