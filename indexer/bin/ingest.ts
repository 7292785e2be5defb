/**
 * `npm run ingest -- <files...>`: NDJSON source records (schemas/) into the indices.
 * Without REDIS_URL it writes directly and rebuilds the touched companies; with REDIS_URL it
 * puts batches on the BullMQ queue for the worker (`npm run worker`). `--metrics-file` adds a
 * direct run's counts to a Prometheus text file (../ingest-metrics.ts): the worker's families.
 */
import { statSync } from 'node:fs';
import path from 'node:path';
import { SingleBar } from 'cli-progress';
import { cliProgram, positiveWholeNumber } from '../../ops/cli.js';
import { loadConfigOrExit } from '../../src/config.js';
import { projectRoot } from '../../src/project-root.js';
import { openCliServices } from '../cli-services.js';
import { FileDeadLetter } from '../dead-letter.js';
import { ingestFiles } from '../ingest.js';
import { addToMetricsFile, ingestCounts } from '../ingest-metrics.js';
import { queueFiles } from '../ingest-queue.js';
import type { Report } from '../pipeline.js';

const program = cliProgram(
  'ingest',
  'Index NDJSON source records (corporate, job, master, delete_corporate, delete_job). ' +
    'OpenSearch: OPENSEARCH_URL, else the local node; with REDIS_URL the batches go to the worker.',
)
  .argument('<files...>', 'NDJSON files')
  .option(
    '--batch-size <n>',
    'records per _bulk round (per queued job with REDIS_URL)',
    positiveWholeNumber,
    1000,
  )
  .option('--no-wait', 'with REDIS_URL: return once queued, without waiting for the report')
  .option(
    '--metrics-file <file>',
    'without REDIS_URL: add the counts of this run to a Prometheus text file (node exporter textfile collector)',
  )
  .option(
    '--dead-letter <file>',
    'where rejected records go',
    path.join(
      projectRoot,
      '.local',
      'dead-letter',
      `ingest-${new Date().toISOString().replace(/[:.]/g, '-')}.ndjson`,
    ),
  )
  .parse();

const files = program.args;
const options = program.opts<{
  batchSize: number;
  deadLetter: string;
  wait: boolean;
  metricsFile?: string;
}>();
for (const file of files) {
  try {
    statSync(file);
  } catch {
    program.error(`cannot read ${file}`);
  }
}

function printReport(report: Report): void {
  const rows = Object.entries(report).map(([type, counts]) => ({ type, ...counts }));
  console.table(rows);
}

// an engine that cannot be reached or refuses us: one line, like every CLI (ops/cli.ts)
// queued records are counted by the worker that indexes them, where Prometheus scrapes it
if (options.metricsFile && loadConfigOrExit().redisUrl)
  program.error(
    '--metrics-file is for an ingest without REDIS_URL: queued records are counted by the worker',
  );
const services = await openCliServices().catch((error: Error) => {
  process.stderr.write(`ingest: ${error.message}\n`);
  process.exit(1);
});
const bar = new SingleBar({
  format: '{phase} [{bar}] {percentage}% | {value}/{total} {unit} | {duration_formatted}',
  hideCursor: true,
});
let phase = '';
const showProgress = (progress: { phase: string; done: number; total: number }) => {
  if (progress.phase !== phase) {
    if (phase) bar.stop();
    phase = progress.phase;
    const unit = phase === 'rebuild' ? 'companies' : 'bytes';
    bar.start(progress.total, progress.done, { phase, unit });
  } else bar.update(progress.done);
};
try {
  if (services.redisUrl) {
    const result = await queueFiles(files, {
      redisUrl: services.redisUrl,
      redisPrefix: services.redisPrefix,
      batchSize: options.batchSize,
      wait: options.wait,
      onProgress: showProgress,
      onQueued: (batches) => {
        bar.stop();
        if (options.wait)
          console.log(`queued ${batches} batches; waiting for the worker (npm run worker) to index them`);
      },
    });
    if (result.report) {
      printReport(result.report);
      const rejected = Object.values(result.report).reduce((sum, counts) => sum + counts.rejected, 0);
      if (rejected > 0)
        console.log(`${rejected} rejected records with their reasons: Redis list ${result.deadLetterList}`);
      if (result.deferred)
        console.log(`${result.deferred} postings wait in the queue for their company (not counted above)`);
      process.exitCode = rejected > 0 ? 2 : 0;
    } else {
      console.log(
        `queued ${result.batches} batches; rejected records will be in Redis list ${result.deadLetterList}`,
      );
    }
  } else {
    const deadLetter = new FileDeadLetter(options.deadLetter);
    const result = await ingestFiles(files, {
      client: services.opensearch,
      indexPrefix: services.indexPrefix,
      deadLetter,
      batchSize: options.batchSize,
      onProgress: showProgress,
    });
    bar.stop();
    printReport(result.report);
    const indexed = Object.values(result.report).reduce((sum, counts) => sum + counts.indexed, 0);
    const rejected = Object.values(result.report).reduce((sum, counts) => sum + counts.rejected, 0);
    console.log(
      `records: ${result.seconds.records.toFixed(1)} s (${Math.round(indexed / Math.max(result.seconds.records, 0.001))}/s); ` +
        `company rebuilds: ${result.rebuild.rebuilt} in ${result.seconds.rebuild.toFixed(1)} s, ` +
        `${result.rebuild.fannedOut} postings got a new company copy` +
        (result.rebuild.failures.length > 0
          ? `, ${result.rebuild.failures.length} rebuild writes failed`
          : ''),
    );
    if (rejected > 0) console.log(`${rejected} rejected records with their reasons: ${deadLetter.location}`);
    if (options.metricsFile) {
      await addToMetricsFile(options.metricsFile, ingestCounts(result.report));
      console.log(`counts added to ${options.metricsFile}`);
    }
    process.exitCode = rejected > 0 ? 2 : 0;
  }
} finally {
  await services.close();
}
