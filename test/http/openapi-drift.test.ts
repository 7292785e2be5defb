/**
 * openapi.yaml is generated (scripts/gen-openapi.ts) from the base spec, the filter catalogue,
 * the enums and the index mappings. These tests fail when any of them changed without the
 * committed document being regenerated, or when the document breaks a rule of the contract.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { generatedSpecFile, renderOpenApi } from '../../scripts/gen-openapi.js';
import { corporateFilters } from '../../src/catalogue/corporate-filters.js';
import { jobFilters } from '../../src/catalogue/job-filters.js';
import type { FilterDef, Kind, Op } from '../../src/catalogue/types.js';
import { errorCatalogue } from '../../src/errors/catalogue.js';

type Schema = {
  type?: string;
  format?: string;
  enum?: unknown[];
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

/**
 * The request filters as the contract's tables list them (names and types, written here from
 * the contract, not from the catalogue): `names: type`, the type in the tables' own words.
 * The committed document is checked against it, so a filter renamed, dropped or retyped in the
 * catalogue fails here even after openapi.yaml is regenerated.
 */
const corporateContract = `
corporateNameOr corporateNameNot: array<string>
corporateNamePartialMatchOr corporateNamePartialMatchNot: array<string>
prefectureIdOr prefectureIdNot: array<integer>
cityNamePartialMatchOr cityNamePartialMatchNot: array<string>
streetAddressPartialMatchOr streetAddressPartialMatchNot: array<string>
industryCategoryIdOr industryCategoryIdNot: array<integer>
industrySubCategoryIdOr industrySubCategoryIdNot: array<integer>
businessCategoryIdOr businessCategoryIdNot businessSubCategoryIdOr businessSubCategoryIdNot: array<integer>
corporateTypeOr corporateTypeNot: array<CorporateType>
marketCodeOr marketCodeNot: array<string>
isListed: boolean, nullable
revenueRangeOr revenueRangeNot: array<RevenueRange>
employeeCountMin employeeCountMax: integer
capitalMillionYenMin capitalMillionYenMax: number
hasCorporatePhone hasCorporateWebsite hasCorporateEmail hasFax: boolean
hasDispatchLicense hasRecruitmentLicense: boolean
foundedAtFrom foundedAtTo: string date
corporateNumberOr: array<string>
employeeDiff6mMinMin employeeDiff6mMinMax: integer
employeeDiff12mMin employeeDiff12mMax: integer
employeeTransitionPartialMatchOr employeeTransitionPartialMatchNot: array<string>
fundingSeriesOr fundingSeriesNot: array<FundingSeries>
totalAdCostMin totalAdCostMax: integer (int64)
paidMediaSpendOr paidMediaSpendNot: array<PaidMediaSpendRange>
paidMediaUsedMediaIdOr paidMediaUsedMediaIdNot: array<integer>
jobTitlePartialMatchOr jobTitlePartialMatchNot: array<string>
jobMediaIdOr jobMediaIdNot: array<integer>
jobEmploymentTypeIdOr jobEmploymentTypeIdNot: array<integer>
jobSalaryMin jobSalaryMax: integer (int64)
jobCategoryIdOr jobCategoryIdNot jobSubCategoryIdOr jobSubCategoryIdNot: array<integer>
jobOpenedOnFrom jobOpenedOnTo jobDeadlineOnFrom jobDeadlineOnTo jobCreatedAtFrom jobCreatedAtTo: string date
jobAdPlanOr: array<string>
jobHasContactEmail jobHasContactPhone: boolean
jobHasDispatchLicense jobHasRecruitmentLicense: boolean
jobHiringPlanMinAtLeast: integer
jobDescriptionPartialMatchOr jobDescriptionPartialMatchAnd jobDescriptionPartialMatchNot: array<string>
summaryPartialMatchOr summaryPartialMatchAnd summaryPartialMatchNot: array<string>
furiganaPrefixOr: array<string>
`;

const jobContract = `
jobTitleOr jobTitleNot: array<string>
jobTitlePartialMatchOr jobTitlePartialMatchNot: array<string>
corporateNameOr corporateNameNot corporateNamePartialMatchOr corporateNamePartialMatchNot: array<string>
mediaIdOr mediaIdNot: array<integer>
jobCategoryIdOr jobCategoryIdNot jobSubCategoryIdOr jobSubCategoryIdNot: array<integer>
employmentTypeIdOr employmentTypeIdNot: array<integer>
adPlanOr: array<string>
salaryMin salaryMax: integer (int64)
hasDispatchLicense hasRecruitmentLicense: boolean
hasContactEmail hasContactPhone: boolean
jobCreatedAtFrom jobCreatedAtTo jobOpenedOnFrom jobOpenedOnTo jobDeadlineOnFrom jobDeadlineOnTo: string date
corporateNumberOr: array<string>
hiringPlanMinAtLeast: integer
corporatePrefectureIdOr corporatePrefectureIdNot: array<integer>
corporateCityNamePartialMatchOr corporateCityNamePartialMatchNot: array<string>
corporateStreetAddressPartialMatchOr corporateStreetAddressPartialMatchNot: array<string>
corporateIndustryCategoryIdOr corporateIndustryCategoryIdNot: array<integer>
corporateIndustrySubCategoryIdOr corporateIndustrySubCategoryIdNot: array<integer>
corporateBusinessCategoryIdOr corporateBusinessCategoryIdNot: array<integer>
corporateBusinessSubCategoryIdOr corporateBusinessSubCategoryIdNot: array<integer>
corporateCorporateTypeOr corporateCorporateTypeNot: array<CorporateType>
corporateMarketCodeOr corporateMarketCodeNot: array<string>
corporateIsListed: boolean, nullable
corporateRevenueRangeOr corporateRevenueRangeNot: array<RevenueRange>
corporateCapitalMillionYenMin corporateCapitalMillionYenMax: number
corporateEmployeeCountMin corporateEmployeeCountMax: integer
corporateHasCorporateWebsite corporateHasCorporatePhone corporateHasCorporateEmail corporateHasFax: boolean
corporateFundingSeriesOr corporateFundingSeriesNot fundingSeriesOr fundingSeriesNot: array<FundingSeries>
corporateTotalAdCostMin corporateTotalAdCostMax: integer (int64)
corporatePaidMediaSpendOr corporatePaidMediaSpendNot: array<PaidMediaSpendRange>
corporatePaidMediaUsedMediaIdOr corporatePaidMediaUsedMediaIdNot: array<integer>
corporateEmployeeDiff6mMinMin corporateEmployeeDiff6mMinMax: integer
corporateEmployeeDiff12mMin corporateEmployeeDiff12mMax: integer
corporateEmployeeTransitionPartialMatchOr corporateEmployeeTransitionPartialMatchNot: array<string>
jobDescriptionPartialMatchOr jobDescriptionPartialMatchAnd jobDescriptionPartialMatchNot: array<string>
summaryPartialMatchOr summaryPartialMatchAnd summaryPartialMatchNot: array<string>
`;

/** `a b: array<integer>` -> [['a', 'b'], 'array<integer>'] */
const contractRows = (table: string) =>
  table
    .trim()
    .split('\n')
    .map((row) => {
      const [names, type] = row.split(': ') as [string, string];
      return [names.split(' '), type] as const;
    });

/** Enum components the contract names by type; a property must carry exactly their values. */
const enumNamed = (values: unknown[] | undefined) =>
  Object.entries(spec.components.schemas).find(
    ([, schema]) => schema.enum && JSON.stringify(schema.enum) === JSON.stringify(values),
  )?.[0];

/** A committed property in the contract's words: `array<integer>`, `string date`, `boolean, nullable`. */
function shapeOf(schema: Schema | undefined): string {
  if (!schema) return 'missing';
  if (schema.type === 'array') return `array<${shapeOf(schema.items)}>`;
  if (schema.enum) return enumNamed(schema.enum.filter((value) => value !== null)) ?? 'unnamed enum';
  const base = [
    schema.type ?? '?',
    schema.format === 'date' ? ' date' : '',
    schema.format === 'int64' ? ' (int64)' : '',
  ].join('');
  return schema.nullable ? `${base}, nullable` : base;
}

const listOps: ReadonlySet<Op> = new Set(['any', 'none', 'anyContains', 'allContains', 'noneContains']);

/** What each kind of filter takes (docs/decisions/filters.md), one value's shape. */
const kindShape: Record<Kind, (def: FilterDef) => string> = {
  ids: () => 'integer',
  exact: (def) => (def.item.enum ? (enumNamed([...def.item.enum]) ?? 'unnamed enum') : 'string'),
  contains: () => 'string',
  detailText: () => 'string',
  range: (def) =>
    def.item.type === 'number' ? 'number' : def.item.format === 'int64' ? 'integer (int64)' : 'integer',
  dateRange: (def) => (def.key === 'updatedAt' ? 'string' : 'string date'),
  presence: () => 'boolean',
  flag: () => 'boolean',
  listed: () => 'boolean, nullable',
  prefix: () => 'string',
  inclusion: () => 'boolean',
  validOn: (def) => (def.item.format === 'date' ? 'string date' : 'boolean'),
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
        'POST /corporates/match',
        'GET /corporates/suggest',
        // the W3C Reconciliation API beside the match (docs/reconciliation.md)
        'GET /reconcile',
        'POST /reconcile',
        'GET /reconcile/suggest/entity',
        'GET /reconcile/suggest/property',
        'GET /reconcile/preview',
        // match jobs (src/http/routes/match-jobs.ts)
        'POST /corporates/match-jobs',
        'GET /corporates/match-jobs',
        'GET /corporates/match-jobs/{jobId}',
        'DELETE /corporates/match-jobs/{jobId}',
        'GET /corporates/match-jobs/{jobId}/results',
        'POST /corporates/match-jobs/{jobId}/resume',
        // saved searches (src/http/routes/saved-searches.ts)
        'POST /saved-searches',
        'GET /saved-searches',
        'GET /saved-searches/{savedSearchId}',
        'DELETE /saved-searches/{savedSearchId}',
        'GET /saved-searches/{savedSearchId}/changes',
        // webhooks (src/http/routes/webhooks.ts)
        'POST /webhooks',
        'GET /webhooks',
        'GET /webhooks/{webhookId}',
        'DELETE /webhooks/{webhookId}',
        'POST /webhooks/{webhookId}/rotate-secret',
        'POST /webhooks/{webhookId}/enable',
        'GET /webhooks/{webhookId}/deliveries',
        // usage (src/http/routes/usage.ts)
        'GET /usage',
        'GET /usage/entries',
        ...[
          'prefectures',
          'industries',
          'business-types',
          'media',
          'job-categories',
          'markets',
          'employment-types',
          'government-bodies',
          'certification-kinds',
          'award-kinds',
        ].map((name) => `GET /master/${name}`),
      ].sort(),
    );
  });

  it.each([
    ['CorporateSearchRequest', corporateContract],
    ['JobSearchRequest', jobContract],
  ] as const)('%s carries every flat filter of the contract with its type', (name, table) => {
    const properties = spec.components.schemas[name]?.properties ?? {};
    const wrong: string[] = [];
    for (const [names, type] of contractRows(table))
      for (const field of names) {
        const found = shapeOf(properties[field]);
        if (found !== type) wrong.push(`${field}: ${found} (contract: ${type})`);
      }
    expect(wrong).toEqual([]);
  });

  it.each([
    ['CorporateSearchRequest', 'CorporateFilters', corporateFilters],
    ['JobSearchRequest', 'JobFilters', jobFilters],
  ] as const)('%s and %s spell each catalogue filter as its kind says', (request, nested, defs) => {
    const flat = spec.components.schemas[request]?.properties ?? {};
    const keys = spec.components.schemas[nested]?.properties ?? {};
    const wrong: string[] = [];
    for (const def of defs) {
      const type = kindShape[def.kind](def);
      for (const [field, op] of Object.entries(def.flat)) {
        const want = listOps.has(op) ? `array<${type}>` : type;
        if (shapeOf(flat[field]) !== want) wrong.push(`${field}: ${shapeOf(flat[field])}, want ${want}`);
      }
      for (const key of def.nested) {
        const entry = keys[key];
        const got =
          def.ops.includes('is') && def.ops.length === 1
            ? shapeOf(entry)
            : def.ops.map((op) => `${op}=${shapeOf(entry?.properties?.[op])}`).join(' ');
        const want =
          def.ops.includes('is') && def.ops.length === 1
            ? type
            : def.ops.map((op) => `${op}=${listOps.has(op) ? `array<${type}>` : type}`).join(' ');
        if (got !== want) wrong.push(`filters.${key}: ${got}, want ${want}`);
      }
    }
    expect(wrong).toEqual([]);
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
    // closed: false for every company the register has not closed
    expect(nonNull.sort()).toEqual([
      'closed',
      'corporateNumber',
      'markets',
      'name',
      'paidMedias',
      'workLocationCount',
    ]);
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
    // every code is made by some factory (test/errors/error-codes.test.ts), so these are the statuses sent
    const statuses = Object.values(errorCatalogue).map(({ status }) => String(status));
    for (const status of new Set(statuses)) {
      if (!generic.has(status)) expect(documented, `status ${status}`).toContain(status);
    }
  });
});
