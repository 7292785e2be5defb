/** The two searches, each its filter catalogue, sort catalogue, index and component names. */
import { corporateFilters } from './corporate-filters.js';
import { jobFilters } from './job-filters.js';
import { corporateSort, jobSort, type SortCatalogue } from './sort-fields.js';
import type { FilterDef } from './types.js';

export interface SearchCatalogue {
  /** Index alias (without prefix), see mappings/. */
  index: 'corporates' | 'jobs';
  filters: readonly FilterDef[];
  sort: SortCatalogue;
  /** OpenAPI component names of the request parts. */
  schemaNames: { request: string; export: string; filters: string; sort: string };
}

export const corporateSearch: SearchCatalogue = {
  index: 'corporates',
  filters: corporateFilters,
  sort: corporateSort,
  schemaNames: {
    request: 'CorporateSearchRequest',
    export: 'CorporateExportRequest',
    filters: 'CorporateFilters',
    sort: 'SortCorporate',
  },
};

export const jobSearch: SearchCatalogue = {
  index: 'jobs',
  filters: jobFilters,
  sort: jobSort,
  schemaNames: {
    request: 'JobSearchRequest',
    export: 'JobExportRequest',
    filters: 'JobFilters',
    sort: 'SortJob',
  },
};
