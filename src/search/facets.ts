/**
 * Facet counts: `facets: ['prefectureId', 'jobMediaId']` on a search -> for each, the exact
 * number of results per value under the current filters, with the master's name:
 *
 *   facets: { prefectureId: [{ value: 13, name: '東京都', count: 812 }, ...],
 *             jobMediaId:   [{ value: 1, name: 'リクナビNEXT', count: 640 }, ...] }
 *
 * A facet is named like the filter on the same field (every alias the filter accepts), so a
 * bucket's value can be sent back as that filter: the count is then the search's total.
 * On company search a posting facet counts companies (nested -> reverse_nested), and only
 * postings that satisfy the request's posting conditions count, as the same-posting rule
 * would for the filtered search. Terms over the single shard with a size above every master's
 * length are exact. Companies past the nested posting limit are counted from the jobs index
 * instead (src/search/posting-overflow.ts), by all their postings.
 */
import type { SearchCatalogue } from '../catalogue/searches.js';
import type { FilterDef, MasterRef } from '../catalogue/types.js';
import { excludingOps } from '../catalogue/types.js';
import { readMasterFile } from '../masters/masters.js';
import { compileCondition, type Query } from './compile-kinds.js';
import type { PostingOverflow } from './compile-query.js';
import type { Condition, SearchPlan } from './plan.js';

/** Buckets per facet: more than any master has values, so every value is counted. */
export const facetBucketSize = 1000;

export interface FacetDef {
  def: FilterDef;
  names: Map<string | number, string>;
}

export interface FacetBucket {
  value: string | number;
  name: string | null;
  count: number;
}

/** A master's names by the value a filter takes (`id`, or `code` for markets). */
function masterNames(ref: MasterRef): Map<string | number, string> {
  const items = readMasterFile(ref.name).items;
  const rows =
    ref.level === 'sub'
      ? items.flatMap((item) => (item.subCategories as Array<Record<string, unknown>> | undefined) ?? [])
      : items;
  return new Map(rows.map((row) => [row[ref.valueField] as string | number, String(row.name)]));
}

const catalogues = new WeakMap<SearchCatalogue, Map<string, FacetDef>>();

/** Facet name -> its filter and the master names of its values. */
export function facetCatalogue(search: SearchCatalogue): Map<string, FacetDef> {
  let facets = catalogues.get(search);
  if (!facets) {
    facets = new Map();
    for (const def of search.filters) {
      if (!def.master) continue;
      const facet = { def, names: masterNames(def.master) };
      for (const name of def.nested) if (!facets.has(name)) facets.set(name, facet);
    }
    catalogues.set(search, facets);
  }
  return facets;
}

/**
 * The postings a posting facet counts: those meeting the request's positive posting conditions.
 * `compile`: a condition's query on the nested postings, or (src/search/posting-overflow.ts)
 * on the jobs index.
 */
export function postingFilter(
  plan: Pick<SearchPlan, 'conditions' | 'groups'>,
  compile: (condition: Condition) => Query = compileCondition,
): Query {
  const positive = (conditions: SearchPlan['conditions']) =>
    conditions
      .filter((condition) => condition.def.scope === 'posting' && !excludingOps.has(condition.op))
      .map(compile);
  const all = (queries: Query[]): Query =>
    queries.length === 0 ? { match_all: {} } : { bool: { filter: queries } };
  if (plan.groups.length === 0) return all(positive(plan.conditions));
  return {
    bool: {
      should: plan.groups.map((group) => all(positive([...plan.conditions, ...group]))),
      minimum_should_match: 1,
    },
  };
}

/**
 * Beside the posting facets of a search that has companies past the nested limit: those of
 * them among the results, whose postings are then counted from the jobs index.
 */
export const overflowResultsAgg = 'postingOverflowResults';

/**
 * `overflow`: with companies past the nested limit, the nested counting leaves them out, and
 * the search names those among its results (`overflowResultsAgg`) for src/search/posting-overflow.ts
 * to count from the jobs index.
 */
export function compileFacets(
  search: SearchCatalogue,
  plan: Pick<SearchPlan, 'conditions' | 'groups' | 'facets'>,
  overflow?: PostingOverflow,
): Record<string, unknown> | undefined {
  if (plan.facets.length === 0) return undefined;
  const catalogue = facetCatalogue(search);
  const aggs: Record<string, unknown> = {};
  const marked = overflow && overflow.companies.length > 0 ? [...overflow.companies] : undefined;
  for (const name of plan.facets) {
    const { def } = catalogue.get(name) as FacetDef;
    const terms = { terms: { field: def.field, size: facetBucketSize, shard_size: facetBucketSize } };
    if (def.scope !== 'posting') {
      aggs[name] = terms;
      continue;
    }
    const nestedCount = {
      nested: { path: 'postings' },
      aggs: {
        matching: {
          filter: postingFilter(plan),
          aggs: { values: { ...terms, aggs: { companies: { reverse_nested: {} } } } },
        },
      },
    };
    if (!marked) {
      aggs[name] = nestedCount;
      continue;
    }
    aggs[name] = {
      filter: { bool: { must_not: [{ terms: { corporateNumber: marked } }] } },
      aggs: { unmarked: nestedCount },
    };
    aggs[overflowResultsAgg] = {
      filter: { terms: { corporateNumber: marked } },
      aggs: { companies: { terms: { field: 'corporateNumber', size: marked.length } } },
    };
  }
  return aggs;
}

/** The companies past the nested limit among a search's results (empty without that agg). */
export function overflowInResults(aggregations: Record<string, unknown> | undefined): string[] {
  const agg = aggregations?.[overflowResultsAgg] as
    | { companies?: { buckets?: Array<{ key: string }> } }
    | undefined;
  return (agg?.companies?.buckets ?? []).map((bucket) => String(bucket.key));
}

/** Facet name -> value -> companies to add (counted from the jobs index). */
export type FacetAdditions = Map<string, Map<string | number, number>>;

interface Bucket {
  key: string | number;
  doc_count: number;
  companies?: { doc_count: number };
}

type FacetAgg = { buckets?: Bucket[]; matching?: { values?: { buckets?: Bucket[] } } };

export function readFacets(
  search: SearchCatalogue,
  names: string[],
  aggregations: Record<string, unknown> | undefined,
  additions?: FacetAdditions,
): Record<string, FacetBucket[]> {
  const catalogue = facetCatalogue(search);
  const out: Record<string, FacetBucket[]> = {};
  for (const name of names) {
    const raw = aggregations?.[name] as (FacetAgg & { unmarked?: FacetAgg }) | undefined;
    const agg = raw?.unmarked ?? raw;
    const buckets = agg?.buckets ?? agg?.matching?.values?.buckets ?? [];
    const names = catalogue.get(name)?.names;
    const counts = new Map<string | number, number>(
      buckets.map((bucket) => [bucket.key, bucket.companies?.doc_count ?? bucket.doc_count]),
    );
    for (const [value, added] of additions?.get(name) ?? [])
      counts.set(value, (counts.get(value) ?? 0) + added);
    out[name] = [...counts]
      .map(([value, count]) => ({ value, name: names?.get(value) ?? null, count }))
      .sort((a, b) => b.count - a.count || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0));
  }
  return out;
}
