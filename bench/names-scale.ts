/**
 * Name matching at scale (docs/names.md, "At 1,000,000 companies"): the sample-data generator's
 * companies (default 1,000,000) loaded through the ingest pipeline into an OpenSearch node of
 * its own, the API and the worker over it, measured as a user meets them:
 *
 *   npx tsx bench/names-scale.ts all [--companies 1000000] [--per-class 100] [--job-rows 1000000]
 *
 * Steps, each usable alone (`node` holds the node until SIGTERM, for the others to use through
 * OPENSEARCH_URL or .local/names-scale/node.json; `all` runs them in one process):
 *   node   start the node (data under .local/names-scale/opensearch), wait for SIGTERM
 *   load   generate the data set (bench/data-set.ts) and ingest it (a child process: wall time)
 *   api    redis-server, the API and the worker on free ports, then
 *          - a first request (up to 1,000 records of the next seed's evaluation), timed apart: the
 *            API's first loads the reading dictionary and runs code not yet compiled;
 *          - the evaluation (bench/name-eval.ts's labelled records, per class, with calibration)
 *            over all the companies, in requests of 1,000: its records/s is the throughput;
 *          - those records and the rest of the next seed's, two requests at a time;
 *          - suggest p50/p95 for prefixes of 1-3 characters and for mistyped prefixes (found or not);
 *          - a match job of --job-rows rows (CSV), its progress sampled while it runs, the results
 *            downloaded and counted.
 *   fit-dump  the match answers to the evaluation records of --fit-seeds, listing every company
 *          judged for a record (--candidates n: the first n, as a request asking n gets them), each
 *          seed's to .local/names-scale/fit-<seed>.json, for bench/fit-judge.ts (the judge
 *          shipped is fitted on seeds 7, 11, 13 and 17; the evaluation above uses seed 1)
 * Figures go to .local/names-scale/figures-<step>.json. Every process started is stopped by its pid.
 */
import { createWriteStream, existsSync, readFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Command } from 'commander';
import pino from 'pino';
import { spawnManaged } from '../ops/local/child-process.js';
import { loadConfig } from '../src/config.js';
import { nameKey } from '../src/names/keys.js';
import { runMatch } from '../src/names/match.js';
import { createEngine } from '../src/opensearch/engine.js';
import { projectRoot } from '../src/project-root.js';
import { benchDataSet } from './data-set.js';
import { readCompanies, runNameEval, sendMatches } from './name-eval.js';
import type { SampleCompany } from './name-variants.js';
import { makeEvaluationRecords } from './names/generate.js';
import { benchScript, stopAll } from './processes.js';
import { variant } from './registry-1m-api.js';
import {
  holdBenchNode,
  memoryOf,
  runChild,
  saveFigures,
  startBenchApi,
  startBenchNode,
} from './registry-bench-support.js';

const workDir = path.join(projectRoot, '.local', 'names-scale');

interface Options {
  companies: number;
  seed: number;
  port: number;
  heap: string;
  perClass: number;
  jobRows: number;
  /** `suggest-job`: only those two, beside the figures of an earlier run */
  only?: string;
  /** `fit-dump`: the evaluation seeds whose answers are written */
  fitSeeds: string;
  /**
   * `fit-dump`: candidates asked per record, or 'all': every company judged for it, the request
   * otherwise the API's default (a fit set: a record's confidences are shares of them all)
   */
  candidates: string;
}

async function dataSet(options: Options) {
  const now = new Date('2026-11-29T00:00:00Z');
  return benchDataSet(
    `c${options.companies}-j2000-s${options.seed}-names`,
    { companies: options.companies, jobs: 2000, seed: options.seed, now },
    console.log,
  );
}

async function loadStep(url: string, options: Options): Promise<void> {
  const set = await dataSet(options);
  const run = await runChild(
    'indexer/bin/ingest.ts',
    [...set.files, '--dead-letter', path.join(workDir, 'dead-letter.ndjson')],
    {
      OPENSEARCH_URL: url,
      LOG_LEVEL: 'warn',
    },
  );
  if (run.code !== 0) throw new Error(`ingest exited ${run.code}:\n${run.output}`);
  await fetch(`${url}/_refresh`, { method: 'POST' });
  const indices = await (
    await fetch(`${url}/_cat/indices?format=json&bytes=b&h=index,docs.count,store.size`)
  ).json();
  saveFigures(
    'load',
    {
      companies: options.companies,
      ingest: {
        seconds: run.seconds,
        companiesPerSecond: Math.round(options.companies / run.seconds),
        peakRssMiB: Math.round(run.peakMiB),
      },
      indices,
    },
    workDir,
  );
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return (
    Math.round(10 * (sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0)) / 10
  );
}

/** The legal forms the suggest prefixes leave out, as a user types a name without them. */
const legalForm =
  /株式会社|有限会社|合同会社|合資会社|合名会社|一般社団法人|一般財団法人|医療法人|学校法人|社会福祉法人/g;

/** One character of `text` replaced by a neighbour of the same script: a typo. */
function mistype(text: string, at: number): string {
  const chars = [...text];
  const code = chars[at]?.codePointAt(0) ?? 0x30a2;
  chars[at] = String.fromCodePoint(code + (code % 2 === 0 ? 1 : -1));
  return chars.join('');
}

/**
 * Suggest as a user typing: the first 1, 2, 3 and 5 characters of 300 names (legal form left
 * out; the 5 of names of 6+ characters), and the first 5 with the 3rd mistyped: p50/p95 per
 * kind, and how often the company itself is among the 10 suggestions of a mistyped prefix.
 */
async function measureSuggest(apiUrl: string, key: string, companies: SampleCompany[]) {
  const every = Math.max(1, Math.floor(companies.length / 300));
  const drawn = companies.filter((_, i) => i % every === 0).slice(0, 300);
  const kinds: Record<string, { q: string; number?: string; name?: string }[]> = {
    prefix1: [],
    prefix2: [],
    prefix3: [],
    // a correctly typed 5-character prefix: beside the mistyped one, which asks a second search
    prefix5: [],
    mistyped5: [],
  };
  for (const company of drawn) {
    const bare = [...company.name.replace(legalForm, '')];
    kinds.prefix1?.push({ q: bare.slice(0, 1).join('') });
    kinds.prefix2?.push({ q: bare.slice(0, 2).join('') });
    kinds.prefix3?.push({ q: bare.slice(0, 3).join('') });
    if (bare.length >= 6) {
      kinds.prefix5?.push({ q: bare.slice(0, 5).join('') });
      kinds.mistyped5?.push({
        q: mistype(bare.slice(0, 5).join(''), 2),
        number: company.corporateNumber,
        name: company.name,
      });
    }
  }
  const figures: Record<string, unknown> = {};
  for (const [kind, queries] of Object.entries(kinds)) {
    const times: number[] = [];
    let found = 0;
    let named = 0;
    let keyed = 0;
    for (const { q, number, name } of queries) {
      const started = performance.now();
      const response = await fetch(
        `${apiUrl}/rest/v1/corporates/suggest?q=${encodeURIComponent(q)}&limit=10`,
        {
          headers: { 'x-api-key': key },
        },
      );
      const body = (await response.json()) as {
        suggestions?: Array<{ corporateNumber: string; name: string }>;
      };
      times.push(performance.now() - started);
      if (response.status !== 200) throw new Error(`suggest answered ${response.status}`);
      if (number && body.suggestions?.some((entry) => entry.corporateNumber === number)) found++;
      // the name found: the company, or one of its namesakes (in a large register a name has many)
      if (name && body.suggestions?.some((entry) => entry.name === name)) named++;
      // the name without its legal form: a namesake of another form (合同会社X for X株式会社)
      if (name && body.suggestions?.some((entry) => nameKey(entry.name) === nameKey(name))) keyed++;
    }
    figures[kind] = {
      requests: queries.length,
      p50Ms: percentile(times, 50),
      p95Ms: percentile(times, 95),
      p99Ms: percentile(times, 99),
      ...(kind === 'mistyped5'
        ? { companyAmongTen: found, nameAmongTen: named, nameKeyAmongTen: keyed }
        : {}),
    };
  }
  return figures;
}

/**
 * Records per second with two flows of requests of 1,000 at once: the requests dealt to the two
 * flows in turn, so that both send nearly to the end (halves cut at a batch boundary left one
 * flow sending alone for its last requests; an odd number of requests still leaves the last one
 * alone).
 */
async function twoAtATime(
  apiUrl: string,
  key: string,
  records: Parameters<typeof sendMatches>[0]['records'],
) {
  const batches: Array<typeof records> = [];
  for (let at = 0; at < records.length; at += 1000) batches.push(records.slice(at, at + 1000));
  const flow = (parity: number) =>
    batches.filter((_, at) => at % 2 === parity).flatMap((batch) => [...batch]);
  const started = performance.now();
  // both to their end, failed or not: a flow still sending would load the measurements after it
  const flows = await Promise.allSettled([
    sendMatches({ apiUrl, key, records: flow(0), batchSize: 1000 }),
    sendMatches({ apiUrl, key, records: flow(1), batchSize: 1000 }),
  ]);
  const failed = flows.find((flow) => flow.status === 'rejected');
  if (failed) throw failed.reason;
  return Math.round(records.length / ((performance.now() - started) / 1000));
}

/** A CSV of `rows` rows drawn from the companies in turn, each in one of five spellings, half with a prefecture. */
function writeJobFile(file: string, companies: SampleCompany[], rows: number): Promise<void> {
  const out = createWriteStream(file);
  out.write('row,company,prefectureId\n');
  for (let i = 0; i < rows; i++) {
    const company = companies[(i * 7919) % companies.length] as SampleCompany;
    const name = variant(company.name, i).replace(/"/g, '""');
    out.write(`${i},"${name}",${i % 2 === 0 && company.prefectureId ? company.prefectureId : ''}\n`);
  }
  return new Promise((resolve, reject) =>
    out.end((error?: Error | null) => (error ? reject(error) : resolve())),
  );
}

interface JobView {
  id: string;
  status: string;
  rows: { total: number; done: number; matched: number; unmatched: number; rejected: number };
  creditsCharged: number;
}

/** Uploads the job file, samples its progress every 10 s until it ends, downloads and counts the results. */
async function measureJob(apiUrl: string, key: string, companies: SampleCompany[], rows: number) {
  const file = path.join(workDir, 'job.csv');
  await writeJobFile(file, companies, rows);
  const started = Date.now();
  const created = await fetch(`${apiUrl}/rest/v1/corporates/match-jobs`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'text/csv', 'idempotency-key': `names-scale-${started}` },
    body: await readFile(file),
  });
  if (created.status !== 202)
    throw new Error(`match-jobs answered ${created.status}: ${await created.text()}`);
  const { id } = (await created.json()) as JobView;
  const uploadSeconds = (Date.now() - started) / 1000;
  const progress: Array<{ seconds: number; done: number }> = [];
  let job: JobView;
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 10_000));
    job = (await (
      await fetch(`${apiUrl}/rest/v1/corporates/match-jobs/${id}`, { headers: { 'x-api-key': key } })
    ).json()) as JobView;
    progress.push({ seconds: Math.round((Date.now() - started) / 1000), done: job.rows.done });
    console.log(`job ${job.status}: ${job.rows.done} of ${job.rows.total}`);
    if (!['queued', 'running'].includes(job.status)) break;
  }
  const seconds = (Date.now() - started) / 1000;
  const results = await fetch(`${apiUrl}/rest/v1/corporates/match-jobs/${id}/results?format=csv`, {
    headers: { 'x-api-key': key },
  });
  let lines = 0;
  let inOrder = true;
  let tail = '';
  const decoder = new TextDecoder();
  for await (const chunk of results.body as unknown as AsyncIterable<Uint8Array>) {
    const text = tail + decoder.decode(chunk, { stream: true });
    const parts = text.split('\n');
    tail = parts.pop() ?? '';
    for (const line of parts) {
      if (lines > 0 && !line.startsWith(`${lines - 1},`)) inOrder = false;
      lines++;
    }
  }
  return {
    rows,
    status: job.status,
    uploadSeconds,
    seconds,
    rowsPerSecond: Math.round(job.rows.done / seconds),
    matched: job.rows.matched,
    unmatched: job.rows.unmatched,
    rejected: job.rows.rejected,
    creditsCharged: job.creditsCharged,
    progressSamples: progress.length,
    longestGapBetweenSamplesWithoutProgress: progress.reduce(
      (worst, sample, i) => (i > 0 && sample.done === progress[i - 1]?.done ? Math.max(worst, 10) : worst),
      0,
    ),
    resultRows: lines - 1,
    resultsInInputOrder: inOrder,
    progress: progress.filter((_, i) => i % 6 === 0 || i === progress.length - 1),
  };
}

async function apiStep(engineUrl: string, options: Options): Promise<void> {
  const stops: Array<() => Promise<void>> = [];
  try {
    // the production deadline (3 s) would cut requests of 1,000 at this size: the bench measures
    // with a long one and reports how many requests took longer than the production deadline
    const { api, key, env } = await startBenchApi(engineUrl, workDir, stops, {
      MATCH_JOBS_DIR: path.join(workDir, 'match-jobs'),
      REQUEST_DEADLINE_MS: '60000',
      CREDIT_RESERVATION_TIMEOUT_SECONDS: '120',
    });
    // the worker runs the match jobs; it listens on no port, so it is ready once it logs its start
    const worker = spawnManaged(process.execPath, ['--import', 'tsx', benchScript('indexer/bin/worker.ts')], {
      cwd: projectRoot,
      env: { ...process.env, ...env },
      logFile: path.join(workDir, 'worker.log'),
    });
    stops.unshift(() => worker.stop());
    const set = await dataSet(options);
    const companiesFile = set.files[0] as string;
    const companies = await readCompanies(companiesFile);
    const figures: Record<string, unknown> = {
      companies: companies.length,
      apiRssAtStartMiB: memoryOf(api.pid)?.rssMiB,
    };
    const save = () => saveFigures('api', { ...figures, apiPeakRssMiB: api.peakRssMiB() }, workDir);
    if (options.only === 'suggest-job') {
      const previous = JSON.parse(readFileSync(path.join(workDir, 'figures-api.json'), 'utf8'));
      Object.assign(figures, previous);
      figures.suggest = await measureSuggest(api.url, key, companies);
      save();
      if (options.jobRows > 0) figures.job = await measureJob(api.url, key, companies, options.jobRows);
      save();
      return;
    }
    // made before the evaluation: making them blocks this process for seconds, and a pooled
    // connection the API closes meanwhile (its 5 s keep-alive) would fail the next request
    const labelled = makeEvaluationRecords(companies, { seed: options.seed, perClass: options.perClass });
    // another seed's records: the first request of 1,000 (the API's first: it loads the reading
    // dictionary, and its code is not yet compiled), reported apart from the steady figures, and
    // the rest beside the evaluation's in the two-at-a-time step
    const others = makeEvaluationRecords(companies, {
      seed: options.seed + 1,
      perClass: options.perClass,
    }).map((entry) => entry.record);
    const first = await sendMatches({
      apiUrl: api.url,
      key,
      records: others.slice(0, 1000),
      batchSize: 1000,
    });
    figures.firstRequestOf1000Ms = Math.round(first.seconds * 1000);
    const requestMs: number[] = [];
    const evaluation = await runNameEval({
      apiUrl: api.url,
      key,
      corporatesFile: companiesFile,
      seed: options.seed,
      perClass: options.perClass,
      log: console.log,
      onRequest: (ms) => requestMs.push(ms),
      made: { companies, labelled },
    });
    figures.evaluation = evaluation;
    figures.requestsOf1000 = {
      requests: requestMs.length,
      p50Ms: percentile(requestMs, 50),
      p95Ms: percentile(requestMs, 95),
      maxMs: percentile(requestMs, 100),
      overProductionDeadline: requestMs.filter((ms) => ms > 3000).length,
    };
    save();
    // a failure is a figure too: what the API answered, not a stop of the whole run
    figures.twoAtATime = await twoAtATime(api.url, key, [
      ...labelled.map((entry) => entry.record),
      ...others.slice(1000),
    ]).then(
      (recordsPerSecond) => ({ recordsPerSecond }),
      (error: Error) => ({
        failed: `${error.message}: ${(error.cause as Error | undefined)?.message ?? ''}`,
      }),
    );
    save();
    figures.suggest = await measureSuggest(api.url, key, companies);
    save();
    if (options.jobRows > 0) figures.job = await measureJob(api.url, key, companies, options.jobRows);
    save();
  } finally {
    await stopAll(stops, console.log);
  }
}

/**
 * The fit set at this size: each seed's evaluation records with the answers of runMatch (the
 * endpoint's own code, in this process) over the node: every company judged for a record (the
 * odds a record's confidences share), or the first `--candidates` n (the calibration plot of
 * what an answer shows).
 */
async function fitDumpStep(engineUrl: string, options: Options): Promise<void> {
  const set = await dataSet(options);
  const companies = await readCompanies(set.files[0] as string);
  const ctx = {
    opensearch: createEngine(engineUrl),
    logger: pino({ level: 'silent' }),
    // MATCH_JUDGE_FILE from the environment: a table is fitted again on dumps made with it
    config: { ...loadConfig(process.env), indexPrefix: '' },
  };
  for (const seed of options.fitSeeds.split(',').map(Number)) {
    const labelled = makeEvaluationRecords(companies, { seed, perClass: options.perClass });
    const results: unknown[] = [];
    for (let at = 0; at < labelled.length; at += 1000) {
      const records = labelled.slice(at, at + 1000).map((entry) => entry.record);
      results.push(
        ...(options.candidates === 'all'
          ? await runMatch(ctx, { records }, { listEveryJudged: true })
          : await runMatch(ctx, { records, candidates: Number(options.candidates) })),
      );
    }
    const file = path.join(workDir, `fit-${seed}.json`);
    await writeFile(file, JSON.stringify(labelled.map((entry, i) => ({ entry, result: results[i] }))));
    console.log(`wrote ${path.relative(projectRoot, file)} (${labelled.length} records)`);
  }
}

function nodeUrl(): string {
  if (process.env.OPENSEARCH_URL) return process.env.OPENSEARCH_URL;
  const record = path.join(workDir, 'node.json');
  if (!existsSync(record)) throw new Error('no node: run the node step first, or set OPENSEARCH_URL');
  return (JSON.parse(readFileSync(record, 'utf8')) as { url: string }).url;
}

async function main(): Promise<void> {
  const program = new Command('names-scale')
    .argument('<step>', 'node | load | api | all | fit-dump')
    .option('--companies <n>', 'companies in the data set', Number, 1_000_000)
    .option('--seed <n>', 'generator and evaluation seed', Number, 1)
    .option('--port <n>', "the node's HTTP port", Number, 9250)
    .option('--heap <size>', "the node's JVM heap", '4g')
    .option('--per-class <n>', 'evaluation records per class of spelling', Number, 100)
    .option('--job-rows <n>', 'rows of the match job (0: none)', Number, 1_000_000)
    .option('--only <part>', 'suggest-job: only suggest and the job, added to the last figures')
    .option('--fit-seeds <list>', 'fit-dump: evaluation seeds, comma-separated', '7,11,13,17')
    .option('--candidates <n|all>', 'fit-dump: candidates per record, or every company judged', 'all')
    .parse();
  const step = program.args[0] as string;
  const options = program.opts<Options>();
  if (options.candidates !== 'all' && !/^[1-9]\d*$/.test(options.candidates))
    throw new Error(`--candidates: 'all' or a whole number of 1 or more, not "${options.candidates}"`);
  if (step === 'node') return holdBenchNode(workDir, 'names-scale', options);
  if (step === 'load') return loadStep(nodeUrl(), options);
  if (step === 'api') return apiStep(nodeUrl(), options);
  if (step === 'fit-dump') return fitDumpStep(nodeUrl(), options);
  if (step === 'all') {
    const node = await startBenchNode(workDir, 'names-scale', options, true);
    try {
      await loadStep(node.url, options);
      await apiStep(node.url, options);
    } finally {
      await node.stop();
    }
    return;
  }
  throw new Error(`unknown step ${step}`);
}

await main();
