/**
 * Sorting, paging and totals on the real engine: every sort field of both searches (aliases
 * included) in both orders with records lacking the value last, stable pages with no
 * duplicates or gaps, exact totals past the engine's default count of 10,000, null totals.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corporateSearch, jobSearch, type SearchCatalogue } from '../../src/catalogue/searches.js';
import { sortFieldNames } from '../../src/catalogue/sort-fields.js';
import { indexDefinitions } from '../../src/opensearch/mappings.js';
import { searchCorporates, searchJobs } from '../../src/search/run-search.js';
import type { Services } from '../../src/services.js';
import { corporate, type Doc, indexFixture, job, setField } from '../fixtures/search/docs.js';
import { setUpServices } from '../support/env.js';

let services: Services;

/** The mapping type of an index field, e.g. ('corporates', 'aggregates.jobSalaryMinMax') -> 'long'. */
function mappingType(index: string, field: string): string {
  let node = indexDefinitions().find((def) => def.name === index)?.mappings as Doc | undefined;
  for (const part of field.split('.'))
    node = (node?.properties as Doc | undefined)?.[part] as Doc | undefined;
  return String(node?.type);
}

const lowHigh: Record<string, [unknown, unknown]> = {
  keyword: ['03-0000-0001', 'zz@example.jp'],
  integer: [-5, 700],
  long: [3, 9_000_000_000],
  double: [0.5, 12_000.25],
  date: ['2019-12-31', '2024-02-29'],
};

interface SortFixture {
  search: SearchCatalogue;
  name: string;
  low: Doc;
  high: Doc;
  none: Doc;
}

function sortFixtures(search: SearchCatalogue): SortFixture[] {
  const make = search.index === 'corporates' ? corporate : job;
  return sortFieldNames(search.sort).map((name) => {
    const field = search.sort.fields[search.sort.aliases[name] ?? name] as string;
    const values = lowHigh[mappingType(search.index, field)];
    if (!values) throw new Error(`no sample values for sort field ${name}`);
    return {
      search,
      name,
      low: setField(make(), field, values[0]),
      high: setField(make(), field, values[1]),
      // the builders fill name and workLocationCount; the third record lacks the sort value
      none: setField(make(), field, undefined),
    };
  });
}

const fixtures = [...sortFixtures(corporateSearch), ...sortFixtures(jobSearch)];
const tied = Array.from({ length: 23 }, () => corporate({ prefectureId: 46, employeeCount: 7 }));
const many = Array.from({ length: 10_050 }, (_, i) => ({
  corporateNumber: `8${String(i).padStart(12, '0')}`,
  name: `大量${i}`,
  prefectureId: 47,
}));

beforeAll(async () => {
  services = await setUpServices('search-sort');
  const fixtureDocs = (index: string) =>
    fixtures
      .filter(({ search }) => search.index === index)
      .flatMap(({ low, high, none }) => [none, high, low]);
  await indexFixture(services.opensearch, services.config.indexPrefix, {
    corporates: [...fixtureDocs('corporates'), ...tied],
    jobs: fixtureDocs('jobs'),
  });
  for (let i = 0; i < many.length; i += 2500)
    await indexFixture(services.opensearch, services.config.indexPrefix, {
      corporates: many.slice(i, i + 2500),
    });
});
afterAll(async () => {
  await services?.close();
});

function run(search: SearchCatalogue, body: Record<string, unknown>) {
  return search.index === 'corporates' ? searchCorporates(services, body) : searchJobs(services, body);
}

const idOf = (doc: Doc) => String(doc.id ?? doc.corporateNumber);

describe.each(fixtures.map((fixture) => ({ ...fixture, label: `${fixture.search.index} ${fixture.name}` })))(
  'sort $label',
  ({ search, name, low, high, none }) => {
    const scope = { corporateNumberOr: [low, high, none].map((doc) => String(doc.corporateNumber)) };
    it.each([
      ['asc', [low, high, none]],
      ['desc', [high, low, none]],
    ] as const)('%s puts the missing value last', async (order, expected) => {
      const { results } = await run(search, { ...scope, sort: { field: name, order } });
      expect(results.map(idOf)).toEqual(expected.map(idOf));
    });
  },
);

describe('default sort', () => {
  it('company search: name ascending', async () => {
    const { results } = await searchCorporates(services, { prefectureIdOr: [47], limit: 3 });
    expect(results.map((r) => r.name)).toEqual(['大量0', '大量1', '大量10']);
  });

  it('job search: jobCreatedAt descending', async () => {
    const fixture = fixtures.find(({ search, name }) => search === jobSearch && name === 'jobCreatedAt');
    const numbers = [fixture?.low, fixture?.high, fixture?.none].map((doc) => String(doc?.corporateNumber));
    const { results } = await searchJobs(services, { corporateNumberOr: numbers });
    expect(results.map(idOf)).toEqual(
      [fixture?.high, fixture?.low, fixture?.none].map((doc) => idOf(doc ?? {})),
    );
  });
});

describe('paging', () => {
  it('walks tied records page by page with no duplicates or gaps, in both orders', async () => {
    for (const order of ['asc', 'desc'] as const) {
      const body = { prefectureIdOr: [46], sort: { field: 'employeeCount', order } };
      const all = (await searchCorporates(services, { ...body, limit: 100 })).results.map(idOf);
      expect(all).toHaveLength(23);
      const paged: string[] = [];
      for (let offset = 0; offset < 30; offset += 5)
        paged.push(...(await searchCorporates(services, { ...body, offset, limit: 5 })).results.map(idOf));
      expect(paged).toEqual(all);
      expect(new Set(paged).size).toBe(23);
      // ties are broken by the corporate number, ascending
      expect([...all].sort()).toEqual(all);
    }
  });

  it('returns limit records from offset', async () => {
    const page = await searchCorporates(services, { prefectureIdOr: [47], offset: 9990, limit: 10 });
    expect(page.results).toHaveLength(10);
    expect(page.totalResults).toBe(10_050);
  });
});

describe('totals', () => {
  it('is the exact count, also past 10,000', async () => {
    const { totalResults, results } = await searchCorporates(services, { prefectureIdOr: [47] });
    expect(totalResults).toBe(10_050);
    expect(results).toHaveLength(25);
  });

  it('is exact for a small set and for nothing', async () => {
    expect((await searchCorporates(services, { prefectureIdOr: [46] })).totalResults).toBe(23);
    expect((await searchCorporates(services, { prefectureIdOr: [45] })).totalResults).toBe(0);
  });

  it('is null when includeTotalResults is false, with the same results', async () => {
    const counted = await searchCorporates(services, { prefectureIdOr: [46], limit: 5 });
    const uncounted = await searchCorporates(services, {
      prefectureIdOr: [46],
      limit: 5,
      includeTotalResults: false,
    });
    expect(uncounted.totalResults).toBeNull();
    expect(uncounted.results).toEqual(counted.results);
  });
});
