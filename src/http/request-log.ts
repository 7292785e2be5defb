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

export function requestLog(logger: Logger) {
  return pinoHttp({
    logger,
    genReqId: (_req: IncomingMessage, res: ServerResponse) => localsOf(res).requestId ?? 'unknown',
    serializers: {
      req: (req: { id: string; method: string; url: string }) => ({
        id: req.id,
        method: req.method,
        path: req.url.split('?')[0],
      }),
      res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
      // a 5xx line carries pino-http's own "failed with status code 503" error: keep its type
      // and message, never a stack trace (STYLE: no stack in a log line)
      err: (error: { type?: string; message?: string }) => ({ type: error.type, message: error.message }),
    },
    customProps: (_req: IncomingMessage, res: ServerResponse) => {
      const { user, fieldErrors } = localsOf(res);
      return {
        ...(user ? { userId: user.id, keyId: user.keyId } : {}),
        // a 400's reasons (field paths and our own wording, no request values), at info level
        ...(fieldErrors ? { errors: fieldErrors.map(({ field, reason }) => ({ field, reason })) } : {}),
      };
    },
    // 4xx are the caller's business, 5xx ours
    customLogLevel: (_req, res, error) => (error || res.statusCode >= 500 ? 'error' : 'info'),
  });
}
