/** GET /jobs/{jobId}/detail (mounted under /rest/v1 by src/http/app.ts). */
import { type Request, type Response, Router } from 'express';
import { getJobDetail } from '../../search/job-detail.js';
import type { Services } from '../../services.js';

export function detailRouter(services: Services): Router {
  const router = Router();
  router.get('/jobs/:jobId/detail', async (req: Request<{ jobId: string }>, res: Response) => {
    res.json(await getJobDetail(services, req.params.jobId));
  });
  return router;
}
