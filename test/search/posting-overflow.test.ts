/**
 * A company with more postings than the nested limit, on the real engine. The corporates index
 * is created with the limit lowered to 40 (IndexShape.nestedPostingLimit; production keeps
 * 50,000), and one company gets 50 postings (limit + 10): the rebuild keeps its newest 40
 * nested and marks it, and company search answers its posting conditions from the jobs index.
 * Each search is checked against the truth written out below, and against the nested-only
 * query, which misses what only the 10 oldest postings hold (so the check can fail).
 */
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rebuildCompanies } from '../../indexer/rebuild.js';
import { createApiKey, keyStoreFor } from '../../src/auth/key-admin.js';
import { corporateSearch } from '../../src/catalogue/searches.js';
import { defaultConfig } from '../../src/config.js';
import { createApp } from '../../src/http/app.js';
import { openCreditLedger } from '../../src/limits/open-credit-ledger.js';
import { indexName } from '../../src/opensearch/indices.js';
import { indexDefinitions } from '../../src/opensearch/mappings.js';
import { compileSearch } from '../../src/search/compile-search.js';
import { parseSearchRequest } from '../../src/search/parse-request.js';
import { onJobsIndex } from '../../src/search/posting-overflow.js';
import { searchCorporates } from '../../src/search/run-search.js';
import type { Services } from '../../src/services.js';
import { corporate, type Doc, daysAgo, indexFixture, job, posting } from '../fixtures/search/docs.js';
import { setUpServices } from '../support/env.js';

const limit = 40;
let services: Services;
let app: ReturnType<typeof createApp>;
let key = '';

const big = corporate({ corporateNumber: '8000000000001', name: '大量求人' });
const small = corporate({ corporateNumber: '8000000000002', name: '少数求人' });
const plain = corporate({ corporateNumber: '8000000000003', name: '単発求人' });
const names: Record<string, string> = {
  [big.corporateNumber as string]: 'big',
  [small.corporateNumber as string]: 'small',
  [plain.corporateNumber as string]: 'plain',
};

/** Posting i of `big` was collected on day i (0 = the oldest): 0-9 are past the limit. */
const bigPostings: Doc[] = Array.from({ length: limit + 10 }, (_, i) => {
  const base: Doc = {
    id: `big-${String(i).padStart(2, '0')}`,
    corporateNumber: big.corporateNumber,
    jobCreatedAt: new Date(Date.UTC(2026, 0, 1 + i)).toISOString(),
    mediaId: 1,
    employmentTypeId: 1,
    title: '一般職',
  };
  const oldest: Record<number, Doc> = {
    // each only on one of the cut postings
    0: {
      title: '古参の倉庫管理',
      mediaId: 7,
      employmentTypeId: 3,
      contactEmail: 'old@example.jp',
      description: 'Rustで基幹系の保守',
      descriptionCollectedAt: daysAgo(2),
    },
    1: { mediaId: 8, employmentTypeId: 4 },
    2: { hasDispatchLicense: true },
    // the newest: in the nested copy
    [limit + 9]: { mediaId: 2, employmentTypeId: 2 },
  };
  return job({ ...base, ...(oldest[i] ?? {}) });
});
const otherPostings: Doc[] = [
  job({
    id: 'small-0',
    corporateNumber: small.corporateNumber,
    title: '古参の倉庫管理',
    mediaId: 7,
    employmentTypeId: 1,
  }),
  job({ id: 'small-1', corporateNumber: small.corporateNumber, mediaId: 8, employmentTypeId: 4 }),
  job({ id: 'small-2', corporateNumber: small.corporateNumber, mediaId: 1, employmentTypeId: 1 }),
  job({ id: 'plain-0', corporateNumber: plain.corporateNumber, mediaId: 1, employmentTypeId: 1 }),
];

beforeAll(async () => {
  const config = defaultConfig();
  services = await setUpServices('posting-overflow', {
    index: { shards: 1, replicas: undefined, refreshInterval: '1s', nestedPostingLimit: limit },
    limits: { ...config.limits, ratePerSecond: 1_000 },
  });
  app = createApp(services);
  await indexFixture(services.opensearch, services.config.indexPrefix, {
    corporates: [big, small, plain],
    jobs: [...bigPostings, ...otherPostings],
  });
  const rebuilt = await rebuildCompanies(
    services.opensearch,
    services.config.indexPrefix,
    Object.keys(names),
  );
  expect(rebuilt.failures).toEqual([]);
  await services.opensearch.indices.refresh({ index: indexName(services.config.indexPrefix, 'corporates') });
  const userId = 'overflow-user';
  ({ key } = await createApiKey(keyStoreFor(services.redis, services.config.redisPrefix), { userId }));
  const { ledger, close } = openCreditLedger(services.config);
  await ledger.grant(userId, 1_000);
  await close();
});
afterAll(async () => {
  await services?.close();
});

const sorted = (values: string[]) => [...values].sort();

/** The companies a company search finds, by their names here. */
async function found(body: Doc): Promise<string[]> {
  const page = await searchCorporates(services, { ...body, limit: 100 });
  return sorted(page.results.map((record) => names[String(record.corporateNumber)] ?? '?'));
}

/** The same search with the plain nested query (what company search answered before). */
async function foundNestedOnly(body: Doc): Promise<string[]> {
  const compiled = compileSearch(
    corporateSearch,
    parseSearchRequest(corporateSearch, { ...body, limit: 100 }),
    services.config.indexPrefix,
  );
  // the ids from `_source`: these documents are written here without the compact record copy
  const { stored_fields: _stored, docvalue_fields: _docvalues, ...rest } = compiled.body as Doc;
  const { body: response } = await services.opensearch.search({
    ...compiled,
    body: { ...rest, _source: ['corporateNumber'] } as never,
  });
  return sorted(response.hits.hits.map((hit) => names[String((hit._source as Doc).corporateNumber)] ?? '?'));
}

function post(path: string, body: unknown) {
  return request(app)
    .post(`/rest/v1${path}`)
    .set('X-API-Key', key)
    .send(body as object);
}

describe('the rebuild of a company past the nested limit', () => {
  it('keeps the newest 40 postings nested, counts all 50, and marks it; the others are not marked', async () => {
    const { body } = await services.opensearch.get({
      index: indexName(services.config.indexPrefix, 'corporates'),
      id: big.corporateNumber as string,
    });
    const source = body._source as Doc;
    const nestedIds = (source.postings as Doc[]).map((p) => String(p.id));
    expect(sorted(nestedIds)).toEqual(sorted(bigPostings.slice(10).map((p) => String(p.id))));
    expect(source.aggregates).toMatchObject({ postingCount: 50, postingsTruncated: true });
    for (const other of [small, plain]) {
      const { body: doc } = await services.opensearch.get({
        index: indexName(services.config.indexPrefix, 'corporates'),
        id: other.corporateNumber as string,
      });
      expect((doc._source as Doc).aggregates).toMatchObject({ postingsTruncated: false });
    }
  });

  it('the lowered limit is the index setting: a company document with 41 nested postings is refused', async () => {
    await expect(
      indexFixture(services.opensearch, services.config.indexPrefix, {
        corporates: [
          corporate({ postings: Array.from({ length: limit + 1 }, () => posting({ mediaId: 1 })) }),
        ],
      }),
    ).rejects.toThrow(/nested/i);
  });
});

describe('posting conditions are exact for the company past the limit', () => {
  it.each([
    // a condition only one of the cut postings meets
    ['a title on a cut posting', { jobTitlePartialMatchOr: ['古参'] }, ['big', 'small'], ['small']],
    ['a medium on a cut posting', { jobMediaIdOr: [8] }, ['big', 'small'], ['small']],
    ['detail text on a cut posting', { jobDescriptionPartialMatchOr: ['Rust'] }, ['big'], []],
    ['a contact e-mail on a cut posting', { jobHasContactEmail: true }, ['big'], []],
    ['a license on a cut posting', { jobHasDispatchLicense: true }, ['big'], []],
    ['a date on a cut posting', { jobCreatedAtTo: '2026-01-05' }, ['big'], []],
    // what the nested copy holds still counts
    ['a medium on a kept posting', { jobMediaIdOr: [2] }, ['big'], ['big']],
  ])('%s: %j', async (_label, body, expected, nestedOnly) => {
    expect(await found(body)).toEqual(expected);
    expect(await foundNestedOnly(body)).toEqual(nestedOnly);
  });

  it.each([
    // big has a cut posting on medium 7: "no posting on 7" excludes it
    ['no posting on a medium only a cut posting has', { jobMediaIdNot: [7] }, ['plain'], ['big', 'plain']],
    [
      'no posting with a title only a cut posting has',
      { jobTitlePartialMatchNot: ['古参'] },
      ['plain'],
      ['big', 'plain'],
    ],
    [
      'no posting with detail text only a cut posting has',
      { jobDescriptionPartialMatchNot: ['Rust'] },
      ['plain', 'small'],
      ['big', 'plain', 'small'],
    ],
    [
      'no posting on a medium none has',
      { jobMediaIdNot: [9] },
      ['big', 'plain', 'small'],
      ['big', 'plain', 'small'],
    ],
    // a medium only a kept posting has: excluded by the nested copy as before
    [
      'no posting on a medium a kept posting has',
      { jobMediaIdNot: [2] },
      ['plain', 'small'],
      ['plain', 'small'],
    ],
  ])('negated, %s: %j', async (_label, body, expected, nestedOnly) => {
    expect(await found(body)).toEqual(expected);
    expect(await foundNestedOnly(body)).toEqual(nestedOnly);
  });

  it.each([
    // medium 7 is on big's posting 0 (employment type 3), type 4 on its posting 1: never together
    ['7 and type 4 are on two different postings', { jobMediaIdOr: [7], jobEmploymentTypeIdOr: [4] }, []],
    ['7 and type 3 are on the same cut posting', { jobMediaIdOr: [7], jobEmploymentTypeIdOr: [3] }, ['big']],
    [
      '8 and type 4 together on a cut posting (big) and on a small one',
      { jobMediaIdOr: [8], jobEmploymentTypeIdOr: [4] },
      ['big', 'small'],
    ],
    [
      'detail text and a medium of the same posting',
      { jobDescriptionPartialMatchOr: ['Rust'], jobMediaIdOr: [7] },
      ['big'],
    ],
    [
      'detail text and a medium of another posting',
      { jobDescriptionPartialMatchOr: ['Rust'], jobMediaIdOr: [1] },
      [],
    ],
    ['a positive and a negated condition', { jobMediaIdOr: [7], jobMediaIdNot: [2] }, ['small']],
  ])('same posting: %s', async (_label, body, expected) => {
    expect(await found(body)).toEqual(expected);
  });

  it('filterGroups: each group is its own posting query, with the top-level conditions', async () => {
    expect(
      await found({
        filterGroups: [
          { jobMediaId: { any: [7] }, jobEmploymentTypeId: { any: [4] } },
          { jobMediaId: { any: [7] }, jobEmploymentTypeId: { any: [3] } },
        ],
      }),
    ).toEqual(['big']);
    expect(
      await found({
        jobTitlePartialMatchOr: ['古参'],
        filterGroups: [{ jobEmploymentTypeId: { any: [3] } }, { jobEmploymentTypeId: { any: [4] } }],
      }),
    ).toEqual(['big']);
    expect(
      await found({
        filters: { jobMediaId: { none: [7] } },
        filterGroups: [{ jobMediaId: { any: [1] } }, { jobMediaId: { any: [8] } }],
      }),
    ).toEqual(['plain']);
  });

  it('the companies within the limit get the nested answer, as before', async () => {
    const bodies: Doc[] = [
      { jobTitlePartialMatchOr: ['古参'] },
      { jobMediaIdNot: [7] },
      { jobMediaIdOr: [8], jobEmploymentTypeIdOr: [4] },
      { jobMediaIdOr: [7], jobMediaIdNot: [2] },
      { filterGroups: [{ jobMediaId: { any: [1] } }, { jobMediaId: { any: [8] } }] },
    ];
    const withoutBig = (list: string[]) => list.filter((name) => name !== 'big');
    for (const body of bodies)
      expect([body, withoutBig(await found(body))]).toEqual([body, withoutBig(await foundNestedOnly(body))]);
  });

  it('the marked companies are looked up once for searches within a second, and each time without the memory', async () => {
    const lookups = async (cacheMs: number | undefined): Promise<number> => {
      let count = 0;
      const client = services.opensearch;
      const counting = new Proxy(client, {
        get(target, key, receiver) {
          if (key !== 'search') return Reflect.get(target, key, receiver);
          return (...args: Parameters<typeof client.search>) => {
            if (JSON.stringify(args[0]?.body ?? {}).includes('aggregates.postingsTruncated')) count++;
            return client.search(...args);
          };
        },
      }) as typeof client;
      const config = { ...services.config, postingMarksCacheMs: cacheMs };
      for (let i = 0; i < 3; i++) {
        const page = await searchCorporates(
          { ...services, config, opensearch: counting },
          { jobMediaIdOr: [8] },
        );
        // the marked company is answered jobs-first every time
        expect(page.results.map((record) => names[String(record.corporateNumber)])).toContain('big');
      }
      return count;
    };
    // 3 searches: 1 lookup with the default memory of 1 s (a loaded machine could take longer
    // than that between searches, hence at most 2), 3 without memory
    expect(await lookups(undefined)).toBeLessThanOrEqual(2);
    expect(await lookups(0)).toBe(3);
  });

  it('one engine round trip when the nested copy answers as the jobs index does, a second only when it does not', async () => {
    const calls = { search: 0, msearch: 0 };
    const client = services.opensearch;
    const counting = new Proxy(client, {
      get(target, key, receiver) {
        if (key !== 'search' && key !== 'msearch') return Reflect.get(target, key, receiver);
        return (...args: unknown[]) => {
          const body = JSON.stringify((args[0] as { body?: unknown } | undefined)?.body ?? {});
          // the marked companies' lookup is remembered between searches; not counted here
          if (!body.includes('aggregates.postingsTruncated')) calls[key]++;
          return (Reflect.get(target, key, receiver) as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    }) as typeof client;
    const config = { ...services.config, postingMarksCacheMs: 60_000 };
    const searchCounted = async (body: Doc) => {
      calls.search = 0;
      calls.msearch = 0;
      const page = await searchCorporates({ ...services, config, opensearch: counting }, body);
      return { names: page.results.map((record) => names[String(record.corporateNumber)]).sort(), ...calls };
    };
    await searchCounted({ jobMediaIdOr: [2] }); // the marked companies, remembered from here on
    // medium 2 is on a kept posting: the nested copy and the jobs index agree on big
    expect(await searchCounted({ jobMediaIdOr: [2] })).toEqual({ names: ['big'], search: 0, msearch: 1 });
    expect(await searchCounted({ jobMediaIdNot: [9] })).toEqual({
      names: ['big', 'plain', 'small'],
      search: 0,
      msearch: 1,
    });
    // medium 8 only on a cut posting: they disagree, and the jobs-first search follows
    expect(await searchCounted({ jobMediaIdOr: [8] })).toEqual({
      names: ['big', 'small'],
      search: 1,
      msearch: 1,
    });
    expect(await searchCounted({ jobMediaIdNot: [7] })).toEqual({ names: ['plain'], search: 1, msearch: 1 });
  });

  it('a company condition beside a posting condition still applies to it', async () => {
    expect(await found({ jobMediaIdOr: [8], corporateNamePartialMatchOr: ['大量'] })).toEqual(['big']);
    expect(await found({ jobMediaIdOr: [8], corporateNamePartialMatchNot: ['大量'] })).toEqual(['small']);
  });
});

describe('count, facets, cursor and export take the same answer', () => {
  const bodies: Doc[] = [
    { jobTitlePartialMatchOr: ['古参'] },
    { jobMediaIdNot: [7] },
    { jobMediaIdOr: [7], jobEmploymentTypeIdOr: [3] },
    { jobMediaIdOr: [1] },
    {},
  ];

  it.each(bodies)('count %j is the search total', async (body) => {
    const searched = await post('/corporates/search', { ...body, limit: 1 }).expect(200);
    const counted = await post('/corporates/count', body).expect(200);
    expect(counted.body.totalResults).toBe(searched.body.totalResults);
    expect(counted.body.totalResults).toBe((await found(body)).length);
  });

  it('a cursor walk finds the company past the limit', async () => {
    const ids: string[] = [];
    let cursor: string | null = '*';
    for (let pages = 0; cursor && pages < 10; pages += 1) {
      const res: request.Response = await post('/corporates/search', {
        jobTitlePartialMatchOr: ['古参'],
        cursor,
        limit: 1,
      }).expect(200);
      ids.push(...res.body.results.map((record: Doc) => names[String(record.corporateNumber)]));
      cursor = res.body.nextCursor;
    }
    expect(cursor).toBeNull();
    expect(sorted(ids)).toEqual(['big', 'small']);
  });

  it('an export holds the company past the limit', async () => {
    const res = await post('/corporates/export', {
      jobMediaIdOr: [8],
      format: 'jsonl',
      fields: ['corporateNumber'],
    })
      .buffer(true)
      .parse((response, done) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          text += chunk;
        });
        response.on('end', () => done(null, text));
      })
      .expect(200);
    const lines = String(res.body).trim().split('\n');
    expect(sorted(lines.map((line) => names[String(JSON.parse(line).corporateNumber)] ?? '?'))).toEqual([
      'big',
      'small',
    ]);
  });

  it.each([
    // media 7 (big's cut posting, type 3; small's, type 1), 8 (big's cut, small's), 1 (all three)
    [{ jobEmploymentTypeIdOr: [1, 3, 4] }, { 1: 3, 7: 2, 8: 2 }],
    // no posting condition: every posting counts; 2 is only on big's newest
    [{}, { 1: 3, 2: 1, 7: 2, 8: 2 }],
    // type 3 is only on big's cut posting 0 (medium 7)
    [{ jobEmploymentTypeIdOr: [3] }, { 7: 1 }],
  ])(
    'a posting facet under %j counts the company past the limit by all its postings',
    async (body, expected) => {
      const res = await post('/corporates/search', { ...body, facets: ['jobMediaId'], limit: 1 }).expect(200);
      const counts = Object.fromEntries(
        (res.body.facets.jobMediaId as Array<{ value: number; count: number }>).map((b) => [
          b.value,
          b.count,
        ]),
      );
      expect(counts).toEqual(expected);
      // each bucket is the count of the search filtered on its value
      for (const [medium, count] of Object.entries(counts)) {
        const counted = await post('/corporates/count', { ...body, jobMediaIdOr: [Number(medium)] }).expect(
          200,
        );
        expect([medium, counted.body.totalResults]).toEqual([medium, count]);
      }
    },
  );
});

describe('every posting condition has its counterpart on the jobs index', () => {
  /** A field's mapping by its path (`postings.title.substring`), sub-fields included. */
  function mappingOf(index: string, path: string): unknown {
    let node = {
      properties: indexDefinitions().find((def) => def.name === index)?.mappings.properties,
    } as Doc;
    for (const part of path.split('.'))
      node = ((node.properties as Doc | undefined)?.[part] ??
        (node.fields as Doc | undefined)?.[part]) as Doc;
    return node;
  }
  const postingDefs = corporateSearch.filters.filter((def) => def.scope === 'posting');

  it.each(postingDefs.map((def) => [def.key, def] as const))('%s', (_key, def) => {
    const onJobs = onJobsIndex({ def, op: def.ops[0] ?? 'any', value: [1], path: def.key }).def;
    expect(mappingOf('jobs', onJobs.field)).toBeDefined();
    if (def.field === 'postings.hasContactEmail' || def.field === 'postings.hasContactPhone') {
      // has-a-contact is a boolean on the nested copy, the contact itself on the posting
      expect([onJobs.kind, (mappingOf('jobs', onJobs.field) as Doc).type]).toEqual(['presence', 'keyword']);
    } else {
      // the same kind on a field mapped the same way (type, analyzer, date format)
      expect(onJobs.kind).toBe(def.kind);
      expect(mappingOf('jobs', onJobs.field)).toEqual(mappingOf('corporates', def.field));
    }
    if (def.collectedAtField)
      expect(mappingOf('jobs', onJobs.collectedAtField ?? '')).toEqual(
        mappingOf('corporates', def.collectedAtField),
      );
  });
});
