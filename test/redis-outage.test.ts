/**
 * Redis away: searches fail closed (503 + Retry-After) within a bound, masters keep working,
 * and service comes back by itself when Redis does, with no app restart. On a redis-server of
 * this file's own (startLocalRedis), stopped and restarted on the same port, or frozen
 * (SIGSTOP: connected but silent, the "slow Redis" case) and thawed.
 */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Redis } from 'ioredis';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, keyStoreFor } from '../src/auth/key-admin.js';
import { createApp } from '../src/http/app.js';
import { createLimits, type Limits } from '../src/limits/limits.js';
import { type LocalRedis, startLocalRedis } from '../src/local/redis-server.js';
import { createRedis } from '../src/redis.js';
import type { Services } from '../src/services.js';
import { setUpServices } from './support/env.js';
import { search, startLimitsTestApp, type TestApp } from './support/limits-test-app.js';

/** createRedis's commandTimeout (2 s) plus slack for the request itself. */
const boundMs = 3000;
const logDir = mkdtempSync(path.join(os.tmpdir(), 'redis-outage-'));
let local: LocalRedis;
let redis: Redis;
let services: Services;
let limits: Limits;
let app: TestApp;

beforeAll(async () => {
  local = await startLocalRedis({ logDir });
  redis = createRedis(local.url);
  redis.on('error', () => {}); // expected here: the server goes away on purpose
  await waitFor(async () => (await redis.ping()) === 'PONG');
  services = await setUpServices('redis-outage');
  limits = createLimits({ redis, keyPrefix: 'outage:' });
  app = await startLimitsTestApp({
    limits,
    opensearch: services.opensearch,
    indexPrefix: services.config.indexPrefix,
  });
});
afterAll(async () => {
  await app?.close();
  redis?.disconnect();
  await services?.close();
  await local?.stop();
});

async function waitFor(check: () => Promise<boolean>, timeoutMs = 15_000): Promise<number> {
  const started = Date.now();
  for (;;) {
    try {
      if (await check()) return Date.now() - started;
    } catch {
      // not yet
    }
    if (Date.now() - started > timeoutMs) throw new Error(`not recovered within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function expectFailClosed(user: string): Promise<void> {
  const started = Date.now();
  const res = await search(app.url, user);
  const elapsed = Date.now() - started;
  expect(res.status).toBe(503);
  expect(elapsed).toBeLessThan(boundMs);
  expect(res.headers.get('retry-after')).toBe('1');
  expect(await res.json()).toEqual({
    message: 'Rate limiting and credits are temporarily unavailable; retry shortly. No credits were charged.',
    code: 'limits_unavailable',
  });
}

async function expectMastersWork(): Promise<void> {
  const res = await fetch(`${app.url}/rest/v1/master/prefectures`, { headers: { 'x-test-user': 'u' } });
  expect(res.status).toBe(200);
}

describe('Redis stopped, then restarted on the same port', () => {
  it('fails closed within the bound, keeps masters, and recovers without a restart', async () => {
    await limits.ledger.grant('u', 10);
    expect((await search(app.url, 'u')).status).toBe(200);
    await local.stop();

    for (let i = 0; i < 3; i++) await expectFailClosed('u');
    await expectMastersWork();

    local = await startLocalRedis({ logDir, port: local.port });
    // this redis-server keeps no data, so the balance starts from 0 again: top it up
    const recoveredMs = await waitFor(async () => (await limits.ledger.grant('u', 10)) === 10);
    const res = await search(app.url, 'u');
    expect(res.status).toBe(200);
    expect(res.headers.get('x-credits-remaining')).toBe('9');
    expect(recoveredMs).toBeLessThan(5000);
  });
});

describe('Redis frozen (connected, not answering), then thawed', () => {
  it('fails closed within the bound and recovers when Redis answers again', async () => {
    await waitFor(async () => (await redis.ping()) === 'PONG');
    await limits.ledger.grant('v', 10);
    const info = await redis.info('server');
    const pid = Number(/process_id:(\d+)/.exec(info)?.[1]);
    expect(pid).toBeGreaterThan(0);
    process.kill(pid, 'SIGSTOP');
    try {
      await expectFailClosed('v');
      await expectMastersWork();
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    await waitFor(async () => (await search(app.url, 'v')).status === 200);
    // only the one successful search was charged; the frozen attempt reached no reservation
    expect(await limits.ledger.balance('v')).toBe(9);
  });
});

describe('through the real app', () => {
  it('a search fails closed while Redis is down and works again after, same app', async () => {
    await waitFor(async () => (await redis.ping()) === 'PONG');
    const realApp = createApp({
      ...services,
      redis,
      limits,
      config: { ...services.config, redisPrefix: 'outage:' },
    });
    const post = (key: string) =>
      request(realApp).post('/rest/v1/corporates/search').set('X-API-Key', key).send({ limit: 1 });
    const { key } = await createApiKey(keyStoreFor(redis, 'outage:'), { userId: 'w' });
    await limits.ledger.grant('w', 5);
    expect((await post(key)).status).toBe(200);

    await local.stop();
    const started = Date.now();
    const down = await post(key);
    expect(down.status).toBe(503);
    expect(Date.now() - started).toBeLessThan(boundMs);
    expect(Number(down.headers['retry-after'])).toBeGreaterThanOrEqual(1);

    local = await startLocalRedis({ logDir, port: local.port });
    // the restarted server is empty: key and credits are issued again; the app is the same
    await waitFor(async () => (await redis.ping()) === 'PONG');
    const { key: again } = await createApiKey(keyStoreFor(redis, 'outage:'), { userId: 'w' });
    await limits.ledger.grant('w', 5);
    const up = await post(again);
    expect(up.status).toBe(200);
    expect(up.headers['x-credits-remaining']).toBe('4');
  });
});
