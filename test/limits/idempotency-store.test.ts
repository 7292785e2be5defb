/**
 * The Idempotency-Key stores, one behaviour for both: the Redis store (on the real
 * redis-server) and the single-process LocalIdempotencyStore (`npm start` without Redis).
 * The local store's expiry runs on this process's clock, pinned here with fake Date.
 */
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  type IdempotencyStore,
  LocalIdempotencyStore,
  RedisIdempotencyStore,
} from '../../src/limits/idempotency-store.js';
import { testRedis, uniquePrefix } from '../support/env.js';

const ttls = { doneSeconds: 60, pendingSeconds: 5 };
const ok = { status: 200, body: { totalResults: 1, results: [{ id: 'x' }] } };
let redis: Redis;
const prefix = uniquePrefix('idem-store');

let closeRedis: () => Promise<void>;

beforeAll(async () => {
  ({ redis, close: closeRedis } = await testRedis(prefix));
});
afterAll(() => closeRedis());
afterEach(() => {
  vi.useRealTimers();
});

describe.each([
  ['Redis', () => new RedisIdempotencyStore(redis, prefix, ttls) as IdempotencyStore],
  ['single-process', () => new LocalIdempotencyStore(ttls) as IdempotencyStore],
] as const)('%s store', (_label, make) => {
  it('claimed -> in progress for a twin -> replay once completed', async () => {
    const store = make();
    expect(await store.claim('u1', 'k', 'fp', 'req-1')).toEqual({ kind: 'claimed' });
    expect(await store.claim('u1', 'k', 'fp', 'req-2')).toEqual({ kind: 'in-progress' });
    await store.complete('u1', 'k', 'req-1', ok);
    expect(await store.claim('u1', 'k', 'fp', 'req-3')).toEqual({ kind: 'replay', response: ok });
  });

  it('another body under the same key is a conflict, before and after completion', async () => {
    const store = make();
    await store.claim('u2', 'k', 'fp-a', 'req-1');
    expect(await store.claim('u2', 'k', 'fp-b', 'req-2')).toEqual({ kind: 'conflict' });
    await store.complete('u2', 'k', 'req-1', ok);
    expect(await store.claim('u2', 'k', 'fp-b', 'req-3')).toEqual({ kind: 'conflict' });
  });

  it('keys are per user', async () => {
    const store = make();
    await store.claim('u3', 'shared', 'fp', 'req-1');
    expect(await store.claim('u4', 'shared', 'fp', 'req-2')).toEqual({ kind: 'claimed' });
  });

  it('release frees the key for a retry; only the owner can release or complete', async () => {
    const store = make();
    await store.claim('u5', 'k', 'fp', 'req-1');
    await store.release('u5', 'k', 'someone-else');
    await store.complete('u5', 'k', 'someone-else', ok);
    expect(await store.claim('u5', 'k', 'fp', 'req-2')).toEqual({ kind: 'in-progress' });
    await store.release('u5', 'k', 'req-1');
    expect(await store.claim('u5', 'k', 'fp', 'req-3')).toEqual({ kind: 'claimed' });
  });

  it('a completed response is not released by a late release of its owner', async () => {
    const store = make();
    await store.claim('u6', 'k', 'fp', 'req-1');
    await store.complete('u6', 'k', 'req-1', ok);
    await store.release('u6', 'k', 'req-1');
    expect(await store.claim('u6', 'k', 'fp', 'req-2')).toEqual({ kind: 'replay', response: ok });
  });

  it('any key bytes are accepted (the key is hashed before it is stored)', async () => {
    const store = make();
    const odd = 'ключ:*?[]{}\u0000 with spaces';
    expect(await store.claim('u7', odd, 'fp', 'req-1')).toEqual({ kind: 'claimed' });
    expect(await store.claim('u7', `${odd}x`, 'fp', 'req-2')).toEqual({ kind: 'claimed' });
  });
});

describe('single-process store expiry', () => {
  it('a pending claim expires after pendingSeconds, a stored response after doneSeconds', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: new Date('2026-04-01T00:00:00Z') });
    const store = new LocalIdempotencyStore(ttls);
    await store.claim('u', 'dead', 'fp', 'req-1'); // its process "dies": never completed
    vi.advanceTimersByTime(4_999);
    expect(await store.claim('u', 'dead', 'fp', 'req-2')).toEqual({ kind: 'in-progress' });
    vi.advanceTimersByTime(1);
    expect(await store.claim('u', 'dead', 'fp', 'req-3')).toEqual({ kind: 'claimed' });

    await store.claim('u', 'done', 'fp', 'req-4');
    await store.complete('u', 'done', 'req-4', ok);
    vi.advanceTimersByTime(59_999);
    expect(await store.claim('u', 'done', 'fp', 'req-5')).toEqual({ kind: 'replay', response: ok });
    vi.advanceTimersByTime(1);
    expect(await store.claim('u', 'done', 'fp', 'req-6')).toEqual({ kind: 'claimed' });
  });
});

describe('Redis store expiry', () => {
  it('sets the pending and done lifetimes on the record (Redis expires it)', async () => {
    const store = new RedisIdempotencyStore(redis, prefix, ttls);
    await store.claim('ttl-user', 'k', 'fp', 'req-1');
    const [record] = await redis.keys(`${prefix}*ttl-user*`);
    expect(record).toBeDefined();
    const pending = await redis.ttl(record as string);
    expect(pending).toBeGreaterThan(0);
    expect(pending).toBeLessThanOrEqual(5);
    await store.complete('ttl-user', 'k', 'req-1', ok);
    const done = await redis.ttl(record as string);
    expect(done).toBeGreaterThan(5);
    expect(done).toBeLessThanOrEqual(60);
  });
});

describe('Redis store after a lost reply', () => {
  it('a claim that reaches Redis after its caller gave up claims nothing: the key stays free', async () => {
    const store = new RedisIdempotencyStore(redis, prefix, ttls);
    await expect(store.claim('late-user', 'k', 'fp', 'req-1', Date.now() - 1_000)).rejects.toMatchObject({
      name: 'LimitsStoreUnavailable',
      operation: 'idempotency claim',
    });
    expect(await redis.keys(`${prefix}*late-user*`)).toEqual([]);
    expect(await store.claim('late-user', 'k', 'fp', 'req-2')).toEqual({ kind: 'claimed' });
  });
});
