/**
 * API keys answered from each API process's memory (src/auth/key-checker.ts with
 * src/auth/key-changes.ts), on the real redis-server: a verified key needs no Redis lookup
 * while it is fresh; a revocation reaches every process by pub/sub and ends that at once; a
 * dropped subscriber means every request reads Redis again until it is back, and what was
 * remembered before the drop is no longer trusted.
 */
import type { Redis } from 'ioredis';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/auth/key-admin.js';
import { type KeyChanges, RedisKeyChanges } from '../../src/auth/key-changes.js';
import { KeyChecker } from '../../src/auth/key-checker.js';
import type { ApiKeyRecord, KeyStore } from '../../src/auth/key-store.js';
import { RedisKeyStore } from '../../src/auth/redis-key-store.js';
import { createApp } from '../../src/http/app.js';
import type { Services } from '../../src/services.js';
import { setUpServices } from '../support/env.js';

let services: Services;
let redis: Redis;
let store: RedisKeyStore;
const opened: KeyChanges[] = [];

beforeAll(async () => {
  services = await setUpServices('key-cache');
  if (!services.redis) throw new Error('this file needs Redis');
  redis = services.redis;
  store = new RedisKeyStore(redis, services.config.redisPrefix);
});
afterAll(async () => {
  for (const changes of opened) changes.close();
  await services.close();
});

/** The product's Redis store, counting the lookups that reach Redis. */
class CountingStore implements KeyStore {
  lookups = 0;
  constructor(private readonly inner: KeyStore) {}
  add(record: ApiKeyRecord) {
    return this.inner.add(record);
  }
  findByHash(keyHash: string) {
    this.lookups++;
    return this.inner.findByHash(keyHash);
  }
  list(userId?: string) {
    return this.inner.list(userId);
  }
  revoke(keyId: string, at: Date) {
    return this.inner.revoke(keyId, at);
  }
}

/** One API process's view: its own subscriber connection, checker and counted store. */
async function apiProcess(freshMs = 60_000) {
  const changes = new RedisKeyChanges(redis, services.config.redisPrefix, 200);
  opened.push(changes);
  await until(() => changes.live, 'the subscriber is live');
  const counted = new CountingStore(store);
  return {
    changes,
    counted,
    checker: new KeyChecker(counted, undefined, undefined, undefined, { changes, freshMs }),
  };
}

/** Waits for a condition, bounded (10 s): the wait itself asserts nothing about speed. */
async function until(condition: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const giveUpAt = Date.now() + 10_000;
  while (!(await condition())) {
    if (Date.now() > giveUpAt) throw new Error(`gave up waiting: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function announced(changes: KeyChanges, keyId: string): Promise<void> {
  return new Promise((resolve) => changes.onChange((id) => id === keyId && resolve()));
}

describe('key memory with announced revocations', () => {
  it('a fresh key is answered without a Redis lookup; a revocation reaches every process', async () => {
    const [a, b] = [await apiProcess(), await apiProcess()];
    const { key, record } = await createApiKey(store, { userId: 'cache-user' });
    for (const api of [a, b]) {
      expect(await api.checker.check(key)).toMatchObject({ ok: true });
      for (let i = 0; i < 20; i++) expect(await api.checker.check(key)).toMatchObject({ ok: true });
      expect(api.counted.lookups).toBe(1);
      // the masters' path before the router takes the same memory, synchronously
      expect(api.checker.rememberedNow(key)).toEqual(record);
      expect(api.checker.rememberedNow(undefined)).toBeUndefined();
      expect(api.checker.rememberedNow('not-a-key')).toBeUndefined();
    }
    const { key: unseen } = await createApiKey(store, { userId: 'cache-user-unseen' });
    expect(a.checker.rememberedNow(unseen)).toBeUndefined();
    expect(new KeyChecker(store).rememberedNow(key)).toBeUndefined();

    const heard = Promise.all([announced(a.changes, record.keyId), announced(b.changes, record.keyId)]);
    expect(await store.revoke(record.keyId, new Date())).toBe(true);
    await heard;
    for (const api of [a, b]) {
      expect(api.checker.rememberedNow(key)).toBeUndefined();
      expect(await api.checker.check(key)).toEqual({ ok: false, reason: 'revoked' });
      expect(api.counted.lookups).toBe(2);
    }
  });

  it('a key older than the fresh window is read from Redis again', async () => {
    const api = await apiProcess(1_000);
    const { key } = await createApiKey(store, { userId: 'cache-user-2' });
    const t0 = new Date();
    await api.checker.check(key, t0);
    await api.checker.check(key, new Date(t0.getTime() + 999));
    expect(api.counted.lookups).toBe(1);
    await api.checker.check(key, new Date(t0.getTime() + 1_001));
    expect(api.counted.lookups).toBe(2);
  });

  it('without a live subscriber every check reads Redis; memory from before the drop is not trusted', async () => {
    const api = await apiProcess();
    const { key } = await createApiKey(store, { userId: 'cache-user-3' });
    await api.checker.check(key);
    await api.checker.check(key);
    expect(api.counted.lookups).toBe(1);
    const epochBefore = api.changes.epoch;

    // drop the subscriber connections of this file (named after its prefix), no one else's
    const clients = String(await redis.call('CLIENT', 'LIST', 'TYPE', 'pubsub'));
    const ids = clients
      .split('\n')
      .filter((line) => line.includes(` name=${services.config.redisPrefix}apikey-changes `))
      .map((line) => /id=(\d+)/.exec(line)?.[1]);
    expect(ids.length).toBeGreaterThan(0);
    const dropped = new Promise<void>((resolve) => {
      const poll = setInterval(() => {
        if (!api.changes.live) {
          clearInterval(poll);
          resolve();
        }
      }, 1);
    });
    for (const id of ids) if (id) await redis.call('CLIENT', 'KILL', 'ID', id);
    await dropped;
    expect(api.checker.rememberedNow(key)).toBeUndefined();
    await api.checker.check(key);
    await api.checker.check(key);
    expect(api.counted.lookups).toBe(3);

    await until(() => api.changes.live, 'the subscriber is back');
    expect(api.changes.epoch).toBeGreaterThan(epochBefore);
    // remembered while no announcement could be heard: not answered from memory
    expect(api.checker.rememberedNow(key)).toBeUndefined();
    await api.checker.check(key); // remembered before the drop: read again
    await api.checker.check(key); // remembered in this epoch: from memory
    expect(api.counted.lookups).toBe(4);
    expect(api.checker.rememberedNow(key)).toMatchObject({ userId: 'cache-user-3' });
  });
});

describe('the API with the key memory (Redis mode)', () => {
  it('answers a revoked key 401 once the revocation is announced', async () => {
    if (!services.keyChanges) throw new Error('the services have no key memory');
    const changes = services.keyChanges;
    await until(() => changes.live, 'the API subscriber is live');
    const app = createApp(services);
    const { key, record } = await createApiKey(store, { userId: 'cache-user-4' });
    await request(app).get('/rest/v1/master/prefectures').set('X-API-Key', key).expect(200);
    const heard = announced(changes, record.keyId);
    await store.revoke(record.keyId, new Date());
    await heard;
    const res = await request(app).get('/rest/v1/master/prefectures').set('X-API-Key', key).expect(401);
    expect(res.body).toMatchObject({ code: 'api_key_revoked' });
  });
});
