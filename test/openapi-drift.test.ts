/**
 * openapi.yaml is generated (scripts/gen-openapi.ts) from the base spec, the filter catalogue,
 * the enums and the index mappings. These tests fail when any of them changed without the
 * committed document being regenerated, or when the document breaks a rule of the contract.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { buildOpenApi, generatedSpecFile, renderOpenApi } from '../scripts/gen-openapi.js';
import { corporateSearchRequestSchemas, jobSearchRequestSchemas } from '../src/catalogue/request-schema.js';
import { errors } from '../src/errors/catalogue.js';

type Schema = {
  type?: string;
  $ref?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
  additionalProperties?: boolean;
  required?: string[];
  nullable?: boolean;
};
const committed = readFileSync(generatedSpecFile, 'utf8');
const spec = parse(committed) as {
  openapi: string;
  info: { version: string };
  servers: Array<{ url: string }>;
  paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
  components: { schemas: Record<string, Schema> };
};

describe('openapi.yaml', () => {
  it('is exactly what `npm run gen:openapi` writes now (catalogue, enums, mappings and spec agree)', () => {
    // on failure: run `npm run gen:openapi` and commit openapi.yaml with the change that caused it
    expect(committed).toBe(renderOpenApi());
  });

  it('says it is generated', () => {
    expect(committed.split('\n')[0]).toMatch(/^# GENERATED .*Do not edit|^# GENERATED/);
    expect(committed).toContain('Do not edit');
  });

  it('is OpenAPI 3.0.3, contract version 2.0.0, served under /rest/v1', () => {
    expect(spec.openapi).toBe('3.0.3');
    expect(spec.info.version).toBe('2.0.0');
    expect(spec.servers.map((server) => server.url)).toEqual(['/rest/v1']);
  });

  it('has every endpoint of the contract, and the list endpoints beside them', () => {
    const operations = Object.entries(spec.paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(operations.sort()).toEqual(
      [
        'POST /corporates/search',
        'POST /jobs/search',
        'POST /corporates/count',
        'POST /jobs/count',
        'POST /corporates/export',
        'POST /jobs/export',
        'GET /jobs/{jobId}/detail',
        ...[
          'prefectures',
          'industries',
          'business-types',
          'media',
          'job-categories',
          'markets',
          'employment-types',
        ].map((name) => `GET /master/${name}`),
      ].sort(),
    );
  });

  it('holds every request schema of the catalogue, unchanged', () => {
    for (const [name, schema] of Object.entries({
      ...corporateSearchRequestSchemas(),
      ...jobSearchRequestSchemas(),
    })) {
      expect(spec.components.schemas[name], name).toEqual(JSON.parse(JSON.stringify(schema)));
    }
  });

  it('closes every request object: additionalProperties false at every depth', () => {
    const open: string[] = [];
    const visit = (schema: Schema | undefined, where: string, seen: Set<string>): void => {
      if (!schema) return;
      if (schema.$ref) {
        const name = schema.$ref.replace('#/components/schemas/', '');
        if (!seen.has(name)) visit(spec.components.schemas[name], name, new Set([...seen, name]));
        return;
      }
      if (schema.type === 'object' && schema.additionalProperties !== false) open.push(where);
      for (const [key, property] of Object.entries(schema.properties ?? {}))
        visit(property, `${where}.${key}`, seen);
      visit(schema.items, `${where}[]`, seen);
    };
    for (const name of ['CorporateSearchRequest', 'JobSearchRequest'])
      visit(spec.components.schemas[name], name, new Set([name]));
    expect(open).toEqual([]);
  });

  it('makes every record property present, nullable unless the shapes rule says otherwise', () => {
    const corporate = spec.components.schemas.Corporate as Schema;
    expect(corporate.required).toEqual(Object.keys(corporate.properties ?? {}));
    const nonNull = Object.entries(corporate.properties ?? {})
      .filter(([, property]) => !property.nullable)
      .map(([name]) => name);
    expect(nonNull.sort()).toEqual(['corporateNumber', 'markets', 'name', 'paidMedias', 'workLocationCount']);
    expect(Object.keys(corporate.properties ?? {})).toContain('summary');
    expect(Object.keys(corporate.properties ?? {})).not.toContain('postings');
    const job = spec.components.schemas.Job as Schema;
    expect(Object.keys(job.properties ?? {})).toContain('descriptionSnippets');
    expect(Object.keys(job.properties ?? {})).not.toContain('description');
    expect(job.properties?.workLocation?.nullable).toBe(true);
  });

  it('documents every status of the error catalogue on some endpoint', () => {
    const documented = new Set(
      Object.values(spec.paths).flatMap((methods) =>
        Object.values(methods).flatMap((op) => Object.keys(op.responses)),
      ),
    );
    // 405 (a wrong method on a known path) is generic to every path, described in info
    const generic = new Set(['405']);
    const statuses = Object.values(errors).map((make) => {
      const factory = make as (...args: unknown[]) => { status: number };
      return String(factory([], 1).status);
    });
    for (const status of new Set(statuses)) {
      if (!generic.has(status)) expect(documented, `status ${status}`).toContain(status);
    }
  });

  it('builds the same document twice (no hidden state)', () => {
    expect(buildOpenApi()).toEqual(buildOpenApi());
  });
});
