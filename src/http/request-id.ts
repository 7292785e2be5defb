/**
 * `X-Request-Id` on every response. A caller's own id is kept when it is sane (1-128
 * characters of `A-Za-z0-9._:-`), so a client can correlate its logs with ours; anything else
 * is replaced by a fresh UUID rather than echoed (no header injection, no log pollution).
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import { locals } from './locals.js';

const saneRequestId = /^[A-Za-z0-9._:-]{1,128}$/;

export function requestIdFor(req: IncomingMessage): string {
  const incoming = req.headers['x-request-id'];
  return typeof incoming === 'string' && saneRequestId.test(incoming) ? incoming : randomUUID();
}

/** First middleware: sets `res.locals.requestId` and the response header. */
export function requestId() {
  return (req: Request, res: Response, next: NextFunction): void => {
    const id = requestIdFor(req);
    locals(res).requestId = id;
    res.setHeader('X-Request-Id', id);
    next();
  };
}
