/**
 * The one error middleware, last in the app. Every error becomes the catalogue body
 * `{message, errors?}`; anything not known is a 500 with a generic message, logged on our side
 * with its message and stack but never sent to the caller.
 */
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from 'pino';
import { errors } from './errors.js';
import { locals } from './locals.js';
import { toApiError } from './validation.js';

export function notFound() {
  return (req: Request, _res: Response, next: NextFunction): void => {
    next(errors.routeNotFound(req.method, req.originalUrl.split('?')[0] ?? req.path));
  };
}

export function errorMiddleware(logger: Logger) {
  return (error: unknown, req: Request, res: Response, next: NextFunction): void => {
    if (res.headersSent) {
      next(error);
      return;
    }
    let apiError = toApiError(error, req);
    if (!apiError) {
      // the request log line (pino-http) carries the request id; this line the cause
      logger.error(
        {
          requestId: locals(res).requestId,
          err: error instanceof Error ? error : { message: String(error) },
        },
        'unexpected error',
      );
      apiError = errors.internal();
    }
    res.status(apiError.status).set(apiError.headers).json(apiError.toBody());
  };
}
