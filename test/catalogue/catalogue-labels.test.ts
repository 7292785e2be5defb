/**
 * The Japanese labels (src/catalogue/labels.ts) cover every name a user sees: each filter key
 * of both searches (CorporateFilters and JobFilters of openapi.yaml, aliases included), each
 * facet, each record field (Corporate, Job, JobDetail) and each value of the filters'
 * enumerations; the console catalogue hands exactly those labels to the page and names the
 * master of every id and market filter, the linked company's included. A name added to the
 * contract or the catalogue without them fails here, naming it.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { fieldLabel, filterLabel, type SearchName, valueLabels } from '../../src/catalogue/labels.js';
import { publicCatalogue } from '../../src/catalogue/public-catalogue.js';
import { corporateSearch, jobSearch } from '../../src/catalogue/searches.js';
import { projectRoot } from '../../src/project-root.js';

interface Schema {
  properties?: Record<string, Schema>;
  items?: Schema & { enum?: string[] };
}
const schemas = (
  parse(readFileSync(path.join(projectRoot, 'openapi.yaml'), 'utf8')) as {
    components: { schemas: Record<string, Schema> };
  }
).components.schemas;

function propertiesOf(name: string): string[] {
  const properties = schemas[name]?.properties;
  if (!properties) throw new Error(`openapi.yaml has no schema ${name} with properties`);
  return Object.keys(properties);
}

/** Names without a label (so a failure lists them). */
function unlabelled(names: string[], label: (name: string) => string | undefined): string[] {
  return names.filter((name) => !label(name)?.trim());
}

const searches = publicCatalogue();
const contract: Array<{ search: SearchName; filters: string; request: string; records: string[] }> = [
  {
    search: 'corporates',
    filters: 'CorporateFilters',
    request: 'CorporateSearchRequest',
    records: ['Corporate'],
  },
  { search: 'jobs', filters: 'JobFilters', request: 'JobSearchRequest', records: ['Job', 'JobDetail'] },
];

describe('Japanese labels', () => {
  it.each(contract)('label every filter key of $filters, aliases included', ({ search, filters }) => {
    const keys = propertiesOf(filters);
    expect(keys.length).toBeGreaterThan(40);
    expect(unlabelled(keys, (key) => filterLabel(search, key))).toEqual([]);
  });

  it('take the search into account: a job-search filter on the linked company says so', () => {
    expect(filterLabel('corporates', 'prefectureId')).toBe('都道府県（本社）');
    expect(filterLabel('jobs', 'corporatePrefectureId')).toBe('企業の都道府県（本社）');
    expect(filterLabel('jobs', 'prefectureId')).toBe('企業の都道府県（本社）');
    expect(filterLabel('corporates', 'mediaId')).toBe(filterLabel('corporates', 'jobMediaId'));
    expect(filterLabel('corporates', 'noSuchFilter')).toBeUndefined();
    expect(fieldLabel('jobs', 'updatedAt')).not.toBe(fieldLabel('corporates', 'updatedAt'));
  });

  it.each(contract)('label every facet of $request', ({ search, request }) => {
    const facets = schemas[request]?.properties?.facets?.items?.enum ?? [];
    expect(facets.length).toBeGreaterThan(5);
    expect(unlabelled(facets, (facet) => filterLabel(search, facet))).toEqual([]);
  });

  it.each(contract)('label every record field of $records', ({ search, records }) => {
    const fields = records.flatMap(propertiesOf);
    expect(fields.length).toBeGreaterThan(10);
    expect(unlabelled(fields, (field) => fieldLabel(search, field))).toEqual([]);
  });

  it('label every value of every enumeration a filter takes', () => {
    const values = searches.flatMap((search) =>
      search.filters.flatMap((filter) => filter.conditions.flatMap((condition) => condition.item.enum ?? [])),
    );
    expect(values.length).toBeGreaterThan(20);
    expect(values.filter((value) => !valueLabels[String(value)])).toEqual([]);
  });

  it('are Japanese, not the API name again, with full-width brackets', () => {
    const labels = searches.flatMap((search) => [
      ...search.filters.map((filter) => [filter.key, filter.label]),
      ...Object.entries(search.fieldLabels),
      ...search.facets.map((facet) => [facet.key, facet.label]),
    ]);
    for (const [name, label] of [...labels, ...Object.entries(valueLabels)]) {
      expect(label, name).not.toBe(name);
      expect(label, name).toMatch(/[\u3040-\u30ff\u4e00-\u9fff]/);
      expect(label, name).not.toMatch(/[()]/);
    }
  });
});

describe('the console catalogue', () => {
  it('carries the label of every filter, field and facet', () => {
    for (const search of searches) {
      for (const filter of search.filters)
        expect(filter.label, filter.key).toBe(filterLabel(search.name, filter.key));
      for (const [field, label] of Object.entries(search.fieldLabels))
        expect(label, field).toBe(fieldLabel(search.name, field));
      for (const facet of search.facets)
        expect(facet.label, facet.key).toBe(filterLabel(search.name, facet.key));
    }
  });

  it('names the master of every id filter and market filter', () => {
    const masterless = searches.flatMap((search) =>
      search.filters
        .filter((filter) => /(Id|marketCode|MarketCode)$/.test(filter.key) && filter.master === undefined)
        .map((filter) => `${search.name}.${filter.key}`),
    );
    expect(masterless).toEqual([]);
  });

  it("names, for each of company search's posting filters, the job-search filter of the same condition", () => {
    const postingFilters = searches[0]?.postingFilters ?? {};
    const companyDefs = corporateSearch.filters.filter((def) => def.scope === 'posting');
    expect(Object.keys(postingFilters).sort()).toEqual(companyDefs.map((def) => def.nested[0]).sort());
    for (const def of companyDefs) {
      const jobKey = postingFilters[def.nested[0] ?? ''] ?? '';
      // the same operators (a yes/no is `flag` on one side and `presence` on the other: both `is`)
      const jobOps = jobSearch.filters
        .filter((entry) => entry.scope === 'job' && entry.nested.includes(jobKey))
        .flatMap((entry) => entry.ops);
      expect(jobOps, `${def.key} -> ${jobKey}`).toEqual(expect.arrayContaining([...def.ops]));
    }
  });
});
