/**
 * Counts and times every response by route template (`/rest/v1/jobs/:jobId/detail`, never the
 * id itself, so the label set stays small), and counts the refusals an operator watches:
 * 429 (rate limit), 402 (credits), 503 (engine or Redis away).
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { metrics } from '../metrics.js';
import { locals } from './locals.js';

const rejectionReasons: Record<number, string> = {
  402: 'insufficient_credits',
  429: 'rate_limited',
  503: 'unavailable',
};

export function requestMetrics(): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const started = process.hrtime.bigint();
    res.once('finish', () => {
      const labels = { method: req.method, route: routeTemplate(req, res), status: String(res.statusCode) };
      metrics.httpRequests.inc(labels);
      metrics.httpDuration.observe(labels, Number(process.hrtime.bigint() - started) / 1e9);
      const reason = rejectionReasons[res.statusCode];
      if (reason) metrics.rejected.inc({ reason });
    });
    next();
  };
}

/**
 * The matched route's template; Express resets `req.baseUrl` once an error leaves the router,
 * so the mount point is read from the path. Unmatched paths share one label.
 */
function routeTemplate(req: Request, res: Response): string {
  const template = (req.route?.path as string | undefined) ?? locals(res).routeTemplate;
  if (!template) return 'unmatched';
  const path = req.originalUrl.split('?')[0] ?? '';
  return path.startsWith('/rest/v1/') && !template.startsWith('/rest/v1') ? `/rest/v1${template}` : template;
}
