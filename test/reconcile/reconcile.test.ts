/**
 * The W3C Reconciliation Service API 0.2 under /rest/v1/reconcile (docs/reconciliation.md)
 * through the real app on the real engine and Redis, over the companies of
 * test/fixtures/match/companies.ts: every answer validated against the specification's own
 * JSON Schemas (test/fixtures/reconciliation/, copied unchanged), the batch charged as a match
 * (per certain match) and rate limited, the key taken from `?apiKey=` and never written to a
 * log line.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLimits, type Limits } from '../../src/limits/limits.js';
import { createLogger } from '../../src/logger.js';
import type { Services } from '../../src/services.js';
import { companies, indexCompanies, numberOf } from '../fixtures/match/companies.js';
import { setUpServices } from '../support/env.js';
import { startLimitsTestApp, type TestApp, userHeaders } from '../support/limits-test-app.js';

// ajv-formats is CommonJS: its default export is the module object (as src/search/parse-request.ts)
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;
const schemaDir = path.join(import.meta.dirname, '..', 'fixtures', 'reconciliation');
const ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false });
addFormats(ajv);
for (const name of [
  'type',
  'openapi',
  'manifest',
  'reconciliation-query-batch',
  'reconciliation-result-batch',
  'suggest-entities-response',
  'suggest-properties-response',
]) {
  const schema = JSON.parse(readFileSync(path.join(schemaDir, `${name}.json`), 'utf8')) as Record<
    string,
    unknown
  >;
  // "http://json-schema.org/schema#" names no draft ajv knows; the keywords are draft-07's
  delete schema.$schema;
  ajv.addSchema(schema, name);
}
function schema(name: string): ValidateFunction {
  const validate = ajv.getSchema(name);
  if (!validate) throw new Error(`no schema ${name}`);
  return validate;
}

/** Passes when the value is valid against the spec's schema; shows ajv's errors when not. */
function expectValid(name: string, value: unknown): void {
  const validate = schema(name);
  const valid = validate(value);
  expect(valid ? [] : validate.errors, name).toEqual([]);
}

const numbers = Object.fromEntries(
  Object.entries(companies).map(([key, company]) => [key, company.corporateNumber]),
) as Record<keyof typeof companies, string>;

let services: Services;
let limits: Limits;
let app: TestApp;
/** Its own limits: 2 requests per user per (widened) window. */
let narrow: TestApp;
const lines: string[] = [];
const sink = new Writable({
  write(chunk, _encoding, done) {
    lines.push(String(chunk));
    done();
  },
});

beforeAll(async () => {
  services = await setUpServices('reconcile');
  limits = createLimits({
    redis: services.redis,
    keyPrefix: services.config.redisPrefix,
    config: { ratePerSecond: 1_000_000, searchCost: 2, matchCost: 1 },
  });
  await indexCompanies(services.opensearch, services.config.indexPrefix);
  const deps = { opensearch: services.opensearch, indexPrefix: services.config.indexPrefix, seed: false };
  app = await startLimitsTestApp({ ...deps, limits, logger: createLogger('info', sink) });
  const narrowLimits = createLimits({
    redis: services.redis,
    keyPrefix: `${services.config.redisPrefix}narrow:`,
    config: { ratePerSecond: 2, rateWindowSeconds: 60, searchCost: 1, matchCost: 1 },
  });
  narrow = await startLimitsTestApp({ ...deps, limits: narrowLimits });
  await limits.ledger.grant('reconciler', 1_000);
  await narrowLimits.ledger.grant('narrow-reconciler', 1_000);
});
afterAll(async () => {
  await Promise.all([app?.close(), narrow?.close()]);
  await services?.close();
});

async function keyOf(user: string): Promise<string> {
  return (await userHeaders(user))['x-api-key'] as string;
}

/** POST /rest/v1/reconcile as OpenRefine sends it: a form, the key in the service URL. */
async function reconcile(
  queries: unknown,
  opts: { user?: string; target?: TestApp; raw?: string } = {},
): Promise<{ status: number; headers: Headers; body: Record<string, unknown> }> {
  const key = await keyOf(opts.user ?? 'reconciler');
  const res = await fetch(`${(opts.target ?? app).url}/rest/v1/reconcile?apiKey=${encodeURIComponent(key)}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: opts.raw ?? new URLSearchParams({ queries: JSON.stringify(queries) }).toString(),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
}

interface Candidate {
  id: string;
  name: string;
  score: number;
  match: boolean;
  features: unknown[];
  type: Array<{ id: string }>;
}
const resultOf = (body: Record<string, unknown>, key: string) =>
  (body[key] as { result: Candidate[] }).result;

describe('the manifest', () => {
  it('is free to read without a key, and valid against the spec', async () => {
    const res = await fetch(`${app.url}/rest/v1/reconcile`);
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    const manifest = (await res.json()) as Record<string, unknown>;
    expectValid('manifest', manifest);
    expect(manifest.versions).toEqual(['0.2']);
    expect(manifest.defaultTypes).toEqual([{ id: 'Corporation', name: expect.any(String) }]);
    expect(manifest.preview).toMatchObject({ url: `${app.url}/rest/v1/reconcile/preview?id={{id}}` });
    expect(manifest.suggest).toMatchObject({
      entity: { service_url: `${app.url}/rest/v1/reconcile`, service_path: '/suggest/entity' },
    });
    expect(manifest.authentication).toEqual(
      expect.objectContaining({ type: 'apiKey', in: 'query', name: 'apiKey' }),
    );
  });

  it('carries a valid key of the service URL into the suggest and preview URLs; a wrong key is a 401', async () => {
    const key = await keyOf('reconciler');
    const res = await fetch(`${app.url}/rest/v1/reconcile?apiKey=${encodeURIComponent(key)}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const manifest = (await res.json()) as {
      preview: { url: string };
      suggest: { entity: { service_path: string } };
    };
    expectValid('manifest', manifest);
    expect(manifest.preview.url).toBe(
      `${app.url}/rest/v1/reconcile/preview?apiKey=${encodeURIComponent(key)}&id={{id}}`,
    );
    expect(manifest.suggest.entity.service_path).toBe(`/suggest/entity?apiKey=${encodeURIComponent(key)}`);
    // behind a proxy that ends TLS, the URLs say https; an empty apiKey is no key
    const proxied = await fetch(`${app.url}/rest/v1/reconcile?apiKey=`, {
      headers: { 'x-forwarded-proto': 'https' },
    });
    expect(proxied.status).toBe(200);
    const host = new URL(app.url).host;
    expect(((await proxied.json()) as { preview: { url: string } }).preview.url).toBe(
      `https://${host}/rest/v1/reconcile/preview?id={{id}}`,
    );
    // a valid header beside a query key vouches for nothing in the query: not repeated
    const beside = await fetch(`${app.url}/rest/v1/reconcile?apiKey=csk_made-up`, {
      headers: { 'x-api-key': key },
    });
    expect(beside.status).toBe(200);
    expect(await beside.text()).not.toContain('csk_made-up');
    // a batch in the URL is not taken: the POST is
    const inUrl = await fetch(`${app.url}/rest/v1/reconcile?queries=%7B%7D`);
    expect(inUrl.status).toBe(400);
    expect(((await inUrl.json()) as { errors: Array<{ field: string }> }).errors[0]?.field).toBe('queries');
    const wrong = await fetch(`${app.url}/rest/v1/reconcile?apiKey=csk_not-a-key`);
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).not.toContain('csk_not-a-key');
  });
});

describe('a query batch', () => {
  it('answers each query by its key: the match true only on the matcher’s match, valid against the spec', async () => {
    const queries = {
      q0: { query: '㈱マルカ物流', type: 'Corporation', limit: 3 },
      q1: { query: 'サクラ精機' },
      q2: { query: 'まるか物流さーびす' },
    };
    expectValid('reconciliation-query-batch', queries);
    const { status, headers, body } = await reconcile(queries);
    expect(status).toBe(200);
    expectValid('reconciliation-result-batch', body);
    expect(Object.keys(body).sort()).toEqual(['q0', 'q1', 'q2']);
    const [first] = resultOf(body, 'q0');
    expect(first).toMatchObject({
      id: numbers.maruka,
      name: companies.maruka.name,
      type: [{ id: 'Corporation' }],
      match: true,
    });
    // the matcher's confidence x 100: a match is at least the default minConfidence
    expect(first?.score).toBeGreaterThanOrEqual(90);
    expect(first?.features).toContainEqual({ id: 'nameKey', value: true });
    // two of that name: candidates, neither a match, scores 0-100 best first
    const sakura = resultOf(body, 'q1');
    expect(sakura.map((c) => c.id).sort()).toEqual([numbers.sakuraTokyo, numbers.sakuraOsaka].sort());
    expect(sakura.some((c) => c.match)).toBe(false);
    for (const candidate of sakura) expect(candidate.score).toBeGreaterThan(0);
    for (const candidate of sakura) expect(candidate.score).toBeLessThan(100);
    expect(headers.get('x-credits-charged')).not.toBeNull();
  });

  it('properties narrow: a prefecture as typed (大阪, Tokyo, 13) singles one out', async () => {
    const { status, body } = await reconcile({
      osaka: { query: 'サクラ精機', properties: [{ pid: 'prefecture', v: '大阪' }] },
      tokyo: { query: 'サクラ精機', properties: [{ pid: 'prefecture', v: 'Tokyo' }] },
      code: { query: 'サクラ精機', properties: [{ pid: 'prefecture', v: 13 }] },
      phone: { query: 'アオイ工業', properties: [{ pid: 'phone', v: '(03) 3333 4444' }] },
      address: { query: 'アオイ工業', properties: [{ pid: 'address', v: '東京都渋谷区道玄坂1-2-3' }] },
      number: { query: 'どこかの会社', properties: [{ pid: 'corporateNumber', v: numbers.nova }] },
      website: {
        query: 'nova systems',
        properties: [{ pid: 'website', v: 'http://nova-systems.example.jp' }],
      },
    });
    expect(status).toBe(200);
    expectValid('reconciliation-result-batch', body);
    const matchOf = (key: string) => resultOf(body, key).find((c) => c.match)?.id;
    expect(matchOf('osaka')).toBe(numbers.sakuraOsaka);
    expect(matchOf('tokyo')).toBe(numbers.sakuraTokyo);
    expect(matchOf('code')).toBe(numbers.sakuraTokyo);
    expect(matchOf('phone')).toBe(numbers.aoiNerima);
    expect(matchOf('address')).toBe(numbers.aoiShibuya);
    expect(matchOf('number')).toBe(numbers.nova);
    expect(matchOf('website')).toBe(numbers.nova);
  });

  it('limit caps the candidates of its query', async () => {
    const { body } = await reconcile({
      one: { query: 'サクラ精機', limit: 1 },
      two: { query: 'サクラ精機' },
    });
    expect(resultOf(body, 'one')).toHaveLength(1);
    expect(resultOf(body, 'two')).toHaveLength(2);
  });

  it('bad input is a 400 naming each field and why, in the API’s error format, no stack', async () => {
    const { status, body } = await reconcile({
      q0: { query: 'マルカ物流', properties: [{ pid: 'capital', v: '1' }] },
      q1: { query: '', limit: 0 },
      q2: { query: 'x', type: 'Person' },
      q3: { query: 'x', properties: [{ pid: 'prefecture', v: 'Atlantis' }] },
      q4: { query: 'x', extra: true },
    });
    expect(status).toBe(400);
    expect(body.code).toBe('invalid_request');
    const fields = (body.errors as Array<{ field: string; reason: string }>).map((e) => e.field);
    expect(fields).toEqual(
      expect.arrayContaining([
        'queries.q0.properties[0].pid',
        'queries.q1.query',
        'queries.q1.limit',
        'queries.q2.type',
        'queries.q3.properties[0].v',
        'queries.q4.extra',
      ]),
    );
    for (const error of body.errors as Array<{ reason: string }>) expect(error.reason).not.toBe('');
    expect(JSON.stringify(body)).not.toMatch(/at \w+ \(|\.ts:\d+/);
    const notJson = await reconcile(undefined, { raw: 'queries=%7Bnot json' });
    expect(notJson.status).toBe(400);
    expect(notJson.body.errors).toEqual([{ field: 'queries', reason: expect.stringContaining('JSON') }]);
    const missing = await reconcile(undefined, { raw: 'other=1' });
    expect(missing.status).toBe(400);
    expect(JSON.stringify(missing.body.errors)).toContain('queries');
  });

  it('a JSON body is a 415 (the spec sends a form); more than 100 queries a 400', async () => {
    const key = await keyOf('reconciler');
    const res = await fetch(`${app.url}/rest/v1/reconcile`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify({ queries: { q0: { query: 'x' } } }),
    });
    expect(res.status).toBe(415);
    const many = Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`q${i}`, { query: 'x' }]));
    const { status, body } = await reconcile(many);
    expect(status).toBe(400);
    expect(body.errors).toEqual([{ field: 'queries', reason: expect.stringContaining('100') }]);
  });
});

describe('charged and limited as a match', () => {
  it('costs MATCH_CREDIT_COST per certain match, nothing for the rest', async () => {
    await limits.ledger.grant('payer', 10);
    const { status, headers } = await reconcile(
      {
        sure: { query: '㈱マルカ物流' },
        alsoSure: { query: 'nova systems' },
        unsure: { query: 'アオイ工業' },
        none: { query: 'どこにもない会社' },
      },
      { user: 'payer' },
    );
    expect(status).toBe(200);
    expect(headers.get('x-credits-charged')).toBe('2');
    expect(headers.get('x-credits-remaining')).toBe('8');
  });

  it('a balance below one credit per query is a 402, nothing run', async () => {
    await limits.ledger.grant('poor', 1);
    const { status, body } = await reconcile(
      { a: { query: '㈱マルカ物流' }, b: { query: 'サクラ精機' } },
      { user: 'poor' },
    );
    expect(status).toBe(402);
    expect(body.code).toBe('insufficient_credits');
    expect(body.message).toContain('reconciliation batch reserves 2');
  });

  it('counts against the rate limit: the third batch in the window is a 429', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++)
      statuses.push(
        (await reconcile({ q: { query: 'サクラ精機' } }, { user: 'narrow-reconciler', target: narrow }))
          .status,
      );
    expect(statuses).toEqual([200, 200, 429]);
  });

  it('no answer is kept by a cache: the batch, its errors, suggest, preview, the manifest', async () => {
    const key = encodeURIComponent(await keyOf('reconciler'));
    const answers = [
      await fetch(`${app.url}/rest/v1/reconcile?apiKey=${key}`),
      await fetch(`${app.url}/rest/v1/reconcile/suggest/entity?apiKey=${key}&prefix=x`),
      await fetch(`${app.url}/rest/v1/reconcile/preview?apiKey=${key}&id=${numbers.maruka}`),
      await fetch(`${app.url}/rest/v1/reconcile/preview?apiKey=${key}&id=1`),
      await fetch(`${app.url}/rest/v1/reconcile/suggest/property?prefix=x`),
    ];
    for (const res of answers) expect(res.headers.get('cache-control'), res.url).toBe('no-store');
    const batch = await reconcile({ q: { query: 'x' } });
    expect(batch.headers.get('cache-control')).toBe('no-store');
    const bad = await reconcile({ q: { limit: -1 } });
    expect(bad.headers.get('cache-control')).toBe('no-store');
  });

  it('a batch without a key is a 401, the manifest still free', async () => {
    const res = await fetch(`${app.url}/rest/v1/reconcile`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'queries=%7B%7D',
    });
    expect(res.status).toBe(401);
  });
});

describe('suggest and preview', () => {
  it('entity suggest: companies by prefix, valid against the spec; cursor pages', async () => {
    const key = encodeURIComponent(await keyOf('reconciler'));
    const res = await fetch(
      `${app.url}/rest/v1/reconcile/suggest/entity?apiKey=${key}&prefix=${encodeURIComponent('マルカ')}`,
    );
    expect(res.status).toBe(200);
    const body = (await res.json()) as { result: Array<{ id: string; name: string }> };
    expectValid('suggest-entities-response', body);
    expect(body.result.map((r) => r.id)).toEqual([numbers.maruka, numbers.marukaService]);
    const next = await fetch(
      `${app.url}/rest/v1/reconcile/suggest/entity?apiKey=${key}&prefix=${encodeURIComponent('マルカ')}&cursor=1`,
    );
    expect(((await next.json()) as { result: Array<{ id: string }> }).result.map((r) => r.id)).toEqual([
      numbers.marukaService,
    ]);
    // what a client adds of its own (OpenRefine's suggest sends type and type_strict) is ignored
    const extra = await fetch(
      `${app.url}/rest/v1/reconcile/suggest/entity?apiKey=${key}&prefix=${encodeURIComponent('マルカ')}&type=Corporation&type_strict=should`,
    );
    expect(extra.status).toBe(200);
    const bad = await fetch(`${app.url}/rest/v1/reconcile/suggest/entity?apiKey=${key}`);
    expect(bad.status).toBe(400);
    expect(JSON.stringify(await bad.json())).toContain('prefix');
  });

  it('property suggest lists the query properties, valid against the spec', async () => {
    const key = encodeURIComponent(await keyOf('reconciler'));
    const res = await fetch(`${app.url}/rest/v1/reconcile/suggest/property?apiKey=${key}&prefix=pre`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { result: Array<{ id: string }> };
    expectValid('suggest-properties-response', body);
    expect(body.result.map((r) => r.id)).toEqual(['prefecture']);
  });

  it('preview: an HTML page of the company, framable, nothing loaded; 404 and 400 otherwise', async () => {
    const key = encodeURIComponent(await keyOf('reconciler'));
    const res = await fetch(`${app.url}/rest/v1/reconcile/preview?apiKey=${key}&id=${numbers.maruka}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('x-frame-options')).toBeNull();
    // its own URL carries the key: a link followed from it sends no referrer
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    const html = await res.text();
    expect(html).toContain(companies.maruka.name);
    expect(html).toContain('神奈川県横浜市中区');
    expect(html).toContain(numbers.maruka);
    const unknown = await fetch(`${app.url}/rest/v1/reconcile/preview?apiKey=${key}&id=${numberOf(999_999)}`);
    expect(unknown.status).toBe(404);
    // 13 digits with a wrong check digit: refused by the handler, naming id
    const check = await fetch(`${app.url}/rest/v1/reconcile/preview?apiKey=${key}&id=1234567890123`);
    expect(check.status).toBe(400);
    expect(((await check.json()) as { errors: Array<{ field: string }> }).errors[0]?.field).toBe('id');
    const bad = await fetch(`${app.url}/rest/v1/reconcile/preview?apiKey=${key}&id=12345`);
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { errors: Array<{ field: string }> }).errors[0]?.field).toBe('id');
  });
});

describe('the key in the URL', () => {
  it('is never written to a log line, whatever the answer', async () => {
    const key = await keyOf('reconciler');
    const encoded = encodeURIComponent(key);
    lines.length = 0;
    await fetch(`${app.url}/rest/v1/reconcile?apiKey=${encoded}`);
    await reconcile({ q0: { query: 'マルカ物流' } });
    await reconcile({ q0: { query: '' } });
    await fetch(`${app.url}/rest/v1/reconcile/preview?apiKey=${encoded}&id=${numberOf(999_999)}`);
    await fetch(`${app.url}/rest/v1/reconcile/suggest/entity?apiKey=${encoded}&prefix=%E3%83%9E&bogus=1`);
    await fetch(`${app.url}/rest/v1/Reconcile?apiKey=${encoded}`);
    await expect.poll(() => lines.length, { timeout: 10_000 }).toBeGreaterThanOrEqual(6);
    const text = lines.join('');
    expect(text).toContain('/rest/v1/reconcile');
    expect(text).not.toContain(key);
    expect(text).not.toContain(encoded);
    expect(text).not.toContain(key.slice(4, 24));
  });
});
