/**
 * Reads NDJSON files line by line (streamed) into the pipeline and rebuilds the companies the
 * run touched: on a load into an empty `jobs` index, each company as soon as its last record
 * is written, from the postings the load wrote (./run-postings.ts); the others after the last
 * record, from the index. Used by `npm run ingest` without REDIS_URL and by the start-up
 * sample load.
 */
import { createReadStream, statSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { Engine } from '../src/opensearch/engine.js';
import { withRetry } from '../src/opensearch/retry.js';
import type { DeadLetterSink } from './dead-letter.js';
import { indexNames } from './index-names.js';
import { countIngest } from './ingest-metrics.js';
import { IngestPipeline, type PipelineOptions, type Report } from './pipeline.js';
import { type RebuildResult, rebuildCompanies } from './rebuild.js';
import { EarlyRebuilds, postingCountsByCompany, RunPostings } from './run-postings.js';
import type { JobSource } from './source-types.js';
import { workLocationKey } from './work-location.js';

export interface IngestProgress {
  phase: 'records' | 'rebuild';
  done: number;
  total: number;
}

export interface IngestOptions {
  client: Engine;
  indexPrefix: string;
  deadLetter: DeadLetterSink;
  batchSize?: number;
  now?: () => Date;
  onProgress?: (progress: IngestProgress) => void;
}

export interface IngestResult {
  report: Report;
  rebuild: RebuildResult;
  /** companies rebuilt during the load from the postings it wrote (./run-postings.ts) */
  rebuiltDuringLoad: number;
  /** records: the load, with the rebuilds during it; rebuild: the rebuilds after it */
  seconds: { records: number; rebuild: number };
}

/** Streams every line of `files` (bytes read are the progress). */
export async function* readLines(files: string[], onBytes: (bytes: number) => void) {
  for (const file of files) {
    const lines = createInterface({ input: createReadStream(file), crlfDelay: Number.POSITIVE_INFINITY });
    let number = 0;
    for await (const line of lines) {
      number++;
      onBytes(Buffer.byteLength(line) + 1);
      if (line.trim() === '') continue;
      yield { line, file, source: `${path.basename(file)}:${number}` };
    }
  }
}

/** What the pre-scan finds in the files before any record is written. */
export interface Prescan {
  /** each company's distinct work places in the files */
  workLocationCounts: Map<string, number>;
  /** each company's corporate and job records in the files */
  records: Map<string, number>;
  /** companies the files delete (delete_corporate) */
  deleted: Set<string>;
  /** the files delete postings (delete_job): their companies are known only once written */
  deletesPostings: boolean;
}

/**
 * A quick first pass over the files. Postings then carry the right
 * `corporate.workLocationCount` from their first write (without it, every posting of a fresh
 * load would be written twice: once more by the rebuild's fan-out), and the load knows when
 * it has written the last record of a company (./run-postings.ts).
 */
export async function prescanFiles(files: string[]): Promise<Prescan> {
  const places = new Map<string, Set<string>>();
  const scanned: Prescan = {
    workLocationCounts: new Map(),
    records: new Map(),
    deleted: new Set(),
    deletesPostings: false,
  };
  for await (const { line } of readLines(files, () => {})) {
    let record: { type?: unknown; corporateNumber?: unknown; workLocation?: JobSource['workLocation'] };
    try {
      record = JSON.parse(line) as typeof record;
      if (typeof record !== 'object' || record === null) continue;
    } catch {
      continue; // the pipeline rejects it with a reason
    }
    const number = typeof record.corporateNumber === 'string' ? record.corporateNumber : undefined;
    if (record.type === 'delete_job') scanned.deletesPostings = true;
    if (number === undefined) continue;
    if (record.type === 'delete_corporate') scanned.deleted.add(number);
    if (record.type !== 'job' && record.type !== 'corporate') continue;
    scanned.records.set(number, (scanned.records.get(number) ?? 0) + 1);
    if (record.type !== 'job') continue;
    const key = workLocationKey(record.workLocation);
    const set = places.get(number) ?? new Set<string>();
    places.set(number, set);
    if (key) set.add(key);
  }
  scanned.workLocationCounts = new Map([...places].map(([number, set]) => [number, set.size]));
  return scanned;
}

/**
 * Postings held for the early rebuilds at most: above the nested limit of the corporates
 * index (50,000, mappings/corporates.json), so a company past it is still built from memory;
 * about what the rebuild from the index holds for a round with such a company in it. A
 * company that would pass it is rebuilt from the index.
 */
const maxHeldPostings = 60_000;
/** Postings of complete companies waiting for their early rebuild, before the load waits. */
const maxQueuedPostings = 20_000;

/**
 * The early rebuilds of a load (./run-postings.ts), or none: when the files delete postings
 * (their companies are known only from the index), or when `jobs` already holds postings
 * (a company's postings would not all be the load's).
 */
async function earlyRebuildsFor(
  prescan: Prescan,
  options: IngestOptions,
): Promise<{ run: RunPostings; rebuilds: EarlyRebuilds } | undefined> {
  if (prescan.deletesPostings) return undefined;
  const { client } = options;
  const jobs = indexNames(options.indexPrefix).jobs;
  const refreshed = await withRetry(() => client.indices.refresh({ index: jobs }, { ignore: [404] }));
  if (refreshed.statusCode === 404) return undefined;
  const { body } = await withRetry(() => client.count({ index: jobs }));
  if (body.count > 0) return undefined;
  return {
    run: new RunPostings(prescan.records, {
      excluded: prescan.deleted,
      maxHeld: maxHeldPostings,
      jobsIndex: jobs,
    }),
    rebuilds: new EarlyRebuilds(client, options.indexPrefix, {
      maxQueued: maxQueuedPostings,
      ...(options.now ? { now: options.now } : {}),
    }),
  };
}

export async function ingestFiles(files: string[], options: IngestOptions): Promise<IngestResult> {
  const prescan = await prescanFiles(files);
  const early = await earlyRebuildsFor(prescan, options);
  const onSettled: PipelineOptions['onSettled'] = early
    ? (records, outcomes, plan) => early.rebuilds.add(early.run.settle(records, outcomes, plan))
    : undefined;
  const pipeline = new IngestPipeline({
    workLocationCounts: prescan.workLocationCounts,
    client: options.client,
    indexPrefix: options.indexPrefix,
    deadLetter: options.deadLetter,
    ...(options.batchSize ? { batchSize: options.batchSize } : {}),
    ...(options.now ? { now: options.now } : {}),
    ...(onSettled ? { onSettled } : {}),
  });
  const total = files.reduce((sum, file) => sum + statSync(file).size, 0);
  let done = 0;
  const started = Date.now();
  for await (const { line, source } of readLines(files, (bytes) => {
    done += bytes;
  })) {
    await pipeline.addLine(line, source);
    await early?.rebuilds.keepUp();
    options.onProgress?.({ phase: 'records', done, total });
  }
  await pipeline.flush();
  await early?.rebuilds.finish();
  // the worker's counters, for this process (./ingest-metrics.ts)
  countIngest(pipeline.report);
  options.onProgress?.({ phase: 'records', done: total, total });
  const recordsDone = Date.now();
  const rebuild = await rebuildAfterLoad(options, pipeline.touched, early?.rebuilds);
  return {
    report: pipeline.report,
    rebuild,
    rebuiltDuringLoad: early?.rebuilds.rebuilt.size ?? 0,
    seconds: { records: (recordsDone - started) / 1000, rebuild: (Date.now() - recordsDone) / 1000 },
  };
}

/**
 * The companies the load touched and did not rebuild early, and those an early rebuild did
 * with another number of postings than `jobs` now holds for them (another writer, or files
 * that were not what the pre-scan read): rebuilt from the index, as every company was before.
 */
async function rebuildAfterLoad(
  options: IngestOptions,
  touched: ReadonlySet<string>,
  early: EarlyRebuilds | undefined,
): Promise<RebuildResult> {
  const rebuild: RebuildResult = early?.result ?? { rebuilt: 0, missing: 0, fannedOut: 0, failures: [] };
  const jobs = indexNames(options.indexPrefix).jobs;
  const pending = [...touched].filter((number) => !early?.rebuilt.has(number));
  if (pending.length === 0 && !early?.rebuilt.size) return rebuild;
  await options.client.indices.refresh({ index: jobs });
  if (early?.rebuilt.size) {
    const counts = await postingCountsByCompany(options.client, jobs);
    for (const [number, postings] of early.rebuilt)
      if ((counts.get(number) ?? 0) !== postings) pending.push(number);
  }
  // two rounds of 200 companies at a time: one reads while the other writes
  let next = 0;
  let rebuiltSoFar = 0;
  const rebuildSome = async () => {
    while (next < pending.length) {
      const slice = pending.slice(next, next + 200);
      next += slice.length;
      const part = await rebuildCompanies(options.client, options.indexPrefix, slice, {
        refresh: false,
        ...(options.now ? { now: options.now() } : {}),
      });
      rebuild.rebuilt += part.rebuilt;
      rebuild.missing += part.missing;
      rebuild.fannedOut += part.fannedOut;
      rebuild.failures.push(...part.failures);
      rebuiltSoFar += slice.length;
      options.onProgress?.({ phase: 'rebuild', done: rebuiltSoFar, total: pending.length });
    }
  };
  await Promise.all([rebuildSome(), rebuildSome()]);
  return rebuild;
}
