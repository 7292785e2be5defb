/**
 * One structured log line per request (pino-http). The request is logged as method, path
 * (query string dropped) and request id only, plus a 4xx's `{field, reason}` list: no headers at all, so neither `X-API-Key` nor
 * anything a client mistakenly puts in a query string can reach a log line. The logger's
 * redact paths (src/logger.ts) are the second line of defence.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Response } from 'express';
import type { Logger } from 'pino';
import { pinoHttp } from 'pino-http';
import type { AppLocals } from './locals.js';

function localsOf(res: ServerResponse): Partial<AppLocals> {
  return ((res as Response).locals ?? {}) as Partial<AppLocals>;
}

/** The user and a 400's reasons, added to the line when the response is finished. */
function outcome(res: ServerResponse, fields: Record<string, unknown>): Record<string, unknown> {
  const { user, fieldErrors } = localsOf(res);
  if (user) {
    fields.userId = user.id;
    fields.keyId = user.keyId;
  }
  // a 400's reasons (field paths and our own wording, no request values), at info level
  if (fieldErrors) fields.errors = fieldErrors.map(({ field, reason }) => ({ field, reason }));
  return fields;
}

/**
 * Cheap per request (docs/decisions/0063-api-cost-masters-and-request-log.md): the
 * serializers get the raw request, response and error (`wrapSerializers: false`: pino's
 * standard wrappers copy every header of both first, only for ours to drop them), and the
 * user joins the finished line's object rather than a child logger made for each request.
 */
export function requestLog(logger: Logger) {
  return pinoHttp({
    logger,
    genReqId: (_req: IncomingMessage, res: ServerResponse) => localsOf(res).requestId ?? 'unknown',
    wrapSerializers: false,
    serializers: {
      req: (req: IncomingMessage & { id: string; originalUrl?: string }) => ({
        id: req.id,
        method: req.method,
        path: (req.originalUrl ?? req.url ?? '').split('?')[0],
      }),
      res: (res: ServerResponse) => ({ statusCode: res.statusCode }),
      // a 5xx line carries pino-http's own "failed with status code 503" error: keep its type
      // and message, never a stack trace (no stack in a log line)
      err: (error: Error & { type?: string }) => ({
        type: error.type ?? error.constructor?.name ?? error.name,
        message: error.message,
      }),
    },
    customSuccessObject: (_req, res, fields) => outcome(res, fields),
    customErrorObject: (_req, res, _error, fields) => outcome(res, fields),
    // 4xx are the caller's business, 5xx ours
    customLogLevel: (_req, res, error) => (error || res.statusCode >= 500 ? 'error' : 'info'),
  });
}
