/** POST /corporates/match (mounted under /rest/v1 by src/http/app.ts); the body was validated against openapi.yaml. */
import { type Request, type Response, Router } from 'express';
import { reservedCost, setFinalCost } from '../../limits/credits-middleware.js';
import { applyBudget, type MatchRequest, runMatch } from '../../search/match.js';
import type { Services } from '../../services.js';
import { deadlineOf, stillAnswering } from '../deadline.js';

export function matchRouter(services: Services): Router {
  const router = Router();
  router.post('/corporates/match', async (req: Request, res: Response) => {
    const request = req.body as MatchRequest;
    const results = await runMatch({ ...services, deadline: deadlineOf(res) }, request);
    // the matches past what was reserved (maxCredits) are withheld; the rest is charged
    const price = services.limits.config.matchCost;
    const charged = applyBudget(results, price, price === 0 ? undefined : reservedCost(res));
    setFinalCost(res, charged);
    if (stillAnswering(res)) res.json({ results, creditsCharged: charged });
  });
  return router;
}
