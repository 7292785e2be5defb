/**
 * Reads NDJSON files line by line (streamed) into the pipeline, then rebuilds the companies
 * the run touched. Used by `npm run ingest` without REDIS_URL and by the start-up sample load.
 */
import { createReadStream, statSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { OpenSearchClient } from '../src/opensearch/client.js';
import type { DeadLetterSink } from './dead-letter.js';
import { indexNames } from './index-names.js';
import { countIngest } from './ingest-metrics.js';
import { IngestPipeline, type Report } from './pipeline.js';
import { type RebuildResult, rebuildCompanies } from './rebuild.js';
import type { JobSource } from './source-types.js';
import { workLocationKey } from './work-location.js';

export interface IngestProgress {
  phase: 'records' | 'rebuild';
  done: number;
  total: number;
}

export interface IngestOptions {
  client: OpenSearchClient;
  indexPrefix: string;
  deadLetter: DeadLetterSink;
  batchSize?: number;
  now?: () => Date;
  onProgress?: (progress: IngestProgress) => void;
}

export interface IngestResult {
  report: Report;
  rebuild: RebuildResult;
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

/**
 * A quick first pass over the job records: each company's distinct work places in this run.
 * Postings then carry the right `corporate.workLocationCount` from their first write; without
 * it, every posting of a fresh load would be written twice (once more by the rebuild's fan-out).
 */
export async function scanWorkLocations(files: string[]): Promise<Map<string, number>> {
  const places = new Map<string, Set<string>>();
  for await (const { line } of readLines(files, () => {})) {
    if (!line.includes('"job"')) continue;
    try {
      const record = JSON.parse(line) as Partial<JobSource>;
      if (record.type !== 'job' || typeof record.corporateNumber !== 'string') continue;
      const key = workLocationKey(record.workLocation);
      const set = places.get(record.corporateNumber) ?? new Set<string>();
      places.set(record.corporateNumber, set);
      if (key) set.add(key);
    } catch {
      // the pipeline rejects it with a reason
    }
  }
  return new Map([...places].map(([number, set]) => [number, set.size]));
}

export async function ingestFiles(files: string[], options: IngestOptions): Promise<IngestResult> {
  const workLocationCounts = await scanWorkLocations(files);
  const pipeline = new IngestPipeline({
    workLocationCounts,
    client: options.client,
    indexPrefix: options.indexPrefix,
    deadLetter: options.deadLetter,
    ...(options.batchSize ? { batchSize: options.batchSize } : {}),
    ...(options.now ? { now: options.now } : {}),
  });
  const total = files.reduce((sum, file) => sum + statSync(file).size, 0);
  let done = 0;
  const started = Date.now();
  for await (const { line, source } of readLines(files, (bytes) => {
    done += bytes;
  })) {
    await pipeline.addLine(line, source);
    options.onProgress?.({ phase: 'records', done, total });
  }
  await pipeline.flush();
  // the worker's counters, for this process (./ingest-metrics.ts)
  countIngest(pipeline.report);
  options.onProgress?.({ phase: 'records', done: total, total });
  const recordsDone = Date.now();
  const companies = [...pipeline.touched];
  const rebuild: RebuildResult = { rebuilt: 0, missing: 0, fannedOut: 0, failures: [] };
  if (companies.length > 0)
    await options.client.indices.refresh({ index: indexNames(options.indexPrefix).jobs });
  // two rounds of 200 companies at a time: one reads while the other writes
  let next = 0;
  let rebuiltSoFar = 0;
  const rebuildSome = async () => {
    while (next < companies.length) {
      const slice = companies.slice(next, next + 200);
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
      options.onProgress?.({ phase: 'rebuild', done: rebuiltSoFar, total: companies.length });
    }
  };
  await Promise.all([rebuildSome(), rebuildSome()]);
  return {
    report: pipeline.report,
    rebuild,
    seconds: { records: (recordsDone - started) / 1000, rebuild: (Date.now() - recordsDone) / 1000 },
  };
}
