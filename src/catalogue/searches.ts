/**
 * The two searches as data: each its index, filter catalogue, sort catalogue, record fields,
 * facets and component names. What differs between company and job search is read from here.
 */
import { corporateFilters } from './corporate-filters.js';
import { jobFilters } from './job-filters.js';
import { recordFieldNames } from './record-fields.js';
import { corporateSort, jobSort, type SortCatalogue } from './sort-fields.js';
import type { FilterDef } from './types.js';

/** A search's facets: every nested key of a filter whose values are a master's, first filter first. */
function facetKeysOf(filters: readonly FilterDef[]): readonly string[] {
  const keys = new Set<string>();
  for (const def of filters) if (def.master) for (const name of def.nested) keys.add(name);
  return [...keys];
}

export type SearchIndex = 'corporates' | 'jobs';

export interface SearchCatalogue {
  /** Index alias (without prefix), see mappings/. */
  index: SearchIndex;
  /** How a message names it. */
  label: 'company search' | 'job search';
  /** The other search, whose names a request may use here by mistake (src/search/request-hints.ts). */
  twin: SearchIndex;
  /**
   * Its documents hold their postings nested (company search): posting conditions, posting
   * facets and the nested-limit overflow (src/search/posting-overflow.ts) apply.
   */
  nestedPostings: boolean;
  /** Its records carry `descriptionSnippets` from the posting's detail text (job search). */
  snippets: boolean;
  filters: readonly FilterDef[];
  sort: SortCatalogue;
  /** The fields of its records, as `fields: [...]` may name them (./record-fields.ts). */
  recordFields: readonly string[];
  /** The facets `facets: [...]` may ask for (each counts the values of its filter's master). */
  facets: readonly string[];
  /** OpenAPI component names of the request parts. */
  schemaNames: { request: string; export: string; filters: string; sort: string };
}

export const corporateSearch: SearchCatalogue = {
  index: 'corporates',
  label: 'company search',
  twin: 'jobs',
  nestedPostings: true,
  snippets: false,
  filters: corporateFilters,
  sort: corporateSort,
  recordFields: recordFieldNames.corporates,
  facets: facetKeysOf(corporateFilters),
  schemaNames: {
    request: 'CorporateSearchRequest',
    export: 'CorporateExportRequest',
    filters: 'CorporateFilters',
    sort: 'SortCorporate',
  },
};

export const jobSearch: SearchCatalogue = {
  index: 'jobs',
  label: 'job search',
  twin: 'corporates',
  nestedPostings: false,
  snippets: true,
  filters: jobFilters,
  sort: jobSort,
  recordFields: recordFieldNames.jobs,
  facets: facetKeysOf(jobFilters),
  schemaNames: {
    request: 'JobSearchRequest',
    export: 'JobExportRequest',
    filters: 'JobFilters',
    sort: 'SortJob',
  },
};

/** The searches by their index. */
export const searches: Readonly<Record<SearchIndex, SearchCatalogue>> = {
  corporates: corporateSearch,
  jobs: jobSearch,
};
