/**
 * The admission of a search (rate count + credit reservation) before and after it became one
 * Redis round trip, with the raw engine beside both, in one run:
 *
 *   OPENSEARCH_URL=... REDIS_URL=... npm run bench:admission -- --base <commit> [--seconds 5] [--rounds 3]
 *
 * - data: the bench's generated set (2,000 companies / 20,000 postings by default; docs/bench.md,
 *   the small size) indexed once under its own prefix with the project's pipeline (reused
 *   when the index holds it);
 * - two API processes on the same engine and redis-server, each under its own Redis prefix:
 *   "before" runs the code of `--base` (exported to a temporary directory), "after" this
 *   tree; the bench user is NOT exempt from the rate limit (a limit no search reaches), so
 *   every search is counted and reserves its credit, as a customer's does;
 * - the bench's query mix (bench/query-mix.ts) through each API and, compiled, straight to
 *   the engine; each round measures before, after, raw at 1 connection (p50) and at 32
 *   (throughput), before and after swapping places every round, and the figures are the
 *   medians of the rounds;
 * - the Redis time itself: 2,000 admissions in a row from this process, split (rate count,
 *   then reserve: two round trips) vs one admission script.
 * Output: the lines below and bench-reports/admission-<time>.json.
 */

import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cliProgram, positiveWholeNumber } from '../ops/cli.js';
import { createApiKey, keyStoreFor } from '../src/auth/key-admin.js';
import { corporateSearch, jobSearch } from '../src/catalogue/searches.js';
import { createLimits, type Limits } from '../src/limits/limits.js';
import { createEngine } from '../src/opensearch/engine.js';
import { indexName } from '../src/opensearch/indices.js';
import { projectRoot } from '../src/project-root.js';
import { createRedis } from '../src/redis.js';
import { compileSearch } from '../src/search/compile-search.js';
import { parseSearchRequest } from '../src/search/parse-request.js';
import { benchDataSet } from './data-set.js';
import { type LoadRequest, runLoad, summarize } from './load.js';
import { type BenchProcess, startNodeProcess, stopAll } from './processes.js';
import { buildQueryMix } from './query-mix.js';

const options = cliProgram(
  'bench:admission',
  'A search admission in one Redis round trip vs two, beside the engine',
)
  .requiredOption('--base <commit>', 'the commit measured as "before"')
  .option('--companies <n>', 'companies in the data set', positiveWholeNumber, 2_000)
  .option('--jobs <n>', 'postings in the data set', positiveWholeNumber, 20_000)
  .option('--seconds <n>', 'seconds per load measurement', positiveWholeNumber, 5)
  .option('--rounds <n>', 'rounds of before / after / raw', positiveWholeNumber, 3)
  .parse()
  .opts<{ base: string; companies: number; jobs: number; seconds: number; rounds: number }>();

const log = (line: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${line}\n`);
const opensearchUrl = process.env.OPENSEARCH_URL;
const redisUrl = process.env.REDIS_URL;
if (!opensearchUrl || !redisUrl) throw new Error('set OPENSEARCH_URL and REDIS_URL');
const indexPrefix = `bench-adm-c${options.companies}-j${options.jobs}-`;
const runId = randomUUID().slice(0, 8);
const benchUser = 'bench-admission-user';
const stops: Array<() => Promise<void>> = [];

/** The generated set, indexed once under `indexPrefix` through the project's ingest CLI. */
async function dataSet(): Promise<string[]> {
  const { files } = await benchDataSet(
    `admission-c${options.companies}-j${options.jobs}`,
    { companies: options.companies, jobs: options.jobs, seed: 1, now: new Date() },
    log,
  );
  const client = createEngine(opensearchUrl as string);
  const count = await client
    .count({ index: indexName(indexPrefix, 'corporates') })
    .then((res) => res.body.count as number)
    .catch(() => 0);
  await client.close();
  if (count !== options.companies) {
    log(`indexing under ${indexPrefix} (the project's ingest, direct)`);
    const env = { ...process.env, INDEX_PREFIX: indexPrefix, REDIS_URL: '', LOAD_SAMPLE_DATA: 'false' };
    execFileSync(process.execPath, ['--import', 'tsx', 'indexer/bin/ingest.ts', ...files], {
      cwd: projectRoot,
      env,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
  }
  return files;
}

/** `--base` exported beside this tree (its own src, this tree's node_modules). */
function exportBase(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-admission-base-'));
  execFileSync(
    'bash',
    ['-c', `git archive ${JSON.stringify(options.base)} | tar -x -C ${JSON.stringify(dir)}`],
    {
      cwd: projectRoot,
    },
  );
  symlinkSync(path.join(projectRoot, 'node_modules'), path.join(dir, 'node_modules'));
  stops.push(async () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function startApi(
  name: string,
  root: string,
): Promise<{ api: BenchProcess; key: string; prefix: string }> {
  const prefix = `bench-admission-${runId}-${name}:`;
  const redis = await connectedRedis();
  const key = (await createApiKey(keyStoreFor(redis, prefix), { userId: benchUser })).key;
  await createLimits({ redis, keyPrefix: prefix }).ledger.grant(benchUser, 1_000_000_000);
  redis.disconnect();
  const api = await startNodeProcess({
    script: path.join(root, 'src', 'main.ts'),
    env: {
      OPENSEARCH_URL: opensearchUrl,
      REDIS_URL: redisUrl,
      REDIS_PREFIX: prefix,
      INDEX_PREFIX: indexPrefix,
      LOAD_SAMPLE_DATA: 'false',
      // counted, never refused: the admission does its whole work on every search
      RATE_LIMIT_PER_SECOND: '1000000',
      RATE_LIMIT_EXEMPT_USERS: '',
      LOG_LEVEL: 'info',
      METRICS_PORT: '0',
    },
    logFile: path.join(projectRoot, '.local', 'bench', `admission-${name}.log`),
    readyPath: '/health',
  });
  stops.unshift(api.stop);
  stops.push(async () => dropKeys(prefix));
  return { api, key, prefix };
}

/** The product's client (no offline queue), once it can take commands. */
async function connectedRedis() {
  const redis = createRedis(redisUrl as string);
  if (redis.status !== 'ready') await new Promise((resolve) => redis.once('ready', resolve));
  return redis;
}

async function dropKeys(prefix: string): Promise<void> {
  const redis = await connectedRedis();
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
}

function requestsOf(files: string[]): { api: (key: string) => LoadRequest[]; raw: LoadRequest[] } {
  const text = readFileSync(files[0] as string, 'utf8').slice(0, 2_000_000);
  const numbers = [...text.matchAll(/"corporateNumber":"(\d{13})"/g)]
    .slice(0, 100)
    .map((m) => m[1] as string);
  const mix = buildQueryMix(numbers);
  const raw = mix.map((query) => {
    const search = query.path.includes('corporates') ? corporateSearch : jobSearch;
    const compiled = compileSearch(search, parseSearchRequest(search, query.body), indexPrefix);
    const params = new URLSearchParams({
      allow_partial_search_results: String(compiled.allow_partial_search_results),
      timeout: String(compiled.timeout),
      cancel_after_time_interval: String(compiled.cancel_after_time_interval),
    });
    return {
      method: 'POST' as const,
      path: `/${compiled.index as string}/_search?${params}`,
      body: JSON.stringify(compiled.body),
    };
  });
  const api = (key: string) =>
    mix.map((query) => ({
      method: 'POST' as const,
      path: query.path,
      headers: { 'x-api-key': key },
      body: JSON.stringify(query.body),
    }));
  return { api, raw };
}

/** Microseconds per admission, 2,000 in a row: split (two round trips) and combined (one). */
async function redisTime(): Promise<{
  splitUs: ReturnType<typeof summarize>;
  oneUs: ReturnType<typeof summarize>;
}> {
  const redis = await connectedRedis();
  const prefix = `bench-admission-${runId}-micro:`;
  const limits: Limits = createLimits({ redis, keyPrefix: prefix, config: { ratePerSecond: 1_000_000 } });
  await limits.ledger.grant('u', 1_000_000);
  const took = { split: [] as number[], one: [] as number[] };
  const time = async (into: number[], admit: (requestId: string) => Promise<unknown>) => {
    for (let i = 0; i < 1_100; i++) {
      const requestId = randomUUID();
      const started = process.hrtime.bigint();
      await admit(requestId);
      if (i >= 100) into.push(Number(process.hrtime.bigint() - started) / 1000);
      await limits.ledger.commit(requestId);
    }
  };
  const split = (requestId: string) =>
    limits.rateLimiter.consume('u').then(() => limits.ledger.reserve('u', 1, requestId));
  const one = (requestId: string) =>
    limits.ledger.admit({ userId: 'u', requestId, rate: { limiter: limits.rateLimiter }, cost: 1 });
  // interleaved halves, so a change of load on the machine hits both
  for (let half = 0; half < 2; half++) {
    await time(took.split, split);
    await time(took.one, one);
  }
  await dropKeys(prefix);
  redis.disconnect();
  return { splitUs: summarize(took.split), oneUs: summarize(took.one) };
}

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

async function main(): Promise<void> {
  const files = await dataSet();
  const baseRoot = exportBase();
  const before = await startApi('before', baseRoot);
  const after = await startApi('after', projectRoot);
  const requests = requestsOf(files);
  const sides = [
    { name: 'before', url: before.api.url, requests: requests.api(before.key) },
    { name: 'after', url: after.api.url, requests: requests.api(after.key) },
    { name: 'raw', url: opensearchUrl as string, requests: requests.raw },
  ];
  for (const side of sides) {
    const check = await runLoad({ url: side.url, requests: side.requests, connections: 1, amount: 24 });
    if (check.non2xx > 0) throw new Error(`${side.name}: ${JSON.stringify(check.statuses)}`);
    await runLoad({ url: side.url, requests: side.requests, connections: 8, seconds: 2 });
  }
  const figures: Record<string, { p50: number[]; rps32: number[] }> = {};
  for (let round = 1; round <= options.rounds; round++) {
    // before and after swap places every round: neither is always the one measured first
    const order = round % 2 === 1 ? sides : [sides[1], sides[0], sides[2]];
    for (const connections of [1, 32])
      for (const side of order as typeof sides) {
        const load = await runLoad({
          url: side.url,
          requests: side.requests,
          connections,
          seconds: options.seconds,
        });
        if (load.non2xx > 0) throw new Error(`${side.name}: ${JSON.stringify(load.statuses)}`);
        const entry = figures[side.name] ?? { p50: [], rps32: [] };
        figures[side.name] = entry;
        if (connections === 1) entry.p50.push(load.latencyMs.p50);
        else entry.rps32.push(load.rps);
        log(`round ${round} ${side.name} c=${connections}: p50 ${load.latencyMs.p50} ms, ${load.rps} req/s`);
      }
  }
  const summary = Object.fromEntries(
    Object.entries(figures).map(([name, f]) => [
      name,
      { p50Ms: median(f.p50), rps32: median(f.rps32), rounds: f },
    ]),
  );
  const redis = await redisTime();
  const report = { at: new Date().toISOString(), base: options.base, options, summary, redis };
  mkdirSync(path.join(projectRoot, 'bench-reports'), { recursive: true });
  const file = path.join(projectRoot, 'bench-reports', `admission-${report.at.replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  for (const [name, s] of Object.entries(summary))
    log(`${name}: p50 at 1 connection ${s.p50Ms} ms, throughput at 32 ${s.rps32} req/s`);
  log(
    `Redis per admission, µs (p50 / p95): split ${redis.splitUs.p50} / ${redis.splitUs.p95}, one script ${redis.oneUs.p50} / ${redis.oneUs.p95}`,
  );
  log(`report: ${file}`);
}

main()
  .catch((error: Error) => {
    log(`failed: ${error.message}`);
    process.exitCode = 1;
  })
  .finally(() => stopAll(stops, log));
