/**
 * Watching saved searches: which records entered, left or changed a watched field in a
 * search's results, found where records change (the company rebuild, indexer/rebuild.ts, which
 * follows every posting written or deleted and every company change) with the engine's
 * percolator, so the cost follows the changed records, not the number of saved searches
 * (docs/api.md, "Saved searches").
 *
 * - A watched search's compiled query is kept in its kind's percolator index
 *   (`saved-search-queries` with the corporates mapping for company searches,
 *   `saved-job-search-queries` with the jobs mapping for job searches;
 *   src/opensearch/mappings.ts) with the record fields it watches (`registerQuery`,
 *   `unregisterQuery`).
 * - The rebuild percolates each company, and each posting of it, as it will be, one request per
 *   chunk (`percolate`): the searches it matches now. ./membership.ts compares them with the
 *   searches it was last seen in and appends the differences to each search's changes.
 *
 *   await percolate(client, prefix, [companyDoc])
 *   // -> [[{ savedSearchId: 'ss_…', watchFields: ['employeeCount'] }]]  (per document)
 *   await percolate(client, prefix, [jobDoc], { kind: 'jobs' })
 */
import type { Engine } from '../opensearch/engine.js';
import { indexName } from '../opensearch/indices.js';
import { withRetry } from '../opensearch/retry.js';
import { cutForPercolation, type QueryFields } from './query-fields.js';
import type { SavedSearchKind } from './store.js';

type Doc = Record<string, unknown>;

/** The percolator index of each kind of saved search. */
export const queriesIndexes: Record<SavedSearchKind, string> = {
  corporates: 'saved-search-queries',
  jobs: 'saved-job-search-queries',
};

export interface PercolatorMatch {
  savedSearchId: string;
  watchFields: string[];
}

/**
 * Keeps a watched search's compiled query for the percolator (replacing one of the same id),
 * its fields recorded first (./query-fields.ts): a query the percolator can see is never cut
 * out of the records it is checked against.
 */
export async function registerQuery(
  client: Engine,
  prefix: string,
  entry: { savedSearchId: string; userId: string; watchFields: readonly string[]; query: unknown },
  { kind = 'corporates', fields }: { kind?: SavedSearchKind; fields: QueryFields },
): Promise<void> {
  await fields.record(entry.query, kind);
  await withRetry(() =>
    client.index({
      index: indexName(prefix, queriesIndexes[kind]),
      id: entry.savedSearchId,
      refresh: true,
      body: { ...entry, watchFields: [...entry.watchFields] },
    }),
  );
}

export async function unregisterQuery(
  client: Engine,
  prefix: string,
  savedSearchId: string,
  kind: SavedSearchKind = 'corporates',
): Promise<void> {
  await withRetry(() =>
    client.delete(
      { index: indexName(prefix, queriesIndexes[kind]), id: savedSearchId, refresh: true },
      { ignore: [404] },
    ),
  );
}

/** How many searches of a kind are watched: with none, the rebuild asks the percolator nothing. */
export async function watchedSearchCount(
  client: Engine,
  prefix: string,
  kind: SavedSearchKind = 'corporates',
): Promise<number> {
  const { body } = await withRetry(() =>
    client.count({ index: indexName(prefix, queriesIndexes[kind]) }, { ignore: [404] }),
  );
  return Number((body as { count?: number }).count ?? 0);
}

/**
 * How many searches of each kind are watched, in one request (a rebuild asks once per call). A
 * search that fails is thrown, never read as none: that would skip the percolation silently.
 */
export async function watchedSearchCounts(
  client: Engine,
  prefix: string,
): Promise<Record<SavedSearchKind, number>> {
  const kinds = Object.keys(queriesIndexes) as SavedSearchKind[];
  const { body } = await withRetry(() =>
    client.msearch({
      body: kinds.flatMap((kind) => [
        { index: indexName(prefix, queriesIndexes[kind]), ignore_unavailable: true },
        { size: 0, track_total_hits: true, query: { match_all: {} } },
      ]),
    }),
  );
  const responses = (
    body as { responses: Array<{ hits?: { total?: { value?: number } }; error?: unknown; status?: number }> }
  ).responses;
  const failed = responses.find((response) => response.error !== undefined);
  if (failed) throw new Error(`watched search count failed (status ${failed.status ?? 'unknown'})`);
  return Object.fromEntries(
    kinds.map((kind, i) => [kind, Number(responses[i]?.hits?.total?.value ?? 0)]),
  ) as Record<SavedSearchKind, number>;
}

/** Matched searches per page of a percolation: more are read page after page (by id). */
const matchesPerPage = 10_000;

type QueryHit = { _source?: Doc; fields?: Record<string, number[]>; sort?: unknown[] };

/** The hits of a search of a kind's percolator index, a page at a time, by saved search id. */
async function* pagesOf(
  client: Engine,
  prefix: string,
  kind: SavedSearchKind,
  body: Doc,
  pageSize: number,
): AsyncGenerator<QueryHit[]> {
  let after: unknown[] | undefined;
  for (;;) {
    const { body: page } = await withRetry(() =>
      client.search({
        index: indexName(prefix, queriesIndexes[kind]),
        body: {
          ...body,
          size: pageSize,
          sort: [{ savedSearchId: 'asc' }],
          ...(after ? { search_after: after as never } : {}),
        },
      }),
    );
    const hits = page.hits.hits as QueryHit[];
    yield hits;
    if (hits.length < pageSize) return;
    after = hits.at(-1)?.sort;
  }
}

/** Every stored query of a kind, a page at a time (the backfill of ./query-fields.ts). */
async function* storedQueries(
  client: Engine,
  prefix: string,
  kind: SavedSearchKind,
): AsyncGenerator<unknown[]> {
  for await (const hits of pagesOf(client, prefix, kind, { _source: ['query'] }, 1000))
    yield hits.map((hit) => hit._source?.query);
}

/**
 * The watched searches each document matches, in the documents' order; every one, page by page.
 * With `fields` (./query-fields.ts), the documents go cut to the fields the watched queries
 * read; a query registered meanwhile with a field not yet recorded (the set grew while the
 * engine answered) has them percolated again whole.
 */
export async function percolate(
  client: Engine,
  prefix: string,
  documents: readonly Doc[],
  {
    kind = 'corporates',
    pageSize = matchesPerPage,
    fields,
  }: { kind?: SavedSearchKind; pageSize?: number; fields?: QueryFields } = {},
): Promise<PercolatorMatch[][]> {
  if (documents.length === 0 || !fields) return percolateAs(client, prefix, documents, kind, pageSize);
  let known = await fields.read(kind);
  if (!known) {
    await fields.fillFrom(storedQueries(client, prefix, kind), kind);
    known = (await fields.read(kind)) ?? new Set(['*']);
  }
  const cut = known;
  const matches = await percolateAs(
    client,
    prefix,
    documents.map((doc) => cutForPercolation(doc, cut)),
    kind,
    pageSize,
  );
  if ((await fields.count(kind)) === known.size) return matches;
  return percolateAs(client, prefix, documents, kind, pageSize);
}

async function percolateAs(
  client: Engine,
  prefix: string,
  documents: readonly Doc[],
  kind: SavedSearchKind,
  pageSize: number,
): Promise<PercolatorMatch[][]> {
  const matches: PercolatorMatch[][] = documents.map(() => []);
  if (documents.length === 0) return matches;
  const body = {
    _source: ['savedSearchId', 'watchFields'],
    query: { percolate: { field: 'query', documents: [...documents] } },
  };
  for await (const hits of pagesOf(client, prefix, kind, body, pageSize))
    for (const hit of hits) {
      const match = {
        savedSearchId: String(hit._source?.savedSearchId),
        watchFields: (hit._source?.watchFields as string[] | undefined) ?? [],
      };
      // one document: the engine leaves the slot out
      const slots = hit.fields?._percolator_document_slot ?? [0];
      for (const slot of slots) matches[slot]?.push(match);
    }
  return matches;
}
