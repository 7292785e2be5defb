/**
 * The search and detail routes through the real app (auth, validation and the rest of the
 * /rest/v1 chain in front), on the real engine: response shapes, 400s naming the field, the
 * detail endpoint after the searchable copy is gone, 404, and 503 when OpenSearch is away.
 */
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, keyStoreFor } from '../../src/auth/key-admin.js';
import { createApp } from '../../src/http/app.js';
import { openCreditLedger } from '../../src/limits/open-credit-ledger.js';
import { createEngine } from '../../src/opensearch/engine.js';
import type { Services } from '../../src/services.js';
import { corporate, daysAgo, indexFixture, job, posting } from '../fixtures/search/docs.js';
import { setUpServices } from '../support/env.js';

let services: Services;
let app: ReturnType<typeof createApp>;

const acme = corporate({
  name: 'アクメ株式会社',
  summary: '物流とITの会社',
  prefectureId: 13,
  markets: [{ code: 'tse_prime', exchangeCode: 'tse', name: '東証プライム' }],
  paidMedias: [{ mediaId: 3, mediaName: '求人ボックス' }],
  workLocationCount: 2,
  postings: [posting({ mediaId: 3 })],
  aggregates: { postingCount: 1 },
  updatedAt: '2026-11-01T00:00:00Z',
});
const acmeJob = job({
  corporateNumber: acme.corporateNumber,
  corporateName: 'アクメ株式会社',
  title: '倉庫スタッフ',
  mediaId: 3,
  salaryMin: 250_000,
  workLocation: { kind: 'office', prefectureId: 13 },
  description: '<b>未経験</b>歓迎の倉庫スタッフ',
  descriptionCollectedAt: daysAgo(2),
});
const detailOnly = {
  id: 'rolled-off-1',
  corporateNumber: acme.corporateNumber,
  description: '一年前の本文 <i>',
  descriptionCollectedAt: '2025-01-10T00:00:00Z',
};

let lastUser = '';

/** A fresh user and key per test (the rate limit is per user), with credits to spend. */
async function newKey(): Promise<string> {
  const userId = `u-${Math.random().toString(36).slice(2)}`;
  lastUser = userId;
  const { key } = await createApiKey(keyStoreFor(services.redis, services.config.redisPrefix), { userId });
  const { ledger, close } = openCreditLedger(services.config);
  await ledger.grant(userId, 100);
  await close();
  return key;
}

beforeAll(async () => {
  services = await setUpServices('search-routes');
  app = createApp(services);
  await indexFixture(services.opensearch, services.config.indexPrefix, {
    corporates: [acme],
    jobs: [acmeJob],
    jobDetails: [
      {
        id: acmeJob.id,
        corporateNumber: acme.corporateNumber,
        description: acmeJob.description,
        descriptionCollectedAt: acmeJob.descriptionCollectedAt,
      },
      detailOnly,
    ],
  });
});
afterAll(async () => {
  await services?.close();
});

describe('POST /rest/v1/corporates/search', () => {
  it('returns the Corporate record with every field, nulls for absent ones', async () => {
    const res = await request(app)
      .post('/rest/v1/corporates/search')
      .set('X-API-Key', await newKey())
      .send({ filters: { corporateName: { anyContains: ['アクメ'] } } })
      .expect(200);
    expect(res.body.totalResults).toBe(1);
    const [record] = res.body.results;
    expect(record).toMatchObject({
      corporateNumber: acme.corporateNumber,
      name: 'アクメ株式会社',
      summary: '物流とITの会社',
      prefectureId: 13,
      markets: [{ code: 'tse_prime', exchangeCode: 'tse', name: '東証プライム' }],
      paidMedias: [{ mediaId: 3, mediaName: '求人ボックス' }],
      workLocationCount: 2,
      furigana: null,
      businessCategoryId: null,
      totalAdCost: null,
    });
    expect(record).not.toHaveProperty('postings');
    expect(record).not.toHaveProperty('aggregates');
    // the change-feed timestamp is part of the record
    expect(record.updatedAt).toBe('2026-11-01T00:00:00Z');
  });

  it('refuses an unknown field with 400 naming it', async () => {
    const res = await request(app)
      .post('/rest/v1/corporates/search')
      .set('X-API-Key', await newKey())
      .send({ prefectureIdOr: [13], colour: 'red' })
      .expect(400);
    expect(res.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'colour' })]));
  });

  it('serves a page past the result window (empty past the end) with the exact total', async () => {
    const key = await newKey();
    const all = await request(app)
      .post('/rest/v1/corporates/search')
      .set('X-API-Key', key)
      .send({})
      .expect(200);
    const res = await request(app)
      .post('/rest/v1/corporates/search')
      .set('X-API-Key', key)
      .send({ offset: 9500, limit: 1000 })
      .expect(200);
    expect(res.body).toEqual({ totalResults: all.body.totalResults, results: [] });
  });

  it('pages by cursor: nextCursor on each page, null on the last', async () => {
    const key = await newKey();
    const first = await request(app)
      .post('/rest/v1/corporates/search')
      .set('X-API-Key', key)
      .send({ cursor: '*', limit: 1 })
      .expect(200);
    expect(first.body.results).toHaveLength(1);
    const ids = [first.body.results[0].corporateNumber];
    let cursor: string | null = first.body.nextCursor;
    while (cursor) {
      const page = await request(app)
        .post('/rest/v1/corporates/search')
        .set('X-API-Key', key)
        .send({ cursor, limit: 1 })
        .expect(200);
      ids.push(...page.body.results.map((r: { corporateNumber: string }) => r.corporateNumber));
      cursor = page.body.nextCursor;
    }
    expect(ids).toHaveLength(first.body.totalResults);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe('POST /rest/v1/jobs/search', () => {
  it('returns the Job record with snippets and without the internal fields', async () => {
    const res = await request(app)
      .post('/rest/v1/jobs/search')
      .set('X-API-Key', await newKey())
      .send({ jobDescriptionPartialMatchOr: ['未経験'], includeTotalResults: false })
      .expect(200);
    expect(res.body.totalResults).toBeNull();
    const [record] = res.body.results;
    expect(record).toMatchObject({
      id: acmeJob.id,
      corporateNumber: acme.corporateNumber,
      corporateName: 'アクメ株式会社',
      title: '倉庫スタッフ',
      mediaId: 3,
      salaryMin: 250_000,
      salaryMax: null,
      jobPostingUrl: null,
      workLocation: { kind: 'office', prefectureId: 13, cityName: null, address: null },
    });
    expect(record.descriptionSnippets).toEqual([
      '&lt;b&gt;<mark>未経験</mark>&lt;&#x2F;b&gt;歓迎の倉庫スタッフ',
    ]);
    for (const internal of ['description', 'descriptionCollectedAt', 'corporate'])
      expect(record).not.toHaveProperty(internal);
    expect(record).toHaveProperty('updatedAt', null);
  });
});

describe('GET /rest/v1/jobs/:jobId/detail', () => {
  it('returns the full text', async () => {
    const res = await request(app)
      .get(`/rest/v1/jobs/${acmeJob.id}/detail`)
      .set('X-API-Key', await newKey())
      .expect(200);
    expect(res.body).toEqual({
      id: acmeJob.id,
      corporateNumber: acme.corporateNumber,
      description: '<b>未経験</b>歓迎の倉庫スタッフ',
      descriptionCollectedAt: acmeJob.descriptionCollectedAt,
    });
  });

  it('still answers after the searchable copy is gone', async () => {
    const key = await newKey();
    const search = await request(app)
      .post('/rest/v1/jobs/search')
      .set('X-API-Key', key)
      .send({ filters: { corporateNumber: { any: [acme.corporateNumber] } } })
      .expect(200);
    expect(search.body.results.map((r: { id: string }) => r.id)).not.toContain('rolled-off-1');
    const res = await request(app).get('/rest/v1/jobs/rolled-off-1/detail').set('X-API-Key', key).expect(200);
    expect(res.body).toEqual(detailOnly);
  });

  it('is 404 in the error shape for an unknown id', async () => {
    const res = await request(app)
      .get('/rest/v1/jobs/no-such-job/detail')
      .set('X-API-Key', await newKey())
      .expect(404);
    expect(res.body).toEqual({
      message: expect.stringContaining('not found'),
      code: 'not_found',
      requestId: res.headers['x-request-id'],
      docUrl: '/docs/errors#not_found',
    });
  });
});

describe('when OpenSearch is unreachable', () => {
  it('answers 503 with Retry-After and no engine text', async () => {
    const down = { ...services, opensearch: createEngine('http://127.0.0.1:1') };
    const downApp = createApp(down);
    const key = await newKey();
    for (const call of [
      request(downApp).post('/rest/v1/corporates/search').set('X-API-Key', key).send({}),
      request(downApp).post('/rest/v1/jobs/search').set('X-API-Key', key).send({}),
      request(downApp).get('/rest/v1/jobs/x/detail').set('X-API-Key', key),
    ]) {
      const res = await call;
      expect(res.status).toBe(503);
      expect(res.headers['retry-after']).toMatch(/^\d+$/);
      expect(Object.keys(res.body)).toEqual(['message', 'code', 'requestId', 'docUrl']);
      expect(res.text).not.toMatch(/ECONNREFUSED|ConnectionError|127\.0\.0\.1/);
    }
    // a search the engine could not answer costs nothing
    const { ledger, close } = openCreditLedger(services.config);
    expect(await ledger.balance(lastUser)).toBe(100);
    await close();
    await down.opensearch.close();
  });
});
