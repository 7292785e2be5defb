/**
 * X-API-Key through the real app and a real Redis: each key state, on a search and on a
 * master endpoint; only the hash is stored; the key never reaches a log line.
 */
import { Writable } from 'node:stream';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, keyStoreFor } from '../../src/auth/key-admin.js';
import { hashApiKey } from '../../src/auth/key-material.js';
import type { KeyStore } from '../../src/auth/key-store.js';
import { createApp } from '../../src/http/app.js';
import { createLogger } from '../../src/logger.js';
import type { Services } from '../../src/services.js';
import { setUpServices } from '../support/env.js';

let services: Services;
let store: KeyStore;
let app: ReturnType<typeof createApp>;
const keys: Record<'active' | 'expired' | 'revoked', string> = { active: '', expired: '', revoked: '' };

beforeAll(async () => {
  services = await setUpServices('auth');
  store = keyStoreFor(services.redis, services.config.redisPrefix);
  keys.active = (
    await createApiKey(store, { userId: 'u-active', expiresAt: new Date(Date.now() + 3_600_000) })
  ).key;
  keys.expired = (
    await createApiKey(store, { userId: 'u-expired', expiresAt: new Date(Date.now() - 1000) })
  ).key;
  const revoked = await createApiKey(store, { userId: 'u-revoked' });
  keys.revoked = revoked.key;
  expect(await store.revoke(revoked.record.keyId, new Date())).toBe(true);
  app = createApp(services);
});
afterAll(async () => {
  await services.close();
});

const endpoints = [
  ['POST', '/rest/v1/corporates/search'],
  ['POST', '/rest/v1/jobs/search'],
  ['GET', '/rest/v1/jobs/abc/detail'],
  ['GET', '/rest/v1/master/prefectures'],
  ['GET', '/rest/v1/master/markets'],
] as const;

function call(method: 'GET' | 'POST', path: string, key?: string) {
  const req = method === 'GET' ? request(app).get(path) : request(app).post(path).send({});
  return key === undefined ? req : req.set('X-API-Key', key);
}

describe.each(endpoints)('%s %s', (method, path) => {
  it.each([
    ['missing', undefined, 'Send your API key in the X-API-Key header.', 'api_key_missing'],
    ['unknown', `csk_${'A'.repeat(43)}`, 'The API key is not valid.', 'api_key_invalid'],
    ['malformed', 'hello', 'The API key is not valid.', 'api_key_invalid'],
    ['expired', 'expired', 'The API key has expired; ask for a new one.', 'api_key_expired'],
    ['revoked', 'revoked', 'The API key has been revoked; ask for a new one.', 'api_key_revoked'],
  ] as const)('a %s key -> 401 in the error shape', async (_state, key, message, code) => {
    const presented = key === 'expired' || key === 'revoked' ? keys[key] : key;
    const res = await call(method, path, presented).expect(401);
    expect(res.headers['x-request-id']).toBeTruthy();
    expect(res.body).toEqual({
      message,
      code,
      requestId: res.headers['x-request-id'],
      docUrl: `/docs/errors#${code}`,
    });
  });
});

describe('a valid key', () => {
  it('opens a master endpoint', async () => {
    await call('GET', '/rest/v1/master/prefectures', keys.active).expect(200);
  });

  it('gets past authentication on a search (validation answers next)', async () => {
    const res = await call('POST', '/rest/v1/corporates/search', keys.active).send({ limit: 0 });
    expect(res.status).toBe(400);
  });
});

describe('the key store', () => {
  it('keeps only the hash, never the key', async () => {
    const all = await store.list();
    expect(all.map((record) => record.userId).sort()).toEqual(['u-active', 'u-expired', 'u-revoked']);
    const stored = await services.redis?.keys(`${services.config.redisPrefix}apikey*`);
    // every key under the prefix, whatever its type: a value that cannot be read fails the test
    const values = await Promise.all(
      (stored ?? []).map(async (key) => {
        const type = await services.redis?.type(key);
        if (type === 'string') return services.redis?.get(key);
        if (type === 'hash') return JSON.stringify(await services.redis?.hgetall(key));
        if (type === 'set') return JSON.stringify(await services.redis?.smembers(key));
        if (type === 'zset') return JSON.stringify(await services.redis?.zrange(key, '0', '-1'));
        throw new Error(`key ${key} is a ${type}: read it here`);
      }),
    );
    const dump = [...(stored ?? []), ...values].join('\n');
    for (const key of Object.values(keys)) {
      expect(dump).not.toContain(key);
      expect(dump).toContain(hashApiKey(key));
    }
  });

  it('lists one user, and revoking an unknown key says so', async () => {
    expect((await store.list('u-active')).map((record) => record.userId)).toEqual(['u-active']);
    expect(await store.revoke('key_000000000000', new Date())).toBe(false);
  });
});

describe('the request log', () => {
  it('writes one line per request with the request id and user, never the key', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const logged = createApp({ ...services, logger: createLogger('info', sink) });
    const res = await request(logged)
      .get('/rest/v1/master/prefectures?apiKey=whatever')
      .set('X-API-Key', keys.active)
      .set('X-Request-Id', 'log-check-1')
      .expect(200);
    expect(res.headers['x-request-id']).toBe('log-check-1');
    await request(logged).post('/rest/v1/jobs/search').set('X-API-Key', keys.revoked).send({}).expect(401);
    const text = lines.join('');
    expect(lines.length).toBeGreaterThanOrEqual(2);
    const first = JSON.parse(lines[0] as string);
    expect(first).toMatchObject({
      req: { id: 'log-check-1', method: 'GET', path: '/rest/v1/master/prefectures' },
    });
    expect(first.userId).toBe('u-active');
    expect(text).not.toContain(keys.active);
    expect(text).not.toContain(keys.revoked);
    expect(text).not.toContain('whatever');
  });
});
