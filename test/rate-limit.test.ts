/**
 * Per-user rate limit (docs/decisions.md) on the real redis-server: exact under concurrency, shared by
 * two app instances, headers on every limited response, masters untouched.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLimits, type Limits } from '../src/limits/limits.js';
import type { Services } from '../src/services.js';
import { setUpServices } from './support/env.js';
import { search, startLimitsTestApp, type TestApp } from './support/limits-test-app.js';

let services: Services;
let limits: Limits;
let appA: TestApp;
let appB: TestApp;

beforeAll(async () => {
  services = await setUpServices('rate-limit');
  limits = createLimits({ redis: services.redis, keyPrefix: services.config.redisPrefix });
  const deps = { limits, opensearch: services.opensearch, indexPrefix: services.config.indexPrefix };
  appA = await startLimitsTestApp(deps);
  appB = await startLimitsTestApp(deps);
  for (const user of ['alice', 'bob', 'carol', 'dave', 'erin', 'mallory', 'warm-up'])
    await limits.ledger.grant(user, 1000);
  // first requests pay for connections and scripts; the bursts below must fit in one second
  for (const app of [appA, appB]) expect((await search(app.url, 'warm-up')).status).toBe(200);
});
afterAll(async () => {
  await appA?.close();
  await appB?.close();
  await services?.close();
});

function statuses(responses: globalThis.Response[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const res of responses) counts[res.status] = (counts[res.status] ?? 0) + 1;
  return counts;
}

describe('5 requests per second per user', () => {
  it('lets exactly 5 of 20 concurrent searches through; a second user is unaffected', async () => {
    const started = Date.now();
    const [alice, bob] = await Promise.all([
      Promise.all(Array.from({ length: 20 }, () => search(appA.url, 'alice'))),
      Promise.all(Array.from({ length: 5 }, () => search(appA.url, 'bob'))),
    ]);
    expect(Date.now() - started).toBeLessThan(1000); // all inside one window
    expect(statuses(alice)).toEqual({ 200: 5, 429: 15 });
    expect(statuses(bob)).toEqual({ 200: 5 });

    const nowSeconds = Math.floor(Date.now() / 1000);
    for (const res of [...alice, ...bob]) {
      expect(res.headers.get('x-ratelimit-limit')).toBe('5');
      const remaining = Number(res.headers.get('x-ratelimit-remaining'));
      expect(remaining).toBeGreaterThanOrEqual(0);
      expect(remaining).toBeLessThanOrEqual(4);
      const reset = Number(res.headers.get('x-ratelimit-reset'));
      expect(reset).toBeGreaterThanOrEqual(nowSeconds);
      expect(reset).toBeLessThanOrEqual(nowSeconds + 2);
    }
    const remainingOfPassed = alice
      .filter((res) => res.status === 200)
      .map((res) => Number(res.headers.get('x-ratelimit-remaining')))
      .sort();
    expect(remainingOfPassed).toEqual([0, 1, 2, 3, 4]);
    for (const res of alice.filter((r) => r.status === 429)) {
      expect(res.headers.get('x-ratelimit-remaining')).toBe('0');
      const retryAfter = res.headers.get('retry-after') ?? '';
      expect(retryAfter).toMatch(/^[1-9]\d*$/);
      expect(Number(retryAfter)).toBeLessThanOrEqual(1);
      expect(await res.json()).toEqual({
        message: 'Rate limit exceeded: at most 5 requests per second per user.',
        code: 'rate_limited',
      });
    }
  });

  it('lets the user through again after the window', async () => {
    const first = await Promise.all(Array.from({ length: 6 }, () => search(appA.url, 'carol')));
    expect(statuses(first)).toEqual({ 200: 5, 429: 1 });
    const retryAfter = Number(first.find((res) => res.status === 429)?.headers.get('retry-after'));
    await new Promise((resolve) => setTimeout(resolve, retryAfter * 1000 + 50));
    expect((await search(appA.url, 'carol')).status).toBe(200);
  });

  it('counts one budget across two app instances sharing Redis', async () => {
    const responses = await Promise.all(
      Array.from({ length: 12 }, (_, i) => search(i % 2 === 0 ? appA.url : appB.url, 'dave')),
    );
    expect(statuses(responses)).toEqual({ 200: 5, 429: 7 });
  });

  it('limits job search and job detail in the same budget', async () => {
    const responses = await Promise.all([
      ...Array.from({ length: 4 }, () => search(appA.url, 'erin', { path: '/rest/v1/jobs/search' })),
      ...Array.from({ length: 4 }, () =>
        fetch(`${appB.url}/rest/v1/jobs/J-1/detail`, { headers: { 'x-test-user': 'erin' } }),
      ),
    ]);
    expect(statuses(responses)).toEqual({ 200: 5, 429: 3 });
  });

  it('does not limit masters, and sends no rate-limit headers there', async () => {
    const responses = await Promise.all(
      Array.from({ length: 30 }, () =>
        fetch(`${appA.url}/rest/v1/master/prefectures`, { headers: { 'x-test-user': 'mallory' } }),
      ),
    );
    expect(statuses(responses)).toEqual({ 200: 30 });
    expect(responses[0]?.headers.get('x-ratelimit-limit')).toBeNull();
    // and the user's search budget is untouched by them
    const searches = await Promise.all(Array.from({ length: 5 }, () => search(appA.url, 'mallory')));
    expect(statuses(searches)).toEqual({ 200: 5 });
  });
});

describe('configuration', () => {
  it('takes the rate from config and lets exempt users through', async () => {
    const custom = createLimits({
      redis: services.redis,
      keyPrefix: `${services.config.redisPrefix}custom:`,
      config: { ratePerSecond: 3, rateLimitExemptUsers: new Set(['bench']) },
    });
    await custom.ledger.grant('bench', 100);
    await custom.ledger.grant('frank', 100);
    const app = await startLimitsTestApp({
      limits: custom,
      opensearch: services.opensearch,
      indexPrefix: services.config.indexPrefix,
    });
    try {
      const [bench, frank] = await Promise.all([
        Promise.all(Array.from({ length: 20 }, () => search(app.url, 'bench'))),
        Promise.all(Array.from({ length: 10 }, () => search(app.url, 'frank'))),
      ]);
      expect(statuses(bench)).toEqual({ 200: 20 });
      expect(statuses(frank)).toEqual({ 200: 3, 429: 7 });
      expect(frank[0]?.headers.get('x-ratelimit-limit')).toBe('3');
    } finally {
      await app.close();
    }
  });
});

describe('single-process mode (no Redis)', () => {
  it('counts in memory with the same rule', async () => {
    const memory = createLimits({ redis: undefined, keyPrefix: 'mem:' });
    expect(memory.mode).toBe('single-process');
    await memory.ledger.grant('alice', 100);
    const app = await startLimitsTestApp({
      limits: memory,
      opensearch: services.opensearch,
      indexPrefix: services.config.indexPrefix,
    });
    try {
      const responses = await Promise.all(Array.from({ length: 20 }, () => search(app.url, 'alice')));
      expect(statuses(responses)).toEqual({ 200: 5, 429: 15 });
      expect(await memory.ledger.balance('alice')).toBe(95);
    } finally {
      await app.close();
    }
  });
});
