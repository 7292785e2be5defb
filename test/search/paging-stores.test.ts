/**
 * The stores behind deep paging and exports, one behaviour for both implementations: Redis (on
 * the real redis-server, shared by every API process) and the single-process memory used by
 * `npm start` without REDIS_URL. The end-to-end paging and export tests run on Redis; these
 * pin the single-process twins to the same answers.
 */
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { type ExportSlots, LocalExportSlots, RedisExportSlots } from '../../src/limits/export-slots.js';
import {
  type BoundaryStore,
  LocalBoundaryStore,
  RedisBoundaryStore,
} from '../../src/search/paging/boundary-store.js';
import { testRedis, uniquePrefix } from '../support/env.js';

let redis: Redis;
const prefix = uniquePrefix('paging-stores');
const ttlSeconds = 60;

let closeRedis: () => Promise<void>;

beforeAll(async () => {
  ({ redis, close: closeRedis } = await testRedis(prefix));
});
afterAll(() => closeRedis());
afterEach(() => {
  vi.useRealTimers();
});

describe.each([
  ['Redis', () => new RedisBoundaryStore(redis, prefix, ttlSeconds) as BoundaryStore],
  ['single-process', () => new LocalBoundaryStore(ttlSeconds) as BoundaryStore],
] as const)('%s boundary store', (_label, make) => {
  it('keeps the first PIT of a list; a second one offered later is refused in its favour', async () => {
    const store = make();
    expect(await store.pit('list-a')).toBeUndefined();
    expect(await store.setPitIfAbsent('list-a', 'pit-1')).toBe('pit-1');
    expect(await store.setPitIfAbsent('list-a', 'pit-2')).toBe('pit-1');
    expect(await store.pit('list-a')).toBe('pit-1');
  });

  it('answers the nearest boundary at or below a position, from checkpoints and page ends alike', async () => {
    const store = make();
    await store.setPitIfAbsent('list-b', 'pit');
    await store.record(
      'list-b',
      [
        { position: 10_000, after: [1714000000000, 'job-10000'] },
        { position: 10_025, after: [1713999000000, 'job-10025'] },
        { position: 20_000, after: [1713000000000, 'job-20000'] },
      ],
      10_000,
    );
    expect(await store.nearest('list-b', 9_999)).toBeUndefined();
    expect(await store.nearest('list-b', 10_000)).toEqual({
      position: 10_000,
      after: [1714000000000, 'job-10000'],
    });
    expect(await store.nearest('list-b', 15_000)).toEqual({
      position: 10_025,
      after: [1713999000000, 'job-10025'],
    });
    expect(await store.nearest('list-b', 25_000)).toEqual({
      position: 20_000,
      after: [1713000000000, 'job-20000'],
    });
  });

  it('keeps the newest 100 page ends and every checkpoint', async () => {
    const store = make();
    await store.setPitIfAbsent('list-c', 'pit');
    const pageEnds = Array.from({ length: 150 }, (_, i) => ({ position: 25 * (i + 1) + 1, after: [i] }));
    await store.record('list-c', [{ position: 1000, after: ['ckpt'] }, ...pageEnds], 1000);
    // the 50 oldest page ends are gone: below position 1,276 only the checkpoint at 1,000 is left
    expect(await store.nearest('list-c', 1_250)).toEqual({ position: 1000, after: ['ckpt'] });
    expect(await store.nearest('list-c', 1_276)).toEqual({ position: 1_276, after: [50] });
    expect(await store.nearest('list-c', 10_000)).toEqual({ position: 3_751, after: [149] });
  });

  it('a new PIT after a drop starts without the old boundaries', async () => {
    const store = make();
    await store.setPitIfAbsent('list-d', 'pit-old');
    await store.record('list-d', [{ position: 500, after: ['old'] }], 100);
    await store.drop('list-d');
    expect(await store.pit('list-d')).toBeUndefined();
    expect(await store.setPitIfAbsent('list-d', 'pit-new')).toBe('pit-new');
    expect(await store.nearest('list-d', 1_000)).toBeUndefined();
  });
});

it('single-process boundary store: a list unused for its TTL is forgotten', async () => {
  vi.useFakeTimers({ toFake: ['Date'] });
  const store = new LocalBoundaryStore(ttlSeconds);
  await store.setPitIfAbsent('list-e', 'pit');
  vi.setSystemTime(Date.now() + (ttlSeconds - 1) * 1000);
  expect(await store.pit('list-e')).toBe('pit'); // a use renews it
  vi.setSystemTime(Date.now() + (ttlSeconds - 1) * 1000);
  expect(await store.pit('list-e')).toBe('pit');
  vi.setSystemTime(Date.now() + (ttlSeconds + 1) * 1000);
  expect(await store.pit('list-e')).toBeUndefined();
});

describe.each([
  ['Redis', () => new RedisExportSlots(redis, prefix, 2) as ExportSlots],
  ['single-process', () => new LocalExportSlots(2) as ExportSlots],
] as const)('%s export slots (2 per user)', (_label, make) => {
  it('a third export of one user is refused until one of the two ends; other users are apart', async () => {
    const slots = make();
    expect(await slots.acquire('alice', 'e1')).toBe(true);
    expect(await slots.acquire('alice', 'e2')).toBe(true);
    expect(await slots.acquire('alice', 'e3')).toBe(false);
    expect(await slots.acquire('bob', 'e4')).toBe(true);
    await slots.renew('alice', 'e1');
    await slots.release('alice', 'e1');
    expect(await slots.acquire('alice', 'e3')).toBe(true);
    expect(await slots.acquire('alice', 'e5')).toBe(false);
  });
});
