/**
 * One design step of the API's request path against the code before it, in one run, with the
 * raw engine beside both (docs/bench.md, "A step of the request path"):
 *
 *   OPENSEARCH_URL=... REDIS_URL=... npm run bench:step -- --base <commit> [--seconds 5] [--rounds 4]
 *
 * - data: the bench's generated set (2,000 companies / 20,000 postings by default) indexed
 *   once under its own prefix with the project's ingest (reused when the index holds it);
 * - two API processes on the same engine and redis-server, each under its own Redis prefix:
 *   "before" runs `--base` (exported to a temporary directory, with this tree's
 *   node_modules), "after" this tree. The bench user is NOT exempt from the rate limit (a
 *   limit no search reaches): every search is counted and reserves its credit, as a
 *   customer's does;
 * - the bench's query mix (bench/query-mix.ts) through each API and, compiled, straight to
 *   the engine; each round measures before, after and raw at 1 connection (p50) and at 32
 *   (throughput), before and after swapping places every round; the API process's CPU per
 *   search (/proc) and the engine's (node stats) are read around each API step;
 * - the figures are the medians of the rounds; any non-2xx answer fails the run;
 * - `--cpu-prof-dir <dir>`: the "after" process runs under `node --cpu-prof`, and the report
 *   sums its profile by package and file (bench/cpu-profile.ts).
 * Output: the lines below and bench-reports/step-<time>.json.
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cliProgram, positiveWholeNumber } from '../ops/cli.js';
import { createApiKey, keyStoreFor } from '../src/auth/key-admin.js';
import { createLimits } from '../src/limits/limits.js';
import { createEngine } from '../src/opensearch/engine.js';
import { indexName } from '../src/opensearch/indices.js';
import { projectRoot } from '../src/project-root.js';
import { createRedis } from '../src/redis.js';
import { engineCpuMs, processCpuMs } from './cpu.js';
import { largestProfile, summariseProfile } from './cpu-profile.js';
import { benchDataSet } from './data-set.js';
import { type LoadRequest, runLoad } from './load.js';
import { type BenchProcess, startNodeProcess, stopAll } from './processes.js';
import { buildQueryMix, rawMixRequest } from './query-mix.js';
import { deleteKeys } from './redis-keys.js';

const options = cliProgram('bench:step', 'A step of the request path against the commit before it')
  .requiredOption('--base <commit>', 'the commit measured as "before"')
  .option('--companies <n>', 'companies in the data set', positiveWholeNumber, 2_000)
  .option('--jobs <n>', 'postings in the data set', positiveWholeNumber, 20_000)
  .option('--seconds <n>', 'seconds per load measurement', positiveWholeNumber, 5)
  .option('--rounds <n>', 'rounds of before / after / raw', positiveWholeNumber, 4)
  .option('--cpu-prof-dir <dir>', 'a V8 CPU profile of the "after" process, summed in the report')
  .parse()
  .opts<{
    base: string;
    companies: number;
    jobs: number;
    seconds: number;
    rounds: number;
    cpuProfDir?: string;
  }>();

const log = (line: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${line}\n`);
const opensearchUrl = process.env.OPENSEARCH_URL ?? '';
const redisUrl = process.env.REDIS_URL ?? '';
if (!opensearchUrl || !redisUrl) throw new Error('set OPENSEARCH_URL and REDIS_URL');
const indexPrefix = `bench-step-c${options.companies}-j${options.jobs}-`;
const runId = randomUUID().slice(0, 8);
const benchUser = 'bench-step-user';
const stops: Array<() => Promise<void>> = [];
const engine = createEngine(opensearchUrl);
stops.push(() => engine.close());

/** The generated set, indexed once under `indexPrefix` through the project's ingest CLI. */
async function dataSet(): Promise<string[]> {
  const spec = { companies: options.companies, jobs: options.jobs, seed: 1, now: new Date() };
  const { files } = await benchDataSet(`step-c${options.companies}-j${options.jobs}`, spec, log);
  const count = await engine
    .count({ index: indexName(indexPrefix, 'corporates') })
    .then((res) => (res.body as { count: number }).count)
    .catch(() => 0);
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
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-step-base-'));
  execFileSync('bash', ['-c', `git archive "$0" | tar -x -C "$1"`, options.base, dir], { cwd: projectRoot });
  symlinkSync(path.join(projectRoot, 'node_modules'), path.join(dir, 'node_modules'));
  stops.push(async () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function connectedRedis() {
  const redis = createRedis(redisUrl);
  if (redis.status !== 'ready') await new Promise((resolve) => redis.once('ready', resolve));
  return redis;
}

async function startApi(
  name: string,
  root: string,
  nodeArgs: string[] = [],
): Promise<{ api: BenchProcess; key: string }> {
  const prefix = `bench-step-${runId}-${name}:`;
  const redis = await connectedRedis();
  const key = (await createApiKey(keyStoreFor(redis, prefix), { userId: benchUser })).key;
  await createLimits({ redis, keyPrefix: prefix }).ledger.grant(benchUser, 1_000_000_000);
  redis.disconnect();
  mkdirSync(path.join(projectRoot, '.local', 'bench'), { recursive: true });
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
    logFile: path.join(projectRoot, '.local', 'bench', `step-${name}.log`),
    readyPath: '/health',
    nodeArgs,
  });
  stops.unshift(api.stop);
  stops.push(async () => {
    const cleaner = await connectedRedis();
    await deleteKeys(cleaner, `${prefix}*`);
    cleaner.disconnect();
  });
  return { api, key };
}

/** The mix as API requests (per key) and as the compiled bodies sent straight to the engine. */
function requestsOf(files: string[]): { api: (key: string) => LoadRequest[]; raw: LoadRequest[] } {
  const text = readFileSync(files[0] as string, 'utf8').slice(0, 2_000_000);
  const numbers = [...text.matchAll(/"corporateNumber":"(\d{13})"/g)]
    .slice(0, 100)
    .map((m) => m[1] as string);
  const mix = buildQueryMix(numbers);
  const raw = mix.map((query) => rawMixRequest(query, indexPrefix).raw);
  const api = (key: string) =>
    mix.map((query) => ({
      method: 'POST' as const,
      path: query.path,
      headers: { 'x-api-key': key },
      body: JSON.stringify(query.body),
    }));
  return { api, raw };
}

interface Side {
  name: string;
  url: string;
  pid?: number;
  requests: LoadRequest[];
}

interface Figures {
  p50: number[];
  rps32: number[];
  /** CPU ms per search at 1 and at 32 connections, API process and engine (API sides only). */
  apiCpu1: number[];
  apiCpu32: number[];
  engineCpu1: number[];
  engineCpu32: number[];
}

/** One load step of one side, with the CPU each process spent on it per answer. */
async function measure(side: Side, connections: number, into: Figures): Promise<void> {
  const apiBefore = side.pid ? processCpuMs(side.pid) : 0;
  const engineBefore = await engineCpuMs(engine);
  const load = await runLoad({
    url: side.url,
    requests: side.requests,
    connections,
    seconds: options.seconds,
  });
  if (load.non2xx > 0) throw new Error(`${side.name}: ${JSON.stringify(load.statuses)}`);
  const engineMs = ((await engineCpuMs(engine)) - engineBefore) / load.requests;
  if (connections === 1) into.p50.push(load.latencyMs.p50);
  else into.rps32.push(load.rps);
  if (side.pid) {
    const apiMs = (processCpuMs(side.pid) - apiBefore) / load.requests;
    (connections === 1 ? into.apiCpu1 : into.apiCpu32).push(apiMs);
  }
  (connections === 1 ? into.engineCpu1 : into.engineCpu32).push(engineMs);
  log(
    `${side.name} c=${connections}: p50 ${load.latencyMs.p50} ms, ${load.rps} req/s, engine ${engineMs.toFixed(2)} ms`,
  );
}

const median = (values: number[]) =>
  values.length === 0 ? null : ([...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number);

async function main(): Promise<void> {
  const files = await dataSet();
  const before = await startApi('before', exportBase());
  const profileDir = options.cpuProfDir && path.resolve(options.cpuProfDir);
  if (profileDir) {
    // this run's profiles only
    rmSync(profileDir, { recursive: true, force: true });
    mkdirSync(profileDir, { recursive: true });
  }
  const after = await startApi(
    'after',
    projectRoot,
    profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [],
  );
  const requests = requestsOf(files);
  const sides: Side[] = [
    { name: 'before', url: before.api.url, pid: before.api.pid, requests: requests.api(before.key) },
    { name: 'after', url: after.api.url, pid: after.api.pid, requests: requests.api(after.key) },
    { name: 'raw', url: opensearchUrl, requests: requests.raw },
  ];
  for (const side of sides) {
    const check = await runLoad({ url: side.url, requests: side.requests, connections: 1, amount: 26 });
    if (check.non2xx > 0) throw new Error(`${side.name}: ${JSON.stringify(check.statuses)}`);
    await runLoad({ url: side.url, requests: side.requests, connections: 8, seconds: 2 });
  }
  const figures = new Map<string, Figures>(
    sides.map((side) => [
      side.name,
      { p50: [], rps32: [], apiCpu1: [], apiCpu32: [], engineCpu1: [], engineCpu32: [] },
    ]),
  );
  for (let round = 1; round <= options.rounds; round++) {
    // before and after swap places every round: neither is always the one measured first
    const order = round % 2 === 1 ? sides : [sides[1], sides[0], sides[2]];
    log(`round ${round}`);
    for (const connections of [1, 32])
      for (const side of order as Side[]) await measure(side, connections, figures.get(side.name) as Figures);
  }
  const summary = Object.fromEntries(
    [...figures].map(([name, f]) => [
      name,
      {
        p50Ms: median(f.p50),
        rps32: median(f.rps32),
        apiCpuMsPerSearch: { c1: median(f.apiCpu1), c32: median(f.apiCpu32) },
        engineCpuMsPerSearch: { c1: median(f.engineCpu1), c32: median(f.engineCpu32) },
        rounds: f,
      },
    ]),
  );
  // the profile is written when the process exits
  await after.api.stop();
  const profileFile = profileDir ? largestProfile(profileDir) : undefined;
  const profile = profileFile ? { file: profileFile, ...summariseProfile(profileFile) } : undefined;
  const report = { at: new Date().toISOString(), base: options.base, options, summary, profile };
  mkdirSync(path.join(projectRoot, 'bench-reports'), { recursive: true });
  const file = path.join(projectRoot, 'bench-reports', `step-${report.at.replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  for (const [name, s] of Object.entries(summary))
    log(
      `${name}: p50 at 1 connection ${s.p50Ms} ms, at 32 ${s.rps32} req/s; CPU ms per search, API ${s.apiCpuMsPerSearch.c1?.toFixed(2) ?? '-'} / ${s.apiCpuMsPerSearch.c32?.toFixed(2) ?? '-'}, engine ${s.engineCpuMsPerSearch.c1?.toFixed(2)} / ${s.engineCpuMsPerSearch.c32?.toFixed(2)} (1 / 32 connections)`,
    );
  if (profile) {
    log(`"after" process profile (${profile.busyMs} ms busy of ${profile.totalMs}): self time by place`);
    for (const { where, ms, share } of profile.top)
      log(`  ${(share * 100).toFixed(1)} %  ${ms} ms  ${where}`);
  }
  log(`report: ${file}`);
}

main()
  .catch((error: Error) => {
    log(`failed: ${error.message}`);
    process.exitCode = 1;
  })
  .finally(() => stopAll(stops, log));
