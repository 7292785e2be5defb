/**
 * The one way to read every document matching a query: pages of `search_after` over a point
 * in time, so a scan sees one consistent view of the index however long it runs and whatever
 * is written meanwhile (the roll-off updates the very documents it scans). The point in time
 * is closed when the loop ends, early exits and errors included.
 *
 *   for await (const page of scan(client, { index: 'jobs', query, sort: [{ id: 'asc' }] }))
 *     for (const hit of page) ...
 */
import type { API, Engine } from '../../src/opensearch/engine.js';
import { withRetry } from '../../src/opensearch/retry.js';

export interface ScanOptions {
  index: string;
  query: Record<string, unknown>;
  /** A total order: end with a unique field (`id`), so no two hits share a sort key. */
  sort: Array<Record<string, 'asc' | 'desc'>>;
  /** Fields of `_source` to return (all when omitted; none when false). */
  source?: string[] | { excludes: string[] } | false;
  /** Also return each document's `_version`. */
  version?: boolean;
  /** Also return each document's sequence number and primary term (for `if_seq_no` writes). */
  seqNoPrimaryTerm?: boolean;
  pageSize?: number;
  /** How long the point in time lives between two pages. */
  keepAlive?: string;
}

export interface ScanHit<T> {
  id: string;
  source: T;
  /** With `version: true`. */
  version?: number;
  /** With `seqNoPrimaryTerm: true`. */
  seqNo?: number;
  primaryTerm?: number;
}

type SearchBody = NonNullable<API.Search_Request['body']>;

export async function* scan<T = Record<string, unknown>>(
  client: Engine,
  options: ScanOptions,
): AsyncGenerator<ScanHit<T>[]> {
  const pageSize = options.pageSize ?? 1000;
  const keepAlive = options.keepAlive ?? '2m';
  const { body: pit } = await withRetry(() =>
    client.createPit({ index: [options.index], keep_alive: keepAlive }),
  );
  try {
    let searchAfter: API.Search_RequestBody['search_after'];
    for (;;) {
      const body: SearchBody = {
        size: pageSize,
        query: options.query as SearchBody['query'],
        sort: options.sort as SearchBody['sort'],
        pit: { id: pit.pit_id, keep_alive: keepAlive },
        track_total_hits: false,
        ...(options.source !== undefined ? { _source: options.source } : {}),
        ...(options.version ? { version: true } : {}),
        ...(options.seqNoPrimaryTerm ? { seq_no_primary_term: true } : {}),
        ...(searchAfter ? { search_after: searchAfter } : {}),
      };
      const { body: page } = await withRetry(() => client.search({ body }));
      const hits = page.hits.hits;
      if (hits.length > 0)
        yield hits.map((hit) => ({
          id: String(hit._id),
          source: (hit._source ?? {}) as T,
          ...(hit._version !== undefined ? { version: hit._version } : {}),
          ...(hit._seq_no !== undefined ? { seqNo: hit._seq_no, primaryTerm: hit._primary_term } : {}),
        }));
      if (hits.length < pageSize) return;
      searchAfter = hits[hits.length - 1]?.sort;
    }
  } finally {
    await client.deletePit({ body: { pit_id: [pit.pit_id] } }).catch(() => {
      // it expires by itself after keepAlive
    });
  }
}
