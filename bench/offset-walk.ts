/**
 * Offset pages beside their floor, before and after `walkFrom` (src/catalogue/paging.ts), in
 * one run on one engine. For a compiled search at an offset:
 *
 * - floor: the same query with `size: 0` (matching and counting only), as in bench/run.ts;
 * - from/size: the compiled request as it is (every page before `walkFrom`, and this one before);
 * - walked: the page the API sends once its place is remembered (the previous page's end, or
 *   the same page asked again): `size` records with search_after on the list's point in time;
 * - first visit: the page the API sends when no place is remembered: from/size on the point in
 *   time, one record early (src/search/paging/pages.ts, topPage); and opening a point in time,
 *   which the first deep page of a search (per user) adds once.
 *
 * Each is timed alone, 1 connection, `amount` requests, p50 (bench/load.ts), straight to the
 * engine without the shard request cache.
 *
 *   await measureOffsets({ client, opensearchUrl, queries: [{ name, request, offset: 5000 }] })
 *   -> [{ name, offset, floorP50Ms: 1.0, fromSizeP50Ms: 32.2, walkedP50Ms: 1.6, ... }]
 */
import type { OpenSearchClient } from '../src/opensearch/client.js';
import { onPit, type SearchRequest } from '../src/search/paging/pit-search.js';
import { type LoadRequest, runLoad } from './load.js';

export interface OffsetQuery {
  name: string;
  /** The compiled search (src/search/compile-search.ts) at its offset. */
  request: SearchRequest;
  offset: number;
}

export interface OffsetRow {
  name: string;
  offset: number;
  /** Records the list holds past the offset's page start: 0 when the offset is past the end. */
  reached: boolean;
  floorP50Ms: number;
  fromSizeP50Ms: number;
  walkedP50Ms: number;
  firstVisitP50Ms: number;
  pitOpenP50Ms: number;
  /** from/size / floor, walked / floor, first visit / floor. */
  ratioBefore: number;
  ratioAfter: number;
  ratioFirstVisit: number;
}

const r2 = (value: number) => Math.round(value * 100) / 100;
const keepAliveSeconds = 120;

function paramsOf(request: SearchRequest): URLSearchParams {
  const params = new URLSearchParams({ request_cache: 'false' });
  for (const name of ['allow_partial_search_results', 'timeout', 'cancel_after_time_interval'] as const)
    if (request[name] !== undefined) params.set(name, String(request[name]));
  return params;
}

async function p50(url: string, request: LoadRequest, amount: number, what: string): Promise<number> {
  const run = await runLoad({ url, requests: [request], connections: 1, amount });
  if (run.non2xx > 0) throw new Error(`${what}: the engine refused the request`);
  return run.latencyMs.p50;
}

/**
 * The sort values of the record before `offset` on the point in time, as the engine wrote
 * them (a missing value's Long.MIN/MAX stand-in does not survive JSON.parse), or undefined
 * when the list is shorter.
 */
async function boundaryText(url: string, pitBody: Record<string, unknown>, offset: number) {
  const response = await fetch(`${url}/_search?filter_path=hits.hits.sort`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      ...pitBody,
      from: offset - 1,
      size: 1,
      _source: false,
      stored_fields: ['_none_'],
    }),
  });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`boundary: the engine answered ${response.status}`);
  return /"sort":(\[[^\]]*\])/.exec(text)?.[1];
}

async function pitOpenP50(client: OpenSearchClient, index: string, times: number): Promise<number> {
  const took: number[] = [];
  for (let i = 0; i < times; i++) {
    const started = performance.now();
    const { body } = await client.createPit({ index: [index], keep_alive: '60s' });
    took.push(performance.now() - started);
    await client.deletePit({ body: { pit_id: [body.pit_id] } });
  }
  return r2(took.sort((a, b) => a - b)[Math.floor(times / 2)] as number);
}

async function measureOne(
  client: OpenSearchClient,
  url: string,
  query: OffsetQuery,
  amount: number,
): Promise<OffsetRow> {
  const index = String(query.request.index);
  const body = query.request.body as Record<string, unknown>;
  const params = paramsOf(query.request);
  const limit = Number(body.size);
  const { from: _from, size: _size, sort: _sort, _source, highlight: _highlight, ...matching } = body;
  const post = (path: string, json: string): LoadRequest => ({ method: 'POST', path, body: json });
  const floorP50Ms = await p50(
    url,
    post(`/${index}/_search?${params}`, JSON.stringify({ ...matching, size: 0 })),
    amount,
    'floor',
  );
  const fromSizeP50Ms = await p50(
    url,
    post(`/${index}/_search?${params}`, JSON.stringify(body)),
    amount,
    'from/size',
  );
  const { body: opened } = await client.createPit({ index: [index], keep_alive: `${keepAliveSeconds}s` });
  try {
    const pit = { id: opened.pit_id, keepAliveSeconds };
    const pitBody = onPit(query.request, pit, undefined, limit).body as Record<string, unknown>;
    const firstVisit = JSON.stringify({ ...pitBody, from: query.offset - 1, size: limit + 1 });
    const firstVisitP50Ms = await p50(url, post(`/_search?${params}`, firstVisit), amount, 'first visit');
    const after = await boundaryText(url, pitBody, query.offset);
    // past the end the API remembers no place: every visit is a first visit
    const walked = after
      ? JSON.stringify({ ...pitBody, search_after: '\u0000after' }).replace('"\\u0000after"', after)
      : firstVisit;
    const walkedP50Ms = await p50(url, post(`/_search?${params}`, walked), amount, 'walked');
    const pitOpenP50Ms = await pitOpenP50(client, index, Math.min(amount, 10));
    const floor = Math.max(0.1, floorP50Ms);
    return {
      name: query.name,
      offset: query.offset,
      reached: after !== undefined,
      floorP50Ms,
      fromSizeP50Ms,
      walkedP50Ms,
      firstVisitP50Ms,
      pitOpenP50Ms,
      ratioBefore: r2(fromSizeP50Ms / floor),
      ratioAfter: r2(walkedP50Ms / floor),
      ratioFirstVisit: r2(firstVisitP50Ms / floor),
    };
  } finally {
    await client.deletePit({ body: { pit_id: [opened.pit_id] } });
  }
}

export async function measureOffsets(options: {
  client: OpenSearchClient;
  opensearchUrl: string;
  queries: OffsetQuery[];
  /** Requests per timing (20, as the mix's per-query figures). */
  amount?: number;
}): Promise<OffsetRow[]> {
  const rows: OffsetRow[] = [];
  for (const query of options.queries)
    rows.push(await measureOne(options.client, options.opensearchUrl, query, options.amount ?? 20));
  return rows;
}

export function offsetTable(rows: readonly OffsetRow[]): string {
  const lines = [
    '| query | offset | floor (size 0) | from/size (before) | walked page (after) | first visit | PIT open | before / floor | after / floor | first visit / floor |',
    '|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const row of rows)
    lines.push(
      `| ${row.name}${row.reached ? '' : ' (past the end)'} | ${row.offset} | ${row.floorP50Ms} ms | ${row.fromSizeP50Ms} ms | ${row.walkedP50Ms} ms | ${row.firstVisitP50Ms} ms | ${row.pitOpenP50Ms} ms | ${row.ratioBefore} | ${row.ratioAfter} | ${row.ratioFirstVisit} |`,
    );
  return lines.join('\n');
}
