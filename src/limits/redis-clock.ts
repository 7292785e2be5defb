/**
 * Redis's clock as seen from this process, for commands that carry their own expiry ("do
 * nothing if you run after T"): T is this process's give-up time translated into Redis time,
 * so the check works even when this host's clock and Redis's disagree.
 *
 *   const clock = new RedisClock(redis);
 *   clock.toRedisMs(Date.now() + 800); // -> the same instant on Redis's clock
 *
 * The offset is measured with TIME (half the round trip as the error bound) in the
 * background, at first use and then at most once a minute; until the first answer it is 0,
 * i.e. the clocks are assumed to agree (NTP).
 */
import type { Redis } from 'ioredis';

export class RedisClock {
  private offsetMs = 0;
  private measuredAt = Number.NEGATIVE_INFINITY;
  private measuring = false;

  constructor(
    private readonly redis: Redis,
    private readonly refreshMs = 60_000,
  ) {}

  toRedisMs(localMs: number): number {
    this.refreshIfStale();
    return Math.round(localMs + this.offsetMs);
  }

  private refreshIfStale(): void {
    if (this.measuring || Date.now() - this.measuredAt < this.refreshMs) return;
    if (this.redis.status !== 'ready') return;
    this.measuring = true;
    const sentAt = Date.now();
    this.redis
      .time()
      .then(([seconds, micros]) => {
        const receivedAt = Date.now();
        // a slow answer says little about the offset: keep the old estimate, try again in 5 s
        if (receivedAt - sentAt > 50) {
          this.measuredAt = receivedAt - this.refreshMs + 5000;
          return;
        }
        const redisMs = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
        this.offsetMs = redisMs - (sentAt + receivedAt) / 2;
        this.measuredAt = receivedAt;
      })
      .catch(() => {})
      .finally(() => {
        this.measuring = false;
      });
  }
}

/** Lua: Redis's time in milliseconds, for scripts that compare it with a give-up time. */
export const luaNowMs = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;
