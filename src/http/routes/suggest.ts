/** The handler of GET /corporates/suggest (its chain: src/http/route-table.ts); `q` and `limit` were validated against openapi.yaml. */
import type { Request, RequestHandler, Response } from 'express';
import { defaultSuggestLimit, suggestCorporates } from '../../names/suggest.js';
import type { Services } from '../../services.js';
import { deadlineOf, stillAnswering } from '../deadline.js';

export function suggestHandler(services: Services): RequestHandler {
  return async (req: Request, res: Response) => {
    const q = String(req.query.q ?? '');
    const limit = req.query.limit === undefined ? defaultSuggestLimit : Number(req.query.limit);
    const suggestions = await suggestCorporates({ ...services, deadline: deadlineOf(res) }, q, limit);
    if (stillAnswering(res)) res.json({ suggestions });
  };
}
