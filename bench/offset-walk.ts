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
 * and the same query's page at offset 0, the cost of a sorted page at the top. Each is
 * timed straight to the engine without the shard request cache, 1 connection, p50 over
 * `amount` rounds that send each request once, interleaved (the machine is shared and noisy:
 * the ratios of one run hold where absolute times move by tens of percent).
 *
 *   await measureOffsets({ client, opensearchUrl, queries: [{ name, request, offset: 5000 }] })
 *   -> [{ name, offset, floorP50Ms: 1.0, fromSizeP50Ms: 32.2, walkedP50Ms: 1.6, ... }]
 */
import type { Engine } from '../src/opensearch/engine.js';
import { onPit, type SearchRequest } from '../src/search/paging/pit-search.js';
import { floorBody } from './query-mix.js';

export interface OffsetQuery {
  name: string;
  /** The compiled search (src/search/compile-search.ts) at its offset. */
  request: SearchRequest;
  offset: number;
}

export interface OffsetRow {
  name: string;
  offset: number;
  /** False when the offset is past the end of the list (every visit is then a first visit). */
  reached: boolean;
  floorP50Ms: number;
  /** The same query's page at offset 0 (from/size): what a sorted page costs at the top. */
  topP50Ms: number;
  fromSizeP50Ms: number;
  walkedP50Ms: number;
  firstVisitP50Ms: number;
  pitOpenP50Ms: number;
  /** from/size / floor, walked / floor, first visit / floor, walked / top page. */
  ratioBefore: number;
  ratioAfter: number;
  ratioFirstVisit: number;
  ratioAfterToTop: number;
}

const r2 = (value: number) => Math.round(value * 100) / 100;
const keepAliveSeconds = 120;
const median = (values: number[]) =>
  r2([...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0);

function paramsOf(request: SearchRequest): URLSearchParams {
  const params = new URLSearchParams({ request_cache: 'false' });
  for (const name of ['allow_partial_search_results', 'timeout', 'cancel_after_time_interval'] as const)
    if (request[name] !== undefined) params.set(name, String(request[name]));
  return params;
}

interface Timed {
  what: string;
  path: string;
  body: string;
}

async function timeOnce(url: string, request: Timed): Promise<number> {
  const started = performance.now();
  const response = await fetch(`${url}${request.path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: request.body,
  });
  await response.arrayBuffer();
  const took = performance.now() - started;
  if (response.status !== 200) throw new Error(`${request.what}: the engine answered ${response.status}`);
  return took;
}

/**
 * p50 of each request over `rounds` rounds, every round sending each request once in a
 * rotating order: on a shared, noisy machine the requests see the same load, so their ratios
 * hold where their absolute times do not.
 */
async function interleaved(url: string, requests: Timed[], rounds: number): Promise<number[]> {
  const took = requests.map(() => [] as number[]);
  for (const request of requests) await timeOnce(url, request); // warm-up
  for (let round = 0; round < rounds; round++)
    for (let i = 0; i < requests.length; i++) {
      const at = (round + i) % requests.length;
      took[at]?.push(await timeOnce(url, requests[at] as Timed));
    }
  return took.map(median);
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

async function pitOpenP50(client: Engine, index: string, times: number): Promise<number> {
  const took: number[] = [];
  for (let i = 0; i < times; i++) {
    const started = performance.now();
    const { body } = await client.createPit({ index: [index], keep_alive: '60s' });
    took.push(performance.now() - started);
    await client.deletePit({ body: { pit_id: [body.pit_id] } });
  }
  return median(took);
}

async function measureOne(
  client: Engine,
  url: string,
  query: OffsetQuery,
  rounds: number,
): Promise<OffsetRow> {
  const index = String(query.request.index);
  const body = query.request.body as Record<string, unknown>;
  const params = paramsOf(query.request);
  const limit = Number(body.size);
  const { body: opened } = await client.createPit({ index: [index], keep_alive: `${keepAliveSeconds}s` });
  try {
    const pit = { id: opened.pit_id, keepAliveSeconds };
    const pitBody = onPit(query.request, pit, undefined, limit).body as Record<string, unknown>;
    const firstVisit = JSON.stringify({ ...pitBody, from: query.offset - 1, size: limit + 1 });
    const after = await boundaryText(url, pitBody, query.offset);
    // past the end the API remembers no place: every visit is a first visit
    const walked = after
      ? JSON.stringify({ ...pitBody, search_after: '\u0000after' }).replace('"\\u0000after"', after)
      : firstVisit;
    const [floorP50Ms, topP50Ms, fromSizeP50Ms, walkedP50Ms, firstVisitP50Ms] = (await interleaved(
      url,
      [
        {
          what: 'floor',
          path: `/${index}/_search?${params}`,
          body: JSON.stringify(floorBody(body)),
        },
        { what: 'top page', path: `/${index}/_search?${params}`, body: JSON.stringify({ ...body, from: 0 }) },
        { what: 'from/size', path: `/${index}/_search?${params}`, body: JSON.stringify(body) },
        { what: 'walked', path: `/_search?${params}`, body: walked },
        { what: 'first visit', path: `/_search?${params}`, body: firstVisit },
      ],
      rounds,
    )) as [number, number, number, number, number];
    const pitOpenP50Ms = await pitOpenP50(client, index, Math.min(rounds, 10));
    const floor = Math.max(0.1, floorP50Ms);
    return {
      name: query.name,
      offset: query.offset,
      reached: after !== undefined,
      floorP50Ms,
      topP50Ms,
      fromSizeP50Ms,
      walkedP50Ms,
      firstVisitP50Ms,
      pitOpenP50Ms,
      ratioBefore: r2(fromSizeP50Ms / floor),
      ratioAfter: r2(walkedP50Ms / floor),
      ratioFirstVisit: r2(firstVisitP50Ms / floor),
      ratioAfterToTop: r2(walkedP50Ms / Math.max(0.1, topP50Ms)),
    };
  } finally {
    await client.deletePit({ body: { pit_id: [opened.pit_id] } });
  }
}

export async function measureOffsets(options: {
  client: Engine;
  opensearchUrl: string;
  queries: OffsetQuery[];
  /** Rounds of the interleaved timing (20, as the mix's per-query figures). */
  amount?: number;
}): Promise<OffsetRow[]> {
  const rows: OffsetRow[] = [];
  for (const query of options.queries)
    rows.push(await measureOne(options.client, options.opensearchUrl, query, options.amount ?? 20));
  return rows;
}

export function offsetTable(rows: readonly OffsetRow[]): string {
  const lines = [
    '| query | offset | floor (size 0) | page at 0 | from/size (before) | walked page (after) | first visit | PIT open | before / floor | after / floor | first visit / floor | after / page at 0 |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const row of rows)
    lines.push(
      `| ${row.name}${row.reached ? '' : ' (past the end)'} | ${row.offset} | ${row.floorP50Ms} ms | ${row.topP50Ms} ms | ${row.fromSizeP50Ms} ms | ${row.walkedP50Ms} ms | ${row.firstVisitP50Ms} ms | ${row.pitOpenP50Ms} ms | ${row.ratioBefore} | ${row.ratioAfter} | ${row.ratioFirstVisit} | ${row.ratioAfterToTop} |`,
    );
  return lines.join('\n');
}
