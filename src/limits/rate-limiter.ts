/**
 * Per-user request rate (docs/decisions.md: 5 per second per user on the searches and the detail
 * endpoint). With Redis every API process counts in the same key (rate-limiter-flexible's
 * RateLimiterRedis: one Lua script does SET NX EX + INCRBY + PTTL, so concurrent requests
 * are counted exactly); without Redis, RateLimiterMemory counts in this process only.
 *
 * The window is fixed and starts with the user's first request: 20 requests within one
 * second of it -> exactly `points` pass.
 */
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { LimitsStoreUnavailable } from './store-unavailable.js';

export interface RateDecision {
  allowed: boolean;
  /** X-RateLimit-Limit */
  limit: number;
  /** X-RateLimit-Remaining */
  remaining: number;
  /** X-RateLimit-Reset: epoch seconds when the window ends (as GitHub sends it). */
  resetEpochSeconds: number;
  /** Retry-After on a 429: whole seconds, at least 1. */
  retryAfterSeconds: number;
}

export interface RateLimiter {
  /** 'shared': every process through Redis; 'single-process': this process only. */
  readonly mode: 'shared' | 'single-process';
  /** Counts one request; throws LimitsStoreUnavailable when the store cannot answer. */
  consume(userId: string): Promise<RateDecision>;
}

export function createRateLimiter(opts: {
  redis: Redis | undefined;
  keyPrefix: string;
  pointsPerSecond: number;
  /** Default 1 (the contract's "per second"); tests widen it, see LimitsConfig. */
  windowSeconds?: number;
}): RateLimiter {
  const common = {
    keyPrefix: `${opts.keyPrefix}rate`,
    points: opts.pointsPerSecond,
    duration: opts.windowSeconds ?? 1,
  };
  const limiter = opts.redis
    ? new RateLimiterRedis({ ...common, storeClient: opts.redis, rejectIfRedisNotReady: true })
    : new RateLimiterMemory(common);
  return {
    mode: opts.redis ? 'shared' : 'single-process',
    async consume(userId) {
      try {
        return decision(true, opts.pointsPerSecond, await limiter.consume(userId, 1));
      } catch (rejection) {
        // rate-limiter-flexible rejects with a RateLimiterRes when over the limit, with an
        // Error when the store failed
        if (rejection instanceof RateLimiterRes) return decision(false, opts.pointsPerSecond, rejection);
        throw new LimitsStoreUnavailable('rate limit', rejection);
      }
    },
  };
}

function decision(allowed: boolean, limit: number, res: RateLimiterRes): RateDecision {
  const msBeforeNext = Math.max(0, res.msBeforeNext);
  return {
    allowed,
    limit,
    remaining: Math.max(0, res.remainingPoints),
    resetEpochSeconds: Math.ceil((Date.now() + msBeforeNext) / 1000),
    retryAfterSeconds: Math.max(1, Math.ceil(msBeforeNext / 1000)),
  };
}
