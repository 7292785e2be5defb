/**
 * The seven master endpoints through the real app: the data files' items, in the shape
 * openapi.yaml documents; cacheable by the caller only (private, max-age=86400, Vary: X-API-Key, strong ETag, 304); a key required; free
 * (no credits, no rate limit: a burst far above 5 per second all succeed).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv } from 'ajv';
import express from 'express';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { createApiKey, keyStoreFor } from '../../src/auth/key-admin.js';
import { createApp } from '../../src/http/app.js';
import { mastersRouter } from '../../src/http/routes/masters.js';
import { openApiFile } from '../../src/http/validation.js';
import { registry } from '../../src/metrics.js';
import type { Services } from '../../src/services.js';
import { setUpServices } from '../support/env.js';

/** The seven master endpoints the API documents, listed here rather than taken from src/masters. */
const masterNames = [
  'prefectures',
  'industries',
  'business-types',
  'media',
  'job-categories',
  'markets',
  'employment-types',
  'government-bodies',
  'certification-kinds',
  'award-kinds',
] as const;

/** A data file's items, read straight from data/masters/ (not through the product's reader). */
function fileItems(name: string): unknown[] {
  const file = path.resolve(import.meta.dirname, '..', '..', 'data', 'masters', `${name}.json`);
  return (JSON.parse(readFileSync(file, 'utf8')) as { items: unknown[] }).items;
}

let services: Services;
let app: ReturnType<typeof createApp>;
let key: string;

const spec = parse(readFileSync(openApiFile, 'utf8')) as {
  paths: Record<
    string,
    { get: { responses: { '200': { content: { 'application/json': { schema: object } } } } } }
  >;
};
const ajv = new Ajv({ strict: false, allErrors: true });
ajv.addSchema(spec as object, 'openapi');

beforeAll(async () => {
  services = await setUpServices('masters');
  ({ key } = await createApiKey(keyStoreFor(services.redis, services.config.redisPrefix), {
    userId: 'u-masters',
  }));
  app = createApp(services);
});
afterAll(async () => {
  await services.close();
});

function get(path: string) {
  return request(app).get(path).set('X-API-Key', key);
}

describe.each(masterNames)('GET /rest/v1/master/%s', (name) => {
  it('returns the data file items, in the documented shape, cacheable for a day', async () => {
    const res = await get(`/rest/v1/master/${name}`).expect(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['cache-control']).toBe('private, max-age=86400');
    expect(res.headers.vary).toBe('X-API-Key');
    expect(res.headers.etag).toMatch(/^"[A-Za-z0-9_-]{32}"$/);
    expect(res.body).toEqual(fileItems(name));
    expect(res.body.length).toBeGreaterThan(0);
    const validate = ajv.compile({
      $ref: `openapi#/paths/~1master~1${name}/get/responses/200/content/application~1json/schema`,
    });
    expect(validate(res.body), JSON.stringify(validate.errors)).toBe(true);
  });

  it('answers 304 with no body to a matching If-None-Match, 200 to another', async () => {
    const first = await get(`/rest/v1/master/${name}`).expect(200);
    const etag = first.headers.etag as string;
    const again = await get(`/rest/v1/master/${name}`).set('If-None-Match', etag).expect(304);
    expect(again.text).toBe('');
    expect(again.headers.etag).toBe(etag);
    expect(again.headers['cache-control']).toBe('private, max-age=86400');
    expect(again.headers.vary).toBe('X-API-Key');
    await get(`/rest/v1/master/${name}`).set('If-None-Match', `W/${etag}, "other"`).expect(304);
    await get(`/rest/v1/master/${name}`).set('If-None-Match', '"stale"').expect(200);
  });

  it('needs a key', async () => {
    await request(app).get(`/rest/v1/master/${name}`).expect(401);
  });
});

describe('master contents', () => {
  it('prefectures: JIS codes 1..47 in order', async () => {
    const res = await get('/rest/v1/master/prefectures').expect(200);
    expect(res.body.map((p: { id: number }) => p.id)).toEqual(Array.from({ length: 47 }, (_, i) => i + 1));
    expect(res.body[12]).toMatchObject({ id: 13, name: '東京都' });
    expect(res.body[46]).toMatchObject({ id: 47, name: '沖縄県' });
  });

  it('industries, job categories and business types: major classes with subCategories', async () => {
    for (const name of ['industries', 'job-categories', 'business-types']) {
      const res = await get(`/rest/v1/master/${name}`).expect(200);
      for (const major of res.body) {
        expect(major.subCategories.length, `${name} ${major.id}`).toBeGreaterThan(0);
      }
    }
    const industries = await get('/rest/v1/master/industries').expect(200);
    expect(industries.body).toHaveLength(20);
    expect(industries.body.flatMap((d: { subCategories: unknown[] }) => d.subCategories)).toHaveLength(99);
  });

  it('markets: by code, with the contract exchange codes', async () => {
    const res = await get('/rest/v1/master/markets').expect(200);
    const codes = res.body.map((m: { code: string }) => m.code);
    expect(new Set(codes).size).toBe(codes.length);
    expect(codes).toContain('tse_prime');
    for (const market of res.body) expect(['tse', 'nse', 'fse', 'sse']).toContain(market.exchangeCode);
  });
});

describe('the masters handler (one lookup by path, the stored body written as it is)', () => {
  it('answers as the Express routes it replaced: JSON with its length, HEAD without a body; only the exact spelling (test/http/path-spellings.test.ts)', async () => {
    const res = await get('/rest/v1/master/markets').expect(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(Number(res.headers['content-length'])).toBe(Buffer.byteLength(res.text));
    expect(JSON.parse(res.text)).toEqual(fileItems('markets'));
    const head = await request(app).head('/rest/v1/master/markets').set('X-API-Key', key).expect(200);
    expect(head.text ?? '').toBe('');
    expect(head.headers['content-length']).toBe(res.headers['content-length']);
    expect(head.headers.etag).toBe(res.headers.etag);
    await get('/rest/v1/Master/Markets').expect(404);
    await get('/rest/v1/master/markets/').expect(404);
    await get('/rest/v1/master/markets//').expect(404);
    await get('/rest/v1/master/unknown').expect(404);
    await request(app).post('/rest/v1/master/markets').set('X-API-Key', key).expect(405);
  });

  it('is counted in the metrics under its route template', async () => {
    await get('/rest/v1/master/media').expect(200);
    expect(await registry.metrics()).toMatch(
      /corpsearch_http_requests_total\{method="GET",route="\/rest\/v1\/master\/media",status="200"\} \d+/,
    );
  });
});

describe('masters are free and unlimited', () => {
  it('50 requests at once all succeed, with no credit or rate-limit headers, and cost nothing', async () => {
    await services.limits.ledger.grant('u-masters', 3);
    const responses = await Promise.all(Array.from({ length: 50 }, () => get('/rest/v1/master/media')));
    expect(responses.map((res) => res.status)).toEqual(Array(50).fill(200));
    for (const res of responses) {
      expect(res.headers['x-credits-remaining']).toBeUndefined();
      expect(res.headers['x-ratelimit-limit']).toBeUndefined();
    }
    expect(await services.limits.ledger.balance('u-masters')).toBe(3);
  });
});

describe('the masters handler alone', () => {
  // the route table only hands it the master lists' own paths; anything else it is given (a
  // path it does not serve, another method) goes on to the next step untouched
  it.each([
    ['GET', '/master/unknown-list'],
    ['POST', '/master/prefectures'],
    ['GET', '/corporates/search'],
  ])('%s %s goes on to the next step', async (method, path) => {
    const handler = mastersRouter();
    const steps = express();
    steps.use(handler);
    steps.use((_req, res) => {
      res.status(299).json({ passedOn: true });
    });
    const res = await request(steps)[method === 'GET' ? 'get' : 'post'](path);
    expect(res.status).toBe(299);
    expect(res.body).toEqual({ passedOn: true });
    expect(res.headers['cache-control']).toBeUndefined();
  });

  it('GET /master/prefectures is answered by it, with its ETag', async () => {
    const steps = express();
    steps.use(mastersRouter());
    const res = await request(steps).get('/master/prefectures');
    expect(res.status).toBe(200);
    expect(res.headers.etag).toMatch(/^"[A-Za-z0-9_-]{32}"$/);
    expect(res.body).toEqual(fileItems('prefectures'));
  });
});
