/**
 * Counts and times every response by route template (`/rest/v1/jobs/:jobId/detail`, never the
 * id itself, so the label set stays small), and counts the refusals an operator watches:
 * 429 (rate limit), 402 (credits), 503 (engine or Redis away).
 *
 * Cheap per request: one shared `finish` listener (it finds its response as `this`), and the
 * label objects made once per series rather than per response (the set is bounded: methods x
 * route templates x statuses).
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { metrics } from '../metrics.js';
import { locals } from './locals.js';

const rejectionLabels: Record<number, { reason: string }> = {
  402: { reason: 'insufficient_credits' },
  429: { reason: 'rate_limited' },
  503: { reason: 'unavailable' },
};

type SeriesLabels = { method: string; route: string; status: string };

/** The labels of each series seen, by `method route status`. */
const seriesLabels = new Map<string, SeriesLabels>();

function labelsFor(method: string, route: string, statusCode: number): SeriesLabels {
  const key = `${method} ${route} ${statusCode}`;
  let labels = seriesLabels.get(key);
  if (!labels) {
    labels = { method, route, status: String(statusCode) };
    seriesLabels.set(key, labels);
  }
  return labels;
}

/** When the request was seen, in ns (`process.hrtime.bigint()`). */
const startedAt = Symbol('metricsStartedAt');
type TimedResponse = Response & { [startedAt]?: bigint };

function countResponse(this: TimedResponse): void {
  const labels = labelsFor(this.req.method, routeTemplate(this.req, this), this.statusCode);
  metrics.httpRequests.inc(labels);
  const started = this[startedAt] ?? process.hrtime.bigint();
  metrics.httpDuration.observe(labels, Number(process.hrtime.bigint() - started) / 1e9);
  const rejection = rejectionLabels[this.statusCode];
  if (rejection) metrics.rejected.inc(rejection);
}

export function requestMetrics(): RequestHandler {
  return function timeRequest(_req: Request, res: Response, next: NextFunction): void {
    (res as TimedResponse)[startedAt] = process.hrtime.bigint();
    // `finish` is emitted once per response
    res.on('finish', countResponse);
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
  return !template.startsWith('/rest/v1') && req.originalUrl.startsWith('/rest/v1/')
    ? `/rest/v1${template}`
    : template;
}
