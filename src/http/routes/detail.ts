/**
 * The handler of GET /jobs/{jobId}/detail (its chain: src/http/route-table.ts). A router with
 * the one route, so the id is decoded by this match, after validation has refused an id that
 * does not decode (a 400 naming jobId).
 */
import { type Request, type Response, Router } from 'express';
import { getJobDetail } from '../../search/job-detail.js';
import type { Services } from '../../services.js';
import { deadlineOf, stillAnswering } from '../deadline.js';

export function detailHandler(services: Services): Router {
  const router = Router();
  router.get('/jobs/:jobId/detail', async (req: Request<{ jobId: string }>, res: Response) => {
    const detail = await getJobDetail(services, req.params.jobId, deadlineOf(res));
    if (stillAnswering(res)) res.json(detail);
  });
  return router;
}
