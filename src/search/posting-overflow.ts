/**
 * Jobs-first answers for companies with more postings than the nested limit.
 *
 * The corporates index holds at most `index.mapping.nested_objects.limit` nested postings per
 * company (50,000); the rebuild keeps the newest and marks such a company
 * `aggregates.postingsTruncated`. For those few companies a posting condition is answered from
 * the jobs index, where every posting is a document of its own. The marked companies are
 * looked up first (answered from memory for up to a second, `markedCompanies`); then, when
 * some company is marked:
 *
 *   1. the marked companies: corporates where aggregates.postingsTruncated (ids only)
 *   2. one jobs search over their postings, one `filter` aggregation per posting query of the
 *      plan (./compile-query.ts `postingQueries`), each collecting the corporate numbers:
 *        { size: 0, query: { terms: { corporateNumber: [marked] } },
 *          aggs: { q0: { filter: <P0 on jobs fields>, aggs: { companies: { terms: { field: 'corporateNumber', size: <marked> } } } }, ... } }
 *
 * A search within the result window (and a count) sends step 2 in one `_msearch` beside the
 * plain nested search and the same aggregations asked of the marked companies' own nested
 * postings (`nestedAnswersRequest`): when both name the same companies for every posting
 * query, the plain search is exact and is the answer, in one round trip
 * (src/search/run-search.ts `executeInWindow`); otherwise the jobs-first search follows.
 *
 * The compiled company query then takes, for the marked companies only, these answers instead
 * of the nested query (./compile-query.ts). A posting query on the jobs index is the nested one
 * with the jobs document's field names: the same kinds, analyzers, detail-text window and time
 * zone, so it names the same postings. Posting facets: `overflowFacetCounts` below.
 */
import { corporateSearch } from '../catalogue/searches.js';
import type { FilterDef } from '../catalogue/types.js';
import type { Deadline } from '../deadline.js';
import { indexName } from '../opensearch/indices.js';
import type { Services } from '../services.js';
import { compileCondition, type Query } from './compile-kinds.js';
import { nestedPostingQuery, type PostingOverflow, postingQueries } from './compile-query.js';
import { type FacetAdditions, facetBucketSize, facetCatalogue, postingFilter } from './facets.js';
import { engineSearch, hitsOf, type SearchBody, type SearchRequest, totalOf } from './paging/pit-search.js';
import type { Condition, SearchPlan } from './plan.js';

/**
 * Posting fields whose jobs-index counterpart is not the same name without `postings.`: the
 * nested copy stores "has a contact" as a boolean, a jobs document the contact itself.
 * (Empty strings are stored as null on both sides, so `true`/`false` mean the same.)
 */
const jobsCounterparts: Record<string, Pick<FilterDef, 'kind' | 'field'>> = {
  'postings.hasContactEmail': { kind: 'presence', field: 'contactEmail' },
  'postings.hasContactPhone': { kind: 'presence', field: 'contactPhoneNumber' },
};

const unprefixed = (field: string) => field.replace(/^postings\./, '');

/** A posting condition of company search as the same condition on a jobs document. */
export function onJobsIndex(condition: Condition): Condition {
  const { def } = condition;
  if (def.scope !== 'posting') throw new Error(`${def.key} is not a posting condition`);
  const counterpart = jobsCounterparts[def.field] ?? { kind: def.kind, field: unprefixed(def.field) };
  return {
    ...condition,
    def: {
      ...def,
      ...counterpart,
      scope: 'job',
      ...(def.collectedAtField ? { collectedAtField: unprefixed(def.collectedAtField) } : {}),
    },
  };
}

/** The postings (jobs documents) one posting query names; excluding ones name what they exclude. */
export function jobsPostingQuery(conditions: Condition[]): Query {
  const queries = conditions.map((condition) => compileCondition(onJobsIndex(condition)));
  return queries.length === 1 ? (queries[0] as Query) : { bool: { filter: queries } };
}

type SearchServices = Pick<Services, 'opensearch' | 'config' | 'logger' | 'paging'>;
type Context = SearchServices & { deadline?: Deadline | undefined };

/**
 * The marked companies change only when a rebuild takes a company across the nested limit
 * (tens of thousands of postings), and a rebuild's write is seen by searches only after the
 * index refresh (1 s) anyway. So each API process reuses its last answer for
 * `postingMarksCacheMs` (1 s): a company search with a posting condition then costs one engine
 * request, not two. Only answers are remembered, never a lookup in flight (it runs under its
 * own request's deadline).
 */
const defaultMarksCacheMs = 1_000;
const rememberedMarks = new WeakMap<object, Map<string, { at: number; max: number; companies: string[] }>>();

async function markedCompanies(context: Context, max: number): Promise<string[]> {
  const ttl = context.config.postingMarksCacheMs ?? defaultMarksCacheMs;
  const index = indexName(context.config.indexPrefix, 'corporates');
  let byIndex = rememberedMarks.get(context.opensearch);
  if (!byIndex) {
    byIndex = new Map();
    rememberedMarks.set(context.opensearch, byIndex);
  }
  const known = byIndex.get(index);
  if (known && known.max === max && Date.now() - known.at < ttl) return known.companies;
  const at = Date.now();
  const companies = await lookUpMarkedCompanies(context, max);
  if (ttl > 0) byIndex.set(index, { at, max, companies });
  return companies;
}

/** The companies past the nested limit, at most `max` of them (by corporate number). */
async function lookUpMarkedCompanies(context: Context, max: number): Promise<string[]> {
  const request: SearchRequest = {
    index: indexName(context.config.indexPrefix, 'corporates'),
    allow_partial_search_results: false,
    body: {
      query: { term: { 'aggregates.postingsTruncated': true } },
      size: max,
      _source: false,
      sort: [{ corporateNumber: { order: 'asc' } }],
      track_total_hits: true,
    },
  };
  const body = await engineSearch(context, request);
  const total = totalOf(body);
  if (total > max)
    context.logger.warn(
      { marked: total, answered: max },
      'more companies past the nested posting limit than the jobs-first step takes; the rest are searched on their newest postings only',
    );
  return hitsOf(body)
    .map((hit) => hit._id)
    .filter((id): id is string => typeof id === 'string');
}

export function hasPostingFacet(plan: Pick<SearchPlan, 'facets'>): boolean {
  const catalogue = facetCatalogue(corporateSearch);
  return plan.facets.some((name) => catalogue.get(name)?.def.scope === 'posting');
}

/** A company search's posting queries and the companies past the nested limit. */
export interface OverflowCheck {
  companies: string[];
  queries: PostingQuery[];
}

type PostingQuery = ReturnType<typeof postingQueries>[number];

/**
 * The posting queries of a company search and the companies past the limit, or undefined when
 * it has no posting query or no company is past the limit (the plain nested query is then
 * exact). Costs the marked companies' lookup, answered from memory for up to a second.
 */
export async function overflowCheck(
  services: SearchServices,
  plan: Pick<SearchPlan, 'conditions' | 'groups'>,
  deadline?: Deadline,
): Promise<OverflowCheck | undefined> {
  const queries = postingQueries(plan);
  if (queries.length === 0) return undefined;
  const companies = await markedCompanies({ ...services, deadline }, services.paging.resultWindow);
  return companies.length === 0 ? undefined : { companies, queries };
}

/** One terms aggregation over the marked companies per posting query, `q0`, `q1`, ... */
function companiesPerQuery(check: OverflowCheck, filterOf: (query: PostingQuery) => Query) {
  return Object.fromEntries(
    check.queries.map((query, i) => [
      `q${i}`,
      {
        filter: filterOf(query),
        aggs: { companies: { terms: { field: 'corporateNumber', size: check.companies.length } } },
      },
    ]),
  );
}

/** The marked companies with a posting satisfying each posting query, asked of the jobs index. */
export function jobsAnswersRequest(indexPrefix: string, check: OverflowCheck): SearchRequest {
  return {
    index: indexName(indexPrefix, 'jobs'),
    allow_partial_search_results: false,
    body: {
      size: 0,
      track_total_hits: false,
      query: { terms: { corporateNumber: check.companies } },
      aggs: companiesPerQuery(check, (query) => jobsPostingQuery(query.conditions)),
    } as SearchRequest['body'],
  };
}

/** The same question asked of the marked companies' own (cut) nested postings. */
export function nestedAnswersRequest(indexPrefix: string, check: OverflowCheck): SearchRequest {
  return {
    index: indexName(indexPrefix, 'corporates'),
    allow_partial_search_results: false,
    body: {
      size: 0,
      track_total_hits: false,
      query: { terms: { corporateNumber: check.companies } },
      aggs: companiesPerQuery(check, nestedPostingQuery),
    } as SearchRequest['body'],
  };
}

/** Posting query key -> the companies an answer of one of the two requests above names. */
export function readAnswers(check: OverflowCheck, body: SearchBody): PostingOverflow {
  const results = (body.aggregations ?? {}) as Record<
    string,
    { companies?: { buckets?: Array<{ key: string }> } }
  >;
  return {
    companies: check.companies,
    matches: new Map(
      check.queries.map(({ key }, i) => [
        key,
        (results[`q${i}`]?.companies?.buckets ?? []).map((bucket) => String(bucket.key)),
      ]),
    ),
  };
}

/**
 * Whether the nested postings answer every posting query as the jobs index does for every
 * marked company: then the plain nested company query selects exactly the companies the
 * jobs-first query would (each nested clause is true for the same documents).
 */
export function answersAgree(jobs: PostingOverflow, nestedAnswers: PostingOverflow): boolean {
  for (const [key, fromJobs] of jobs.matches) {
    const fromNested = new Set(nestedAnswers.matches.get(key) ?? []);
    if (fromNested.size !== fromJobs.length || fromJobs.some((company) => !fromNested.has(company)))
      return false;
  }
  return true;
}

/**
 * The jobs-first answers a company search needs, or undefined when it has neither a posting
 * condition nor a posting facet, or no company is past the limit (the company query is then
 * the plain nested one).
 */
export async function resolvePostingOverflow(
  services: SearchServices,
  plan: Pick<SearchPlan, 'conditions' | 'groups' | 'facets'>,
  deadline?: Deadline,
): Promise<PostingOverflow | undefined> {
  const check = await overflowCheck(services, plan, deadline);
  if (check) {
    const body = await engineSearch(
      { ...services, deadline },
      jobsAnswersRequest(services.config.indexPrefix, check),
    );
    return readAnswers(check, body);
  }
  if (!hasPostingFacet(plan) || postingQueries(plan).length > 0) return undefined;
  const companies = await markedCompanies({ ...services, deadline }, services.paging.resultWindow);
  return companies.length === 0 ? undefined : { companies, matches: new Map() };
}

/**
 * What a company search must reckon with about the companies past the nested limit, asked once
 * by the pipeline's resolve stage (src/search/run-search.ts `resolveSearch`): nothing (no
 * posting condition or facet, or no company past the limit); a check to make in the page's own
 * round trip (`withinWindow`: a page by from/size or a count, without a posting facet); else the
 * jobs index's answers.
 */
export async function overflowToReckon(
  services: SearchServices,
  plan: Pick<SearchPlan, 'conditions' | 'groups' | 'facets'>,
  deadline: Deadline | undefined,
  withinWindow: boolean,
): Promise<{ check?: OverflowCheck; overflow?: PostingOverflow }> {
  if (withinWindow && !hasPostingFacet(plan)) {
    const check = await overflowCheck(services, plan, deadline);
    return check ? { check } : {};
  }
  const overflow = await resolvePostingOverflow(services, plan, deadline);
  return overflow ? { overflow } : {};
}

/**
 * Posting facets of company search for the companies past the nested limit among the results
 * (`companies`, from the search's own aggregation): per facet value, how many of them have a
 * posting with that value meeting the request's positive posting conditions, counted on the
 * jobs index. The facets add these to the nested counts, which leave those companies out.
 */
export async function overflowFacetCounts(
  services: SearchServices,
  plan: Pick<SearchPlan, 'conditions' | 'groups' | 'facets'>,
  companies: string[],
  deadline?: Deadline,
): Promise<FacetAdditions | undefined> {
  if (companies.length === 0) return undefined;
  if (!hasPostingFacet(plan)) return undefined;
  const catalogue = facetCatalogue(corporateSearch);
  const postingFacets = plan.facets.filter((name) => catalogue.get(name)?.def.scope === 'posting');
  const aggs = Object.fromEntries(
    postingFacets.map((name, i) => [
      `f${i}`,
      {
        terms: { field: unprefixed(catalogue.get(name)?.def.field ?? ''), size: facetBucketSize },
        aggs: { companies: { terms: { field: 'corporateNumber', size: companies.length } } },
      },
    ]),
  );
  const body = await engineSearch(
    { ...services, deadline },
    {
      index: indexName(services.config.indexPrefix, 'jobs'),
      allow_partial_search_results: false,
      body: {
        size: 0,
        track_total_hits: false,
        query: {
          bool: {
            filter: [
              { terms: { corporateNumber: companies } },
              postingFilter(plan, (condition) => compileCondition(onJobsIndex(condition))),
            ],
          },
        },
        aggs,
      } as SearchRequest['body'],
    },
  );
  const results = (body.aggregations ?? {}) as Record<
    string,
    { buckets?: Array<{ key: string | number; companies?: { buckets?: unknown[] } }> }
  >;
  return new Map(
    postingFacets.map((name, i) => [
      name,
      new Map(
        (results[`f${i}`]?.buckets ?? []).map((bucket) => [
          bucket.key,
          bucket.companies?.buckets?.length ?? 0,
        ]),
      ),
    ]),
  );
}
