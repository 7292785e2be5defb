/** POST /corporates/search and POST /jobs/search (mounted under /rest/v1 by src/http/app.ts). */
import { type Request, type Response, Router } from 'express';
import { searchCorporates, searchJobs } from '../../search/run-search.js';
import type { Services } from '../../services.js';

export function searchRouter(services: Services): Router {
  const router = Router();
  router.post('/corporates/search', async (req: Request, res: Response) => {
    res.json(await searchCorporates(services, req.body ?? {}));
  });
  router.post('/jobs/search', async (req: Request, res: Response) => {
    res.json(await searchJobs(services, req.body ?? {}));
  });
  return router;
}
