/**
 * The one error middleware, last in the app. Every error becomes the catalogue body
 * `{message, code, errors?, requestId, docUrl}`; anything not known is a 500 with a generic message. The log line
 * names the error's class and message, never its stack; for an OpenSearch client error only
 * its class and status code, never the engine's text.
 */
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from 'pino';
import { DeadlineExceeded } from '../deadline.js';
import { errors } from '../errors/catalogue.js';
import { engineErrorSummary } from '../opensearch/failures.js';
import { locals } from './locals.js';
import { toApiError } from './validation.js';

export function notFound() {
  return (req: Request, _res: Response, next: NextFunction): void => {
    next(errors.routeNotFound({ method: req.method, path: req.originalUrl.split('?')[0] ?? req.path }));
  };
}

export function errorMiddleware(logger: Logger) {
  return (error: unknown, req: Request, res: Response, next: NextFunction): void => {
    if (res.headersSent) {
      // answered already (the deadline's 503, or a response fully written): a late failure
      // of the work behind it has nobody to go to; a half-written response is Express's to cut
      if (!res.writableEnded && !(error instanceof DeadlineExceeded)) next(error);
      return;
    }
    if (res.destroyed) return; // the caller hung up
    let apiError =
      error instanceof DeadlineExceeded
        ? errors.deadlineExceeded(locals(res).deadline?.totalMs ?? 0)
        : toApiError(error, req);
    if (!apiError) {
      // the request log line (./request-log.ts) carries the request id; this line the cause
      logger.error({ requestId: locals(res).requestId, error: describeForLog(error) }, 'unexpected error');
      apiError = errors.internal();
    }
    // the request log line says what was wrong: field and reason, never the value sent
    if (apiError.errors && apiError.status < 500) locals(res).fieldErrors = apiError.errors;
    res
      .status(apiError.status)
      .set(apiError.headers)
      .json(apiError.toBody(locals(res).requestId));
  };
}

function describeForLog(error: unknown): Record<string, unknown> {
  const engine = engineErrorSummary(error);
  if (engine) return engine;
  if (error instanceof Error) return { name: error.name, message: error.message };
  return { name: typeof error };
}
