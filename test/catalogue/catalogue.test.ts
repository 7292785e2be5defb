/**
 * Keeps the filter catalogue in step with the contract and the mappings: every flat field the
 * contract (4.2, 4.3, 4.4) and docs/decisions/filters.md name is declared, nothing else is, names never clash,
 * and every index field the catalogue queries exists in mappings/*.json.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  corporateSearchRequestSchemas,
  jobSearchRequestSchemas,
} from '../../src/catalogue/request-schema.js';
import { corporateSearch, jobSearch, type SearchCatalogue } from '../../src/catalogue/searches.js';
import { flatSuffix, type SchemaObject } from '../../src/catalogue/types.js';

const pairs = (stem: string, a: string, b: string) => [`${stem}${a}`, `${stem}${b}`];
const orNot = (...stems: string[]) => stems.flatMap((s) => pairs(s, 'Or', 'Not'));
const minMax = (...stems: string[]) => stems.flatMap((s) => pairs(s, 'Min', 'Max'));
const fromTo = (...stems: string[]) => stems.flatMap((s) => pairs(s, 'From', 'To'));
const contains = (...stems: string[]) => stems.flatMap((s) => pairs(s, 'PartialMatchOr', 'PartialMatchNot'));
const containsAll = (...stems: string[]) => stems.flatMap((s) => [...contains(s), `${s}PartialMatchAnd`]);

/** The flat company filters (docs/api.md, "Filters") and both license spellings. */
const contractCorporateFlat = [
  ...orNot('corporateName', 'prefectureId', 'industryCategoryId', 'industrySubCategoryId'),
  ...orNot('businessCategoryId', 'businessSubCategoryId', 'corporateType', 'marketCode', 'revenueRange'),
  ...orNot('fundingSeries', 'paidMediaSpend', 'paidMediaUsedMediaId'),
  ...contains('corporateName', 'cityName', 'streetAddress', 'employeeTransition'),
  'isListed',
  ...minMax('employeeCount', 'capitalMillionYen', 'employeeDiff6mMin', 'employeeDiff12m', 'totalAdCost'),
  ...['hasCorporatePhone', 'hasCorporateWebsite', 'hasCorporateEmail', 'hasFax'],
  ...['hasDispatchLicense', 'hasRecruitmentLicense'],
  ...fromTo('foundedAt'),
  'corporateNumberOr',
  ...contains('jobTitle'),
  ...orNot('jobMediaId', 'jobEmploymentTypeId', 'jobCategoryId', 'jobSubCategoryId'),
  ...['jobSalaryMin', 'jobSalaryMax'],
  ...fromTo('jobOpenedOn', 'jobDeadlineOn', 'jobCreatedAt'),
  'jobAdPlanOr',
  ...['jobHasContactEmail', 'jobHasContactPhone', 'jobHasDispatchLicense', 'jobHasRecruitmentLicense'],
  'jobHiringPlanMinAtLeast',
  ...containsAll('jobDescription', 'summary'),
];

/** The flat job filters (docs/api.md, "Filters") and the fundingSeries aliases. */
const contractJobFlat = [
  ...orNot('jobTitle', 'corporateName', 'mediaId', 'jobCategoryId', 'jobSubCategoryId', 'employmentTypeId'),
  ...contains('jobTitle', 'corporateName'),
  'adPlanOr',
  ...['salaryMin', 'salaryMax'],
  ...['hasDispatchLicense', 'hasRecruitmentLicense', 'hasContactEmail', 'hasContactPhone'],
  ...fromTo('jobCreatedAt', 'jobOpenedOn', 'jobDeadlineOn'),
  'corporateNumberOr',
  'hiringPlanMinAtLeast',
  ...orNot('corporatePrefectureId', 'corporateIndustryCategoryId', 'corporateIndustrySubCategoryId'),
  ...orNot('corporateBusinessCategoryId', 'corporateBusinessSubCategoryId', 'corporateCorporateType'),
  ...orNot('corporateMarketCode', 'corporateRevenueRange', 'corporateFundingSeries', 'fundingSeries'),
  ...orNot('corporatePaidMediaSpend', 'corporatePaidMediaUsedMediaId'),
  ...contains('corporateCityName', 'corporateStreetAddress', 'corporateEmployeeTransition'),
  'corporateIsListed',
  ...minMax('corporateCapitalMillionYen', 'corporateEmployeeCount', 'corporateTotalAdCost'),
  ...minMax('corporateEmployeeDiff6mMin', 'corporateEmployeeDiff12m'),
  ...['corporateHasCorporateWebsite', 'corporateHasCorporatePhone', 'corporateHasCorporateEmail'],
  'corporateHasFax',
  ...containsAll('jobDescription', 'summary'),
];

/** Nested paths of docs/api.md, "Filters" (each must be accepted by at least one search). */
const contractNestedPaths = [
  'corporateName.anyContains',
  'corporateNumber.any',
  'prefectureId.any',
  'corporatePrefectureId.any',
  'industryCategoryId.any',
  'industrySubCategoryId.any',
  'jobCategoryId.any',
  'jobSubCategoryId.any',
  'mediaId.any',
  'jobMediaId.any',
  'marketCode.any',
  'corporateMarketCode.any',
  'employmentTypeId.any',
  'jobEmploymentTypeId.any',
  'employeeCount.min',
  'employeeCount.max',
  'workLocationCount.min',
  'workLocationCount.max',
  'summary.anyContains',
  'summary.noneContains',
  'hasCorporatePhone',
  'hasCorporateEmail',
  'hasCorporateWebsite',
  'employeeDiff6m.min',
  'employeeDiff6m.max',
  'employeeDiff12m.min',
  'employeeDiff12m.max',
  'jobTitle.anyContains',
  'jobTitle.noneContains',
  'jobCreatedAt.from',
  'jobCreatedAt.to',
  'jobDescription.anyContains',
  'jobDescription.allContains',
  'jobDescription.noneContains',
];

function flatNames(search: SearchCatalogue): string[] {
  return search.filters.flatMap((def) => Object.keys(def.flat));
}

function mappingFields(index: string): Set<string> {
  const mapping = JSON.parse(readFileSync(`mappings/${index}.json`, 'utf8')) as {
    mappings: { properties: Record<string, unknown> };
  };
  const out = new Set<string>();
  const walk = (props: Record<string, unknown>, prefix: string) => {
    for (const [name, value] of Object.entries(props)) {
      const node = value as { properties?: Record<string, unknown>; fields?: Record<string, unknown> };
      out.add(`${prefix}${name}`);
      if (node.properties) walk(node.properties, `${prefix}${name}.`);
      for (const sub of Object.keys(node.fields ?? {})) out.add(`${prefix}${name}.${sub}`);
    }
  };
  walk(mapping.mappings.properties, '');
  return out;
}

/** The company's hiring activity: an addition of this API's, on company search only. */
const hiringActivityFlat = [
  ...[
    'OpenPostings',
    'NewPostings7d',
    'NewPostings30d',
    'NewPostings90d',
    'ClosedPostings30d',
    'NetChange30d',
  ].flatMap((name) => [`hiring${name}Min`, `hiring${name}Max`]),
  ...['FirstPostedOn', 'LastPostedOn'].flatMap((name) => [`hiring${name}From`, `hiring${name}To`]),
  ...['StartedMediaId', 'StoppedMediaId'].flatMap((name) => [`hiring${name}Or`, `hiring${name}Not`]),
];

/** gBizINFO's subsidies and procurement: additions of this API's, on company search only. */
const gbizinfoFlat = ['subsidy', 'procurement'].flatMap((stem) => [
  `has${stem === 'subsidy' ? 'Subsidies' : 'Procurement'}`,
  `${stem}CountMin`,
  `${stem}CountMax`,
  `${stem}TotalYenMin`,
  `${stem}TotalYenMax`,
  `${stem}LatestOnFrom`,
  `${stem}LatestOnTo`,
  `${stem}BodyIdOr`,
  `${stem}BodyIdNot`,
]);

/** gBizINFO's certifications, awards and workplace figures: additions of this API's, company search only. */
const gbizinfoListedFlat = [
  ...['certification', 'award'].flatMap((stem) => [
    `has${stem === 'certification' ? 'Certifications' : 'Awards'}`,
    `${stem}KindIdOr`,
    `${stem}KindIdNot`,
    `${stem}CountMin`,
    `${stem}CountMax`,
    `${stem}LatestOnFrom`,
    `${stem}LatestOnTo`,
  ]),
  'hasWorkplace',
  ...[
    'AverageAge',
    'AverageTenureYears',
    'OvertimeHours',
    'FemaleWorkerPercent',
    'FemaleManagerPercent',
    'FemaleOfficerPercent',
    'MaleChildcareLeavePercent',
  ].flatMap((name) => [`workplace${name}Min`, `workplace${name}Max`]),
];

/** The company's invoice registration: an addition of this API's, on company search only. */
const invoiceFlat = [
  'hasInvoiceRecord',
  'invoiceRegistered',
  'invoiceRegisteredOn',
  ...['RegistrationDate', 'EndedOn'].flatMap((name) => [`invoice${name}From`, `invoice${name}To`]),
  'invoiceEndReasonOr',
  'invoiceEndReasonNot',
];

describe.each([
  ['company search', corporateSearch, contractCorporateFlat, corporateSearchRequestSchemas()],
  ['job search', jobSearch, contractJobFlat, jobSearchRequestSchemas()],
] as const)('the %s catalogue', (_label, search, contractFlat, schemas) => {
  it('declares exactly the flat fields of the contract, and the change-feed bounds, the reading prefix, includeClosed, the hiring activity and the public records beside them', () => {
    const additions = [
      'updatedAtFrom',
      'updatedAtTo',
      // closed companies (and their postings) are left out unless asked for
      'includeClosed',
      ...(search === corporateSearch
        ? ['furiganaPrefixOr', ...hiringActivityFlat, ...invoiceFlat, ...gbizinfoFlat, ...gbizinfoListedFlat]
        : []),
    ];
    expect([...flatNames(search)].sort()).toEqual([...contractFlat, ...additions].sort());
  });

  it('never declares a flat name twice', () => {
    const names = flatNames(search);
    expect(names.length).toBe(new Set(names).size);
  });

  it('never gives one nested key and op two meanings', () => {
    const seen = new Set<string>();
    for (const def of search.filters)
      for (const key of def.nested)
        for (const op of def.ops) {
          expect(seen.has(`${key}.${op}`), `${key}.${op}`).toBe(false);
          seen.add(`${key}.${op}`);
        }
  });

  it('queries only fields that exist in the mapping', () => {
    const fields = mappingFields(search.index);
    for (const def of search.filters) expect(fields.has(def.field), def.field).toBe(true);
    for (const field of [...Object.values(search.sort.fields), search.sort.tieBreaker])
      expect(fields.has(field), field).toBe(true);
  });

  it('has a description on every filter and a hook explaining every oddity', () => {
    for (const def of search.filters) {
      expect(def.description.length, def.key).toBeGreaterThan(10);
      const derived = def.ops.map((op) => `${def.key}${flatSuffix[op]}`).sort();
      const renamed = JSON.stringify(Object.keys(def.flat).sort()) !== JSON.stringify(derived);
      const aliased = def.scope !== 'jobCorporate' && def.nested.length > 1;
      if (renamed || aliased) expect(def.hook, def.key).toBeTruthy();
    }
  });

  it('closes every object of the request schema (additionalProperties: false at every depth)', () => {
    const check = (schema: SchemaObject, path: string) => {
      if (schema.type === 'object') expect(schema.additionalProperties, path).toBe(false);
      for (const [name, child] of Object.entries(schema.properties ?? {})) check(child, `${path}.${name}`);
      if (schema.items) check(schema.items, `${path}[]`);
    };
    for (const [name, schema] of Object.entries(schemas)) check(schema, name);
  });

  it('references only its own components', () => {
    const refs = JSON.stringify(schemas).match(/#\/components\/schemas\/\w+/g) ?? [];
    for (const ref of refs) expect(Object.keys(schemas)).toContain(ref.split('/').at(-1));
  });
});

describe('the nested form', () => {
  it('accepts every documented nested path', () => {
    const accepted = new Set<string>();
    for (const search of [corporateSearch, jobSearch])
      for (const def of search.filters)
        for (const key of def.nested)
          for (const op of def.ops) accepted.add(op === 'is' ? key : `${key}.${op}`);
    for (const path of contractNestedPaths) expect(accepted.has(path), path).toBe(true);
  });

  it('maps the guide aliases onto the same condition', () => {
    const nestedOf = (search: SearchCatalogue, key: string) =>
      search.filters.find((def) => def.nested.includes(key) && def.ops.includes('any'))?.field;
    expect(nestedOf(corporateSearch, 'corporatePrefectureId')).toBe('prefectureId');
    expect(nestedOf(corporateSearch, 'mediaId')).toBe('postings.mediaId');
    expect(nestedOf(jobSearch, 'prefectureId')).toBe('corporate.prefectureId');
    expect(nestedOf(jobSearch, 'jobMediaId')).toBe('mediaId');
  });
});

describe('sorting', () => {
  it('offers every documented sort field and the aliases', () => {
    expect(Object.keys(corporateSearch.sort.fields)).toEqual(
      expect.arrayContaining([
        'name',
        'foundedAt',
        'capitalMillionYen',
        'employeeCount',
        'totalAdCost',
        'employeeDiff6mMin',
        'employeeDiff12m',
        'phoneNumber',
        'fax',
        'email',
        'websiteUrl',
        'jobCreatedAt',
        'jobOpenedOn',
        'jobDeadlineOn',
        'jobSalaryMin',
        'jobHiringPlanMin',
        'workLocationCount',
      ]),
    );
    expect(corporateSearch.sort.aliases).toEqual({ employeeDiff6m: 'employeeDiff6mMin' });
    // the contract's 18, and updatedAt for the change feed
    expect(Object.keys(jobSearch.sort.fields)).toHaveLength(19);
    expect(jobSearch.sort.fields.updatedAt).toBe('updatedAt');
    expect(corporateSearch.sort.fields.updatedAt).toBe('updatedAt');
  });
});

describe('the master a filter takes is part of its definition', () => {
  // every filter whose values are master entries, by search and nested key: which list, which level
  const expected: Record<string, string> = {
    'corporates prefectureId': 'prefectures',
    'corporates industryCategoryId': 'industries',
    'corporates industrySubCategoryId': 'industries/sub',
    'corporates businessCategoryId': 'business-types',
    'corporates businessSubCategoryId': 'business-types/sub',
    'corporates marketCode': 'markets/code',
    'corporates paidMediaUsedMediaId': 'media',
    'corporates hiringStartedMediaId': 'media',
    'corporates hiringStoppedMediaId': 'media',
    'corporates subsidyBodyId': 'government-bodies',
    'corporates procurementBodyId': 'government-bodies',
    'corporates certificationKindId': 'certification-kinds',
    'corporates awardKindId': 'award-kinds',
    'corporates jobMediaId': 'media',
    'corporates jobEmploymentTypeId': 'employment-types',
    'corporates jobCategoryId': 'job-categories',
    'corporates jobSubCategoryId': 'job-categories/sub',
    'jobs mediaId': 'media',
    'jobs jobCategoryId': 'job-categories',
    'jobs jobSubCategoryId': 'job-categories/sub',
    'jobs employmentTypeId': 'employment-types',
    'jobs corporatePrefectureId': 'prefectures',
    'jobs corporateIndustryCategoryId': 'industries',
    'jobs corporateIndustrySubCategoryId': 'industries/sub',
    'jobs corporateBusinessCategoryId': 'business-types',
    'jobs corporateBusinessSubCategoryId': 'business-types/sub',
    'jobs corporateMarketCode': 'markets/code',
    'jobs corporatePaidMediaUsedMediaId': 'media',
  };

  it('names exactly these, and every ids filter is one of them', () => {
    const declared: Record<string, string> = {};
    for (const search of [corporateSearch, jobSearch])
      for (const def of search.filters) {
        if (def.kind === 'ids') expect(def.master, `${search.index} ${def.key}`).toBeDefined();
        if (!def.master) continue;
        const { name, level, valueField } = def.master;
        declared[`${search.index} ${def.key}`] =
          `${name}${level === 'sub' ? '/sub' : ''}${valueField === 'code' ? '/code' : ''}`;
      }
    expect(declared).toEqual(expected);
  });
});
