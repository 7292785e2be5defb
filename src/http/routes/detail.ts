/** GET /jobs/{jobId}/detail (mounted under /rest/v1 by src/http/app.ts). */
import { type Request, type Response, Router } from 'express';
import { getJobDetail } from '../../search/job-detail.js';
import type { Services } from '../../services.js';
import { deadlineOf, stillAnswering } from '../deadline.js';

export function detailRouter(services: Services): Router {
  const router = Router();
  router.get('/jobs/:jobId/detail', async (req: Request<{ jobId: string }>, res: Response) => {
    const detail = await getJobDetail(services, req.params.jobId, deadlineOf(res));
    if (stillAnswering(res)) res.json(detail);
  });
  return router;
}
