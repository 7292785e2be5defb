/**
 * The Japanese label table (src/catalogue/labels-ja.ts) covers every name a user sees: each
 * filter key of both searches (the nested form, aliases included), each facet and each record
 * field of openapi.yaml; and the console catalogue hands those labels to the page.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { consoleCatalogue } from '../src/catalogue/console-catalogue.js';
import { labelsJa } from '../src/catalogue/labels-ja.js';
import { corporateSearch, jobSearch } from '../src/catalogue/searches.js';
import { projectRoot } from '../src/project-root.js';

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

/** Names of `names` without a label in the table (so a failure lists them). */
function unlabelled(names: string[]): string[] {
  return names.filter((name) => !labelsJa[name]?.trim());
}

describe('Japanese labels', () => {
  it.each(['CorporateFilters', 'JobFilters'])('label every filter key of %s', (schema) => {
    const keys = propertiesOf(schema);
    expect(keys.length).toBeGreaterThan(40);
    expect(unlabelled(keys)).toEqual([]);
  });

  it.each(['Corporate', 'Job', 'JobDetail'])('label every record field of %s', (schema) => {
    const fields = propertiesOf(schema);
    expect(fields.length).toBeGreaterThan(3);
    expect(unlabelled(fields)).toEqual([]);
  });

  it.each(['CorporateSearchRequest', 'JobSearchRequest'])('label every facet of %s', (schema) => {
    const facets = schemas[schema]?.properties?.facets?.items?.enum ?? [];
    expect(facets.length).toBeGreaterThan(5);
    expect(unlabelled(facets)).toEqual([]);
  });

  it('are Japanese, not the API name again', () => {
    for (const [name, label] of Object.entries(labelsJa)) {
      expect(label, name).not.toBe(name);
      expect(label, name).toMatch(/[\u3040-\u30ff\u4e00-\u9fff]/);
    }
  });

  it('reach the console: every filter, field and facet of the catalogue carries its label', () => {
    for (const search of consoleCatalogue()) {
      for (const filter of search.filters) expect(filter.label, filter.key).toBe(labelsJa[filter.key]);
      for (const [field, label] of Object.entries(search.fieldLabels))
        expect(label, field).toBe(labelsJa[field]);
      for (const facet of search.facets) expect(facet.label, facet.key).toBe(labelsJa[facet.key]);
    }
  });

  it("names, for each of company search's posting filters, the job-search filter of the same condition", () => {
    const postingFilters = consoleCatalogue()[0]?.postingFilters ?? {};
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
