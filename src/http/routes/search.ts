/**
 * POST /corporates/search|count|export and /jobs/search|count|export (mounted under /rest/v1
 * by src/http/app.ts). The body was parsed at the validation step (../search-plan.ts).
 */
import { type Request, type Response, Router } from 'express';
import { runExport } from '../../search/export.js';
import { countFor, runPlan, runPlanText } from '../../search/run-search.js';
import type { Services } from '../../services.js';
import { deadlineOf, stillAnswering } from '../deadline.js';
import { currentUser, locals } from '../locals.js';

function parsedPlan(res: Response) {
  const parsed = locals(res).plan;
  if (!parsed) throw new Error('search route reached without a parsed plan');
  return parsed;
}

export function searchRouter(services: Services): Router {
  const router = Router();
  const search = async (req: Request, res: Response) => {
    const { search, plan } = parsedPlan(res);
    const options = { userId: currentUser(res).id, deadline: deadlineOf(res) };
    // an Idempotency-Key's answer is kept as a value, through res.json (src/limits/credits-middleware.ts)
    if (req.get('Idempotency-Key') !== undefined) {
      const found = await runPlan(services, search, plan, options);
      if (stillAnswering(res)) res.json(found);
      return;
    }
    // the records spliced from their stored text (src/search/records.ts), the same bytes as res.json
    const text = await runPlanText(services, search, plan, options);
    // the deadline may have answered for it meanwhile
    if (stillAnswering(res)) res.type('application/json').send(text);
  };
  const count = async (_req: Request, res: Response) => {
    const { search, plan } = parsedPlan(res);
    const counted = await countFor(services, search, plan, deadlineOf(res));
    if (stillAnswering(res)) res.json(counted);
  };
  const exportAll = async (_req: Request, res: Response) => {
    const parsed = locals(res).exportRequest;
    if (!parsed) throw new Error('export route reached without a parsed body');
    await runExport(services, parsed.search, parsed.request, currentUser(res).id, res, deadlineOf(res));
  };
  for (const prefix of ['/corporates', '/jobs']) {
    router.post(`${prefix}/search`, search);
    router.post(`${prefix}/count`, count);
    router.post(`${prefix}/export`, exportAll);
  }
  return router;
}
