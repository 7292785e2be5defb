/**
 * Counts, facets, field selection and exports through the real app on the real engine:
 * counts and facet counts equal the totals of the corresponding searches, counts are free but
 * rate limited, fields trim the records, exports honour filters and fields.
 */
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, keyStoreFor } from '../../src/auth/key-admin.js';
import { compactRecordField } from '../../src/catalogue/record-fields.js';
import { corporateSearch, jobSearch } from '../../src/catalogue/searches.js';
import { createApp } from '../../src/http/app.js';
import { openCreditLedger } from '../../src/limits/open-credit-ledger.js';
import { compileSearch } from '../../src/search/compile-search.js';
import { parseSearchRequest } from '../../src/search/parse-request.js';
import type { Services } from '../../src/services.js';
import { corporate, type Doc, indexFixture, job, posting } from '../fixtures/search/docs.js';
import { setUpServices } from '../support/env.js';

let services: Services;
let app: ReturnType<typeof createApp>;

const prefectures = [13, 14, 27];
const companies: Doc[] = Array.from({ length: 120 }, (_, i) => {
  const corporateNumber = `6${String(i).padStart(12, '0')}`;
  return corporate({
    corporateNumber,
    name: `一覧${i}`,
    prefectureId: prefectures[i % 3],
    prefectureName: ['東京都', '神奈川県', '大阪府'][i % 3],
    industryCategoryId: 1 + (i % 4),
    employeeCount: i,
    // one change every 10 minutes from 2026-11-01 00:00 UTC (09:00 in Japan)
    updatedAt: new Date(Date.UTC(2026, 10, 1) + i * 600_000).toISOString(),
    // company i has postings on media 1..(i % 3 + 1): media 1 on all, 3 on a third
    postings: Array.from({ length: (i % 3) + 1 }, (_, m) =>
      posting({ mediaId: m + 1, employmentTypeId: 1 + ((i + m) % 2) }),
    ),
  });
});
const jobs: Doc[] = companies.flatMap((company, i) =>
  (company.postings as Doc[]).map((p) =>
    job({
      id: `list-${p.id}`,
      corporateNumber: company.corporateNumber,
      mediaId: p.mediaId,
      employmentTypeId: p.employmentTypeId,
      title: i % 2 === 0 ? '営業職（東京）' : '事務スタッフ',
      corporate: {
        corporateNumber: company.corporateNumber,
        name: company.name,
        prefectureId: company.prefectureId,
        markets: [],
        paidMedias: [],
      },
    }),
  ),
);

let lastUser = '';
async function newKey(credits = 100): Promise<string> {
  const userId = `u-${Math.random().toString(36).slice(2)}`;
  lastUser = userId;
  const { key } = await createApiKey(keyStoreFor(services.redis, services.config.redisPrefix), { userId });
  const { ledger, close } = openCreditLedger(services.config);
  await ledger.grant(userId, credits);
  await close();
  return key;
}

async function balanceOf(userId: string): Promise<number> {
  const { ledger, close } = openCreditLedger(services.config);
  try {
    return await ledger.balance(userId);
  } finally {
    await close();
  }
}

beforeAll(async () => {
  services = await setUpServices('lists-api');
  app = createApp(services);
  await indexFixture(services.opensearch, services.config.indexPrefix, { corporates: companies, jobs });
});
afterAll(async () => {
  await services?.close();
});

function post(path: string, key: string, body: unknown) {
  return request(app)
    .post(`/rest/v1${path}`)
    .set('X-API-Key', key)
    .send(body as object);
}

describe('count', () => {
  it.each([
    ['/corporates', {}],
    ['/corporates', { prefectureIdOr: [13], employeeCountMin: 30 }],
    ['/corporates', { filters: { jobMediaId: { any: [3] } } }],
    ['/jobs', { mediaIdOr: [2], corporatePrefectureIdOr: [14, 27] }],
    ['/jobs', { jobTitlePartialMatchOr: ['営業'] }],
  ])('%s %j: the search total, for no credit', async (path, body) => {
    const key = await newKey(5);
    const searched = await post(`${path}/search`, key, { ...body, limit: 1 }).expect(200);
    const counted = await post(`${path}/count`, key, body).expect(200);
    expect(counted.body).toEqual({
      totalResults: searched.body.totalResults,
      exportCredits: Math.ceil(searched.body.totalResults / 1000),
    });
    expect(counted.body.totalResults).toBeGreaterThan(0);
    expect(counted.headers['x-ratelimit-limit']).toBe('5');
    expect(counted.headers['x-credits-remaining']).toBeUndefined();
    expect(await balanceOf(lastUser)).toBe(4);
  });

  it('is rate limited like a search and validated like one', async () => {
    const key = await newKey();
    const statuses = await Promise.all(
      Array.from({ length: 8 }, () => post('/jobs/count', key, {}).then((res) => res.status)),
    );
    expect(statuses.filter((status) => status === 429).length).toBeGreaterThanOrEqual(3);
    const bad = await post('/corporates/count', await newKey(), { prefectureIdOr: ['x'] }).expect(400);
    expect(bad.body.errors).toEqual([{ field: 'prefectureIdOr[0]', reason: 'must be an integer' }]);
  });
});

describe('facets', () => {
  type Bucket = { value: number | string; name: string | null; count: number };

  /** Every bucket's count is the total of the search filtered on that value, and the buckets cover all results. */
  async function expectExact(
    path: string,
    body: Doc,
    facet: string,
    filterFor: (value: number | string) => Doc,
  ): Promise<Bucket[]> {
    const key = await newKey(200);
    const res = await post(`${path}/search`, key, { ...body, facets: [facet], limit: 1 }).expect(200);
    const buckets = res.body.facets[facet] as Bucket[];
    expect(buckets.length).toBeGreaterThan(1);
    for (const bucket of buckets) {
      const filtered = await post(`${path}/count`, key, filterFor(bucket.value)).expect(200);
      expect([bucket.value, bucket.count]).toEqual([bucket.value, filtered.body.totalResults]);
    }
    return buckets;
  }

  it('company facet: counts per prefecture with the master name, under the current filters', async () => {
    const body = { employeeCountMin: 20 };
    const buckets = await expectExact('/corporates', body, 'prefectureId', (value) => ({
      ...body,
      prefectureIdOr: [value],
    }));
    expect(buckets.map(({ name }) => name).sort()).toEqual(['大阪府', '東京都', '神奈川県'].sort());
    expect(buckets.reduce((sum, { count }) => sum + count, 0)).toBe(100);
  });

  it('posting facet on company search counts companies, honouring the same-posting rule', async () => {
    const body = { filters: { jobEmploymentTypeId: { any: [2] } } };
    const buckets = await expectExact('/corporates', body, 'jobMediaId', (value) => ({
      filters: { jobEmploymentTypeId: { any: [2] }, jobMediaId: { any: [value] } },
    }));
    expect(buckets.find(({ value }) => value === 1)?.name).toBe('リクナビNEXT');
    // companies, not postings: no bucket exceeds the number of companies in the search
    const total = (await post('/corporates/count', await newKey(), body)).body.totalResults;
    for (const { count } of buckets) expect(count).toBeLessThanOrEqual(total);
  });

  it('job facets: posting and linked-company values, also beside filterGroups', async () => {
    const body = { filterGroups: [{ mediaId: { any: [1] } }, { mediaId: { any: [3] } }] };
    await expectExact('/jobs', body, 'corporatePrefectureId', (value) => ({
      ...body,
      corporatePrefectureIdOr: [value],
    }));
    await expectExact('/jobs', body, 'employmentTypeId', (value) => ({
      ...body,
      employmentTypeIdOr: [value],
    }));
  });

  it('an unknown facet is a 400 naming it', async () => {
    const res = await post('/corporates/search', await newKey(), { facets: ['colour'] }).expect(400);
    expect(res.body.errors).toEqual([
      { field: 'facets[0]', reason: expect.stringContaining('must be one of:') },
    ]);
  });
});

describe('fields', () => {
  it('returns only the named fields, in every record', async () => {
    const key = await newKey();
    const companiesRes = await post('/corporates/search', key, {
      fields: ['name', 'corporateNumber', 'prefectureName'],
      prefectureIdOr: [27],
      limit: 5,
    }).expect(200);
    expect(companiesRes.body.results).toHaveLength(5);
    for (const record of companiesRes.body.results) {
      expect(Object.keys(record).sort()).toEqual(['corporateNumber', 'name', 'prefectureName']);
      expect(record.prefectureName).toBe('大阪府');
    }
    const jobsRes = await post('/jobs/search', key, {
      fields: ['id', 'descriptionSnippets'],
      limit: 3,
    }).expect(200);
    for (const record of jobsRes.body.results)
      expect(Object.keys(record).sort()).toEqual(['descriptionSnippets', 'id']);
  });

  it('reads the compact copy, not `_source`, and skips the highlighter without snippets', () => {
    const body = compileSearch(jobSearch, parseSearchRequest(jobSearch, { fields: ['id', 'title'] }), 'p-')
      .body as Record<string, unknown>;
    expect(body._source).toBe(false);
    expect(body.docvalue_fields).toContain(compactRecordField);
    expect(body.highlight).toBeUndefined();
    // the snippets alone: neither the copy nor `_source` (the highlighter reads its text itself)
    const snippets = compileSearch(
      jobSearch,
      parseSearchRequest(jobSearch, {
        fields: ['descriptionSnippets'],
        jobDescriptionPartialMatchOr: ['営業'],
      }),
      'p-',
    ).body as Record<string, unknown>;
    expect(snippets._source).toBe(false);
    expect(snippets.docvalue_fields).toBeUndefined();
    expect(snippets.highlight).toBeDefined();
    const full = compileSearch(corporateSearch, parseSearchRequest(corporateSearch, {}), 'p-').body as Record<
      string,
      unknown
    >;
    // companies: no `_source` (it holds the nested postings), the compact copy of the record instead
    expect(full._source).toBe(false);
    expect(full.stored_fields).toEqual(['_none_']);
    expect(full.docvalue_fields).toContain(compactRecordField);
  });

  it('an unknown field is a 400 naming it', async () => {
    const res = await post('/jobs/search', await newKey(), { fields: ['id', 'salary'] }).expect(400);
    expect(res.body.errors).toEqual([
      { field: 'fields[1]', reason: expect.stringContaining('must be one of:') },
    ]);
    expect(() => parseSearchRequest(corporateSearch, { fields: ['postings'] })).toThrow(
      expect.objectContaining({
        status: 400,
        errors: [{ field: 'fields[0]', reason: expect.stringContaining('one of') }],
      }),
    );
  });
});

describe('change feed', () => {
  const times = companies.map((c) => String(c.updatedAt));

  it('updatedAtFrom with an instant returns what changed since, oldest first, with updatedAt on each record', async () => {
    const since = times[100] as string;
    const res = await post('/corporates/search', await newKey(), {
      updatedAtFrom: since.replace('Z', '+00:00'),
      sort: { field: 'updatedAt', order: 'asc' },
      fields: ['corporateNumber', 'updatedAt'],
      limit: 100,
    }).expect(200);
    expect(res.body.results).toEqual(
      companies.slice(100).map((c) => ({ corporateNumber: c.corporateNumber, updatedAt: c.updatedAt })),
    );
  });

  it('a date is a whole day in Japan time; updatedAtTo bounds the other side', async () => {
    // 2026-11-01 in Japan ends at 15:00 UTC: companies 0..89 (every 10 minutes from 00:00 UTC)
    const day = await post('/corporates/count', await newKey(), { updatedAtTo: '2026-11-01' }).expect(200);
    expect(day.body.totalResults).toBe(90);
    const window = await post('/corporates/count', await newKey(), {
      updatedAtFrom: '2026-11-01T01:00:00Z',
      updatedAtTo: '2026-11-01T02:00:00Z',
    }).expect(200);
    expect(window.body.totalResults).toBe(7);
  });

  it('an instant is an instant whatever its offset; one the engine cannot hold is a 400, never a 500', async () => {
    // the same window as above, written with other offsets (RFC 3339 allows up to ±23:59,
    // the engine's parser ±18:00: the API sends instants in UTC)
    const window = await post('/corporates/count', await newKey(), {
      updatedAtFrom: '2026-10-31T06:25:00-18:35',
      updatedAtTo: '2026-11-01T11:00:00+09:00',
    }).expect(200);
    expect(window.body.totalResults).toBe(7);
    // an older instant than every record, as the contract fuzzing found it (a 500 before)
    const all = await post('/jobs/export', await newKey(), {
      updatedAtFrom: '0153-06-17T03:46:46.487-18:35',
      format: 'jsonl',
      fields: ['id'],
    }).expect(200);
    expect(all.text.trim().split('\n').length).toBeGreaterThan(0);
    const refused: Array<[string, string]> = [
      ['0000-01-01T00:00:00+01:00', 'between years 0000 and 9999'],
      ['9999-12-31T23:30:00-01:00', 'between years 0000 and 9999'],
      ['2016-12-31T23:59:60Z', 'no leap second'],
    ];
    for (const [value, reason] of refused) {
      const res = await post('/corporates/count', await newKey(), { updatedAtFrom: value }).expect(400);
      expect(res.body.errors).toEqual([{ field: 'updatedAtFrom', reason: expect.stringContaining(reason) }]);
    }
    // from and to compare as instants: 10:00+09:00 is before 02:00Z
    await post('/corporates/count', await newKey(), {
      updatedAtFrom: '2026-11-01T10:00:00+09:00',
      updatedAtTo: '2026-11-01T02:00:00Z',
    }).expect(200);
    const reversed = await post('/corporates/count', await newKey(), {
      updatedAtFrom: '2026-11-01T12:00:00+09:00',
      updatedAtTo: '2026-11-01T02:00:00Z',
    }).expect(400);
    expect(reversed.body.errors[0].field).toBe('updatedAtFrom');
  });
});
