/**
 * Authentication with the key store's Redis gone (this file's own redis-server, stopped on
 * purpose): a key verified shortly before still opens the masters (docs/decisions/api-keys.md: masters keep
 * working), a key not seen before gets 503 with Retry-After (never let through unchecked),
 * a missing key is still a 401.
 */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Redis } from 'ioredis';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalRedis, startLocalRedis } from '../../ops/local/redis-server.js';
import { createApiKey } from '../../src/auth/key-admin.js';
import { RedisKeyStore } from '../../src/auth/redis-key-store.js';
import { createApp } from '../../src/http/app.js';
import { createRedis } from '../../src/redis.js';
import type { Services } from '../../src/services.js';
import { setUpServices } from '../support/env.js';

let local: LocalRedis;
let redis: Redis;
let services: Services;

beforeAll(async () => {
  local = await startLocalRedis({ logDir: mkdtempSync(path.join(os.tmpdir(), 'auth-outage-')) });
  redis = createRedis(local.url);
  redis.on('error', () => {}); // expected: the server goes away on purpose
  for (let i = 0; i < 50 && redis.status !== 'ready'; i++) await new Promise((r) => setTimeout(r, 100));
  services = await setUpServices('auth-outage');
});
afterAll(async () => {
  redis.disconnect();
  await local.stop().catch(() => {});
  await services.close();
});

describe('key store unreachable', () => {
  it('recently verified keys still open masters; unseen keys get 503; no key is still 401', async () => {
    const store = new RedisKeyStore(redis, services.config.redisPrefix);
    const seen = (await createApiKey(store, { userId: 'u-seen' })).key;
    const unseen = (await createApiKey(store, { userId: 'u-unseen' })).key;
    const app = createApp({ ...services, redis });
    await request(app).get('/rest/v1/master/prefectures').set('X-API-Key', seen).expect(200);

    await local.stop();

    await request(app).get('/rest/v1/master/prefectures').set('X-API-Key', seen).expect(200);
    const refused = await request(app)
      .get('/rest/v1/master/prefectures')
      .set('X-API-Key', unseen)
      .expect(503);
    expect(refused.body).toEqual({
      message: 'API keys cannot be checked right now; retry shortly.',
      code: 'key_store_unavailable',
      requestId: refused.headers['x-request-id'],
      docUrl: '/docs/errors#key_store_unavailable',
    });
    expect(refused.headers['retry-after']).toBe('1');
    await request(app).get('/rest/v1/master/prefectures').expect(401);
  });
});
