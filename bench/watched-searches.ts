/**
 * Watched saved searches for the benches (bench/watch-cost.ts, bench/webhook-latency.ts):
 * company searches drawn deterministically from the filters a sales list uses (prefecture,
 * industry, headcount, hiring activity, posting media), job searches from those a recruiting-ad
 * agency uses (medium, job category, employment type, salary, the company's prefecture), so
 * most match few records, as saved lists do; put straight into the kind's percolator index as
 * the API puts one (src/saved-searches/watch.ts).
 */
import { scan } from '../ops/engine/scan.js';
import { corporateSearch, jobSearch } from '../src/catalogue/searches.js';
import type { Engine } from '../src/opensearch/engine.js';
import { indexName } from '../src/opensearch/indices.js';
import type { QueryFields } from '../src/saved-searches/query-fields.js';
import type { SavedSearchKind } from '../src/saved-searches/store.js';
import { queriesIndexes } from '../src/saved-searches/watch.js';
import { compileSearch } from '../src/search/compile-search.js';
import { parseSearchRequest } from '../src/search/parse-request.js';

/** A saved list as a sales user builds one: a few conditions, drawn from `i`. */
export function savedBody(i: number): Record<string, unknown> {
  const body: Record<string, unknown> = { prefectureIdOr: [1 + (i % 47)] };
  if (i % 2 === 0) body.industryCategoryIdOr = [1 + (i % 20)];
  if (i % 3 === 0) body.employeeCountMin = 10 * (i % 50);
  if (i % 5 === 0) body.hiringOpenPostingsMin = 1 + (i % 4);
  if (i % 7 === 0) body.jobMediaIdOr = [1 + (i % 10)];
  return body;
}

/** A saved job search as an agency builds one, drawn from `i`. */
export function savedJobBody(i: number): Record<string, unknown> {
  const body: Record<string, unknown> = { mediaIdOr: [1 + (i % 10)] };
  if (i % 2 === 0) body.corporatePrefectureIdOr = [1 + (i % 47)];
  if (i % 3 === 0) body.jobCategoryIdOr = [1 + (i % 10)];
  if (i % 5 === 0) body.employmentTypeIdOr = [1 + (i % 3)];
  if (i % 7 === 0) body.salaryMin = 3_000_000 + 100_000 * (i % 30);
  return body;
}

/** The id of the `i`th bench search. */
export const benchSearchId = (i: number): string => `ss_bench${i}`;

/**
 * Replaces the kind's percolator searches by `count` bench searches watching `watchFields`,
 * their fields recorded first, as the API records them (src/saved-searches/query-fields.ts).
 */
export async function registerWatched(
  client: Engine,
  prefix: string,
  fields: QueryFields,
  count: number,
  watchFields: string[],
  kind: SavedSearchKind = 'corporates',
): Promise<void> {
  const index = indexName(prefix, queriesIndexes[kind]);
  const [search, bodyOf] = kind === 'jobs' ? [jobSearch, savedJobBody] : [corporateSearch, savedBody];
  await client.deleteByQuery({ index, refresh: true, body: { query: { match_all: {} } } });
  for (let start = 0; start < count; start += 1000) {
    const lines: unknown[] = [];
    for (let i = start; i < Math.min(count, start + 1000); i++) {
      const plan = parseSearchRequest(search, bodyOf(i));
      const query = (compileSearch(search, plan, prefix).body as { query: unknown }).query;
      await fields.record(query, kind);
      lines.push(
        { index: { _index: index, _id: benchSearchId(i) } },
        { savedSearchId: benchSearchId(i), userId: 'bench', watchFields, query },
      );
    }
    await client.bulk({ body: lines as never, refresh: true });
  }
}

/** Every corporate number of the prefix's companies, in order. */
export async function corporateNumbers(client: Engine, prefix: string): Promise<string[]> {
  const numbers: string[] = [];
  for await (const hits of scan(client, {
    index: indexName(prefix, 'corporates'),
    query: { match_all: {} },
    sort: [{ corporateNumber: 'asc' }],
    source: false,
    pageSize: 5000,
  }))
    numbers.push(...hits.map((hit) => hit.id));
  return numbers;
}
