/**
 * Deep paging through the API: the cost of a page of a sequential walk far down a long sorted
 * list beside the cost of a page at the top. The walk asks for the job search (every posting,
 * newest first) page after page; far pages are reached in jumps the API allows (each within
 * its walk limit past the furthest page reached), then `pages` consecutive pages are timed.
 *
 *   await walkDeep({ apiUrl, key, target: 500_000, pageSize: 100, pages: 20 })
 *   -> { total: 1000000, target: 500000, topMs: {p50..}, deepMs: {p50..}, ratioP50: 1.2 }
 */
import { type LatencySummary, summarize } from './load.js';

export interface DeepWalk {
  total: number;
  target: number;
  pageSize: number;
  pages: number;
  topMs: LatencySummary;
  deepMs: LatencySummary;
  ratioP50: number;
}

async function page(apiUrl: string, key: string, offset: number, limit: number) {
  const started = performance.now();
  const res = await fetch(`${apiUrl}/rest/v1/jobs/search`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify({ offset, limit, includeTotalResults: offset === 0 }),
  });
  const body = (await res.json()) as { totalResults: number | null; results: Array<{ id: string }> };
  const ms = performance.now() - started;
  if (res.status !== 200) throw new Error(`deep walk: offset ${offset} answered ${res.status}`);
  return { ms, body };
}

async function walk(apiUrl: string, key: string, from: number, pageSize: number, pages: number) {
  const times: number[] = [];
  let previousLast: string | undefined;
  for (let i = 0; i < pages; i++) {
    const { ms, body } = await page(apiUrl, key, from + i * pageSize, pageSize);
    // consecutive pages join up: nothing repeated across a boundary
    if (previousLast && body.results.some((record) => record.id === previousLast))
      throw new Error(`deep walk: a record repeated across the page at ${from + i * pageSize}`);
    previousLast = body.results.at(-1)?.id;
    times.push(ms);
  }
  return times.sort((a, b) => a - b);
}

export async function walkDeep(options: {
  apiUrl: string;
  key: string;
  /** The deep offset measured (500,000), lowered to half the list when the list is shorter. */
  target: number;
  pageSize: number;
  pages: number;
  /**
   * How far one request jumps past the furthest page (10,000, one result window). The API
   * allows up to 100,000, but at 1M postings such a jump outlasted the 3 s request deadline
   * on this machine (503): a walker gets there faster in window-sized steps.
   */
  jump?: number;
  log: (line: string) => void;
}): Promise<DeepWalk> {
  const { apiUrl, key, pageSize, pages } = options;
  const jump = options.jump ?? 10_000;
  const first = await page(apiUrl, key, 0, pageSize);
  const total = first.body.totalResults ?? 0;
  const target = Math.min(options.target, Math.floor(total / 2 / pageSize) * pageSize);
  const top = await walk(apiUrl, key, 0, pageSize, pages);
  for (let offset = jump; offset < target; offset += jump) await page(apiUrl, key, offset, pageSize);
  // the first page at the target starts this stretch of the walk: time the ones after it
  await page(apiUrl, key, target, pageSize);
  const deep = await walk(apiUrl, key, target + pageSize, pageSize, pages);
  const topMs = summarize(top);
  const deepMs = summarize(deep);
  const ratioP50 = Math.round((deepMs.p50 / topMs.p50) * 100) / 100;
  options.log(
    `deep walk: ${pages} pages of ${pageSize} at offset 0 p50 ${topMs.p50} ms, at offset ${target} p50 ${deepMs.p50} ms (x${ratioP50})`,
  );
  return { total, target, pageSize, pages, topMs, deepMs, ratioP50 };
}
