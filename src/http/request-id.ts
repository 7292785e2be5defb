/**
 * `X-Request-Id` on every response. A caller's own id is kept when it matches
 * `^[A-Za-z0-9][A-Za-z0-9.:-]{0,63}$` (a UUID, a ULID, `client-abc.123`), so a client can
 * correlate its logs with ours; anything else is replaced by a fresh UUID rather than echoed
 * or logged (no header injection, no log pollution). No underscore: every API key has one
 * (`csk_...`), so a key pasted into the wrong header never reaches a log line; anything
 * shaped like a key is refused by name as well.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import { looksLikeApiKey } from '../auth/key-material.js';
import { locals } from './locals.js';

const saneRequestId = /^[A-Za-z0-9][A-Za-z0-9.:-]{0,63}$/;

export function requestIdFor(req: IncomingMessage): string {
  const incoming = req.headers['x-request-id'];
  return typeof incoming === 'string' && saneRequestId.test(incoming) && !looksLikeApiKey(incoming)
    ? incoming
    : randomUUID();
}

/** First middleware: sets `res.locals.requestId` and the response header. */
export function requestId() {
  return (req: Request, res: Response, next: NextFunction): void => {
    locals(res).receivedAt = Date.now();
    const id = requestIdFor(req);
    locals(res).requestId = id;
    res.setHeader('X-Request-Id', id);
    next();
  };
}
