/**
 * Per-user request rate (docs/decisions/rate-limit.md: 5 per second per user on the searches and the detail
 * endpoint). A fixed window that starts with the user's first request: 20 requests within one
 * second of it -> exactly `points` pass.
 *
 * With Redis every API process counts in the same key, `<prefix>rate:<user>`, through
 * rate-limiter-flexible's RateLimiterRedis with our own increment script
 * (`customIncrTtlLuaScript`), so concurrent requests are counted exactly. Each command carries
 * two moments, translated to Redis's clock (src/limits/redis-clock.ts):
 *
 * - when the API stops waiting for it: Redis executes the commands of a frozen-then-thawed
 *   connection late, all at once; one that finds this moment passed counts nothing;
 * - when the request arrived: a command that opens a window opens it at the request's
 *   arrival, not at the moment Redis gets to it. After a 7 s stall the requests of the
 *   stall's last second still get their answer (within their Redis budget), but their
 *   commands all run at the thaw; with the window opened at the thaw they shared it with the
 *   next second's requests, and users at 4 per second got 3 x 429 each. Opened at the
 *   arrival of the first of them, the window ends about when the thaw's next second begins.
 *
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
   * `arrivedAt` (epoch ms, this host's clock; default now): a window this request opens
   * starts then.
   */
  consume(userId: string, giveUpAt?: number, arrivedAt?: number): Promise<RateDecision>;
  /** Redis mode: how to count in the same key from another script (src/limits/admission.ts). */
  readonly redisStep?: RedisRateStep;
}

/**
 * Lua (after `luaNowMs`): `countRate(key, points, windowSeconds, arrivedAt)` -> consumed in the
 * window, ms left in it; the table above. Shared with the admission script of
 * src/limits/redis-credit-ledger.ts, which counts a charged request in the same key, the
 * same way, in the round trip that reserves its credits.
 */
export const luaCountRate = `
local function countRate(key, points, windowSeconds, arrivedAt)
  local ttl = redis.call('PTTL', key)
  if ttl > 0 then
    return redis.call('INCRBY', key, points), ttl
  end
  local left = arrivedAt + windowSeconds * 1000 - now
  if left <= 0 then return points, 0 end
  redis.call('SET', key, points, 'PX', left)
  return points, left
end`;

/**
 * RateLimiterRedis runs this as `rlflxIncr` with KEYS[1] = the key it was called with and
 * ARGV = points, window seconds (then the limiter's points and duration, unused), and reads
 * `{consumed, ms left in window}` back. A key is the only per-call value the library hands to
 * the script, so the give-up and arrival times (Redis ms) travel in it:
 * `{<prefix>rate:<user>}|<give-up>|<arrival>`. The script counts in `<prefix>rate:<user>`, a
 * counter that expires when its window ends; the braces are a Redis Cluster hash tag, so the
 * key the script is called with and the key it writes hash to the same slot.
 *
 *   window open (the key lives)          -> INCRBY, whatever the arrival: one count per
 *                                           window, exact however commands interleave
 *   no window, arrived at A, window W    -> a window [A, A + W): SET 1 PX (A + W - now)
 *   no window, and A + W already passed  -> its window is over: counted in no live window
 *   after the give-up time               -> {-1, 0}, nothing counted
 *
 * Worked example, W = 1 s, a stall from t = 0 to 7 s, requests every 250 ms: those that
 * arrived at 6.05, 6.3, 6.55, 6.8 s run at 7.0 s; the first opens [6.05, 7.05), the others
 * count in it; the request of 7.05 s opens the next window. (Opened at 7.0 s, that window
 * would also have held the requests of 7.05 to 7.8 s: 8 in one window, 3 x 429.)
 */
const incrTtlScript = `
${luaNowMs}
${luaCountRate}
local key, giveUpAt, arrivedAt = string.match(KEYS[1], '^{(.+)}|(%d+)|(%d+)$')
if not key then return redis.error_reply('rate limit key without a give-up and an arrival time') end
if now > tonumber(giveUpAt) then return {-1, 0} end
local consumed, ttl = countRate(key, tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(arrivedAt))
return {consumed, ttl}
`;

/**
 * What a script that counts in this limiter's Redis keys needs (`countRate` above): the
 * counter's key, the budget, the window. Only the Redis limiter has one.
 */
export interface RedisRateStep {
  key(userId: string): string;
  points: number;
  windowSeconds: number;
}

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
    redisStep: { key: (userId) => `${opts.keyPrefix}rate:${userId}`, points, windowSeconds },
    async consume(userId, giveUpAt = Date.now() + defaultGiveUpMs, arrivedAt = Date.now()) {
      let res: RateLimiterRes;
      let allowed = true;
      const key = `{${opts.keyPrefix}rate:${userId}}|${clock.toRedisMs(giveUpAt)}|${clock.toRedisMs(arrivedAt)}`;
      try {
        res = await limiter.consume(key, 1);
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

/**
 * The decision for `consumed` points counted in a window with `ttlMs` left, as
 * rate-limiter-flexible's RateLimiterRedis reads its script's answer (no blocking, no
 * execEvenly): refused when consumed > points, remaining max(points - consumed, 0).
 */
export function rateDecision(points: number, consumed: number, ttlMs: number): RateDecision {
  return decision(consumed <= points, points, points - consumed, ttlMs);
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
