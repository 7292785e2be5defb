/**
 * The filter catalogue as the query console (/console) shows it: per search, each nested
 * filter key once, in the contract's three groups, with its conditions, the schema of one
 * value and, for ids and codes, the master list whose names the console offers.
 *
 *   { key: 'prefectureId', group: 'company', description: '...',
 *     master: { name: 'prefectures', level: 'top' },
 *     conditions: [{ op: 'any', kind: 'ids', item: {...} }, { op: 'none', ... }] }
 */
import { fieldLabel, filterLabel, type SearchName } from './labels.js';
import { corporateSearch, jobSearch, type SearchCatalogue } from './searches.js';
import type { FilterDef, Kind, MasterRef, Op, SchemaObject } from './types.js';

export type FilterGroupName = 'company' | 'postings' | 'detailText';

/** The master a console filter takes its values from (the filter's own, src/catalogue/define.ts `masters`). */
export type PublicMaster = MasterRef;

export interface PublicFilter {
  key: string;
  /** Japanese label (src/catalogue/labels.ts `filterLabel`), the key itself when it has none. */
  label: string;
  group: FilterGroupName;
  description: string;
  master?: PublicMaster;
  conditions: Array<{ op: Op; kind: Kind; item: SchemaObject }>;
}

export interface PublicSearch {
  name: SearchName;
  path: string;
  filters: PublicFilter[];
  sortFields: string[];
  defaultSort: { field: string; order: 'asc' | 'desc' };
  /** Record field -> Japanese label (src/catalogue/labels.ts `fieldLabel`), every field of the record. */
  fieldLabels: Record<string, string>;
  /** The facets the search counts that are also a filter the console offers, with their filter's label. */
  facets: Array<{ key: string; label: string }>;
  /**
   * Company search only: posting filter key -> the key job search takes for the same
   * condition, so the console can ask job search for the postings that made a company match.
   */
  postingFilters?: Record<string, string>;
}

function groupOf(def: FilterDef): FilterGroupName {
  if (def.kind === 'detailText') return 'detailText';
  if (def.scope === 'company' || def.scope === 'jobCorporate') return 'company';
  return 'postings';
}

function filtersOf(name: SearchName, search: SearchCatalogue): PublicFilter[] {
  const byKey = new Map<string, PublicFilter>();
  for (const def of search.filters) {
    const key = def.nested[0];
    if (!key) continue;
    const entry = byKey.get(key) ?? {
      key,
      label: filterLabel(name, key) ?? key,
      group: groupOf(def),
      description: def.description,
      ...(def.master ? { master: def.master } : {}),
      conditions: [],
    };
    if (entry.master === undefined) delete entry.master;
    for (const op of def.ops) entry.conditions.push({ op, kind: def.kind, item: def.item });
    byKey.set(key, entry);
  }
  return [...byKey.values()];
}

/**
 * Company search's posting filters (scope `posting`) -> job search's name for the same
 * condition on a posting: its own key when job search takes it (jobTitle, jobMediaId as an
 * alias), else the key without `job` (jobSalary -> salary, jobHasContactEmail -> hasContactEmail).
 */
function postingFiltersOf(companies: SearchCatalogue, jobs: SearchCatalogue): Record<string, string> {
  const jobKeys = new Set(jobs.filters.filter((def) => def.scope === 'job').flatMap((def) => def.nested));
  const map: Record<string, string> = {};
  for (const def of companies.filters) {
    const key = def.nested[0];
    if (def.scope !== 'posting' || !key) continue;
    const bare = key.replace(/^job(.)/, (_all, first: string) => first.toLowerCase());
    const jobKey = jobKeys.has(key) ? key : jobKeys.has(bare) ? bare : undefined;
    if (jobKey) map[key] = jobKey;
  }
  return map;
}

function fieldLabelsOf(search: SearchName, fields: readonly string[]): Record<string, string> {
  return Object.fromEntries(fields.map((field) => [field, fieldLabel(search, field) ?? field]));
}

export function publicCatalogue(): PublicSearch[] {
  return [
    { name: 'corporates', path: '/rest/v1/corporates/search', search: corporateSearch },
    { name: 'jobs', path: '/rest/v1/jobs/search', search: jobSearch },
  ].map(({ name, path, search }) => {
    const searchName = name as SearchName;
    const filters = filtersOf(searchName, search);
    const filterKeys = new Set(filters.map((filter) => filter.key));
    return {
      name: searchName,
      path,
      filters,
      sortFields: [...Object.keys(search.sort.fields), ...Object.keys(search.sort.aliases)],
      defaultSort: search.sort.default,
      fieldLabels: fieldLabelsOf(searchName, search.recordFields),
      facets: search.facets
        .filter((key) => filterKeys.has(key))
        .map((key) => ({ key, label: filterLabel(searchName, key) ?? key })),
      ...(name === 'corporates' ? { postingFilters: postingFiltersOf(corporateSearch, jobSearch) } : {}),
    };
  });
}
