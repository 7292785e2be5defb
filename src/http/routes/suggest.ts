/** GET /corporates/suggest (mounted under /rest/v1 by src/http/app.ts); `q` and `limit` were validated against openapi.yaml. */
import { type Request, type Response, Router } from 'express';
import { defaultSuggestLimit, suggestCorporates } from '../../search/suggest.js';
import type { Services } from '../../services.js';
import { deadlineOf, stillAnswering } from '../deadline.js';

export function suggestRouter(services: Services): Router {
  const router = Router();
  router.get('/corporates/suggest', async (req: Request, res: Response) => {
    const q = String(req.query.q ?? '');
    const limit = req.query.limit === undefined ? defaultSuggestLimit : Number(req.query.limit);
    const suggestions = await suggestCorporates({ ...services, deadline: deadlineOf(res) }, q, limit);
    if (stillAnswering(res)) res.json({ suggestions });
  });
  return router;
}
