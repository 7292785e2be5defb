/**
 * Name matching quality per class of spelling: the labelled records of bench/name-variants.ts,
 * made from the companies an API holds, sent to `POST /rest/v1/corporates/match` in requests
 * of 1,000, scored by bench/name-scoring.ts. `npm run bench` runs it on the bench's data set
 * and API (its report carries the table); on its own, against a running API:
 *
 *   npm start                                     # the sample: .local/sample/corporates.ndjson
 *   API_KEY_FILE=.local/me.key npm run bench:names    # writes bench-reports/names-<time>.json, .md and -calibration.svg
 *   API_KEY_FILE=.local/me.key npm run bench:names -- --api-url http://127.0.0.1:8080 \
 *     --data .local/bench-data/<set>/corporates.ndjson --per-class 1000 --seed 1
 *
 * The companies file must be the one the API was loaded with: the labels are computed from it.
 */
import { createReadStream, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { apiKeyFromEnvironment, cliProgram, positiveWholeNumber, runCli, wholeNumber } from '../ops/cli.js';
import { projectRoot } from '../src/project-root.js';
import { type MatchResult, type NameEvalReport, nameEvalMarkdown, scoreMatches } from './name-scoring.js';
import type { LabelledRecord, MatchRecord, SampleCompany } from './name-variants.js';
import { makeEvaluationRecords } from './names/generate.js';
import { calibrationSvg, outcomeReport } from './names/outcomes.js';

export const matchPath = '/rest/v1/corporates/match';
/** The contract's most records per request. */
export const maxBatch = 1000;

/** The fields of each company the labels need, from a corporates.ndjson file. */
export async function readCompanies(file: string): Promise<SampleCompany[]> {
  const companies: SampleCompany[] = [];
  const lines = createInterface({
    input: createReadStream(file, 'utf8'),
    crlfDelay: Number.POSITIVE_INFINITY,
  });
  for await (const line of lines) {
    if (!line.trim()) continue;
    const record = JSON.parse(line) as SampleCompany & { type?: string };
    if (record.type !== undefined && record.type !== 'corporate') continue;
    const { corporateNumber, name, furigana, prefectureId, phoneNumber, websiteUrl } = record;
    companies.push({ corporateNumber, name, furigana, prefectureId, phoneNumber, websiteUrl });
  }
  return companies;
}

/** Sends the records in requests of `batchSize`, one request at a time; results in input order. */
export async function sendMatches(options: {
  apiUrl: string;
  key: string;
  records: readonly MatchRecord[];
  batchSize: number;
  /** each answered request's milliseconds */
  onRequest?: (ms: number) => void;
}): Promise<{ results: MatchResult[]; seconds: number; requests: number }> {
  const results: MatchResult[] = [];
  let requests = 0;
  const started = performance.now();
  let waitedMs = 0;
  for (let at = 0; at < options.records.length; at += options.batchSize) {
    const records = options.records.slice(at, at + options.batchSize);
    const sentAt = performance.now();
    const response = await fetch(new URL(matchPath, options.apiUrl), {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': options.key },
      body: JSON.stringify({ records }),
    });
    requests++;
    const text = await response.text();
    if (response.status === 429) {
      // the user's 5 requests a second: wait as told, and send the same chunk again
      const waitMs = 1000 * Number(response.headers.get('retry-after') ?? 1);
      await new Promise((resolve) => setTimeout(resolve, waitMs));
      waitedMs += waitMs;
      at -= options.batchSize;
      continue;
    }
    if (!response.ok) throw new Error(`${matchPath} answered ${response.status}: ${text.slice(0, 300)}`);
    options.onRequest?.(performance.now() - sentAt);
    const body = JSON.parse(text) as { results?: MatchResult[] };
    if (!Array.isArray(body.results) || body.results.length !== records.length)
      throw new Error(
        `${matchPath} answered ${body.results?.length ?? 'no'} results for ${records.length} records`,
      );
    results.push(...body.results);
  }
  // the throughput is the matching's: time spent waiting out the rate limit is not counted
  return { results, seconds: (performance.now() - started - waitedMs) / 1000, requests };
}

export interface NameEvalOptions {
  apiUrl: string;
  key: string;
  corporatesFile: string;
  seed: number;
  perClass: number;
  batchSize?: number;
  log?: (line: string) => void;
  onRequest?: (ms: number) => void;
  /** The companies and the records made of them, when the caller has them already. */
  made?: { companies: readonly SampleCompany[]; labelled: LabelledRecord[] };
}

export async function runNameEval(options: NameEvalOptions): Promise<NameEvalReport> {
  const batchSize = Math.min(options.batchSize ?? maxBatch, maxBatch);
  const companies = options.made?.companies ?? (await readCompanies(options.corporatesFile));
  const labelled =
    options.made?.labelled ??
    makeEvaluationRecords(companies, { seed: options.seed, perClass: options.perClass });
  options.log?.(`name matching: ${labelled.length} labelled records from ${companies.length} companies`);
  const sent = await sendMatches({
    apiUrl: options.apiUrl,
    key: options.key,
    records: labelled.map((entry) => entry.record),
    batchSize,
    ...(options.onRequest ? { onRequest: options.onRequest } : {}),
  });
  const report: NameEvalReport = {
    companies: companies.length,
    seed: options.seed,
    perClass: options.perClass,
    batchSize,
    requests: sent.requests,
    seconds: sent.seconds,
    recordsPerSecond: labelled.length / Math.max(sent.seconds, 0.001),
    table: scoreMatches(labelled, sent.results),
    outcomes: outcomeReport(labelled, sent.results),
  };
  const { total } = report.table;
  options.log?.(
    `name matching: ${total.matchedRight} matched right, ${total.nullRight + total.nullMissed} null (${total.nullMissed} missed), ${total.matchedWrong} wrong; ${Math.round(report.recordsPerSecond)} records/s`,
  );
  return report;
}

async function main(): Promise<void> {
  const options = cliProgram(
    'bench:names',
    'Measure company-name matching per class of spelling against a running API',
  )
    .option('--api-url <url>', 'the running API', `http://127.0.0.1:${process.env.PORT ?? 8080}`)
    .option(
      '--data <file>',
      'the corporates.ndjson the API was loaded with',
      path.join(projectRoot, '.local', 'sample', 'corporates.ndjson'),
    )
    .option('--per-class <n>', 'records per class of spelling', positiveWholeNumber, 1000)
    .option('--seed <n>', 'seed of the labelled records', wholeNumber, 1)
    .option('--batch-size <n>', `records per request (at most ${maxBatch})`, positiveWholeNumber, maxBatch)
    .parse()
    .opts<{
      apiUrl: string;
      data: string;
      perClass: number;
      seed: number;
      batchSize: number;
    }>();
  const key = apiKeyFromEnvironment();
  const report = await runNameEval({
    apiUrl: options.apiUrl,
    key,
    corporatesFile: options.data,
    seed: options.seed,
    perClass: options.perClass,
    batchSize: options.batchSize,
    log: (line) => process.stderr.write(`${line}\n`),
  });
  const outDir = path.join(projectRoot, 'bench-reports');
  mkdirSync(outDir, { recursive: true });
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const markdown = nameEvalMarkdown(report);
  for (const name of [`names-${stamp}`, 'names-latest']) {
    writeFileSync(path.join(outDir, `${name}.json`), `${JSON.stringify(report, null, 2)}\n`);
    writeFileSync(path.join(outDir, `${name}.md`), markdown);
    if (report.outcomes)
      writeFileSync(
        path.join(outDir, `${name}-calibration.svg`),
        calibrationSvg(
          report.outcomes.calibration,
          `name matching: ${report.companies} companies, seed ${report.seed}`,
        ),
      );
  }
  process.stdout.write(`\n${markdown}\nreport: bench-reports/names-${stamp}.json\n`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url))
  runCli('bench:names', main);
