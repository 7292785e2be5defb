/**
 * The typed client (client/) against the real server: the real app on a loopback port, the
 * shared OpenSearch node and redis-server. It searches, pages with the async iterator, and
 * retries a 429 after Retry-After with the same Idempotency-Key, charged once; it retries
 * only 429, 503 and its own search's 409, never a 400 (a search the engine can never run),
 * another 4xx or a 500.
 */

import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CorporateSearchRequest,
  CorpsearchError,
  createCorpsearchClient,
  type RetryInfo,
  retryAfterMs,
  retryingFetch,
} from '../../client/src/index.js';
import { createApiKey, keyStoreFor } from '../../src/auth/key-admin.js';
import { createApp } from '../../src/http/app.js';
import { createLimits } from '../../src/limits/limits.js';
import type { Services } from '../../src/services.js';
import { corporate, indexFixture, job, posting } from '../fixtures/search/docs.js';
import { setUpServices } from '../support/env.js';

let services: Services;
const servers: Server[] = [];
let baseUrl = '';
let slowUrl = '';

const tokyo = Array.from({ length: 23 }, (_, i) =>
  corporate({
    name: `東京商事${String(i).padStart(2, '0')}`,
    prefectureId: 13,
    postings: [posting({ mediaId: i % 2 === 0 ? 3 : 5 })],
  }),
);
const osaka = Array.from({ length: 4 }, (_, i) => corporate({ name: `大阪物産${i}`, prefectureId: 27 }));
const jobs = tokyo
  .slice(0, 3)
  .map((company) =>
    job({ corporateNumber: company.corporateNumber, corporateName: company.name, title: '営業', mediaId: 3 }),
  );

async function listen(app: ReturnType<typeof createApp>): Promise<string> {
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function newUser(credits: number): Promise<{ userId: string; key: string }> {
  const userId = `client-${Math.random().toString(36).slice(2, 10)}`;
  const { key } = await createApiKey(keyStoreFor(services.redis, services.config.redisPrefix), { userId });
  await services.limits.ledger.grant(userId, credits);
  return { userId, key };
}

beforeAll(async () => {
  services = await setUpServices('client');
  await indexFixture(services.opensearch, services.config.indexPrefix, {
    corporates: [...tokyo, ...osaka],
    jobs,
  });
  baseUrl = await listen(createApp(services));
  // the same servers and prefixes, but 1 search per second per user: two at once make a 429
  const slowLimits = createLimits({
    redis: services.redis,
    keyPrefix: services.config.redisPrefix,
    config: { ratePerSecond: 1 },
  });
  slowUrl = await listen(createApp({ ...services, limits: slowLimits }));
});
afterAll(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  await services?.close();
});

describe('typed client against the real server', () => {
  it('searches companies with a typed body and reads the typed records and headers', async () => {
    const { key } = await newUser(10);
    const api = createCorpsearchClient({ baseUrl, apiKey: key });
    const page = await api.searchCorporates({
      limit: 2,
      filters: { prefectureId: { any: [27] } },
      sort: { field: 'name', order: 'asc' },
    });
    expect(page.totalResults).toBe(4);
    expect(page.results.map((record) => record.name)).toEqual(['大阪物産0', '大阪物産1']);
    expect(page.results[0]?.prefectureId).toBe(27);
    expect(page.meta.status).toBe(200);
    expect(page.meta.creditsRemaining).toBe(9);
    expect(page.meta.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
    expect(page.meta.requestId).toBeTruthy();

    const jobPage = await api.searchJobs({ filters: { mediaId: { any: [3] } } });
    expect(jobPage.results.map((record) => record.id).sort()).toEqual(jobs.map((j) => j.id).sort());
    const detail = await api.master('prefectures');
    expect(detail.find((prefecture) => prefecture.id === 13)?.name).toBe('東京都');
  });

  it('pages through every match with the async iterator, one search per page', async () => {
    const { key } = await newUser(50);
    const api = createCorpsearchClient({ baseUrl, apiKey: key });
    const body: CorporateSearchRequest = {
      filters: { prefectureId: { any: [13] } },
      sort: { field: 'name', order: 'asc' },
    };
    const pageSizes: number[] = [];
    const totals: Array<number | null> = [];
    for await (const page of api.corporatePages(body, { pageSize: 10 })) {
      pageSizes.push(page.results.length);
      totals.push(page.totalResults);
    }
    expect(pageSizes).toEqual([10, 10, 3]);
    // counted on the first page only
    expect(totals).toEqual([23, null, null]);

    const names: string[] = [];
    for await (const record of api.eachCorporate(body, { pageSize: 10 })) names.push(record.name);
    expect(names).toEqual(tokyo.map((company) => company.name as string).sort());

    const capped: string[] = [];
    for await (const record of api.eachCorporate(body, { pageSize: 4, maxResults: 6 }))
      capped.push(record.name);
    expect(capped).toEqual(names.slice(0, 6));
    // 3 + 3 + 2 pages, one credit each, from 50
    const last = await api.searchCorporates({ limit: 1 });
    expect(last.meta.creditsRemaining).toBe(50 - 8 - 1);
  });

  it('pages by cursor: every record once, in order, one search per page; counts free; exports as a stream', async () => {
    const { key } = await newUser(20);
    const api = createCorpsearchClient({ baseUrl, apiKey: key });
    const body: CorporateSearchRequest = {
      filters: { prefectureId: { any: [13] } },
      sort: { field: 'name', order: 'asc' },
    };
    const pageSizes: number[] = [];
    const names: string[] = [];
    for await (const page of api.corporatePages(body, { pageSize: 10, cursor: true })) {
      pageSizes.push(page.results.length);
      for (const record of page.results) names.push(record.name);
    }
    expect(pageSizes).toEqual([10, 10, 3]);
    expect(names).toEqual(tokyo.map((company) => company.name as string).sort());

    const count = await api.countCorporates(body);
    expect(count.totalResults).toBe(23);
    expect(count.exportCredits).toBe(1);
    expect((await api.countJobs({ filters: { mediaId: { any: [3] } } })).totalResults).toBe(3);

    const file = await api.exportCorporates({ ...body, format: 'jsonl', fields: ['name'] });
    expect(file.contentType).toMatch(/^application\/x-ndjson/);
    expect(file.records).toBe(23);
    const lines = (await new Response(file.body).text()).trim().split('\n');
    expect(lines.map((line) => (JSON.parse(line) as { name: string }).name)).toEqual(names);
    // 3 cursor pages + 1 export (23 records: 1 credit), counts free
    const last = await api.searchCorporates({ limit: 1 });
    expect(last.meta.creditsRemaining).toBe(20 - 3 - 1 - 1);

    const refused = await api.exportJobs({ format: 'jsonl', fields: ['nope' as 'id'] }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(CorpsearchError);
    expect((refused as CorpsearchError).status).toBe(400);
    expect((refused as CorpsearchError).body?.errors?.[0]?.field).toBe('fields[0]');
  });

  it('retries a 429 after Retry-After with the same Idempotency-Key, and each search is charged once', async () => {
    const { userId, key } = await newUser(10);
    const sent: Array<{ status: number; key: string | null }> = [];
    const retries: RetryInfo[] = [];
    const api = createCorpsearchClient({
      baseUrl: slowUrl,
      apiKey: key,
      onRetry: (info) => retries.push(info),
      // the real fetch, recording what went over the wire
      fetch: async (request) => {
        const response = await fetch(request);
        sent.push({ status: response.status, key: request.headers.get('idempotency-key') });
        return response;
      },
    });
    const body: CorporateSearchRequest = { limit: 1, filters: { prefectureId: { any: [13] } } };
    const [first, second] = await Promise.all([api.searchCorporates(body), api.searchCorporates(body)]);
    expect(first.totalResults).toBe(23);
    expect(second.totalResults).toBe(23);
    expect(first.meta.idempotencyKey).not.toBe(second.meta.idempotencyKey);

    // at least one of the two was turned away and retried, under its own key
    const limited = sent.filter((attempt) => attempt.status === 429);
    expect(limited.length).toBeGreaterThanOrEqual(1);
    expect(retries.length).toBe(limited.length);
    for (const retry of retries) {
      expect(retry.status).toBe(429);
      expect(retry.delayMs).toBeGreaterThanOrEqual(1000); // Retry-After: 1 (s), honoured
    }
    for (const attempt of limited) {
      const sameKey = sent.filter((other) => other.key === attempt.key);
      expect(sameKey.at(-1)?.status).toBe(200);
    }
    // two searches, two credits: the 429s cost nothing and the retries are not charged twice
    expect(await services.limits.ledger.balance(userId)).toBe(8);
  });

  it('gives up when Retry-After is longer than the caller allows, with the server error', async () => {
    const { key } = await newUser(10);
    const api = createCorpsearchClient({ baseUrl: slowUrl, apiKey: key, maxRetryDelayMs: 10 });
    const results = await Promise.allSettled([
      api.searchCorporates({ limit: 1 }),
      api.searchCorporates({ limit: 1 }),
    ]);
    const rejected = results.filter((result) => result.status === 'rejected');
    expect(rejected).toHaveLength(1);
    const error = (rejected[0] as PromiseRejectedResult).reason as CorpsearchError;
    expect(error).toBeInstanceOf(CorpsearchError);
    expect(error.status).toBe(429);
    expect(error.message).toContain('Rate limit exceeded');
  });

  it('turns a 400 into an error that names the field and the reason', async () => {
    const { key } = await newUser(10);
    const api = createCorpsearchClient({ baseUrl, apiKey: key });
    const error = await api.searchCorporates({ limit: 0 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CorpsearchError);
    expect((error as CorpsearchError).status).toBe(400);
    expect((error as CorpsearchError).code).toBe('invalid_request');
    expect((error as CorpsearchError).body?.errors).toEqual([
      { field: 'limit', reason: 'must be at least 1' },
    ]);
    expect((error as CorpsearchError).message).toContain('limit: must be at least 1');
  });
});

describe('what the client retries', () => {
  it('a search the engine can never run (400 query_too_complex) is sent once, never retried, not charged', async () => {
    const { userId, key } = await newUser(10);
    const statuses: number[] = [];
    const retries: RetryInfo[] = [];
    const api = createCorpsearchClient({
      baseUrl,
      apiKey: key,
      onRetry: (info) => retries.push(info),
      fetch: async (request) => {
        const response = await fetch(request);
        statuses.push(response.status);
        return response;
      },
    });
    const words = (group: number) => Array.from({ length: 50 }, (_, i) => `g${group}-${i}語`);
    const error = await api
      .searchCorporates({
        filterGroups: Array.from({ length: 20 }, (_, g) => ({
          jobTitle: { anyContains: words(g) },
          prefectureId: { any: [13] },
        })),
      })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CorpsearchError);
    expect((error as CorpsearchError).status).toBe(400);
    expect((error as CorpsearchError).code).toBe('query_too_complex');
    expect(statuses).toEqual([400]);
    expect(retries).toEqual([]);
    expect(await services.limits.ledger.balance(userId)).toBe(10);
  });

  // the wire answers below are canned: what is tested is the client's decision, not a server
  const answering = (status: number) => {
    const calls: string[] = [];
    const send = retryingFetch({
      baseUrl: 'http://127.0.0.1:1',
      apiKey: 'k',
      maxRetries: 2,
      fetch: async (request) => {
        calls.push(request.method);
        return new Response('{}', { status, headers: { 'Retry-After': '0' } });
      },
    });
    return { calls, send };
  };
  const search = () =>
    new Request('http://127.0.0.1:1/rest/v1/corporates/search', {
      method: 'POST',
      body: '{}',
      headers: { 'Idempotency-Key': 'k-1' },
    });

  it.each([429, 503])('retries a %i (up to maxRetries)', async (status) => {
    const { calls, send } = answering(status);
    expect((await send(search())).status).toBe(status);
    expect(calls).toHaveLength(3);
  });

  it.each([400, 401, 402, 403, 404, 405, 413, 415, 422, 500, 501, 502, 504])(
    'never retries a %i',
    async (status) => {
      const { calls, send } = answering(status);
      expect((await send(search())).status).toBe(status);
      expect(calls).toHaveLength(1);
    },
  );

  it('retries a 409 only for its own Idempotency-Key (the same search still running)', async () => {
    const mine = answering(409);
    await mine.send(search());
    expect(mine.calls).toHaveLength(3);
    const other = answering(409);
    await other.send(new Request('http://127.0.0.1:1/rest/v1/jobs/J-1/detail'));
    expect(other.calls).toHaveLength(1);
  });

  it('does not retry a network error: it reaches the caller at once', async () => {
    let calls = 0;
    const send = retryingFetch({
      baseUrl: 'http://127.0.0.1:1',
      apiKey: 'k',
      fetch: async () => {
        calls += 1;
        throw new TypeError('fetch failed');
      },
    });
    await expect(send(search())).rejects.toThrow('fetch failed');
    expect(calls).toBe(1);
  });
});

describe('Retry-After parsing', () => {
  it('reads seconds and HTTP dates', () => {
    expect(retryAfterMs('2')).toBe(2000);
    expect(retryAfterMs(null)).toBeNull();
    expect(retryAfterMs('soon')).toBeNull();
    const now = Date.parse('2026-11-22T10:00:00Z');
    expect(retryAfterMs('Sun, 22 Nov 2026 10:00:03 GMT', now)).toBe(3000);
  });
});
