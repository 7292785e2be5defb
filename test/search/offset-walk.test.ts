/**
 * Offsets from `walkFrom` (src/catalogue/paging.ts) are read from a point in time with
 * search_after instead of from/size: on the real engine, for every sort the contract offers,
 * both orders, on company and job search, a walked page is the from/size page of the same
 * request: the same ids in the same order, and the same total. The data is small and full of
 * ties and missing values (the tie-breaker decides most of the order); `walkFrom` is lowered
 * on this file's services only, so offsets around and past it stay small.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { corporateSort, jobSort, type SortCatalogue } from '../../src/catalogue/sort-fields.js';
import { createEngine } from '../../src/opensearch/engine.js';
import { closePit } from '../../src/search/paging/pit.js';
import { searchCorporates, searchJobs } from '../../src/search/run-search.js';
import type { Services } from '../../src/services.js';
import { corporate, type Doc, indexFixture, job, setField } from '../fixtures/search/docs.js';
import { setUpServices } from '../support/env.js';
import { startFaultProxy } from '../support/fault-proxy.js';

/** The lowered threshold: pages at this offset or deeper are walked. */
const walkFrom = 30;
const limit = 13;
let services: Services;

/** A value for an index field of this type: four of each, so ties are everywhere. */
function valueFor(field: string, i: number): unknown {
  const pick = i % 4;
  // the hiring activity's and the public records' days are dates alone (strict_date)
  if (
    /^(hiringActivity|invoice|subsidies|procurement|certifications|awards)\./.test(field) &&
    field.endsWith('On')
  )
    return `2026-0${1 + pick}-1${pick}`;
  if (/At$|On$|AtMax$|OnMax$/.test(field)) return `2026-0${1 + pick}-1${pick}T00:00:00Z`;
  if (/phoneNumber|PhoneNumber|fax|email|Email|websiteUrl/.test(field)) return `v${pick}`;
  if (field === 'name') return `同名${pick}`;
  return [-3, 0, 7, 1_000_000][pick];
}

/** Every sort field of the catalogue set on each document, one in five left without it. */
function withSortFields(doc: Doc, catalogue: SortCatalogue, i: number): Doc {
  Object.values(catalogue.fields).forEach((field, f) => {
    // a company always has a name and a work-location count (0 when it has none)
    const always = field === 'name' || field === 'workLocationCount';
    if (always || (i + f) % 5 !== 0) setField(doc, field, valueFor(field, i * 7 + f * 3));
  });
  return doc;
}

const companies: Doc[] = Array.from({ length: 110 }, (_, i) =>
  withSortFields(
    corporate({ corporateNumber: `7${String((i * 37) % 110).padStart(12, '0')}`, prefectureId: 13 }),
    corporateSort,
    i,
  ),
);
const jobs: Doc[] = Array.from({ length: 130 }, (_, i) =>
  withSortFields(
    job({
      id: `walk-${String((i * 53) % 130).padStart(4, '0')}`,
      corporateNumber: companies[i % companies.length]?.corporateNumber,
      mediaId: 1,
    }),
    jobSort,
    i,
  ),
);

beforeAll(async () => {
  services = await setUpServices('offset-walk');
  services.paging.walkFrom = walkFrom;
  await indexFixture(services.opensearch, services.config.indexPrefix, { corporates: companies, jobs });
});
afterAll(async () => {
  await services?.close();
});

type Run = typeof searchJobs;

function valueAt(doc: Doc, path: string): unknown {
  return path.split('.').reduce<unknown>((node, part) => (node as Doc | undefined)?.[part], doc);
}
const idOf = (record: Record<string, unknown>) => String(record.id ?? record.corporateNumber);

/**
 * The list by from/size: one page of all of it (`walkFrom` out of reach for this request),
 * so each from/size page is a slice of it (the order is total: the same on every page).
 */
async function fromSizeList(run: Run, body: Doc, size: number) {
  const saved = services.paging.walkFrom;
  services.paging.walkFrom = Number.POSITIVE_INFINITY;
  try {
    const page = await run(services, { ...body, offset: 0, limit: size + 10 }, { userId: 'from-size' });
    return { ids: page.results.map(idOf), total: page.totalResults };
  } finally {
    services.paging.walkFrom = saved;
  }
}

async function walkedPage(run: Run, body: Doc, offset: number, userId: string) {
  const page = await run(services, { ...body, offset, limit }, { userId });
  return { ids: page.results.map(idOf), total: page.totalResults };
}

/** Closes the points in time the walks opened (the engine holds at most 300 per node). */
async function closeWalkPits(): Promise<void> {
  const redis = services.redis;
  if (!redis) return;
  const keys = await redis.keys(`${services.config.redisPrefix}paging:*`);
  const pits = await Promise.all(keys.filter((key) => key.endsWith(':pit')).map((key) => redis.get(key)));
  await Promise.all(pits.map((pit) => (pit ? closePit(services.opensearch, pit) : undefined)));
  if (keys.length > 0) await redis.del(...keys);
}

const searches = [
  { label: 'company', run: searchCorporates as Run, catalogue: corporateSort, size: companies.length },
  { label: 'job', run: searchJobs, catalogue: jobSort, size: jobs.length },
];
const cases = searches.flatMap((search) =>
  Object.keys(search.catalogue.fields).flatMap((field) =>
    (['asc', 'desc'] as const).map((order) => ({ ...search, field, order })),
  ),
);

describe('a walked offset is the from/size page', () => {
  it.each(cases)('$label search by $field $order', async ({ run, field, order, size }) => {
    const body = { sort: { field, order } };
    const user = `walker-${field}-${order}`;
    try {
      // past the end, then cold jumps in an order that leaves each without a remembered place
      // near it, then jumps that walk from one, then a sequential walk and a page again
      const offsets = [size + 3, size - 5, walkFrom + 1, walkFrom, walkFrom - 1, 57, 50, 64, 72];
      for (let offset = walkFrom; offset < size; offset += limit) offsets.push(offset);
      offsets.push(walkFrom + limit);
      const list = await fromSizeList(run, body, size);
      expect(list.ids).toHaveLength(size);
      for (const offset of offsets) {
        const want = { ids: list.ids.slice(offset, offset + limit), total: list.total };
        const got = await walkedPage(run, body, offset, user);
        expect({ offset, ...got }).toEqual({ offset, ...want });
      }
    } finally {
      await closeWalkPits();
    }
  });

  it.each(cases)('$label data: $field has ties and missing values', ({ label, field }) => {
    // four values and a fifth of the documents without one, over 110 or 130 documents
    const docs = label === 'company' ? companies : jobs;
    const catalogueField = (label === 'company' ? corporateSort : jobSort).fields[field] as string;
    const values = docs.map((doc) => JSON.stringify(valueAt(doc, catalogueField) ?? null));
    expect(new Set(values).size).toBeLessThanOrEqual(5);
    if (field !== 'name' && field !== 'workLocationCount')
      expect(values.filter((value) => value === 'null').length).toBeGreaterThanOrEqual(docs.length / 6);
  });
});

describe('facets on a walked page', () => {
  it.each([
    { label: 'company', run: searchCorporates as Run, facets: ['prefectureId'] },
    { label: 'job', run: searchJobs, facets: ['mediaId'] },
  ])('$label search: the same counts as on the from/size page', async ({ run, facets }) => {
    const body = { sort: { field: 'updatedAt', order: 'desc' }, facets, offset: 40, limit };
    try {
      const walked = await run(services, body, { userId: 'facets' });
      services.paging.walkFrom = Number.POSITIVE_INFINITY;
      const fromSize = await run(services, body, { userId: 'facets' });
      expect(walked.facets).toEqual(fromSize.facets);
      expect(Object.values(walked.facets ?? {}).flat().length).toBeGreaterThan(0);
      expect(walked.results.map(idOf)).toEqual(fromSize.results.map(idOf));
    } finally {
      services.paging.walkFrom = walkFrom;
      await closeWalkPits();
    }
  });
});

describe('a point in time the engine will not open', () => {
  it('within the result window the page is served by from/size; past it the search fails', async () => {
    const proxy = await startFaultProxy(inject('opensearchUrl'), { only: /point_in_time/ });
    const opensearch = createEngine(proxy.url);
    const through = { ...services, opensearch };
    try {
      const body = { sort: { field: 'salaryMin', order: 'desc' } };
      const list = await fromSizeList(searchJobs, body, jobs.length);
      proxy.set('status-500');
      const page = await searchJobs(through, { ...body, offset: 40, limit }, { userId: 'no-pit' });
      expect(page.results.map(idOf)).toEqual(list.ids.slice(40, 40 + limit));
      expect(page.totalResults).toBe(jobs.length);
      expect(proxy.faulted()).toBe(1);
      // past the window from/size cannot serve the page
      const narrow = { ...through, paging: { ...services.paging, resultWindow: 50 } };
      await expect(
        searchJobs(narrow, { ...body, offset: 60, limit }, { userId: 'no-pit' }),
      ).rejects.toMatchObject({
        status: expect.any(Number),
      });
      expect(proxy.faulted()).toBe(2);
    } finally {
      await opensearch.close();
      await proxy.close();
    }
  });
});
