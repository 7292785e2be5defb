/**
 * One load run with autocannon: a fixed list of requests cycled by every connection for a
 * fixed time. autocannon reports p50/p97.5/p99 but no p95, so the per-response latencies are
 * collected from its `response` event and the percentiles computed here (nearest rank), from
 * the 2xx answers only; `requests` and `rps` count those answers, `statuses` every response.
 *
 *   await runLoad({ url: 'http://127.0.0.1:8080', requests, connections: 8, seconds: 10 })
 *   -> { requests: 5123, rps: 512.3, latencyMs: { p50: 14.2, p95: 31.0, p99: 44.8, ... }, non2xx: 0 }
 */
import autocannon from 'autocannon';

export interface LoadRequest {
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface LatencySummary {
  p50: number;
  p95: number;
  p99: number;
  mean: number;
  max: number;
}

export interface LoadResult {
  connections: number;
  seconds: number;
  requests: number;
  rps: number;
  latencyMs: LatencySummary;
  non2xx: number;
  /** Responses per status code, 2xx included. */
  statuses: Record<string, number>;
  errors: number;
  timeouts: number;
}

/** Nearest-rank percentile of sorted values. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] as number;
}

export function summarize(latencies: number[]): LatencySummary {
  const sorted = [...latencies].sort((a, b) => a - b);
  const round = (value: number) => Math.round(value * 100) / 100;
  return {
    p50: round(percentile(sorted, 50)),
    p95: round(percentile(sorted, 95)),
    p99: round(percentile(sorted, 99)),
    mean: round(sorted.reduce((sum, value) => sum + value, 0) / Math.max(1, sorted.length)),
    max: round(sorted[sorted.length - 1] ?? Number.NaN),
  };
}

/** A load run with more non-2xx answers than this share is not a measurement: it throws. */
export const MAX_NON_2XX_SHARE = 0.001;

/** Throws, naming the statuses, when the non-2xx answers exceed `maxShare` of all answers. */
export function failOnRefusals(statuses: Record<string, number>, non2xx: number, maxShare: number): void {
  const answers = Object.values(statuses).reduce((sum, count) => sum + count, 0);
  if (answers === 0 || non2xx / answers <= maxShare) return;
  throw new Error(
    `load run: ${non2xx} of ${answers} answers were not 2xx (${((non2xx / answers) * 100).toFixed(2)} %, ` +
      `the bound is ${(maxShare * 100).toFixed(1)} %): statuses ${JSON.stringify(statuses)}`,
  );
}

export async function runLoad(options: {
  url: string;
  requests: LoadRequest[];
  connections: number;
  seconds?: number;
  /** Instead of `seconds`: stop after this many responses. */
  amount?: number;
  /** The share of non-2xx answers above which the run fails (default MAX_NON_2XX_SHARE). */
  maxNon2xxShare?: number;
}): Promise<LoadResult> {
  const latencies: number[] = [];
  let finish: (result: autocannon.Result) => void = () => {};
  let fail: (error: Error) => void = () => {};
  const done = new Promise<autocannon.Result>((resolve, reject) => {
    finish = resolve;
    fail = reject;
  });
  const opts: autocannon.Options = {
    url: options.url,
    connections: options.connections,
    pipelining: 1,
    timeout: 30,
    ...(options.amount ? { amount: options.amount } : { duration: options.seconds ?? 10 }),
    requests: options.requests.map((request) => ({
      method: request.method,
      path: request.path,
      headers: { ...(request.body ? { 'content-type': 'application/json' } : {}), ...request.headers },
      ...(request.body ? { body: request.body } : {}),
    })),
  };
  const instance = autocannon(opts, (error, result) => (error ? fail(error) : finish(result)));
  const statuses: Record<string, number> = {};
  // only 2xx answers count as latency samples: a run of fast refusals would otherwise pass for
  // fast searches; they show in `statuses`, and above MAX_NON_2XX_SHARE the run fails
  instance.on('response', (_client: unknown, status: number, _bytes: number, responseTime: number) => {
    statuses[status] = (statuses[status] ?? 0) + 1;
    if (status >= 200 && status < 300) latencies.push(responseTime);
  });
  const result = await done;
  failOnRefusals(statuses, result.non2xx, options.maxNon2xxShare ?? MAX_NON_2XX_SHARE);
  const seconds = result.duration;
  return {
    connections: options.connections,
    seconds: Math.round(seconds * 100) / 100,
    requests: latencies.length,
    rps: Math.round((latencies.length / seconds) * 10) / 10,
    latencyMs: summarize(latencies),
    non2xx: result.non2xx,
    statuses,
    errors: result.errors,
    timeouts: result.timeouts,
  };
}
