/**
 * The indexer's record counters, counted alike by every way records come in: the worker's
 * `records` jobs (./jobs/records-job.ts) and the direct `npm run ingest` (./ingest.ts), in
 * the same families, `corpsearch_indexer_records_total{outcome}` and
 * `corpsearch_indexer_dead_lettered_total` (src/metrics.ts).
 *
 * A worker is scraped where it runs; an `ingest` run ends before any scrape, so with
 * `--metrics-file <file>` it adds its counts to a Prometheus text file (the node exporter's
 * textfile collector reads such a directory), summed over the runs: the file's counters only
 * grow, as a counter should, and are written through a new file renamed over the old one, so
 * a scrape never reads half of it.
 *
 *   await addToMetricsFile('/var/lib/node_exporter/textfile/corpsearch_ingest.prom', { indexed: 998, rejected: 2 });
 */
import { existsSync, mkdirSync } from 'node:fs';
import { readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Counter, Registry } from 'prom-client';
import { metrics } from '../src/metrics.js';
import type { Report } from './pipeline.js';

export interface IngestCounts {
  indexed: number;
  rejected: number;
}

/** A report's indexed and rejected records, all types together. */
export function ingestCounts(report: Report): IngestCounts {
  let indexed = 0;
  let rejected = 0;
  for (const counts of Object.values(report)) {
    if (typeof counts !== 'object') continue;
    indexed += counts.indexed;
    rejected += counts.rejected;
  }
  return { indexed, rejected };
}

/** Adds a report's indexed and rejected records to this process's counters. */
export function countIngest(report: Report): IngestCounts {
  const { indexed, rejected } = ingestCounts(report);
  if (indexed > 0) metrics.indexerRecords.inc({ outcome: 'indexed' }, indexed);
  if (rejected > 0) {
    metrics.indexerRecords.inc({ outcome: 'rejected' }, rejected);
    metrics.indexerDeadLettered.inc(rejected);
  }
  return { indexed, rejected };
}

/** A sample's value in Prometheus text, 0 when absent. */
function sample(text: string, series: string): number {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  const value = Number(line?.slice(series.length + 1));
  return Number.isFinite(value) ? value : 0;
}

/** Adds `counts` to the counters in `file` (made when missing), in the families of src/metrics.ts. */
export async function addToMetricsFile(file: string, counts: IngestCounts): Promise<void> {
  const before = existsSync(file) ? await readFile(file, 'utf8') : '';
  const registry = new Registry();
  const records = new Counter({
    name: 'corpsearch_indexer_records_total',
    help: 'Source records handled by the indexer, by outcome (indexed, rejected)',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const deadLettered = new Counter({
    name: 'corpsearch_indexer_dead_lettered_total',
    help: 'Records written to the dead-letter list (rejected, or given up on after retries)',
    registers: [registry],
  });
  for (const outcome of ['indexed', 'rejected'] as const)
    records.inc(
      { outcome },
      sample(before, `corpsearch_indexer_records_total{outcome="${outcome}"}`) + counts[outcome],
    );
  deadLettered.inc(sample(before, 'corpsearch_indexer_dead_lettered_total') + counts.rejected);
  mkdirSync(path.dirname(file), { recursive: true });
  const next = `${file}.${process.pid}.tmp`;
  await writeFile(next, await registry.metrics());
  await rename(next, file);
}
