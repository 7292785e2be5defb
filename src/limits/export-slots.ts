/**
 * At most N exports per user at once (EXPORT_MAX_CONCURRENT). A slot is a member of a sorted
 * set per user scored by its expiry; a running export renews it with every page, so the slot
 * of a process that died is free again `leaseSeconds` later.
 *
 *   const slot = await slots.acquire('alice', requestId); // false: N exports already running
 *   ... await slots.renew('alice', requestId) per page ...
 *   await slots.release('alice', requestId);
 */
import type { Redis } from 'ioredis';
import { storeCall } from './store-unavailable.js';

export const leaseSeconds = 120;

export interface ExportSlots {
  acquire(userId: string, slotId: string): Promise<boolean>;
  renew(userId: string, slotId: string): Promise<void>;
  release(userId: string, slotId: string): Promise<void>;
}

// KEYS: the user's set; ARGV: now ms, lease ms, max, slot id -> 1 acquired | 0 full
const acquireScript = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
redis.call('ZADD', KEYS[1], tonumber(ARGV[1]) + tonumber(ARGV[2]), ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
`;

export class RedisExportSlots implements ExportSlots {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly max: number,
  ) {
    redis.defineCommand('csExportAcquire', { numberOfKeys: 1, lua: acquireScript });
  }

  private key(userId: string): string {
    return `${this.prefix}exports:running:${userId}`;
  }

  async acquire(userId: string, slotId: string): Promise<boolean> {
    const acquire = (this.redis as unknown as Record<string, (...args: unknown[]) => Promise<number>>)
      .csExportAcquire as (...args: unknown[]) => Promise<number>;
    const result = await storeCall('export slot', () =>
      acquire.call(this.redis, this.key(userId), Date.now(), leaseSeconds * 1000, this.max, slotId),
    );
    return result === 1;
  }

  async renew(userId: string, slotId: string): Promise<void> {
    const key = this.key(userId);
    await storeCall('export slot', () =>
      this.redis
        .multi()
        .zadd(key, 'XX', Date.now() + leaseSeconds * 1000, slotId)
        .pexpire(key, leaseSeconds * 1000)
        .exec(),
    );
  }

  async release(userId: string, slotId: string): Promise<void> {
    await storeCall('export slot', () => this.redis.zrem(this.key(userId), slotId));
  }
}

/** SINGLE-PROCESS ONLY (no REDIS_URL). */
export class LocalExportSlots implements ExportSlots {
  private readonly running = new Map<string, Set<string>>();

  constructor(private readonly max: number) {}

  async acquire(userId: string, slotId: string): Promise<boolean> {
    const slots = this.running.get(userId) ?? new Set();
    if (slots.size >= this.max) return false;
    slots.add(slotId);
    this.running.set(userId, slots);
    return true;
  }

  async renew(): Promise<void> {}

  async release(userId: string, slotId: string): Promise<void> {
    this.running.get(userId)?.delete(slotId);
  }
}
