/**
 * Every answer of a rate-limited or charged operation carries `Cache-Control: no-store`, its
 * errors included (401, 400, 402, 404, 429), and the masters keep their day of caching. The
 * operations come from the one table (src/catalogue/operations.ts), so an operation added
 * there is tested here without a line changed.
 */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, keyStoreFor } from '../../src/auth/key-admin.js';
import { operations } from '../../src/catalogue/operations.js';
import { defaultConfig } from '../../src/config.js';
import { createApp } from '../../src/http/app.js';
import { createLimits } from '../../src/limits/limits.js';
import type { Services } from '../../src/services.js';
import { corporate, indexFixture, job } from '../fixtures/search/docs.js';
import { setUpServices } from '../support/env.js';

let services: Services;
let app: ReturnType<typeof createApp>;
let rich = '';
let broke = '';
let matchJobId = '';
/** Saved searches of `rich`: one the operations read, one the delete removes. */
let savedId = '';
let deletableId = '';
/** Webhooks of `rich` on the first: one the operations read, one the delete removes. */
let webhookId = '';
let deletableWebhookId = '';

const company = corporate({ name: 'キャッシュ商事', prefectureId: 13 });
const posting = job({ corporateNumber: company.corporateNumber, title: '営業' });

// the reconciliation endpoints take a form and their own parameters: their no-store is
// test/reconcile/reconcile.test.ts's (the manifest's too, as it may carry the key)
const native = operations.filter((operation) => !operation.path.startsWith('/reconcile'));
const limited = native.filter((operation) => operation.limit);
const unlimited = native.filter((operation) => !operation.limit);

function send(
  target: ReturnType<typeof createApp>,
  operation: (typeof operations)[number],
  opts: { key?: string; body?: unknown; jobId?: string } = {},
) {
  const query = operation.limit === 'suggest' ? '?q=%E3%82%AD%E3%83%A3' : '';
  // a match job's operations name the job the test made (beforeAll)
  const id = opts.jobId ?? (operation.limit === 'matchJob' ? matchJobId : (posting.id as string));
  const saved = opts.jobId ?? (operation.method === 'DELETE' ? deletableId : savedId);
  const hook = opts.jobId ?? (operation.method === 'DELETE' ? deletableWebhookId : webhookId);
  const path = `/rest/v1${operation.path
    .replace('{jobId}', id)
    .replace('{savedSearchId}', saved)
    .replace('{webhookId}', hook)}${query}`;
  const req =
    operation.method === 'GET'
      ? request(target).get(path)
      : operation.method === 'DELETE'
        ? request(target).delete(path)
        : request(target).post(path);
  if (opts.key) req.set('X-API-Key', opts.key);
  // a match job's upload is a CSV
  if (
    operation.limit === 'matchJob' &&
    operation.method === 'POST' &&
    !operation.path.includes('{') &&
    !opts.body
  )
    return req.set('Content-Type', 'text/csv').send('name\nキャッシュ商事\n');
  // a resume and a rotation take no body
  if (
    (operation.limit === 'matchJob' || operation.limit === 'webhook') &&
    operation.method === 'POST' &&
    !opts.body
  )
    if (operation.path !== '/webhooks') return req;
  // an export sends every result: it takes no `limit`
  const body =
    opts.body ??
    (operation.limit === 'export'
      ? {}
      : operation.limit === 'match'
        ? { records: [{ name: 'キャッシュ商事' }] }
        : operation.limit === 'savedSearch'
          ? { name: 'キャッシュ', search: 'corporates', body: {} }
          : operation.limit === 'webhook'
            ? { savedSearchId: savedId, url: 'https://hooks.example.jp/cache' }
            : { limit: 1 });
  return operation.method === 'POST' ? req.send(body as object) : req;
}

async function newKey(credits: number): Promise<string> {
  const userId = `cc-${Math.random().toString(36).slice(2, 10)}`;
  const { key } = await createApiKey(keyStoreFor(services.redis, services.config.redisPrefix), { userId });
  if (credits > 0) await services.limits.ledger.grant(userId, credits);
  return key;
}

beforeAll(async () => {
  // many requests per user in quick succession: the 429 has its own test below
  services = await setUpServices('cache-control', {
    limits: { ...defaultConfig().limits, ratePerSecond: 10_000 },
    matchJobs: {
      ...defaultConfig().matchJobs,
      dir: mkdtempSync(path.join(os.tmpdir(), 'cache-control-jobs-')),
    },
  });
  app = createApp(services);
  await indexFixture(services.opensearch, services.config.indexPrefix, {
    corporates: [company],
    jobs: [posting],
    jobDetails: [{ id: posting.id, corporateNumber: company.corporateNumber, description: '本文' }],
  });
  rich = await newKey(1000);
  broke = await newKey(0);
  const created = await request(app)
    .post('/rest/v1/corporates/match-jobs')
    .set('X-API-Key', rich)
    .set('Content-Type', 'text/csv')
    .send('name\nキャッシュ商事\n');
  matchJobId = created.body.id;
  const save = () =>
    request(app)
      .post('/rest/v1/saved-searches')
      .set('X-API-Key', rich)
      .send({ name: 'キャッシュ', search: 'corporates', body: {} });
  savedId = (await save()).body.id;
  deletableId = (await save()).body.id;
  const subscribe = () =>
    request(app)
      .post('/rest/v1/webhooks')
      .set('X-API-Key', rich)
      .send({ savedSearchId: savedId, url: 'https://hooks.example.jp/cache' });
  webhookId = (await subscribe()).body.id;
  deletableWebhookId = (await subscribe()).body.id;
});
afterAll(async () => {
  await services?.close();
});

describe('Cache-Control: no-store on every limited operation', () => {
  it('the table has the limited operations this test expects to see', () => {
    expect(limited.map((operation) => operation.limit).sort()).toEqual(
      [
        'count',
        'count',
        'detail',
        'export',
        'export',
        'match',
        'search',
        'search',
        'suggest',
        ...Array(6).fill('matchJob'),
        ...Array(4).fill('savedSearch'),
        'changes',
        ...Array(7).fill('webhook'),
        'usage',
        'usage',
      ].sort(),
    );
  });

  it.each(limited.map((operation) => [`${operation.method} ${operation.path}`, operation] as const))(
    '%s: success, 401, 400, 402 or 404',
    async (_name, operation) => {
      const answers = [
        await send(app, operation, { key: rich }),
        await send(app, operation),
        await send(app, operation, { key: rich, body: { notAField: 1 } }),
        await send(app, operation, { key: broke, jobId: 'no-such-job' }),
      ];
      const statuses = answers.map((res) => res.status);
      // a match job's upload answers 202 (queued)
      const upload = operation.method === 'POST' && operation.path === '/corporates/match-jobs';
      // a saved search's creation answers 201, its deletion 204 (a rotation or an enable: 200)
      const saving =
        (operation.limit === 'savedSearch' || operation.limit === 'webhook') &&
        operation.method !== 'GET' &&
        !operation.path.endsWith('/rotate-secret') &&
        !operation.path.endsWith('/enable');
      expect(statuses[0]).toBe(upload ? 202 : saving ? (operation.method === 'POST' ? 201 : 204) : 200);
      expect(statuses[1]).toBe(401);
      if (operation.method === 'POST') expect(statuses[2]).toBe(400);
      if (['search', 'export', 'match', 'changes'].includes(operation.limit ?? ''))
        expect(statuses[3]).toBe(402);
      if (operation.limit === 'detail') expect(statuses[3]).toBe(404);
      for (const res of answers) expect(res.headers['cache-control'], `${res.status}`).toBe('no-store');
    },
  );

  it('a 429 too', async () => {
    const strict = createApp({
      ...services,
      limits: createLimits({
        redis: services.redis,
        keyPrefix: services.config.redisPrefix,
        config: { ratePerSecond: 1, suggestRatePerSecond: 1, usageRatePerSecond: 1 },
      }),
    });
    const key = await newKey(10);
    for (const operation of limited) {
      const answers = await Promise.all([send(strict, operation, { key }), send(strict, operation, { key })]);
      expect(answers.map((res) => res.status)).toContain(429);
      for (const res of answers) expect(res.headers['cache-control']).toBe('no-store');
    }
  });

  it('the masters keep a day of private caching', async () => {
    expect(unlimited.length).toBeGreaterThan(0);
    for (const operation of unlimited) {
      const res = await send(app, operation, { key: rich });
      expect(res.status).toBe(200);
      expect(res.headers['cache-control']).toBe('private, max-age=86400');
    }
  });
});
