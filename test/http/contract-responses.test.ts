/**
 * Responses hold to openapi.yaml: searches, detail and errors through the real app on a small
 * generated data set in the real engine, each body checked against its schema in the
 * committed description (ajv, formats included). Keeps the search engineer's output and the
 * contract engineer's description from drifting apart.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Ajv } from 'ajv';
import addFormatsPlugin from 'ajv-formats';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { FileDeadLetter } from '../../indexer/dead-letter.js';
import { ingestFiles } from '../../indexer/ingest.js';
import { generateDataSet } from '../../sample-data/index.js';
import { createApiKey, keyStoreFor } from '../../src/auth/key-admin.js';
import { createApp } from '../../src/http/app.js';
import { openApiFile } from '../../src/http/validation.js';
import type { Services } from '../../src/services.js';
import { setUpServices } from '../support/env.js';

const addFormats = addFormatsPlugin as unknown as (ajv: Ajv) => Ajv;
const ajv = addFormats(new Ajv({ strict: false, allErrors: true }));
ajv.addSchema(parse(readFileSync(openApiFile, 'utf8')) as object, 'openapi');

function expectSchema(name: string, body: unknown): void {
  const validate = ajv.getSchema(`openapi#/components/schemas/${name}`);
  if (!validate) throw new Error(`no schema ${name}`);
  const ok = validate(body);
  expect(ok, `${name}: ${JSON.stringify(validate.errors?.slice(0, 5))}`).toBe(true);
}

let services: Services;
let app: ReturnType<typeof createApp>;
let dir: string;
let users = 0;

async function freshKey(credits = 10): Promise<string> {
  users += 1;
  const userId = `u-responses-${users}`;
  await services.limits.ledger.grant(userId, credits);
  return (await createApiKey(keyStoreFor(services.redis, services.config.redisPrefix), { userId })).key;
}

beforeAll(async () => {
  services = await setUpServices('contract-responses');
  dir = mkdtempSync(path.join(tmpdir(), 'contract-responses-'));
  const files = await generateDataSet({
    companies: 40,
    jobs: 200,
    seed: 7,
    now: new Date('2026-04-01T00:00:00+09:00'),
    outDir: dir,
  });
  await ingestFiles([files.corporates, files.jobs], {
    client: services.opensearch,
    indexPrefix: services.config.indexPrefix,
    deadLetter: new FileDeadLetter(path.join(dir, 'dead-letter.ndjson')),
  });
  await services.opensearch.indices.refresh({ index: `${services.config.indexPrefix}*` });
  app = createApp(services);
});
afterAll(async () => {
  await services.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('search responses match openapi.yaml', () => {
  it('POST /corporates/search -> CorporateSearchResponse', async () => {
    const res = await request(app)
      .post('/rest/v1/corporates/search')
      .set('X-API-Key', await freshKey())
      .send({ limit: 40 })
      .expect(200);
    expect(res.body.results.length).toBeGreaterThan(0);
    expectSchema('CorporateSearchResponse', res.body);
    // without `fields`, every record is whole (the response also admits a selection)
    for (const record of res.body.results) expectSchema('Corporate', record);
    // the check is not vacuous: a leaked internal field, a missing one, a wrong type all fail
    const validate = ajv.getSchema('openapi#/components/schemas/Corporate');
    const [first] = res.body.results;
    const { name: _name, ...withoutName } = first;
    expect(validate?.({ ...first, postings: [] })).toBe(false);
    expect(validate?.(withoutName)).toBe(false);
    expect(validate?.({ ...first, employeeCount: 'many' })).toBe(false);
    expect(validate?.({ ...first, furigana: null })).toBe(true);
    expect(res.headers['x-credits-remaining']).toBe('9');
    expect(res.headers['x-ratelimit-limit']).toBe('5');
  });

  it('POST /jobs/search, with and without a detail-text condition -> JobSearchResponse', async () => {
    const key = await freshKey();
    const plain = await request(app)
      .post('/rest/v1/jobs/search')
      .set('X-API-Key', key)
      .send({ limit: 100 })
      .expect(200);
    expect(plain.body.results.length).toBeGreaterThan(0);
    expectSchema('JobSearchResponse', plain.body);
    const counted = await request(app)
      .post('/rest/v1/jobs/search')
      .set('X-API-Key', key)
      .send({ limit: 5, includeTotalResults: false, filters: { jobDescription: { anyContains: ['の'] } } })
      .expect(200);
    expect(counted.body.totalResults).toBeNull();
    expectSchema('JobSearchResponse', counted.body);
  });

  it('a search with `fields` answers records of only those fields -> its response schema', async () => {
    const key = await freshKey();
    for (const [path, schema, fields] of [
      ['corporates', 'CorporateSearchResponse', ['corporateNumber', 'hiringActivity']],
      ['jobs', 'JobSearchResponse', ['title', 'salaryMin']],
    ] as const) {
      const res = await request(app)
        .post(`/rest/v1/${path}/search`)
        .set('X-API-Key', key)
        .send({ limit: 5, fields })
        .expect(200);
      expect(res.body.results.length).toBeGreaterThan(0);
      for (const record of res.body.results) expect(Object.keys(record).sort()).toEqual([...fields].sort());
      expectSchema(schema, res.body);
      // a field not asked for, or not a record's, is outside the selection
      const selection = ajv.getSchema(
        `openapi#/components/schemas/${schema.replace('SearchResponse', 'Selection')}`,
      );
      expect(selection?.({ ...res.body.results[0], leaked: 1 })).toBe(false);
      expect(selection?.({})).toBe(false);
    }
  });

  it('GET /jobs/{jobId}/detail -> JobDetail; an unknown id -> Error 404', async () => {
    const key = await freshKey();
    const search = await request(app)
      .post('/rest/v1/jobs/search')
      .set('X-API-Key', key)
      .send({ limit: 1 })
      .expect(200);
    const id = search.body.results[0].id as string;
    const detail = await request(app)
      .get(`/rest/v1/jobs/${encodeURIComponent(id)}/detail`)
      .set('X-API-Key', key)
      .expect(200);
    expectSchema('JobDetail', detail.body);
    expect(detail.body.id).toBe(id);
    const missing = await request(app)
      .get('/rest/v1/jobs/no-such-job/detail')
      .set('X-API-Key', key)
      .expect(404);
    expectSchema('Error', missing.body);
  });

  it('error bodies -> Error', async () => {
    const bad = await request(app)
      .post('/rest/v1/jobs/search')
      .set('X-API-Key', await freshKey())
      .send({ limit: 0 })
      .expect(400);
    expectSchema('Error', bad.body);
    const broke = await request(app)
      .post('/rest/v1/jobs/search')
      .set('X-API-Key', await freshKey(0))
      .send({})
      .expect(402);
    expectSchema('Error', broke.body);
  });
});
