/**
 * Every filter of both searches, in every request form it has (flat and nested, aliases
 * included), on the real engine: one record that matches and one that does not. The cases are
 * derived from the catalogue (test/fixtures/search/filter-cases.ts); the last test fails when a
 * catalogue name has no case.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corporateSearch, jobSearch, type SearchCatalogue } from '../../src/catalogue/searches.js';
import { searchCorporates, searchJobs } from '../../src/search/run-search.js';
import type { Services } from '../../src/services.js';
import { indexFixture } from '../fixtures/search/docs.js';
import { type FilterFixture, filterFixtures } from '../fixtures/search/filter-cases.js';
import { setUpServices } from '../support/env.js';

let services: Services;
const corporateFixtures = filterFixtures(corporateSearch);
const jobFixtures = filterFixtures(jobSearch);

beforeAll(async () => {
  services = await setUpServices('search-filters');
  await indexFixture(services.opensearch, services.config.indexPrefix, {
    corporates: corporateFixtures.flatMap(({ a, b }) => [a, b]),
    jobs: jobFixtures.flatMap(({ a, b }) => [a, b]),
  });
});
afterAll(async () => {
  await services?.close();
});

function idOf(record: Record<string, unknown>): string {
  return String(record.id ?? record.corporateNumber);
}

function casesOf(fixtures: FilterFixture[]) {
  return fixtures.flatMap((fixture) =>
    fixture.cases.map((filterCase) => ({
      ...filterCase,
      fixture,
      label: `${filterCase.name} (${fixture.def.kind})`,
    })),
  );
}

describe.each([
  ['company search', corporateSearch, corporateFixtures, searchCorporates],
  ['job search', jobSearch, jobFixtures, searchJobs],
] as const)('%s filters', (_label, _search, fixtures, run) => {
  it.each(casesOf(fixtures))('$label', async ({ fixture, request, expected }) => {
    const { a, b } = fixture;
    const ids = (await run(services, { ...request, limit: 10 })).results.map(idOf).sort();
    const idA = String(a.id ?? a.corporateNumber);
    const idB = String(b.id ?? b.corporateNumber);
    const want = expected === 'A' ? [idA] : expected === 'B' ? [idB] : [idA, idB].sort();
    expect(ids, JSON.stringify(request)).toEqual(want);
  });
});

function catalogueNames(search: SearchCatalogue): string[] {
  return search.filters
    .flatMap((def) => [
      ...Object.keys(def.flat),
      ...def.nested.flatMap((key) =>
        def.ops.map((op) => (op === 'is' ? `filters.${key}` : `filters.${key}.${op}`)),
      ),
    ])
    .map((name) => `${search.index}:${name}`);
}

// the cases are declared before any runs, so this holds in any test order; each is a test above
const covered = new Set(
  (
    [
      [corporateSearch, corporateFixtures],
      [jobSearch, jobFixtures],
    ] as const
  ).flatMap(([search, fixtures]) =>
    casesOf(fixtures).map(({ name }) => `${search.index}:${name.replace(/=.*$/, '')}`),
  ),
);

describe('coverage', () => {
  it('has an integration case for every flat and nested name of both catalogues', () => {
    const missing = [...catalogueNames(corporateSearch), ...catalogueNames(jobSearch)].filter(
      (name) => !covered.has(name),
    );
    expect(missing).toEqual([]);
    expect(covered.size).toBeGreaterThan(300);
  });
});
