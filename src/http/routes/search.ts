/**
 * POST /corporates/search and POST /jobs/search (mounted under /rest/v1 by src/http/app.ts).
 * The body was parsed into a plan at the validation step (../search-plan.ts).
 */
import { type Request, type Response, Router } from 'express';
import { runPlan } from '../../search/run-search.js';
import type { Services } from '../../services.js';
import { deadlineOf, stillAnswering } from '../deadline.js';
import { locals } from '../locals.js';

export function searchRouter(services: Services): Router {
  const router = Router();
  const run = async (_req: Request, res: Response) => {
    const parsed = locals(res).plan;
    if (!parsed) throw new Error('search route reached without a parsed plan');
    const found = await runPlan(services, parsed.search, parsed.plan, deadlineOf(res));
    // the deadline may have answered for it meanwhile
    if (stillAnswering(res)) res.json(found);
  };
  router.post('/corporates/search', run);
  router.post('/jobs/search', run);
  return router;
}
