/** The handler of GET /jobs/{jobId}/detail (its chain: src/http/route-table.ts). */
import type { Request, RequestHandler, Response } from 'express';
import { getJobDetail } from '../../search/job-detail.js';
import type { Services } from '../../services.js';
import { deadlineOf, stillAnswering } from '../deadline.js';

export function detailHandler(services: Services): RequestHandler {
  return async (req: Request, res: Response) => {
    const detail = await getJobDetail(services, String(req.params.jobId), deadlineOf(res));
    if (stillAnswering(res)) res.json(detail);
  };
}
