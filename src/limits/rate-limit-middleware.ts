/**
 * Slot "rate limit" of src/http/app.ts (after auth and masters, before validation): counts
 * the request against its user's per-second budget; sets X-RateLimit-Limit / -Remaining /
 * -Reset on every limited response; over the budget -> 429 with Retry-After.
 * Redis away -> 503 with Retry-After (fail closed).
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import { type Deadline, stillAnswering } from '../deadline.js';
import { errors } from '../errors/catalogue.js';
import { limitedRoute } from './limited-routes.js';
import type { Limits } from './limits.js';
import { describeFailure, inRedisBudget, LimitsStoreUnavailable } from './store-unavailable.js';

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
    let decision: Awaited<ReturnType<Limits['rateLimiter']['consume']>>;
    try {
      const deadline = res.locals.deadline as Deadline | undefined; // src/http/deadline.ts
      decision = await inRedisBudget(deadline, 'rate limit', () =>
        // the window is judged by the request's arrival, not by when Redis gets to it
        limiter.consume(userId, deadline?.redisExpiresAt, deadline?.startedAt),
      );
    } catch (error) {
      if (!(error instanceof LimitsStoreUnavailable)) throw error;
      log?.warn({ err: describeFailure(error) }, 'rate limiter unavailable');
      return next(errors.limitsUnavailable(limits.config.unavailableRetryAfterSeconds));
    }
    if (!stillAnswering(res)) return;
    const headers = {
      'X-RateLimit-Limit': String(decision.limit),
      'X-RateLimit-Remaining': String(decision.remaining),
      'X-RateLimit-Reset': String(decision.resetEpochSeconds),
    };
    res.set(headers);
    if (decision.allowed) return next();
    const rejection = errors.rateLimited(
      decision.retryAfterSeconds,
      decision.limit,
      limits.config.rateWindowSeconds,
    );
    Object.assign(rejection.headers, headers); // kept even by an error writer that resets headers
    return next(rejection);
  };
}
