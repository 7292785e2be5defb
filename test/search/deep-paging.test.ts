/**
 * Lists of any length on the real engine, with the indices' result window lowered to 500 so a
 * few thousand records prove what 10,000 would: a whole sorted list read by offset (pages
 * within and past the window), by cursor, and by a far jump, is the list sorted in plain
 * TypeScript: complete, in order, no duplicates. Cursors survive concurrent changes (point in
 * time) and refuse tampering, other users, other searches.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { indexName } from '../../src/opensearch/indices.js';
import { searchCorporates, searchJobs } from '../../src/search/run-search.js';
import type { Services } from '../../src/services.js';
import { corporate, type Doc, indexFixture, job } from '../fixtures/search/docs.js';
import { setUpServices } from '../support/env.js';

const window = 500;
let services: Services;

const companies: Doc[] = Array.from({ length: 1_300 }, (_, i) =>
  corporate({
    corporateNumber: `5${String(i).padStart(12, '0')}`,
    name: `深掘${i}`,
    prefectureId: 13,
    // many ties and some missing: the tie-breaker decides most of the order
    ...(i % 7 === 0 ? {} : { employeeCount: i % 23 }),
  }),
);
const jobs: Doc[] = Array.from({ length: 2_600 }, (_, i) =>
  job({
    id: `deep-${String(i).padStart(5, '0')}`,
    corporateNumber: companies[i % companies.length]?.corporateNumber,
    mediaId: 1 + (i % 3),
    ...(i % 11 === 0 ? {} : { salaryMin: 200_000 + (i % 37) * 1_000 }),
    ...(i % 5 === 0 ? {} : { contactEmail: `c${i % 17}@example.jp` }),
    ...(i % 13 === 0 ? {} : { jobCreatedAt: `2026-10-${String(1 + (i % 29)).padStart(2, '0')}T00:00:00Z` }),
  }),
);

/** Missing values last, then ascending id (the unique tie-breaker); `desc` reverses the values only. */
function sortedIds(docs: Doc[], field: string, order: 'asc' | 'desc', id: string): string[] {
  return [...docs]
    .sort((a, b) => {
      const va = a[field] as number | string | undefined;
      const vb = b[field] as number | string | undefined;
      if (va !== vb) {
        if (va === undefined) return 1;
        if (vb === undefined) return -1;
        return (va < vb ? -1 : 1) * (order === 'asc' ? 1 : -1);
      }
      return String(a[id]) < String(b[id]) ? -1 : 1;
    })
    .map((doc) => String(doc[id]));
}

beforeAll(async () => {
  services = await setUpServices('deep-paging', { resultWindow: window });
  await services.opensearch.indices.putSettings({
    index: ['corporates', 'jobs'].map((name) => indexName(services.config.indexPrefix, name)),
    body: { index: { max_result_window: window } },
  });
  for (let i = 0; i < jobs.length; i += 1_000)
    await indexFixture(services.opensearch, services.config.indexPrefix, {
      ...(i === 0 ? { corporates: companies } : {}),
      jobs: jobs.slice(i, i + 1_000),
    });
});
afterAll(async () => {
  await services?.close();
});

type Run = typeof searchJobs;
const idOf = (record: Record<string, unknown>) => String(record.id ?? record.corporateNumber);

async function walkByOffset(run: Run, body: Doc, limit: number, userId: string): Promise<string[]> {
  const ids: string[] = [];
  for (let offset = 0; ; offset += limit) {
    const page = await run(services, { ...body, offset, limit }, { userId });
    ids.push(...page.results.map(idOf));
    if (page.results.length < limit) return ids;
  }
}

async function walkByCursor(run: Run, body: Doc, limit: number, userId: string): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null | undefined = '*';
  let pages = 0;
  while (cursor) {
    const page = await run(services, { ...body, cursor, limit }, { userId });
    ids.push(...page.results.map(idOf));
    cursor = page.nextCursor;
    pages += 1;
    if (pages > 1_000) throw new Error('cursor did not end');
  }
  return ids;
}

describe.each([
  {
    label: 'job search by salaryMin desc',
    run: searchJobs,
    body: { sort: { field: 'salaryMin', order: 'desc' } },
    expected: () => sortedIds(jobs, 'salaryMin', 'desc', 'id'),
  },
  {
    label: 'job search by contactEmail asc (a keyword with missing values)',
    run: searchJobs,
    body: { sort: { field: 'contactEmail', order: 'asc' }, mediaIdOr: [1, 2] },
    expected: () =>
      sortedIds(
        jobs.filter((doc) => doc.mediaId !== 3),
        'contactEmail',
        'asc',
        'id',
      ),
  },
  {
    label: 'job search by jobCreatedAt asc (a date with missing values)',
    run: searchJobs,
    body: { sort: { field: 'jobCreatedAt', order: 'asc' } },
    expected: () => sortedIds(jobs, 'jobCreatedAt', 'asc', 'id'),
  },
  {
    label: 'job search by jobCreatedAt desc',
    run: searchJobs,
    body: { sort: { field: 'jobCreatedAt', order: 'desc' }, mediaIdOr: [2, 3] },
    expected: () =>
      sortedIds(
        jobs.filter((doc) => doc.mediaId !== 1),
        'jobCreatedAt',
        'desc',
        'id',
      ),
  },
  {
    label: 'company search by employeeCount desc',
    run: searchCorporates as Run,
    body: { prefectureIdOr: [13], sort: { field: 'employeeCount', order: 'desc' } },
    expected: () => sortedIds(companies, 'employeeCount', 'desc', 'corporateNumber'),
  },
])('$label', ({ run, body, expected }) => {
  it('offset and cursor give the one long sorted list, complete and without duplicates', async () => {
    const want = expected();
    expect(want.length).toBeGreaterThan(2 * window);
    const byOffset = await walkByOffset(run, body, 70, 'walker');
    const byCursor = await walkByCursor(run, body, 130, 'walker');
    expect(byOffset).toEqual(want);
    expect(byCursor).toEqual(want);
    expect(new Set(byCursor).size).toBe(want.length);
  });

  it('a cold far jump lands on the same records, with the exact total', async () => {
    const want = expected();
    const offset = want.length - 150;
    const page = await run(services, { ...body, offset, limit: 100 }, { userId: `jumper-${Math.random()}` });
    expect(page.results.map(idOf)).toEqual(want.slice(offset, offset + 100));
    expect(page.totalResults).toBe(want.length);
    const beyond = await run(services, { ...body, offset: want.length + 5, limit: 10 }, { userId: 'jumper' });
    expect(beyond.results).toEqual([]);
    expect(beyond.totalResults).toBe(want.length);
  });
});

describe('bounded work', () => {
  it('refuses a jump too far past the furthest page reached, and explains the cursor', async () => {
    const saved = services.paging.maxWalk;
    services.paging.maxWalk = 600;
    try {
      const body = { sort: { field: 'salaryMin', order: 'desc' }, limit: 10 };
      const request = searchJobs(services, { ...body, offset: 2_000 }, { userId: 'far' });
      await expect(request).rejects.toMatchObject({ status: 400 });
      const error = await request.catch((e: { errors: unknown }) => e.errors);
      expect(error).toEqual([{ field: 'offset', reason: expect.stringContaining('cursor: "*"') }]);
      // stepping there works: each page remembers its place
      const want = sortedIds(jobs, 'salaryMin', 'desc', 'id');
      for (const offset of [550, 1_100, 1_650, 2_000]) {
        const page = await searchJobs(services, { ...body, offset }, { userId: 'far' });
        expect(page.results.map(idOf)).toEqual(want.slice(offset, offset + 10));
      }
      // past the end is an empty page, not a 400
      const end = await searchJobs(services, { ...body, offset: 50_000 }, { userId: 'far-end' });
      expect(end.results).toEqual([]);
    } finally {
      services.paging.maxWalk = saved;
    }
  });
});

describe('cursor', () => {
  const body = { sort: { field: 'salaryMin', order: 'asc' }, mediaIdOr: [2] };

  it('returns every result of the first page exactly once while documents change', async () => {
    const want = sortedIds(
      jobs.filter((doc) => doc.mediaId === 2),
      'salaryMin',
      'asc',
      'id',
    );
    const first = await searchJobs(services, { ...body, cursor: '*', limit: 200 }, { userId: 'mover' });
    // meanwhile: new postings that would sort first, and moved sort values
    const moved = want.slice(300, 320);
    const added = Array.from({ length: 30 }, (_, i) => job({ id: `new-${i}`, mediaId: 2, salaryMin: 1 }));
    const originals = moved.map((id) => jobs.find((doc) => doc.id === id) as Doc);
    await indexFixture(services.opensearch, services.config.indexPrefix, {
      jobs: [...added, ...originals.map((doc) => ({ ...doc, salaryMin: 9_999_999 }))],
    });
    try {
      const ids = first.results.map(idOf);
      let cursor = first.nextCursor;
      while (cursor) {
        const page = await searchJobs(services, { ...body, cursor, limit: 200 }, { userId: 'mover' });
        ids.push(...page.results.map(idOf));
        cursor = page.nextCursor;
      }
      expect(ids).toEqual(want);
      expect(first.totalResults).toBe(want.length);
    } finally {
      // the other tests of this file read the list as built in beforeAll, in whatever order they run
      const index = indexName(services.config.indexPrefix, 'jobs');
      await services.opensearch.bulk({
        refresh: true,
        body: added.map((doc) => ({ delete: { _index: index, _id: doc.id as string } })),
      });
      await indexFixture(services.opensearch, services.config.indexPrefix, { jobs: originals });
    }
  });

  it('refuses a tampered cursor, another user, another search, and an offset beside it', async () => {
    const first = await searchJobs(services, { ...body, cursor: '*', limit: 5 }, { userId: 'owner' });
    const cursor = String(first.nextCursor);
    const reasonOf = (promise: Promise<unknown>) =>
      promise.then(
        () => 'no error',
        (error: { status: number; errors: Array<{ field: string; reason: string }> }) =>
          `${error.status} ${error.errors[0]?.field}: ${error.errors[0]?.reason}`,
      );
    // the state is encrypted (test/search/cursors.test.ts): a forger can only change bytes blindly
    const bytes = Buffer.from(cursor, 'base64url');
    bytes[20] = (bytes[20] as number) ^ 0x01;
    const forged = bytes.toString('base64url');
    expect(await reasonOf(searchJobs(services, { ...body, cursor: forged }, { userId: 'thief' }))).toMatch(
      /^400 cursor: is not a cursor this API issued/,
    );
    expect(await reasonOf(searchJobs(services, { ...body, cursor }, { userId: 'thief' }))).toBe(
      '400 cursor: was issued to another user',
    );
    expect(
      await reasonOf(searchJobs(services, { ...body, mediaIdOr: [1], cursor }, { userId: 'owner' })),
    ).toMatch(/^400 cursor: belongs to a different search/);
    expect(await reasonOf(searchJobs(services, { ...body, cursor, offset: 5 }, { userId: 'owner' }))).toMatch(
      /^400 offset: cannot be combined with cursor/,
    );
    // still good after all that
    const next = await searchJobs(services, { ...body, cursor, limit: 5 }, { userId: 'owner' });
    expect(next.results).toHaveLength(5);
  });
});
