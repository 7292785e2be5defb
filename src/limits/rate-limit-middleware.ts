/**
 * Slot "rate limit" of src/http/app.ts (after auth and masters, before validation): counts
 * the request against its user's per-second budget; sets X-RateLimit-Limit / -Remaining /
 * -Reset on every limited response; over the budget -> 429 with Retry-After.
 * Redis away -> 503 with Retry-After (fail closed).
 *
 * A search or a detail is counted later, in the one Redis round trip that also reserves its
 * credits (slot "credit reservation", src/limits/credits-middleware.ts; decision "A search's
 * admission in one Redis round trip"). The count is the same count in the same key, and a
 * request that never gets there is still counted first: an error before the reservation
 * (a 400 from validation) by `countDeferredRateOnError`, which answers 429 instead when the
 * budget is spent, as the count made here first did; a request that ends before either (the
 * caller hung up, the deadline answered) when its response closes.
 */
import type { ErrorRequestHandler, NextFunction, Request, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import { type Deadline, stillAnswering } from '../deadline.js';
import { type ApiError, errors } from '../errors/catalogue.js';
import { type LimitedRoute, limitedRoute } from './limited-routes.js';
import type { Limits } from './limits.js';
import type { RateDecision, RateLimiter } from './rate-limiter.js';
import { describeFailure, inRedisBudget, LimitsStoreUnavailable } from './store-unavailable.js';

/** Routes whose rate count travels with their reservation (fixed price, body read first). */
export function countedWithCharge(route: LimitedRoute): boolean {
  return route === 'search' || route === 'detail';
}

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
    const route = limitedRoute(res);
    if (!route) return next();
    // suggest (autocomplete) counts in a budget of its own
    const limiter = route === 'suggest' ? limits.suggestRateLimiter : limits.rateLimiter;
    const userId = (res.locals.user as { id?: string } | undefined)?.id;
    // auth runs first; a limited route reached without a user is a wiring fault: fail closed
    if (!userId) return next(errors.missingApiKey());
    if (limits.config.rateLimitExemptUsers.has(userId)) return next();
    if (countedWithCharge(route)) {
      deferCount(res, limiter, userId);
      return next();
    }
    let decision: RateDecision;
    try {
      decision = await countNow(res, limiter, userId);
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
    const arrivedAt = (res.locals.deadline as Deadline | undefined)?.startedAt;
    if (takeDeferredCount(res)) void limiter.consume(userId, undefined, arrivedAt).catch(() => {});
  });
}

/** Counts the request (its window judged by its arrival, not by when Redis gets to it). */
function countNow(res: Response, limiter: RateLimiter, userId: string): Promise<RateDecision> {
  const deadline = res.locals.deadline as Deadline | undefined; // src/http/deadline.ts
  return inRedisBudget(deadline, 'rate limit', () =>
    limiter.consume(userId, deadline?.redisExpiresAt, deadline?.startedAt),
  );
}

/** The store's failure as the 503 it answers (anything else is thrown on). */
export function unavailable(error: unknown, limits: Limits, log?: Logger): ApiError {
  if (!(error instanceof LimitsStoreUnavailable)) throw error;
  log?.warn({ err: describeFailure(error) }, 'rate limiter unavailable');
  return errors.limitsUnavailable(limits.config.unavailableRetryAfterSeconds);
}

/** Sets X-RateLimit-*; the 429 to answer when the budget is spent, else undefined. */
export function applyRateDecision(
  res: Response,
  decision: RateDecision,
  limits: Limits,
): ApiError | undefined {
  const headers = {
    'X-RateLimit-Limit': String(decision.limit),
    'X-RateLimit-Remaining': String(decision.remaining),
    'X-RateLimit-Reset': String(decision.resetEpochSeconds),
  };
  res.set(headers);
  if (decision.allowed) return undefined;
  const rejection = errors.rateLimited(
    decision.retryAfterSeconds,
    decision.limit,
    limits.config.rateWindowSeconds,
  );
  Object.assign(rejection.headers, headers); // kept even by an error writer that resets headers
  return rejection;
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
  const userId = (res.locals.user as { id?: string } | undefined)?.id;
  if (!limiter || !userId) return error;
  let decision: RateDecision;
  try {
    decision = await countNow(res, limiter, userId);
  } catch (failure) {
    return unavailable(failure, limits, log);
  }
  return applyRateDecision(res, decision, limits) ?? error;
}

/** Error slot before the reservation: a request refused before it was counted is counted first. */
export function countDeferredRateOnError(limits: Limits, log?: Logger): ErrorRequestHandler {
  return async (error: unknown, _req: Request, res: Response, next: NextFunction) => {
    const answer = await countDeferredThen(error, res, limits, log);
    if (!stillAnswering(res)) return;
    next(answer);
  };
}
