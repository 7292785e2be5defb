/**
 * The rate limit of an operation, as plain values: which budget a request counts in, the
 * count itself (inside the request's Redis budget), and what a count decides (the
 * X-RateLimit-* headers, and the 429 when the budget is spent). Redis away -> 503 with
 * Retry-After (fail closed). The HTTP step that runs it is src/http/limits/rate-limit.ts.
 *
 * A search or a detail is counted later, in the one Redis round trip that also reserves its
 * credits (src/limits/charges.ts, src/http/limits/credits.ts; decision "A search's admission
 * in one Redis round trip"): `countedWithCharge`.
 */
import type { Logger } from 'pino';
import type { LimitKind } from '../catalogue/operations.js';
import type { Deadline } from '../deadline.js';
import { type ApiError, errors } from '../errors/catalogue.js';
import type { Limits } from './limits.js';
import type { RateDecision, RateLimiter } from './rate-limiter.js';
import { describeFailure, inRedisBudget, LimitsStoreUnavailable } from './store-unavailable.js';

/** Operations whose rate count travels with their reservation (fixed price, body read first). */
export function countedWithCharge(kind: LimitKind): boolean {
  return kind === 'search' || kind === 'detail' || kind === 'changes';
}

/** The budget an operation counts in: suggest (autocomplete) and usage have their own. */
export function limiterFor(limits: Limits, kind: LimitKind): RateLimiter {
  if (kind === 'suggest') return limits.suggestRateLimiter;
  return kind === 'usage' ? limits.usageRateLimiter : limits.rateLimiter;
}

/** Counts the request (its window judged by its arrival, not by when Redis gets to it). */
export function countNow(limiter: RateLimiter, userId: string, deadline?: Deadline): Promise<RateDecision> {
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

/** What a count decides: the X-RateLimit-* headers, and the 429 when the budget is spent. */
export interface RateVerdict {
  headers: Record<string, string>;
  refusal?: ApiError;
}

export function judgeRate(decision: RateDecision, limits: Limits): RateVerdict {
  const headers = {
    'X-RateLimit-Limit': String(decision.limit),
    'X-RateLimit-Remaining': String(decision.remaining),
    'X-RateLimit-Reset': String(decision.resetEpochSeconds),
  };
  if (decision.allowed) return { headers };
  const refusal = errors.rateLimited({
    retryAfterSeconds: decision.retryAfterSeconds,
    perSecond: decision.limit,
    windowSeconds: limits.config.rateWindowSeconds,
  });
  Object.assign(refusal.headers, headers); // kept even by an error writer that resets headers
  return { headers, refusal };
}
