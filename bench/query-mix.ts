/**
 * The fixed query mix of the benchmark: a dozen company and job searches as a sales or
 * recruiting-ad user sends them (ids, ranges, partial matches, posting conditions, detail
 * text, sorts, deep offsets). Values exist in every data set `npm run generate` makes.
 * The same bodies go to the API and, compiled by src/search, straight to OpenSearch.
 */
import { corporateSearch, jobSearch } from '../src/catalogue/searches.js';
import { compileSearch } from '../src/search/compile-search.js';
import { parseSearchRequest } from '../src/search/parse-request.js';
import type { LoadRequest } from './load.js';

export interface MixQuery {
  name: string;
  path: '/rest/v1/corporates/search' | '/rest/v1/jobs/search';
  body: Record<string, unknown>;
}

/**
 * A query of the mix as src/search compiles it under `indexPrefix`, and the same body POSTed
 * straight to the engine with the search's parameters (the raw side of every comparison).
 */
export function rawMixRequest(query: MixQuery, indexPrefix: string) {
  const search = query.path.includes('corporates') ? corporateSearch : jobSearch;
  const compiled = compileSearch(search, parseSearchRequest(search, query.body), indexPrefix);
  const params = new URLSearchParams({
    allow_partial_search_results: String(compiled.allow_partial_search_results),
    timeout: String(compiled.timeout),
    cancel_after_time_interval: String(compiled.cancel_after_time_interval),
  });
  const raw: LoadRequest = {
    method: 'POST',
    path: `/${compiled.index as string}/_search?${params}`,
    body: JSON.stringify(compiled.body),
  };
  return { compiled, params, raw };
}

/**
 * The size-0 floor of a compiled body: the same query matching and counting, nothing fetched,
 * sorted or highlighted. Its request goes with `request_cache=false`: the shard request cache
 * keeps `size: 0` answers by default, and a repeated floor would be a cache hit, not the cost
 * of matching.
 */
export function floorBody(body: Record<string, unknown>): Record<string, unknown> {
  const { from: _from, size: _size, sort: _sort, _source, highlight: _highlight, ...matching } = body;
  return { ...matching, size: 0 };
}

/** `corporateNumbers`: 100 numbers of the data set, for the id-list query. */
export function buildQueryMix(corporateNumbers: readonly string[]): MixQuery[] {
  return [...companyQueries(corporateNumbers), ...jobQueries()];
}

function companyQueries(corporateNumbers: readonly string[]): MixQuery[] {
  return [
    {
      name: 'company: prefecture ids + industry, name sort',
      path: '/rest/v1/corporates/search',
      body: { prefectureIdOr: [13, 27, 23], industryCategoryIdOr: [4, 5, 9], limit: 25 },
    },
    {
      name: 'company: headcount + capital ranges, employeeCount desc',
      path: '/rest/v1/corporates/search',
      body: {
        employeeCountMin: 100,
        employeeCountMax: 5000,
        capitalMillionYenMin: 50,
        sort: { field: 'employeeCount', order: 'desc' },
        limit: 50,
      },
    },
    {
      name: 'company: name contains + city contains',
      path: '/rest/v1/corporates/search',
      body: {
        corporateNamePartialMatchOr: ['フーズ', 'ワークス'],
        cityNamePartialMatchOr: ['市'],
        limit: 25,
      },
    },
    {
      name: 'company: posting conditions (same posting), newest posting first',
      path: '/rest/v1/corporates/search',
      body: {
        jobTitlePartialMatchOr: ['営業'],
        jobEmploymentTypeIdOr: [1],
        jobSalaryMin: 250000,
        sort: { field: 'jobCreatedAt', order: 'desc' },
        limit: 25,
      },
    },
    {
      name: 'company: detail text (last month) + listed',
      path: '/rest/v1/corporates/search',
      body: { jobDescriptionPartialMatchOr: ['コールセンター'], isListed: true, limit: 25 },
    },
    {
      name: 'company: flags + presence + funding, deep offset 2000',
      path: '/rest/v1/corporates/search',
      body: {
        hasCorporatePhone: true,
        hasDispatchLicense: true,
        offset: 2000,
        limit: 25,
        includeTotalResults: false,
      },
    },
    {
      name: 'company: 100 corporate numbers, totalAdCost desc',
      path: '/rest/v1/corporates/search',
      body: {
        corporateNumberOr: corporateNumbers.slice(0, 100),
        limit: 100,
        sort: { field: 'totalAdCost', order: 'desc' },
      },
    },
    {
      name: 'company: hiring activity (new postings 90d, net change), net change desc',
      path: '/rest/v1/corporates/search',
      body: {
        hiringNewPostings90dMin: 2,
        hiringNetChange30dMin: -5,
        hiringOpenPostingsMin: 1,
        sort: { field: 'hiringNetChange30d', order: 'desc' },
        limit: 25,
      },
    },
  ];
}

function jobQueries(): MixQuery[] {
  return [
    {
      name: 'job: title contains + prefecture of company, newest first',
      path: '/rest/v1/jobs/search',
      body: {
        jobTitlePartialMatchOr: ['営業', 'エンジニア'],
        corporatePrefectureIdOr: [13, 14, 27],
        limit: 25,
      },
    },
    {
      name: 'job: salary range + employment type + category ids',
      path: '/rest/v1/jobs/search',
      body: {
        salaryMin: 200000,
        salaryMax: 400000,
        employmentTypeIdOr: [1, 2],
        jobCategoryIdOr: [1, 2, 4],
        sort: { field: 'salaryMin', order: 'desc' },
        limit: 50,
      },
    },
    {
      name: 'job: detail text AND (snippets)',
      path: '/rest/v1/jobs/search',
      body: { jobDescriptionPartialMatchAnd: ['リモート', '賞与'], limit: 25 },
    },
    {
      name: 'job: opened-on date range + contact presence, deep offset 5000',
      path: '/rest/v1/jobs/search',
      body: {
        jobOpenedOnFrom: '2020-01-01',
        hasContactEmail: true,
        offset: 5000,
        limit: 25,
        includeTotalResults: false,
        sort: { field: 'jobOpenedOn', order: 'desc' },
      },
    },
    {
      name: 'job: company headcount range + media ids, sort by company capital',
      path: '/rest/v1/jobs/search',
      body: {
        corporateEmployeeCountMin: 50,
        mediaIdOr: [1, 2, 3, 6],
        sort: { field: 'corporateCapitalMillionYen', order: 'desc' },
        limit: 25,
      },
    },
  ];
}
