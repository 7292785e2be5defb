/**
 * Step "rate limit" of a route's chain (src/http/route-table.ts: after auth, before
 * validation): counts the request against its user's per-second budget
 * (src/limits/rate-limit.ts); sets X-RateLimit-Limit / -Remaining / -Reset on every limited
 * response; over the budget -> 429 with Retry-After. Redis away -> 503 with Retry-After (fail
 * closed).
 *
 * A search or a detail is counted later, in the one Redis round trip that also reserves its
 * credits (step "credits", ./credits.ts; decision "A search's admission in one Redis round
 * trip"). The count is the same count in the same key, and a request that never gets there is
 * still counted first: an error before the reservation (a 400 from validation) by
 * `countDeferredRateOnError`, which answers 429 instead when the budget is spent, as the count
 * made here first did; a request that ends before either (the caller hung up, the deadline
 * answered) when its response closes.
 */
import type { ErrorRequestHandler, NextFunction, Request, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import { type ApiError, errors } from '../../errors/catalogue.js';
import type { Limits } from '../../limits/limits.js';
import { countedWithCharge, countNow, judgeRate, limiterFor, unavailable } from '../../limits/rate-limit.js';
import type { RateDecision, RateLimiter } from '../../limits/rate-limiter.js';
import { stillAnswering } from '../deadline.js';
import { limitOf, locals } from '../locals.js';

/** A count put off until the reservation; `taken` once someone made (or makes) it. */
interface DeferredCount {
  limiter: RateLimiter;
  taken: boolean;
}

const deferred = new WeakMap<Response, DeferredCount>();

/**
 * The limiter of a count put off for this response, taken: the caller now makes the count
 * (with the reservation). undefined when nothing was put off or it was taken already.
 */
export function takeDeferredCount(res: Response): RateLimiter | undefined {
  const count = deferred.get(res);
  if (!count || count.taken) return undefined;
  count.taken = true;
  return count.limiter;
}

export function rateLimitMiddleware(limits: Limits, log?: Logger): RequestHandler {
  return async (_req: Request, res: Response, next: NextFunction) => {
    const kind = limitOf(res);
    if (!kind) return next();
    const limiter = limiterFor(limits, kind);
    const userId = locals(res).user?.id;
    // auth runs first; a limited route reached without a user is a wiring fault: fail closed
    if (!userId) return next(errors.missingApiKey());
    if (limits.config.rateLimitExemptUsers.has(userId)) return next();
    if (countedWithCharge(kind)) {
      deferCount(res, limiter, userId);
      return next();
    }
    let decision: RateDecision;
    try {
      decision = await countNow(limiter, userId, locals(res).deadline);
    } catch (error) {
      return next(unavailable(error, limits, log));
    }
    if (!stillAnswering(res)) return;
    return next(applyRateDecision(res, decision, limits));
  };
}

function deferCount(res: Response, limiter: RateLimiter, userId: string): void {
  const count: DeferredCount = { limiter, taken: false };
  deferred.set(res, count);
  // answered (deadline) or hung up before the count was made: count it now, as it was
  // counted on arrival before; nobody waits for the answer, so the request's Redis budget
  // (likely spent: the deadline may be what answered) does not apply, its arrival does
  res.once('close', () => {
    const arrivedAt = locals(res).deadline?.startedAt;
    if (takeDeferredCount(res)) void limiter.consume(userId, undefined, arrivedAt).catch(() => {});
  });
}

/** Sets X-RateLimit-*; the 429 to answer when the budget is spent, else undefined. */
export function applyRateDecision(
  res: Response,
  decision: RateDecision,
  limits: Limits,
): ApiError | undefined {
  const { headers, refusal } = judgeRate(decision, limits);
  res.set(headers);
  return refusal;
}

/**
 * Makes a put-off count before `error` is answered: 429 (or 503) instead when the count says
 * so, as if it had been made before the error; otherwise the error, with X-RateLimit-*.
 */
export async function countDeferredThen(
  error: unknown,
  res: Response,
  limits: Limits,
  log?: Logger,
): Promise<unknown> {
  const limiter = takeDeferredCount(res);
  const userId = locals(res).user?.id;
  if (!limiter || !userId) return error;
  let decision: RateDecision;
  try {
    decision = await countNow(limiter, userId, locals(res).deadline);
  } catch (failure) {
    return unavailable(failure, limits, log);
  }
  return applyRateDecision(res, decision, limits) ?? error;
}

/** Error step before the reservation: a request refused before it was counted is counted first. */
export function countDeferredRateOnError(limits: Limits, log?: Logger): ErrorRequestHandler {
  return async (error: unknown, _req: Request, res: Response, next: NextFunction) => {
    const answer = await countDeferredThen(error, res, limits, log);
    if (!stillAnswering(res)) return;
    next(answer);
  };
}
