/**
 * Rate limit and credits through the REAL app (API keys, openapi validation, the search
 * route, the error middleware): two createApp() instances on their own loopback ports sharing
 * the real redis-server, searching the real OpenSearch, whose indices hold one company and its
 * posting (test/support/limits-test-app.ts), so that a refusal serving no record says something.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, keyStoreFor } from '../../src/auth/key-admin.js';
import { corporateSearch, jobSearch } from '../../src/catalogue/searches.js';
import { createApp } from '../../src/http/app.js';
import { warmUpValidation } from '../../src/http/validation.js';
import { createLimits } from '../../src/limits/limits.js';
import { createEngine } from '../../src/opensearch/engine.js';
import { compileRequestChecks } from '../../src/search/parse-request.js';
import type { Services } from '../../src/services.js';
import { indexFixture } from '../fixtures/search/docs.js';
import { postJson } from '../support/bounded-http.js';
import { startDeadEndpoint } from '../support/dead-endpoint.js';
import { setUpServices } from '../support/env.js';
import { recordLedger } from '../support/ledger-history.js';
import {
  carriesSeededRecord,
  queryTotal,
  seededCompany,
  seededCorporateNumber,
  seededJob,
} from '../support/limits-test-app.js';

let services: Services;
const servers: Server[] = [];
const deadEngine = await startDeadEndpoint();
const closedOpenSearch = createEngine(deadEngine.url);

async function listen(app: ReturnType<typeof createApp>): Promise<string> {
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function keyFor(userId: string): Promise<string> {
  return (await createApiKey(keyStoreFor(services.redis, services.config.redisPrefix), { userId })).key;
}

function post(
  baseUrl: string,
  key: string | undefined,
  body: unknown = { limit: 1 },
  path = '/rest/v1/corporates/search',
) {
  return postJson(`${baseUrl}${path}`, key ? { 'x-api-key': key } : {}, body);
}

function statuses(responses: Response[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const res of responses) counts[res.status] = (counts[res.status] ?? 0) + 1;
  return counts;
}

beforeAll(async () => {
  services = await setUpServices('limits-app');
  // a company and its posting to serve: an answer refused with nothing served is then not
  // simply the answer of an empty index
  await indexFixture(services.opensearch, services.config.indexPrefix, {
    corporates: [seededCompany],
    jobs: [seededJob],
  });
});
afterAll(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    server.close();
  }
  await closedOpenSearch.close();
  await deadEngine.close();
  await services?.close();
});

describe('default limits (5 per window, 1 credit per search)', () => {
  let urlA: string;
  let urlB: string;
  beforeAll(async () => {
    // the default limits but a 60-second window: a burst counted exactly stays inside one
    // window however slow the machine (the one-second window: test/limits/rate-limit.test.ts)
    const limits = createLimits({
      redis: services.redis,
      keyPrefix: services.config.redisPrefix,
      config: { rateWindowSeconds: 60 },
    });
    services = { ...services, limits };
    // as src/main.ts does before serving: a first request that compiled the schemas would
    // hold the process long enough for the burst's Redis commands to time out
    await warmUpValidation();
    compileRequestChecks([corporateSearch, jobSearch]);
    urlA = await listen(createApp(services));
    urlB = await listen(createApp(services));
  });

  it('20 concurrent searches of one user -> exactly 5 pass, 15 get 429; another user is unaffected', async () => {
    const [alice, bob] = [await keyFor('alice'), await keyFor('bob')];
    await services.limits.ledger.grant('alice', 100);
    await services.limits.ledger.grant('bob', 100);
    const [forAlice, forBob] = await Promise.all([
      Promise.all(Array.from({ length: 20 }, (_, i) => post(i % 2 ? urlA : urlB, alice))),
      Promise.all(Array.from({ length: 5 }, () => post(urlA, bob))),
    ]);
    expect(statuses(forAlice)).toEqual({ 200: 5, 429: 15 });
    expect(statuses(forBob)).toEqual({ 200: 5 });
    for (const res of [...forAlice, ...forBob]) {
      expect(res.headers.get('x-ratelimit-limit')).toBe('5');
      expect(res.headers.get('x-ratelimit-remaining')).toMatch(/^[0-4]$/);
      expect(Number(res.headers.get('x-ratelimit-reset'))).toBeGreaterThanOrEqual(
        Math.floor(Date.now() / 1000),
      );
    }
    for (const res of forAlice.filter((r) => r.status === 429)) {
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(res.headers.get('x-request-id')).toBeTruthy();
      expect(await res.json()).toEqual({
        message: 'Rate limit exceeded: at most 5 requests per 60 seconds per user.',
        code: 'rate_limited',
        requestId: res.headers.get('x-request-id'),
        docUrl: '/docs/errors#rate_limited',
      });
    }
    expect(await services.limits.ledger.balance('alice')).toBe(95);
    const paid = forAlice
      .filter((r) => r.status === 200)
      .map((r) => Number(r.headers.get('x-credits-remaining')));
    expect(paid.sort((a, b) => a - b)).toEqual([95, 96, 97, 98, 99]);
  });

  it('order: no key -> 401 before the limiter; an invalid body -> 400, counted by the limiter, not charged', async () => {
    const carol = await keyFor('carol');
    await services.limits.ledger.grant('carol', 10);
    const anonymous = await Promise.all(Array.from({ length: 10 }, () => post(urlA, undefined)));
    expect(statuses(anonymous)).toEqual({ 401: 10 });
    expect(anonymous[0]?.headers.get('x-ratelimit-limit')).toBeNull();

    const invalid = await post(urlA, carol, { limit: 'many' });
    expect(invalid.status).toBe(400);
    expect(invalid.headers.get('x-ratelimit-remaining')).toBe('4');
    expect(invalid.headers.get('x-credits-remaining')).toBeNull();
    expect(await services.limits.ledger.balance('carol')).toBe(10);
  });

  it('balance 0 -> 402 with X-Credits-Remaining, and OpenSearch receives no query', async () => {
    const dave = await keyFor('dave');
    const before = await queryTotal(services.opensearch, services.config.indexPrefix);
    const res = await post(urlA, dave);
    expect(res.status).toBe(402);
    expect(res.headers.get('x-credits-remaining')).toBe('0');
    expect(await res.json()).toEqual({
      message: expect.stringMatching(
        /^Not enough API credits: this search costs 1, the balance is 0\. Nothing was searched or charged\. Credits do not renew by themselves: the API's operator grants them to your user; ask them for more \(docUrl\)\.$/,
      ),
      code: 'insufficient_credits',
      requestId: res.headers.get('x-request-id'),
      docUrl: '/docs/errors#insufficient_credits',
    });
    // a job search is refused the same way, before the job index is asked
    const jobs = await post(urlA, dave, { limit: 1 }, '/rest/v1/jobs/search');
    expect(jobs.status).toBe(402);
    const refused = await jobs.text();
    expect(JSON.parse(refused)).toMatchObject({ code: 'insufficient_credits' });
    expect(carriesSeededRecord(refused)).toBe(false);
    expect(await queryTotal(services.opensearch, services.config.indexPrefix)).toBe(before);
    // paid for, the same search is a query and serves the company the 402 did not
    await services.limits.ledger.grant('dave', 1);
    const paid = await post(urlA, dave);
    expect(paid.status).toBe(200);
    const served = await paid.text();
    expect(JSON.parse(served).results.map((r: { corporateNumber: string }) => r.corporateNumber)).toEqual([
      seededCorporateNumber,
    ]);
    expect(carriesSeededRecord(served)).toBe(true);
    expect(await queryTotal(services.opensearch, services.config.indexPrefix)).toBeGreaterThan(before);
  });

  it('a search that fails in OpenSearch is a 503 and is not charged', async () => {
    const urlBroken = await listen(createApp({ ...services, opensearch: closedOpenSearch }));
    const erin = await keyFor('erin');
    await services.limits.ledger.grant('erin', 3);
    const res = await post(urlBroken, erin);
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBeTruthy();
    expect(res.headers.get('x-credits-remaining')).toBe('3');
    expect(await services.limits.ledger.balance('erin')).toBe(3);
  });

  it('masters are neither limited nor charged', async () => {
    const frank = await keyFor('frank');
    const responses = await Promise.all(
      Array.from({ length: 20 }, () =>
        fetch(`${urlA}/rest/v1/master/prefectures`, { headers: { 'x-api-key': frank } }),
      ),
    );
    expect(statuses(responses)).toEqual({ 200: 20 });
    expect(responses[0]?.headers.get('x-ratelimit-limit')).toBeNull();
    expect(responses[0]?.headers.get('x-credits-remaining')).toBeNull();
  });
});

describe('1,000 concurrent searches over two instances (rate limit out of the way)', () => {
  it('leave balance = start - cost x successes exactly, never negative', async () => {
    const real = createLimits({
      redis: services.redis,
      keyPrefix: services.config.redisPrefix,
      config: { ratePerSecond: 100_000, searchCost: 2 },
    });
    const history = recordLedger(real.ledger);
    const limits = { ...real, ledger: history.ledger };
    const urls = [
      await listen(createApp({ ...services, limits })),
      await listen(createApp({ ...services, limits })),
    ];
    const key = await keyFor('heavy');
    const start = 801;
    await limits.ledger.grant('heavy', start);
    // every tenth through a third instance whose OpenSearch is down: reserved, 503, refunded
    const broken = await listen(createApp({ ...services, limits, opensearch: closedOpenSearch }));
    const target = (i: number) => (i % 10 === 9 ? broken : (urls[i % 2] ?? ''));
    const responses = await Promise.all(Array.from({ length: 1000 }, (_, i) => post(target(i), key)));
    const counts = statuses(responses);
    const ok = counts[200] ?? 0;
    console.log(`real app, 1,000 concurrent: ${JSON.stringify(counts)}; balance ${start - 2 * ok}`);
    expect(ok).toBeGreaterThan(0);
    expect(ok).toBeLessThanOrEqual(400);
    expect((counts[200] ?? 0) + (counts[402] ?? 0) + (counts[503] ?? 0)).toBe(1000);
    expect(counts[503]).toBeGreaterThan(0);
    expect(await limits.ledger.balance('heavy')).toBe(start - 2 * ok);
    // every balance the ledger answered after a debit, refund or grant: none below zero
    expect(history.lowest('heavy')).toBeGreaterThanOrEqual(0);
    // a bound on a loaded machine, not a speed claim: 1,000 searches through one OpenSearch
  }, 240_000);
});
