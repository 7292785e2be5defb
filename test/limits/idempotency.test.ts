/**
 * Idempotency-Key on searches, through the real app (auth, validation, search route) on the
 * real redis-server and OpenSearch: a retry with the same key and body is answered from the
 * stored response and charged once, also when the twins arrive concurrently; the same key
 * with another body is a 422; a failed first attempt leaves the key free for the retry.
 */
import type { Express } from 'express';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, keyStoreFor } from '../../src/auth/key-admin.js';
import { createApp } from '../../src/http/app.js';
import { createLimits, type Limits } from '../../src/limits/limits.js';
import { createEngine } from '../../src/opensearch/engine.js';
import type { Services } from '../../src/services.js';
import { startDeadEndpoint } from '../support/dead-endpoint.js';
import { setUpServices } from '../support/env.js';

let services: Services;
let limits: Limits;
let app: Express;
/** Same Redis, keys and ledger; its OpenSearch is a closed port. */
let brokenApp: Express;
const deadEngine = await startDeadEndpoint();
const closedOpenSearch = createEngine(deadEngine.url);
const users = new Map<string, string>();

async function keyFor(userId: string, credits: number): Promise<string> {
  const { key } = await createApiKey(keyStoreFor(services.redis, services.config.redisPrefix), { userId });
  users.set(userId, key);
  await limits.ledger.grant(userId, credits);
  return key;
}

beforeAll(async () => {
  services = await setUpServices('idempotency');
  limits = createLimits({
    redis: services.redis,
    keyPrefix: services.config.redisPrefix,
    config: { ratePerSecond: 1000 },
  });
  app = createApp({ ...services, limits });
  brokenApp = createApp({ ...services, limits, opensearch: closedOpenSearch });
});
afterAll(async () => {
  await closedOpenSearch.close();
  await deadEngine.close();
  await services?.close();
});

function searchWith(target: Express, key: string, idempotencyKey: string | undefined, body: object) {
  const req = request(target).post('/rest/v1/corporates/search').set('X-API-Key', key);
  if (idempotencyKey !== undefined) req.set('Idempotency-Key', idempotencyKey);
  return req.send(body);
}

describe('Idempotency-Key', () => {
  it('answers a retry with the stored response and charges once', async () => {
    const key = await keyFor('retrier', 10);
    const first = await searchWith(app, key, 'k-1', { limit: 5 });
    expect(first.status).toBe(200);
    expect(first.headers['x-credits-remaining']).toBe('9');
    const again = await searchWith(app, key, 'k-1', { limit: 5 });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.headers['x-credits-remaining']).toBe('9');
    expect(await limits.ledger.balance('retrier')).toBe(9);
    // a new key is a new search
    expect((await searchWith(app, key, 'k-2', { limit: 5 })).headers['x-credits-remaining']).toBe('8');
  });

  it('treats the same body with its keys in another order as the same request', async () => {
    const key = await keyFor('reorder', 10);
    await searchWith(app, key, 'k', { limit: 5, offset: 0 }).expect(200);
    const again = await searchWith(app, key, 'k', { offset: 0, limit: 5 }).expect(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(await limits.ledger.balance('reorder')).toBe(9);
  });

  it('refuses the same key with a different body (422), without charging', async () => {
    const key = await keyFor('mixer', 10);
    await searchWith(app, key, 'k', { limit: 5 }).expect(200);
    const res = await searchWith(app, key, 'k', { limit: 6 });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      message: 'This Idempotency-Key was already used with a different request body.',
      code: 'idempotency_key_reused',
      errors: [{ field: 'Idempotency-Key', reason: 'reuse a key only for a retry of the same request' }],
      requestId: res.headers['x-request-id'],
      docUrl: '/docs/errors#idempotency_key_reused',
    });
    expect(await limits.ledger.balance('mixer')).toBe(9);
  });

  it('keys are per user: another user with the same key runs (and pays for) their own search', async () => {
    const one = await keyFor('one', 5);
    const two = await keyFor('two', 5);
    await searchWith(app, one, 'shared', { limit: 5 }).expect(200);
    const res = await searchWith(app, two, 'shared', { limit: 7 }).expect(200);
    expect(res.headers['idempotent-replayed']).toBeUndefined();
    expect(await limits.ledger.balance('two')).toBe(4);
  });

  it('charges once when the same key arrives 20 times while the first is running', async () => {
    const key = await keyFor('eager', 10);
    // the first request's search is held at the engine's door until the twins have answered,
    // so "arrives while it runs" is certain rather than left to timing
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let arrived = () => {};
    const searching = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    const real = services.opensearch;
    const gated = new Proxy(real, {
      get(target, property, receiver) {
        if (property !== 'search') return Reflect.get(target, property, receiver);
        return async (...args: Parameters<typeof real.search>) => {
          arrived();
          await held;
          return target.search(...args);
        };
      },
    });
    const gatedApp = createApp({ ...services, limits, opensearch: gated });
    const first = searchWith(gatedApp, key, 'burst', { limit: 3 }).then((res) => res);
    await searching;
    const twins = await Promise.all(
      Array.from({ length: 19 }, () => searchWith(app, key, 'burst', { limit: 3 })),
    );
    expect(twins.map((res) => res.status)).toEqual(Array(19).fill(409));
    for (const res of twins) {
      expect(res.headers['retry-after']).toBe('1');
      expect(res.body.message).toMatch(/still in progress/);
    }
    release();
    const done = await first;
    expect(done.status).toBe(200);
    expect(done.headers['idempotent-replayed']).toBeUndefined();
    expect(await limits.ledger.balance('eager')).toBe(9);
    // once done, a retry gets the stored answer
    const later = await searchWith(app, key, 'burst', { limit: 3 }).expect(200);
    expect(later.headers['idempotent-replayed']).toBe('true');
    expect(later.body).toEqual(done.body);
    expect(await limits.ledger.balance('eager')).toBe(9);
  });

  it('charges once when the same key arrives 20 times at once', async () => {
    const key = await keyFor('eager-too', 10);
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => searchWith(app, key, 'burst', { limit: 3 })),
    );
    // one runs; twins get 409 while it runs or its replay after: which, depends on timing
    expect(responses.every((res) => res.status === 200 || res.status === 409)).toBe(true);
    expect(responses.filter((res) => res.status === 200 && !res.headers['idempotent-replayed'])).toHaveLength(
      1,
    );
    expect(await limits.ledger.balance('eager-too')).toBe(9);
  });

  it('a first attempt that failed in OpenSearch is not stored: the retry runs and is charged once', async () => {
    const key = await keyFor('phoenix', 10);
    const failed = await searchWith(brokenApp, key, 'k', { limit: 5 });
    expect(failed.status).toBe(503);
    expect(await limits.ledger.balance('phoenix')).toBe(10);
    const retry = await searchWith(app, key, 'k', { limit: 5 }).expect(200);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
    expect(await limits.ledger.balance('phoenix')).toBe(9);
  });

  it('a 402 releases the key: after a top-up the retry runs', async () => {
    const key = await keyFor('topup', 0);
    await searchWith(app, key, 'k', { limit: 5 }).expect(402);
    await limits.ledger.grant('topup', 1);
    const retry = await searchWith(app, key, 'k', { limit: 5 }).expect(200);
    expect(retry.headers['x-credits-remaining']).toBe('0');
  });

  it('rejects a malformed key with a 400 naming the header', async () => {
    const key = await keyFor('typo', 5);
    const res = await searchWith(app, key, 'has space', { limit: 5 });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toMatch(/Idempotency-Key|idempotency-key/);
    expect(await limits.ledger.balance('typo')).toBe(5);
  });
});
