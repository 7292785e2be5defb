/**
 * Redis away: searches fail closed (503 + Retry-After, the cause in the log), masters keep working,
 * and service comes back by itself when Redis does, with no app restart. On a redis-server of
 * this file's own (startLocalRedis), stopped and restarted on the same port, or frozen
 * (SIGSTOP: connected but silent, the "slow Redis" case) and thawed.
 */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import type { Redis } from 'ioredis';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalRedis, startLocalRedis } from '../../ops/local/redis-server.js';
import { createApiKey, keyStoreFor } from '../../src/auth/key-admin.js';
import { createApp } from '../../src/http/app.js';
import { createLimits, type Limits } from '../../src/limits/limits.js';
import { createLogger } from '../../src/logger.js';
import { createRedis } from '../../src/redis.js';
import type { Services } from '../../src/services.js';
import { setUpServices } from '../support/env.js';
import { search, startLimitsTestApp, type TestApp, userHeaders } from '../support/limits-test-app.js';

/** The app's log lines, parsed: the cause of each fail-closed answer is read from them. */
const logLines: Array<{ msg?: string; err?: { message?: string; cause?: string } }> = [];
const logSink = new Writable({
  write(chunk, _encoding, done) {
    for (const line of String(chunk).split('\n')) if (line.trim()) logLines.push(JSON.parse(line));
    done();
  },
});
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
    logger: createLogger('warn', logSink),
  });
});
afterAll(async () => {
  await app?.close();
  redis?.disconnect();
  await services?.close();
  await local?.stop();
});

/** Polls `check` until it holds; throws after `timeoutMs` (a bound, not a speed claim). */
async function waitFor(check: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if (await check()) return;
    } catch {
      // not yet
    }
    if (Date.now() > deadline) throw new Error(`not recovered within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** 503 + Retry-After from the limiter, and the log's cause for it (ioredis's own message). */
async function expectFailClosed(user: string): Promise<string | undefined> {
  const before = logLines.length;
  const res = await search(app.url, user);
  expect(res.status).toBe(503);
  expect(res.headers.get('retry-after')).toBe('1');
  expect(await res.json()).toEqual({
    message: 'Rate limiting and credits are temporarily unavailable; retry shortly. No credits were charged.',
    code: 'limits_unavailable',
    requestId: res.headers.get('x-request-id'),
    docUrl: '/docs/errors#limits_unavailable',
  });
  const logged = logLines.slice(before).find((line) => line.msg === 'rate limiter unavailable');
  expect(logged, 'the fail-closed answer is logged with its cause').toBeDefined();
  return logged?.err?.cause;
}

async function expectMastersWork(): Promise<void> {
  const res = await fetch(`${app.url}/rest/v1/master/prefectures`, { headers: await userHeaders('u') });
  expect(res.status).toBe(200);
}

describe('Redis stopped, then restarted on the same port', () => {
  it('fails closed within the bound, keeps masters, and recovers without a restart', async () => {
    await limits.ledger.grant('u', 10);
    expect((await search(app.url, 'u')).status).toBe(200);
    await local.stop();

    // a stopped server refuses at once: the cause is the closed connection, not a timeout
    for (let i = 0; i < 3; i++) expect(await expectFailClosed('u')).not.toMatch(/timed out/i);
    await expectMastersWork();

    local = await startLocalRedis({ logDir, port: local.port });
    // this redis-server keeps no data, so the balance starts from 0 again: top it up
    await waitFor(async () => (await limits.ledger.grant('u', 10)) === 10);
    const res = await search(app.url, 'u');
    expect(res.status).toBe(200);
    expect(res.headers.get('x-credits-remaining')).toBe('9');
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
      // connected but silent: only the client's commandTimeout ends the wait
      expect(await expectFailClosed('v')).toBe('Command timed out');
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
    const down = await post(key);
    expect(down.status).toBe(503);
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
