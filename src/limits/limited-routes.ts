/**
 * Which requests are rate limited and charged (docs/decisions.md): the two searches and the job
 * detail. Masters, /health and unknown routes are neither.
 *
 *   POST /rest/v1/corporates/search -> 'search'
 *   GET  /rest/v1/jobs/J-1/detail   -> 'detail'
 *   GET  /rest/v1/master/prefectures -> undefined
 */
import type { Request } from 'express';

export type LimitedRoute = 'search' | 'detail';

export function limitedRoute(req: Request): LimitedRoute | undefined {
  const path = `${req.baseUrl}${req.path}`.replace(/\/+$/, '');
  if (req.method === 'POST' && /^\/rest\/v1\/(corporates|jobs)\/search$/.test(path)) return 'search';
  if (req.method === 'GET' && /^\/rest\/v1\/jobs\/[^/]+\/detail$/.test(path)) return 'detail';
  return undefined;
}
