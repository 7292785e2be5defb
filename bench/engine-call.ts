/**
 * `npm run bench:engine-call`: what the engine call itself costs the API process, for the
 * company and job searches of the bench's mix (bench/query-mix.ts) compiled by src/search,
 * sent in interleaved rounds in one process by each way there is to send them:
 *
 *   client          the OpenSearch client as the API sent them before (createOpenSearchClient)
 *   client, tuned   the client with an agent of explicit keep-alive options
 *   thin            src/opensearch/search-transport.ts (node:http on the client's connection)
 *   http floor      node:http with a keep-alive Agent of its own: body text in, text out, parsed
 *   undici floor    an undici Pool, the same (a reference: undici is not a dependency of src)
 *
 * Every way answers the parsed body the search path needs, with the engine timeouts and the
 * request timeout of a request under a deadline. p50/p99 at 1 and 8 concurrent calls, and the
 * CPU of this process per call (process.cpuUsage over each step). The data set (2,000
 * companies / 20,000 postings by default) is loaded through the project's pipeline under
 * `--prefix` and its indices are deleted by name at the end (`--keep` keeps them).
 *
 * The same is then measured against a replay: a server in a child process that answers each
 * query with the engine's recorded answer (the same bytes), so the engine's own time and its
 * variance are out of the figures and what is left is the call's cost in this process.
 *
 *   OPENSEARCH_URL=http://127.0.0.1:9201 npm run bench:engine-call -- --prefix bench-engine-call-
 */

import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@opensearch-project/opensearch';
import { Pool } from 'undici';
import { FileDeadLetter } from '../indexer/dead-letter.js';
import { ingestFiles } from '../indexer/ingest.js';
import { cliProgram, positiveWholeNumber } from '../ops/cli.js';
import { projectRoot } from '../ops/local/opensearch-node.js';
import { corporateSearch, jobSearch } from '../src/catalogue/searches.js';
import { createOpenSearchClient, searchRequestTimeoutMs } from '../src/opensearch/client.js';
import { createEngine, type Engine } from '../src/opensearch/engine.js';
import { bootstrapIndices, dropIndices, indexName } from '../src/opensearch/indices.js';
import { createSearchTransport } from '../src/opensearch/search-transport.js';
import { compileSearch } from '../src/search/compile-search.js';
import type { SearchRequest } from '../src/search/paging/pit-search.js';
import { parseSearchRequest } from '../src/search/parse-request.js';
import { benchDataSet } from './data-set.js';
import { buildQueryMix } from './query-mix.js';

const options = cliProgram('bench:engine-call', 'The engine call: the client beside a thin request')
  .option('--prefix <prefix>', 'index prefix of the data set', 'bench-engine-call-')
  .option('--companies <n>', 'companies', positiveWholeNumber, 2_000)
  .option('--jobs <n>', 'postings', positiveWholeNumber, 20_000)
  .option('--rounds <n>', 'measured rounds (after one warm-up round)', positiveWholeNumber, 6)
  .option('--calls <n>', 'calls per way, per concurrency, per round', positiveWholeNumber, 240)
  .option(
    '--replay-calls <n>',
    'calls per way, per concurrency, per round against the replay',
    positiveWholeNumber,
    2_400,
  )
  .option('--replay-only', 'measure against the replay only (the engine still answers once per query)')
  .option('--keep', 'keep the indices afterwards')
  .parse()
  .opts<{
    prefix: string;
    companies: number;
    jobs: number;
    rounds: number;
    calls: number;
    replayCalls: number;
    replayOnly?: boolean;
    keep?: boolean;
  }>();

const log = (line: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${line}\n`);
const opensearchUrl = process.env.OPENSEARCH_URL;
if (!opensearchUrl) throw new Error('set OPENSEARCH_URL');
/** A request under a deadline gets the time left; 3 s stands for it (src/search/opensearch-errors.ts engineTimeouts). */
const requestTimeoutMs = 3_000;
const concurrencies = [1, 8] as const;

/** The generated set under .local/bench-data/, loaded under the prefix unless already there. */
async function loadDataSet(client: Engine): Promise<string> {
  const { dir } = await benchDataSet(
    `engine-call-c${options.companies}-j${options.jobs}`,
    { companies: options.companies, jobs: options.jobs, seed: 1, now: new Date() },
    log,
  );
  const corporates = path.join(dir, 'corporates.ndjson');
  const loaded = await client
    .count({ index: indexName(options.prefix, 'corporates') })
    .then((res) => res.body.count as number)
    .catch(() => 0);
  if (loaded !== options.companies) {
    log(`loading under ${options.prefix} through the pipeline`);
    await bootstrapIndices(client, options.prefix);
    await ingestFiles([corporates, path.join(dir, 'jobs.ndjson')], {
      client: client.writer(),
      indexPrefix: options.prefix,
      deadLetter: new FileDeadLetter(
        path.join(projectRoot, '.local', 'bench', 'engine-call-dead-letter.ndjson'),
      ),
      batchSize: 1000,
    });
    await client.indices.refresh({ index: `${options.prefix}*` });
  }
  return corporates;
}

/** The mix's bodies compiled as the API compiles them, with a deadline's engine timeouts. */
function mixRequests(corporatesFile: string): Array<{ name: string; request: SearchRequest }> {
  const text = readFileSync(corporatesFile, 'utf8').slice(0, 2_000_000);
  const numbers = [...text.matchAll(/"corporateNumber":"(\d{13})"/g)]
    .slice(0, 100)
    .map((m) => m[1] as string);
  return buildQueryMix(numbers).map((query) => {
    const search = query.path.includes('corporates') ? corporateSearch : jobSearch;
    const compiled = compileSearch(search, parseSearchRequest(search, query.body), options.prefix);
    return {
      name: query.name,
      request: {
        ...compiled,
        timeout: `${requestTimeoutMs - 200}ms`,
        cancel_after_time_interval: `${requestTimeoutMs}ms`,
      } as SearchRequest,
    };
  });
}

/** The path and query string of a compiled request, for the floors (as the client writes them). */
function rawOf(request: SearchRequest): { path: string; body: string } {
  const { index, body, ...query } = request as { index: string; body: unknown } & Record<string, unknown>;
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query))
    if (value !== undefined) params.set(key, Array.isArray(value) ? value.join(',') : String(value));
  return { path: `/${encodeURIComponent(index)}/_search?${params}`, body: JSON.stringify(body) };
}

type Send = (request: SearchRequest, raw: { path: string; body: string }) => Promise<unknown>;

interface Way {
  name: string;
  send: Send;
  close(): Promise<void>;
}

function clientWays(url: string): Way[] {
  const plain = createOpenSearchClient(url);
  const tuned = new Client({
    nodes: url.split(','),
    requestTimeout: searchRequestTimeoutMs,
    maxRetries: 1,
    disablePrototypePoisoningProtection: true,
    agent: {
      keepAlive: true,
      keepAliveMsecs: 30_000,
      maxSockets: 32,
      maxFreeSockets: 32,
      scheduling: 'lifo',
    } as never,
  });
  const thinClient = createOpenSearchClient(url);
  const thin = createSearchTransport(thinClient, { requestTimeoutMs: searchRequestTimeoutMs, maxRetries: 1 });
  const callOptions = { requestTimeout: requestTimeoutMs, maxRetries: 0 };
  // the API passes its request's deadline signal, made once per request whatever the transport
  const signal = new AbortController().signal;
  return [
    {
      name: 'client',
      send: async (r) => (await plain.search(r, callOptions)).body,
      close: () => plain.close(),
    },
    {
      name: 'client, tuned agent',
      send: async (r) => (await tuned.search(r, callOptions)).body,
      close: () => tuned.close(),
    },
    {
      name: 'thin (search transport)',
      send: async (r) => (await thin.search(r, { ...callOptions, signal })).body,
      close: () => thinClient.close(),
    },
  ];
}

function floorWays(url: string): Way[] {
  const node = new URL(url.split(',')[0] as string);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 32, maxFreeSockets: 32, scheduling: 'lifo' });
  const httpFloor: Send = (_r, raw) =>
    new Promise((resolve, reject) => {
      const req = http.request(
        {
          host: node.hostname,
          port: node.port,
          method: 'POST',
          path: raw.path,
          agent,
          timeout: requestTimeoutMs,
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(raw.body) },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString('utf8'))));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(raw.body);
    });
  const pool = new Pool(node.origin, { connections: 32, pipelining: 1 });
  const undiciFloor: Send = async (_r, raw) => {
    const res = await pool.request({
      method: 'POST',
      path: raw.path,
      body: raw.body,
      headers: { 'content-type': 'application/json' },
      headersTimeout: requestTimeoutMs,
    });
    return JSON.parse(await res.body.text());
  };
  return [
    { name: 'http floor (node:http)', send: httpFloor, close: async () => agent.destroy() },
    { name: 'undici floor (Pool)', send: undiciFloor, close: () => pool.close() },
  ];
}

interface Step {
  latencies: number[];
  cpuMicros: number;
}

/** `calls` calls of the mix in turn, `concurrency` at a time. */
async function step(
  way: Way,
  queries: ReturnType<typeof prepared>,
  calls: number,
  concurrency: number,
): Promise<Step> {
  const latencies: number[] = [];
  let next = 0;
  const cpu = process.cpuUsage();
  const worker = async () => {
    for (let i = next++; i < calls; i = next++) {
      const query = queries[i % queries.length] as (typeof queries)[number];
      const started = performance.now();
      await way.send(query.request, query.raw);
      latencies.push(performance.now() - started);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const used = process.cpuUsage(cpu);
  return { latencies, cpuMicros: (used.user + used.system) / calls };
}

function prepared(requests: Array<{ name: string; request: SearchRequest }>) {
  return requests.map(({ name, request }) => ({ name, request, raw: rawOf(request) }));
}

const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
};
const round2 = (value: number) => Math.round(value * 100) / 100;
const median = (values: number[]) => quantile(values, 0.5);

/** Every way must answer every query of the mix with the same hits before it is timed. */
async function checkSameAnswers(ways: Way[], queries: ReturnType<typeof prepared>): Promise<void> {
  for (const query of queries) {
    const ids = await Promise.all(
      ways.map(async (way) => {
        const body = (await way.send(query.request, query.raw)) as { hits: { hits: Array<{ _id: string }> } };
        return body.hits.hits.map((hit) => hit._id).join(',');
      }),
    );
    if (new Set(ids).size !== 1) throw new Error(`the ways disagree on "${query.name}"`);
  }
}

interface Row {
  against: 'engine' | 'replay';
  way: string;
  concurrency: number;
  p50Ms: number;
  p99Ms: number;
  cpuMicrosPerCall: number;
  calls: number;
}

/** One warm-up round, then `rounds` rounds; each round runs every way in a rotated order. */
async function measure(
  against: Row['against'],
  ways: Way[],
  queries: ReturnType<typeof prepared>,
): Promise<Row[]> {
  const samples = new Map<string, { latencies: number[]; cpu: number[] }>();
  for (let round = 0; round <= options.rounds; round++) {
    for (const concurrency of concurrencies) {
      for (let k = 0; k < ways.length; k++) {
        const way = ways[(k + round) % ways.length] as Way;
        const calls = against === 'engine' ? options.calls : options.replayCalls;
        const result = await step(way, queries, calls, concurrency);
        if (round === 0) continue;
        const key = `${way.name}\u0000${concurrency}`;
        const entry = samples.get(key) ?? { latencies: [], cpu: [] };
        entry.latencies.push(...result.latencies);
        entry.cpu.push(result.cpuMicros);
        samples.set(key, entry);
      }
    }
    log(`${against}: ${round === 0 ? 'warm-up round done' : `round ${round}/${options.rounds} done`}`);
  }
  return [...samples].map(([key, entry]) => {
    const [way, concurrency] = key.split('\u0000') as [string, string];
    return {
      against,
      way,
      concurrency: Number(concurrency),
      p50Ms: round2(quantile(entry.latencies, 0.5)),
      p99Ms: round2(quantile(entry.latencies, 0.99)),
      // the median of the rounds' means: a round disturbed by other work on the machine counts less
      cpuMicrosPerCall: Math.round(median(entry.cpu)),
      calls: entry.latencies.length,
    };
  });
}

function table(rows: Row[]): string {
  const base = (row: Row) =>
    rows.find(
      (other) =>
        other.way === 'client' && other.against === row.against && other.concurrency === row.concurrency,
    );
  const lines = [
    '| against | way | concurrent | p50 ms | p99 ms | CPU µs per call | CPU vs client |',
    '|---|---|---|---|---|---|---|',
  ];
  const order = (row: Row) => (row.against === 'engine' ? 0 : 100) + row.concurrency;
  for (const row of [...rows].sort((a, b) => order(a) - order(b))) {
    const ratio = row.cpuMicrosPerCall / (base(row)?.cpuMicrosPerCall ?? Number.NaN);
    lines.push(
      `| ${row.against} | ${row.way} | ${row.concurrency} | ${row.p50Ms} | ${row.p99Ms} | ${row.cpuMicrosPerCall} | ${round2(ratio)} |`,
    );
  }
  return lines.join('\n');
}

/** The engine's answer to each query, as bytes, keyed by the body text every way sends. */
async function recordAnswers(queries: ReturnType<typeof prepared>): Promise<Record<string, string>> {
  const node = new URL((opensearchUrl as string).split(',')[0] as string);
  const answers: Record<string, string> = {};
  for (const query of queries) {
    const res = await fetch(`${node.origin}${query.raw.path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: query.raw.body,
    });
    answers[query.raw.body] = await res.text();
  }
  return answers;
}

/** A child process answering each recorded body with its answer (its CPU is not this process's). */
const replaySource = `
const http = require('node:http');
const answers = JSON.parse(require('node:fs').readFileSync(process.argv[1], 'utf8'));
const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    const answer = answers[Buffer.concat(chunks).toString('utf8')];
    res.writeHead(answer === undefined ? 404 : 200, { 'content-type': 'application/json; charset=UTF-8' });
    res.end(answer === undefined ? '{}' : answer);
  });
});
server.keepAliveTimeout = 60000;
server.listen(0, '127.0.0.1', () => process.stdout.write(String(server.address().port) + '\\n'));
`;

async function startReplay(answers: Record<string, string>): Promise<{ url: string; stop(): void }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-engine-call-'));
  const file = path.join(dir, 'answers.json');
  writeFileSync(file, JSON.stringify(answers));
  const child = spawn(process.execPath, ['-e', replaySource, file], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<string>((resolve, reject) => {
    child.stdout.once('data', (data: Buffer) => resolve(data.toString().trim()));
    child.once('exit', () => reject(new Error('the replay server exited')));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    stop: () => {
      child.kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Every way against `url`: checked to agree, then measured. */
async function measureAgainst(against: Row['against'], url: string, queries: ReturnType<typeof prepared>) {
  const ways = [...clientWays(url), ...floorWays(url)];
  try {
    await checkSameAnswers(ways, queries);
    log(
      `${against}: ${queries.length} queries, ${ways.length} ways, ${options.rounds} rounds of ${options.calls} calls`,
    );
    return await measure(against, ways, queries);
  } finally {
    for (const way of ways) await way.close();
  }
}

async function main() {
  const admin = createEngine(opensearchUrl as string);
  try {
    const corporates = await loadDataSet(admin);
    const queries = prepared(mixRequests(corporates));
    const replay = await startReplay(await recordAnswers(queries));
    let rows: Row[];
    try {
      rows = [
        ...(options.replayOnly ? [] : await measureAgainst('engine', opensearchUrl as string, queries)),
        ...(await measureAgainst('replay', replay.url, queries)),
      ];
    } finally {
      replay.stop();
    }
    const at = new Date().toISOString();
    const report = { at, node: process.version, options, queries: queries.map((q) => q.name), rows };
    const out = path.join(projectRoot, 'bench-reports');
    mkdirSync(out, { recursive: true });
    const file = path.join(out, `engine-call-${at.replace(/[:.]/g, '-')}`);
    writeFileSync(`${file}.json`, `${JSON.stringify(report, null, 2)}\n`);
    writeFileSync(`${file}.md`, `# The engine call (${at})\n\n${table(rows)}\n`);
    process.stdout.write(`${table(rows)}\n\nreport: ${file}.md\n`);
  } finally {
    if (!options.keep) await dropIndices(admin, options.prefix);
    await admin.close();
  }
}

await main();
