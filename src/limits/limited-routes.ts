/**
 * Which requests are rate limited and charged (docs/decisions.md): the two searches and the job
 * detail; counts are rate limited and free; exports are rate limited and charge by records
 * sent (the export route settles its own charge). Masters, /health and unknown routes are
 * neither.
 *
 *   POST /rest/v1/corporates/search -> 'search'
 *   POST /rest/v1/jobs/count        -> 'count'
 *   POST /rest/v1/jobs/export       -> 'export'
 *   GET  /rest/v1/jobs/J-1/detail   -> 'detail'
 *   GET  /rest/v1/master/prefectures -> undefined
 */
import type { Request } from 'express';

export type LimitedRoute = 'search' | 'count' | 'export' | 'detail';

export function limitedRoute(req: Request): LimitedRoute | undefined {
  const path = `${req.baseUrl}${req.path}`.replace(/\/+$/, '');
  const searchLike =
    req.method === 'POST' && path.match(/^\/rest\/v1\/(?:corporates|jobs)\/(search|count|export)$/);
  if (searchLike) return searchLike[1] as 'search' | 'count' | 'export';
  if (req.method === 'GET' && /^\/rest\/v1\/jobs\/[^/]+\/detail$/.test(path)) return 'detail';
  return undefined;
}
