/**
 * `npm run ingest -- <files...>`: NDJSON source records (schemas/) into the indices.
 * Without REDIS_URL it writes directly and rebuilds the touched companies; with REDIS_URL it
 * puts batches on the BullMQ queue for the worker (`npm run worker`).
 */
import { statSync } from 'node:fs';
import path from 'node:path';
import { SingleBar } from 'cli-progress';
import { Command, InvalidArgumentError } from 'commander';
import { projectRoot } from '../src/local/opensearch-node.js';
import { openCliServices } from './cli-services.js';
import { FileDeadLetter } from './dead-letter.js';
import { ingestFiles, readLines } from './ingest.js';
import type { Report } from './pipeline.js';
import { createIndexerQueue, createQueueConnection, enqueueRecords } from './queue.js';

function whole(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1)
    throw new InvalidArgumentError('must be a positive whole number');
  return parsed;
}

const program = new Command('ingest')
  .description('Index NDJSON source records (corporate, job, master, delete_corporate, delete_job)')
  .argument('<files...>', 'NDJSON files')
  .option('--batch-size <n>', 'records per _bulk round', whole, 1000)
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
const options = program.opts<{ batchSize: number; deadLetter: string }>();
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

const services = await openCliServices();
const bar = new SingleBar({
  format: '{phase} [{bar}] {percentage}% | {value}/{total} {unit} | {duration_formatted}',
  hideCursor: true,
});
try {
  if (services.redisUrl) {
    const connection = createQueueConnection(services.redisUrl);
    const queue = createIndexerQueue(connection, services.redisPrefix);
    const total = files.reduce((sum, file) => sum + statSync(file).size, 0);
    let bytes = 0;
    let batch: string[] = [];
    let lines = 0;
    let jobs = 0;
    bar.start(total, 0, { phase: 'queue', unit: 'bytes' });
    for await (const { line } of readLines(files, (read) => {
      bytes += read;
    })) {
      batch.push(line);
      lines++;
      if (batch.length >= options.batchSize) {
        await enqueueRecords(queue, batch, 'ingest-cli');
        jobs++;
        batch = [];
        bar.update(bytes);
      }
    }
    if (batch.length > 0) {
      await enqueueRecords(queue, batch, 'ingest-cli');
      jobs++;
    }
    bar.update(total);
    bar.stop();
    console.log(
      `queued ${lines} records in ${jobs} jobs; the worker indexes them and lists rejected ones in ` +
        `Redis ${services.redisPrefix}indexer:dead-letter`,
    );
    await queue.close();
    connection.disconnect();
  } else {
    const deadLetter = new FileDeadLetter(options.deadLetter);
    let phase = '';
    const result = await ingestFiles(files, {
      client: services.opensearch,
      indexPrefix: services.indexPrefix,
      deadLetter,
      batchSize: options.batchSize,
      onProgress: ({ phase: now, done, total }) => {
        if (now !== phase) {
          if (phase) bar.stop();
          phase = now;
          bar.start(total, done, { phase: now, unit: now === 'records' ? 'bytes' : 'companies' });
        } else bar.update(done);
      },
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
    process.exitCode = rejected > 0 ? 2 : 0;
  }
} finally {
  await services.close();
}
