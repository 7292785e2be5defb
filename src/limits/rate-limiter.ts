/**
 * Per-user request rate (docs/decisions.md: 5 per second per user on the searches and the detail
 * endpoint). A fixed window that starts with the user's first request: 20 requests within one
 * second of it -> exactly `points` pass.
 *
 * With Redis every API process counts in the same key, `<prefix>rate:<user>`, through
 * rate-limiter-flexible's RateLimiterRedis with our own increment script
 * (`customIncrTtlLuaScript`: INCRBY, and PEXPIRE when the window is new, PTTL), so concurrent
 * requests are counted exactly. Each command carries its own expiry: the moment (on Redis's
 * clock) when the API stops waiting for it. Redis executes the commands of a
 * frozen-then-thawed connection late, all at once; such a command finds its expiry passed and
 * counts nothing, so a stall never turns into 429s for the user afterwards. (The library's own
 * script counted them: after a 7 s stall, users under the limit got 429s for about 5 s.)
 * Without Redis, rate-limiter-flexible's RateLimiterMemory counts in this process only.
 */
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { luaNowMs, RedisClock } from './redis-clock.js';
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
  /**
   * Counts one request; throws LimitsStoreUnavailable when the store cannot answer.
   * `giveUpAt` (epoch ms, this host's clock): a command Redis runs after it counts nothing.
   */
  consume(userId: string, giveUpAt?: number): Promise<RateDecision>;
}

/**
 * RateLimiterRedis runs this as `rlflxIncr` with KEYS[1] = the key it was called with and
 * ARGV = points, window seconds (then the limiter's points and duration, unused), and reads
 * `{consumed, ms left in window}` back. A key is the only per-call value the library hands to
 * the script, so the give-up time (Redis ms) travels in it: `{<prefix>rate:<user>}|<give-up>`.
 * The script counts in `<prefix>rate:<user>`; the braces are a Redis Cluster hash tag, so the
 * key the script is called with and the key it writes hash to the same slot. Too late:
 * `{-1, 0}`, nothing counted.
 */
const incrTtlScript = `
${luaNowMs}
local key, giveUpAt = string.match(KEYS[1], '^{(.+)}|(%d+)$')
if not key then return redis.error_reply('rate limit key without a give-up time') end
if now > tonumber(giveUpAt) then return {-1, 0} end
local consumed = redis.call('INCRBY', key, ARGV[1])
local ttl = redis.call('PTTL', key)
if ttl < 0 then
  ttl = tonumber(ARGV[2]) * 1000
  redis.call('PEXPIRE', key, ttl)
end
return {consumed, ttl}
`;

/** How long a command without a request deadline may wait before it counts nothing. */
const defaultGiveUpMs = 2000;

export function createRateLimiter(opts: {
  redis: Redis | undefined;
  keyPrefix: string;
  pointsPerSecond: number;
  /** Default 1 (the contract's "per second"); tests widen it, see LimitsConfig. */
  windowSeconds?: number;
}): RateLimiter {
  const points = opts.pointsPerSecond;
  const windowSeconds = opts.windowSeconds ?? 1;
  if (!opts.redis) {
    const limiter = new RateLimiterMemory({
      keyPrefix: `${opts.keyPrefix}rate`,
      points,
      duration: windowSeconds,
    });
    return {
      mode: 'single-process',
      async consume(userId) {
        try {
          const res = await limiter.consume(userId, 1);
          return decision(true, points, res.remainingPoints, res.msBeforeNext);
        } catch (rejection) {
          if (rejection instanceof RateLimiterRes)
            return decision(false, points, rejection.remainingPoints, rejection.msBeforeNext);
          throw new LimitsStoreUnavailable('rate limit', rejection);
        }
      },
    };
  }
  const clock = new RedisClock(opts.redis);
  const limiter = new RateLimiterRedis({
    storeClient: opts.redis,
    keyPrefix: '', // the whole key is built per call, below
    points,
    duration: windowSeconds,
    customIncrTtlLuaScript: incrTtlScript,
    // ioredis not connected: fail at once (503) instead of queueing behind a reconnect
    rejectIfRedisNotReady: true,
  });
  return {
    mode: 'shared',
    async consume(userId, giveUpAt = Date.now() + defaultGiveUpMs) {
      let res: RateLimiterRes;
      let allowed = true;
      try {
        res = await limiter.consume(`{${opts.keyPrefix}rate:${userId}}|${clock.toRedisMs(giveUpAt)}`, 1);
      } catch (rejection) {
        if (!(rejection instanceof RateLimiterRes)) throw new LimitsStoreUnavailable('rate limit', rejection);
        res = rejection;
        allowed = false;
      }
      if (res.consumedPoints < 0)
        throw new LimitsStoreUnavailable('rate limit', new Error('ran after its expiry'));
      return decision(allowed, points, res.remainingPoints, res.msBeforeNext);
    },
  };
}

function decision(allowed: boolean, limit: number, remaining: number, msBeforeNext: number): RateDecision {
  const ms = Math.max(0, msBeforeNext);
  return {
    allowed,
    limit,
    remaining: Math.max(0, remaining),
    resetEpochSeconds: Math.ceil((Date.now() + ms) / 1000),
    retryAfterSeconds: Math.max(1, Math.ceil(ms / 1000)),
  };
}
