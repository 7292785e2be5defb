/**
 * One structured log line per request. The request is logged as method, path (query string
 * dropped) and request id only, plus a 4xx's `{field, reason}` list: no headers at all, so
 * neither `X-API-Key` nor anything a client mistakenly puts in a query string can reach a log
 * line. The logger's redact paths (src/logger.ts) are the second line of defence.
 *
 *   {"level":30,...,"req":{"id":"4f1c...","method":"POST","path":"/rest/v1/corporates/search"},
 *    "res":{"statusCode":200},"responseTime":12,"userId":"u-1","keyId":"k-1","msg":"request completed"}
 *
 * The line is the one pino-http wrote (same fields, order, levels and messages), written by a
 * middleware of our own: pino-http made a child logger per request (its bindings serialised
 * and redacted each time), a closure and two arrays, none of which the line needs
 * (docs/bench.md, "The request's own bookkeeping").
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import type { AppLocals } from './locals.js';

function localsOf(res: ServerResponse): Partial<AppLocals> {
  return ((res as Response).locals ?? {}) as Partial<AppLocals>;
}

/** When the request log saw the request (epoch ms, as `responseTime` counts). */
const startedAt = Symbol('requestLogStartedAt');
type LoggedResponse = ServerResponse & { [startedAt]?: number };

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

/** The request as logged: no headers, no query string. */
function requestFields(req: IncomingMessage & { originalUrl?: string }, res: ServerResponse) {
  return {
    id: localsOf(res).requestId ?? 'unknown',
    method: req.method,
    path: (req.originalUrl ?? req.url ?? '').split('?')[0],
  };
}

/**
 * A 5xx line carries an error: the response's own (an `error` event) or "failed with status
 * code 503"; its type and message only, never a stack trace (no stack in a log line).
 */
function errorFields(error: (Error & { type?: string }) | undefined, statusCode: number) {
  if (!error) return { type: 'Error', message: `failed with status code ${statusCode}` };
  return { type: error.type ?? error.constructor?.name ?? error.name, message: error.message };
}

function keepAsIs(value: unknown): unknown {
  return value;
}

function writeLine(logger: Logger, res: LoggedResponse, error: Error | undefined): void {
  const req = res.req as IncomingMessage & { originalUrl?: string };
  const fields: Record<string, unknown> = {
    req: requestFields(req, res),
    res: { statusCode: res.statusCode },
  };
  const responseTime = Date.now() - (res[startedAt] ?? Date.now());
  // 4xx are the caller's business, 5xx ours
  if (error || res.statusCode >= 500) {
    fields.err = errorFields(error, res.statusCode);
    fields.responseTime = responseTime;
    logger.error(outcome(res, fields), 'request errored');
    return;
  }
  fields.responseTime = responseTime;
  const completed = !req.readableAborted && res.writableEnded;
  logger.info(outcome(res, fields), completed ? 'request completed' : 'request aborted');
}

/**
 * Cheap per request: one shared listener (it finds its response as `this`) logs the line
 * once, on the response's finish, close or error, whichever comes first; nothing is made for
 * a request but the line's own object.
 */
export function requestLog(logger: Logger): RequestHandler {
  // the line's `err` is already {type, message}: pino's own error serializer would replace
  // its type by the object's and add a stack
  const log = logger.child({}, { serializers: { err: keepAsIs } });
  function logOnce(this: LoggedResponse, error?: Error): void {
    this.removeListener('finish', logOnce);
    this.removeListener('close', logOnce);
    this.removeListener('error', logOnce);
    writeLine(log, this, error);
  }
  return function logRequest(_req: Request, res: Response, next: NextFunction): void {
    const logged = res as unknown as LoggedResponse;
    logged[startedAt] = Date.now();
    logged.on('finish', logOnce);
    logged.on('close', logOnce);
    // an error event without a listener would end the process
    logged.on('error', logOnce);
    next();
  };
}
