/**
 * `npm run bench`: one run of every measurement behind the performance targets (docs/decisions/performance-targets.md) on one data set.
 *
 *   npm run bench                              # 20,000 companies / 200,000 postings
 *   npm run bench -- --companies 2000 --jobs 20000 --seconds 5
 *   npm run bench -- --postings-1m             # 100,000 companies / 1,000,000 postings
 *   npm run bench -- --reuse-index             # skip ingestion when the bench indices are full
 *   npm run bench -- --publish                 # also write docs/bench-200k.md (docs/bench-1m.md with --postings-1m)
 *   npm run bench -- --names-per-class 200     # fewer labelled records for the name-matching step
 *
 * Starts its own OpenSearch node (under .local/opensearch/bench; OPENSEARCH_URL uses an
 * existing one instead) and its own redis-server, generates the data set under
 * .local/bench-data/ (reused when present), indexes it, runs the API as a child process, and
 * writes bench-reports/<time>.json and .md (plus latest.json / latest.md).
 */

import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cliProgram, positiveWholeNumber } from '../ops/cli.js';
import { type LocalOpenSearch, projectRoot, startLocalOpenSearch } from '../ops/local/opensearch-node.js';
import { startLocalRedis } from '../ops/local/redis-server.js';
import { corporateSearch, jobSearch } from '../src/catalogue/searches.js';
import { loadConfigOrExit } from '../src/config.js';
import { createEngine, type Engine } from '../src/opensearch/engine.js';
import { indexName } from '../src/opensearch/indices.js';
import { compileSearch } from '../src/search/compile-search.js';
import { parseSearchRequest } from '../src/search/parse-request.js';
import { engineCpuMs, processCpuMs } from './cpu.js';
import { benchDataSet } from './data-set.js';
import { type DeepWalk, walkDeep } from './deep-walk.js';
import { studyDetailText } from './detail-text-study.js';
import { type IngestFigures, measureIngestion } from './ingest-bench.js';
import { type LoadRequest, runLoad } from './load.js';
import { runNameEval } from './name-eval.js';
import type { NameEvalReport } from './name-scoring.js';
import { calibrationSvg } from './names/outcomes.js';
import { measureOffsets, offsetTable } from './offset-walk.js';
import { type BenchProcess, benchScript, startNodeProcess, stopAll } from './processes.js';
import { buildQueryMix, floorBody, rawMixRequest } from './query-mix.js';
import { measureCopyFetch, measureRecordText } from './record-text-cost.js';
import { createBenchKey } from './registry-bench-support.js';
import { type BenchReport, computeRatios, type QueryRow, toMarkdown } from './report.js';

const options = cliProgram(
  'bench',
  'Benchmark the API beside raw OpenSearch and the indexer beside raw _bulk',
)
  .option('--companies <n>', 'companies in the data set', positiveWholeNumber, 20_000)
  .option('--jobs <n>', 'postings in the data set', positiveWholeNumber, 200_000)
  .option('--postings-1m', 'the large set: 100,000 companies / 1,000,000 postings')
  .option('--seed <n>', 'generator seed', positiveWholeNumber, 1)
  .option('--seconds <n>', 'seconds per load measurement', positiveWholeNumber, 10)
  .option('--heap <size>', 'heap of the OpenSearch node the bench starts', '2g')
  .option('--reuse-index', 'skip ingestion when the bench indices already hold the data set')
  .option(
    '--names-per-class <n>',
    'labelled records per class of spelling for the name-matching step',
    positiveWholeNumber,
    1000,
  )
  .option('--publish', 'also write the markdown to docs/bench-<postings>.md (bench-200k.md, bench-1m.md)')
  .option(
    '--cpu-prof-dir <dir>',
    "write a V8 CPU profile of the API process there (node --cpu-prof; skews the API's figures)",
  )
  .parse()
  .opts<{
    companies: number;
    jobs: number;
    postings1m?: boolean;
    seed: number;
    seconds: number;
    heap: string;
    reuseIndex?: boolean;
    publish?: boolean;
    cpuProfDir?: string;
    namesPerClass: number;
  }>();
if (options.postings1m) {
  options.companies = 100_000;
  options.jobs = 1_000_000;
}

const log = (line: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${line}\n`);
const pipelinePrefix = 'bench-pipe-';
const rawPrefix = 'bench-raw-';
const benchUser = 'bench-user';
const stops: Array<() => Promise<void>> = [];

function today(): Date {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
}

async function dataSet() {
  const now = today();
  return benchDataSet(
    `c${options.companies}-j${options.jobs}-s${options.seed}-${now.toISOString().slice(0, 10)}`,
    { companies: options.companies, jobs: options.jobs, seed: options.seed, now },
    log,
  );
}

function firstCorporateNumbers(file: string, count: number): string[] {
  const numbers: string[] = [];
  const text = readFileSync(file, 'utf8').slice(0, 2_000_000);
  for (const line of text.split('\n')) {
    const match = /"corporateNumber":"(\d{13})"/.exec(line);
    if (match?.[1]) numbers.push(match[1]);
    if (numbers.length >= count) break;
  }
  return numbers;
}

function gitDescribe(): string {
  try {
    const run = (args: string[]) =>
      execFileSync('git', args, {
        cwd: projectRoot,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      }).trim();
    return `${run(['rev-parse', '--short', 'HEAD'])}${run(['status', '--porcelain']) ? ' (with uncommitted changes)' : ''}`;
  } catch {
    return 'unknown';
  }
}

async function studyCopyFetch(client: Engine, mix: ReturnType<typeof buildQueryMix>) {
  log('record copies on the engine: binary base64 beside keyword text ...');
  const rows = await measureCopyFetch(client, pipelinePrefix, mix);
  for (const row of rows)
    log(`copies "${row.name}": took ${row.binaryTookMs} ms binary, ${row.keywordTookMs} ms keyword`);
  return rows;
}

/**
 * The engine (OPENSEARCH_URL, or a node the bench starts) and a redis-server of its own. The raw
 * side of the comparison posts to the engine without credentials or a CA file.
 */
async function startEngines() {
  const config = loadConfigOrExit();
  if (config.opensearchAccess.auth || config.opensearchAccess.caFile)
    throw new Error(
      'the benchmark compares the API with raw OpenSearch on an engine without credentials: unset the OPENSEARCH_USERNAME / OPENSEARCH_PASSWORD / OPENSEARCH_CA_FILE settings',
    );
  let opensearchUrl = config.opensearchUrl;
  let node: LocalOpenSearch | undefined;
  if (!opensearchUrl) {
    node = await startLocalOpenSearch({
      baseDir: path.join(projectRoot, '.local', 'opensearch', 'bench'),
      clusterName: 'corpsearch-bench',
      heap: options.heap,
      log,
    });
    stops.push(node.stop);
    opensearchUrl = node.url;
  }
  const client = createEngine(opensearchUrl);
  stops.unshift(() => client.close());
  const redis = await startLocalRedis({ logDir: path.join(projectRoot, '.local', 'bench', 'redis') });
  stops.unshift(redis.stop);
  return { opensearchUrl, node, client, redisUrl: redis.url };
}

/** 1. ingestion, pipeline beside raw _bulk; null when --reuse-index finds the indices full. */
async function ingest(
  client: Engine,
  data: Awaited<ReturnType<typeof dataSet>>,
): Promise<IngestFigures | null> {
  const expected = options.companies;
  let indexed = 0;
  try {
    indexed = (await client.count({ index: indexName(pipelinePrefix, 'corporates') })).body.count;
  } catch {
    indexed = 0;
  }
  if (options.reuseIndex && indexed === expected) {
    log('reusing the indexed data set (--reuse-index)');
    return null;
  }
  return measureIngestion({
    client: client.writer(),
    files: data.files,
    pipelinePrefix,
    rawPrefix,
    dumpFile: path.join(data.dir, 'final-documents.bulk.ndjson'),
    deadLetterFile: path.join(projectRoot, '.local', 'bench', 'dead-letter.ndjson'),
    batchSize: 1000,
    log,
  });
}

/** 2. the API as its own process, with a bench key; limits out of the way; a bare Express beside it. */
async function startApi(opensearchUrl: string, redisUrl: string) {
  const env = {
    OPENSEARCH_URL: opensearchUrl,
    REDIS_URL: redisUrl,
    REDIS_PREFIX: 'bench:',
    INDEX_PREFIX: pipelinePrefix,
    LOAD_SAMPLE_DATA: 'false',
    RATE_LIMIT_EXEMPT_USERS: benchUser,
    LOG_LEVEL: 'info',
    // no metrics listener: the bench measures from outside, and a fixed port could be taken
    METRICS_PORT: '0',
  };
  const key = createBenchKey(env, benchUser, 'bench');
  mkdirSync(path.join(projectRoot, '.local', 'bench'), { recursive: true });
  const api: BenchProcess = await startNodeProcess({
    script: benchScript('src/main.ts'),
    env,
    logFile: path.join(projectRoot, '.local', 'bench', 'api.log'),
    readyPath: '/health',
    nodeArgs: options.cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(options.cpuProfDir)}`] : [],
  });
  stops.unshift(api.stop);
  const bare = await startNodeProcess({
    script: benchScript('bench/bare-express.ts'),
    env: {},
    logFile: path.join(projectRoot, '.local', 'bench', 'bare-express.log'),
    readyPath: '/master/prefectures',
  });
  stops.unshift(bare.stop);
  return { key, api, bare };
}

type Mix = ReturnType<typeof buildQueryMix>;

/** One query of the mix as the API request, the compiled raw request and its size-0 floor. */
function requestsOf(query: Mix[number], key: string) {
  const { compiled, params, raw: rawRequest } = rawMixRequest(query, pipelinePrefix);
  const apiRequest: LoadRequest = {
    method: 'POST',
    path: query.path,
    headers: { 'x-api-key': key },
    body: JSON.stringify(query.body),
  };
  // the floor (`floorBody`), not from the shard request cache
  const floorParams = new URLSearchParams(params);
  floorParams.set('request_cache', 'false');
  const floorRequest: LoadRequest = {
    method: 'POST',
    path: `/${compiled.index as string}/_search?${floorParams}`,
    body: JSON.stringify(floorBody(compiled.body as Record<string, unknown>)),
  };
  return { apiRequest, rawRequest, floorRequest };
}

/** One query alone: checked through the API, then 20 times each through the API, raw and its floor. */
async function measureQuery(
  query: Mix[number],
  requests: ReturnType<typeof requestsOf>,
  apiUrl: string,
  opensearchUrl: string,
  key: string,
): Promise<QueryRow> {
  const { apiRequest, rawRequest, floorRequest } = requests;
  const check = await fetch(`${apiUrl}${query.path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: apiRequest.body as string,
  });
  const checked = (await check.json()) as { totalResults: number | null; results: unknown[] };
  if (check.status !== 200) throw new Error(`${query.name}: the API answered ${check.status}`);
  const apiAlone = await runLoad({ url: apiUrl, requests: [apiRequest], connections: 1, amount: 20 });
  const rawAlone = await runLoad({
    url: opensearchUrl,
    requests: [rawRequest],
    connections: 1,
    amount: 20,
  });
  if (rawAlone.non2xx > 0) throw new Error(`${query.name}: OpenSearch refused the compiled request`);
  const floorAlone = await runLoad({
    url: opensearchUrl,
    requests: [floorRequest],
    connections: 1,
    amount: 20,
  });
  if (floorAlone.non2xx > 0) throw new Error(`${query.name}: OpenSearch refused the size-0 request`);
  log(
    `query "${query.name}": ${checked.totalResults ?? '-'} hits, API p50 ${apiAlone.latencyMs.p50} ms, raw ${rawAlone.latencyMs.p50} ms, raw size 0 ${floorAlone.latencyMs.p50} ms`,
  );
  return {
    name: query.name,
    path: query.path,
    totalResults: checked.totalResults,
    returned: checked.results.length,
    apiP50Ms: apiAlone.latencyMs.p50,
    rawP50Ms: rawAlone.latencyMs.p50,
    rawFloorP50Ms: floorAlone.latencyMs.p50,
  };
}

/** 3. the query mix: API requests and the same compiled requests for OpenSearch, each query alone. */
async function measureQueries(mix: Mix, apiUrl: string, opensearchUrl: string, key: string) {
  const apiRequests: LoadRequest[] = [];
  const rawRequests: LoadRequest[] = [];
  const queries: QueryRow[] = [];
  for (const query of mix) {
    const requests = requestsOf(query, key);
    apiRequests.push(requests.apiRequest);
    rawRequests.push(requests.rawRequest);
    queries.push(await measureQuery(query, requests, apiUrl, opensearchUrl, key));
  }
  return { apiRequests, rawRequests, queries };
}

/**
 * The offset queries: from/size (what the raw side sends) beside the walked page the API sends
 * past walkFrom, each beside its floor (bench/offset-walk.ts).
 */
async function measureOffsetQueries(client: Engine, opensearchUrl: string, mix: Mix) {
  const offsets = await measureOffsets({
    client,
    opensearchUrl,
    queries: mix
      .filter((query) => Number(query.body.offset) > 0)
      .map((query) => {
        const search = query.path.includes('corporates') ? corporateSearch : jobSearch;
        const request = compileSearch(search, parseSearchRequest(search, query.body), pipelinePrefix);
        return { name: query.name, request, offset: Number(query.body.offset) };
      }),
  });
  log(`offset queries before / after walkFrom:\n${offsetTable(offsets)}`);
  return offsets;
}

/** The whole mix under load at 1, 8 and 32 connections, API beside raw, with CPU per search. */
async function measureMix(
  client: Engine,
  api: BenchProcess,
  opensearchUrl: string,
  apiRequests: LoadRequest[],
  rawRequests: LoadRequest[],
): Promise<BenchReport['mix']> {
  log('warm-up ...');
  await runLoad({ url: api.url, requests: apiRequests, connections: 8, seconds: 3 });
  await runLoad({ url: opensearchUrl, requests: rawRequests, connections: 8, seconds: 3 });
  const mixRows: BenchReport['mix'] = [];
  for (const connections of [1, 8, 32]) {
    const cpuBefore = { api: processCpuMs(api.pid), engine: await engineCpuMs(client) };
    const apiLoad = await runLoad({
      url: api.url,
      requests: apiRequests,
      connections,
      seconds: options.seconds,
    });
    const cpu = {
      apiMsPerSearch: (processCpuMs(api.pid) - cpuBefore.api) / Math.max(1, apiLoad.requests),
      engineMsPerSearch: ((await engineCpuMs(client)) - cpuBefore.engine) / Math.max(1, apiLoad.requests),
    };
    const rawLoad = await runLoad({
      url: opensearchUrl,
      requests: rawRequests,
      connections,
      seconds: options.seconds,
    });
    log(
      `mix c=${connections}: API ${apiLoad.rps} req/s p50 ${apiLoad.latencyMs.p50} p95 ${apiLoad.latencyMs.p95} p99 ${apiLoad.latencyMs.p99} ms (non-2xx ${apiLoad.non2xx}); ` +
        `raw ${rawLoad.rps} req/s p50 ${rawLoad.latencyMs.p50} p95 ${rawLoad.latencyMs.p95} p99 ${rawLoad.latencyMs.p99} ms`,
    );
    log(
      `mix c=${connections}: CPU per search API ${cpu.apiMsPerSearch.toFixed(2)} ms, engine ${cpu.engineMsPerSearch.toFixed(2)} ms`,
    );
    mixRows.push({ connections, api: apiLoad, raw: rawLoad, cpu });
  }
  return mixRows;
}

/** The part of the API's CPU per search that the records' text changed, both ways, in this run. */
async function measureRecordTextCost(client: Engine, mix: Mix) {
  const recordText = await measureRecordText(client, pipelinePrefix, mix);
  for (const row of recordText)
    log(
      `records "${row.name}": ${row.hits} hits, before ${row.beforeUs.toFixed(0)} µs, after ${row.afterUs.toFixed(0)} µs`,
    );
  return recordText;
}

/** 4. masters beside a bare Express route. */
async function measureMasters(
  api: BenchProcess,
  bare: BenchProcess,
  key: string,
): Promise<BenchReport['masters']> {
  const masterRequest: LoadRequest = {
    method: 'GET',
    path: '/rest/v1/master/prefectures',
    headers: { 'x-api-key': key },
  };
  await runLoad({ url: api.url, requests: [masterRequest], connections: 8, seconds: 2 });
  await runLoad({
    url: bare.url,
    requests: [{ method: 'GET', path: '/master/prefectures' }],
    connections: 8,
    seconds: 2,
  });
  // CPU per request beside the throughput: on a shared machine the two runs see different
  // load, while the CPU each request costs its server moves much less
  let cpuAt = processCpuMs(api.pid);
  const mastersApi = await runLoad({
    url: api.url,
    requests: [masterRequest],
    connections: 32,
    seconds: options.seconds,
  });
  const mastersApiCpuMs = (processCpuMs(api.pid) - cpuAt) / Math.max(1, mastersApi.requests);
  cpuAt = processCpuMs(bare.pid);
  const mastersBare = await runLoad({
    url: bare.url,
    requests: [{ method: 'GET', path: '/master/prefectures' }],
    connections: 32,
    seconds: options.seconds,
  });
  const mastersBareCpuMs = (processCpuMs(bare.pid) - cpuAt) / Math.max(1, mastersBare.requests);
  log(
    `masters c=32: API ${mastersApi.rps} req/s, bare Express ${mastersBare.rps} req/s; CPU per request API ${(mastersApiCpuMs * 1000).toFixed(0)} µs, bare ${(mastersBareCpuMs * 1000).toFixed(0)} µs`,
  );
  return { connections: 32, api: mastersApi, bare: mastersBare };
}

/** 5. deep paging: a page far down the job list beside a page at the top; null when it failed. */
async function measureDeepWalk(apiUrl: string, key: string): Promise<DeepWalk | null> {
  try {
    return await walkDeep({ apiUrl, key, target: 500_000, pageSize: 100, pages: 20, log });
  } catch (error) {
    log(`deep walk failed: ${(error as Error).message}`);
    return null;
  }
}

/** 6. name matching per class of spelling, in requests of 1,000 (bench/name-eval.ts); null when it failed. */
async function measureNames(
  apiUrl: string,
  key: string,
  corporatesFile: string,
): Promise<NameEvalReport | null> {
  try {
    return await runNameEval({
      apiUrl,
      key,
      corporatesFile,
      seed: options.seed,
      perClass: options.namesPerClass,
      log,
    });
  } catch (error) {
    // fetch's own message is "fetch failed": what failed is its cause (a reset, a refusal, ...)
    const cause = (error as Error & { cause?: { code?: string; message?: string } }).cause;
    const why = cause ? ` (${[cause.code, cause.message].filter(Boolean).join(': ')})` : '';
    log(`name matching not measured: ${(error as Error).message}${why}`);
    return null;
  }
}

/** The machine, engine and code the figures were taken on. */
async function machineOf(client: Engine, node: LocalOpenSearch | undefined) {
  const info = (await client.info()).body as { version: { number: string } };
  const cpus = os.cpus();
  return {
    cpus: cpus.length,
    cpuModel: cpus[0]?.model ?? 'unknown',
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    os: `${os.type()} ${os.release()}`,
    node: process.version,
    opensearch: info.version.number,
    opensearchHeap: node ? options.heap : 'external node',
    // the code measured: figures from different commits are not comparable
    commit: gitDescribe(),
  };
}

/** How the figures were taken, printed at the top of the report. */
function setupNotes(mix: Mix): string[] {
  return [
    `Rate limit and credits out of the way for the bench user "${benchUser}": RATE_LIMIT_EXEMPT_USERS=${benchUser} (no 429), and 1,000,000,000 credits granted with the keys CLI; each search still reserves and commits its credit in Redis, as in production.`,
    'API: `node --import tsx src/main.ts` as a child process (OPENSEARCH_URL and REDIS_URL set, LOG_LEVEL=info, request log to a file); raw: the same request body src/search compiles, POSTed to OpenSearch by the same load tool.',
    `Load: autocannon 9, ${options.seconds} s per measurement, the ${mix.length} queries cycled per connection; latency percentiles are nearest-rank over every response.`,
    'Everything (OpenSearch, Redis, API, load generator) on the same machine; other work on the machine during the run is not controlled.',
  ];
}

/** bench-reports/<time>.json and .md, latest.json and .md, and docs/bench-<size>.md with --publish. */
function writeReport(report: BenchReport): void {
  const outDir = path.join(projectRoot, 'bench-reports');
  mkdirSync(outDir, { recursive: true });
  const stamp = report.startedAt.replace(/[:.]/g, '-');
  // a run to publish is read beside the published run it replaces
  const published = path.join(projectRoot, 'docs', publishedName(options.jobs));
  const markdown = toMarkdown(
    report,
    options.publish && existsSync(published) ? readFileSync(published, 'utf8') : undefined,
  );
  for (const name of [stamp, 'latest']) {
    writeFileSync(path.join(outDir, `${name}.json`), `${JSON.stringify(report, null, 2)}\n`);
    writeFileSync(path.join(outDir, `${name}.md`), markdown);
    // the name matching's reliability diagram, beside the report
    if (report.names?.outcomes)
      writeFileSync(
        path.join(outDir, `${name}-calibration.svg`),
        calibrationSvg(
          report.names.outcomes.calibration,
          `name matching: ${report.names.companies} companies`,
        ),
      );
  }
  if (options.publish) writeFileSync(published, markdown);
  process.stdout.write(`\n${markdown}\nreport: bench-reports/${stamp}.json\n`);
}

async function main(): Promise<void> {
  const startedAt = new Date().toISOString();
  const data = await dataSet();
  const { opensearchUrl, node, client, redisUrl } = await startEngines();
  const ingestion = await ingest(client, data);
  const { key, api, bare } = await startApi(opensearchUrl, redisUrl);
  const mix = buildQueryMix(firstCorporateNumbers(data.files[0] as string, 100));
  const { apiRequests, rawRequests, queries } = await measureQueries(mix, api.url, opensearchUrl, key);
  const offsets = await measureOffsetQueries(client, opensearchUrl, mix);
  const mixRows = await measureMix(client, api, opensearchUrl, apiRequests, rawRequests);
  const recordText = await measureRecordTextCost(client, mix);
  const masters = await measureMasters(api, bare, key);
  const deepWalk = await measureDeepWalk(api.url, key);
  const names = await measureNames(api.url, key, data.files[0] as string);
  const apiPeakRssMiB = api.peakRssMiB();
  const indexSizesMiB = await indexSizes(client);

  // 7. detail-text study: nested text vs jobs-first
  log('detail-text study (nested vs jobs-first) ...');
  const detailTextStudy = await studyDetailText(client, pipelinePrefix, 20);
  // 8. the engine's side of the records' text: binary base64 copies beside keyword text (two
  // copies of the indices: skipped above the default size, where copying them takes long)
  const copyFetch = options.jobs <= 200_000 ? await studyCopyFetch(client, mix) : [];

  const partial: Omit<BenchReport, 'ratios'> = {
    startedAt,
    machine: await machineOf(client, node),
    dataSet: {
      companies: options.companies,
      postings: options.jobs,
      seed: options.seed,
      dir: path.relative(projectRoot, data.dir),
    },
    setup: setupNotes(mix),
    ingestion,
    queries,
    mix: mixRows,
    masters,
    apiPeakRssMiB,
    indexSizesMiB,
    detailTextStudy,
    deepWalk,
    offsets,
    names,
    recordText,
    copyFetch,
  };
  writeReport({ ...partial, ratios: computeRatios(partial) });
}

/** Primary store size of the searched indices, MiB (for the growth between data set sizes). */
async function indexSizes(client: Engine): Promise<Record<string, number>> {
  const sizes: Record<string, number> = {};
  for (const name of ['corporates', 'jobs', 'job-details']) {
    const { body } = await client.indices.stats({ index: indexName(pipelinePrefix, name), metric: 'store' });
    const bytes = Number(body._all?.primaries?.store?.size_in_bytes ?? 0);
    sizes[name] = Math.round((bytes / 1024 / 1024) * 10) / 10;
  }
  return sizes;
}

/** The published report of a size: docs/bench-200k.md, docs/bench-1m.md (by postings). */
function publishedName(postings: number): string {
  const size = postings >= 1_000_000 ? `${postings / 1_000_000}m` : `${Math.round(postings / 1_000)}k`;
  return `bench-${size}.md`;
}

const stopEverything = () => stopAll(stops, log);

process.on('SIGINT', () => void stopEverything().then(() => process.exit(130)));
main()
  .then(stopEverything)
  .catch(async (error: Error) => {
    log(`bench failed: ${error.message}`);
    await stopEverything();
    process.exitCode = 1;
  });
