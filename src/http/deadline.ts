/**
 * Second slot under /rest/v1, after the operation is known: the request's deadline
 * (src/deadline.ts), REQUEST_DEADLINE_MS, or MATCH_DEADLINE_MS for a match request (1,000
 * records are thousands of key lookups). When it passes before
 * an answer went out, the 503 is written HERE, by a timer, whatever the request is still
 * waiting on (a frozen Redis, a frozen OpenSearch, a slow disk), so the caller's wait is
 * bounded by the deadline and the event loop, not by any library's timeout. The work still
 * running stops by itself: OpenSearch requests time out at the deadline (their timeout is the
 * time left), Redis calls at the end of the Redis budget; the middleware after an await checks
 * `stillAnswering` and goes no further, and a late answer is dropped. A reservation made for
 * the request is refunded when this response finishes (src/http/limits/credits.ts),
 * like any other failed search.
 */
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from 'pino';
import { Deadline, stillAnswering } from '../deadline.js';
import { errors } from '../errors/catalogue.js';
import { locals } from './locals.js';

export function requestDeadline(opts: {
  totalMs: number;
  /** A match request's (the operation's limit `match`), in place of `totalMs`. */
  matchMs?: number;
  redisMs: number;
  logger?: Logger;
}) {
  return (_req: Request, res: Response, next: NextFunction): void => {
    if (!stillAnswering(res)) return; // hung up while queued
    const totalMs =
      locals(res).operation?.limit === 'match' && opts.matchMs !== undefined ? opts.matchMs : opts.totalMs;
    // counted from the request's arrival: time spent queued behind other requests is spent
    const deadline = new Deadline({
      totalMs,
      redisMs: opts.redisMs,
      now: locals(res).receivedAt,
    });
    locals(res).deadline = deadline;
    deadline.whenExpired(() => {
      if (res.headersSent || res.writableEnded || res.destroyed) return;
      opts.logger?.warn({ requestId: locals(res).requestId, deadlineMs: totalMs }, 'request deadline passed');
      const error = errors.deadlineExceeded(totalMs);
      // res.end, not res.json: a patched res.json (Idempotency-Key bookkeeping) may wait
      // on Redis, which may be the very thing that is stalled
      res.status(error.status).set(error.headers).type('application/json');
      res.end(JSON.stringify(error.toBody(locals(res).requestId)));
    });
    res.once('close', () => {
      // closed before the answer was out: the caller hung up; stop what still runs for it
      if (res.writableFinished) deadline.release();
      else deadline.cancel('a request whose caller hung up');
    });
    next();
  };
}

/** The request's deadline, if it runs under one (every /rest/v1 route does). */
export function deadlineOf(res: Response): Deadline | undefined {
  return locals(res).deadline;
}

export { stillAnswering };
