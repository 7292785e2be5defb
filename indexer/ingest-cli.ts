/**
 * `npm run ingest -- <files...>`: NDJSON source records (schemas/) into the indices.
 * Without REDIS_URL it writes directly and rebuilds the touched companies; with REDIS_URL it
 * puts batches on the BullMQ queue for the worker (`npm run worker`).
 */
import { statSync } from 'node:fs';
import path from 'node:path';
import { type Job, QueueEvents } from 'bullmq';
import { SingleBar } from 'cli-progress';
import { InvalidArgumentError } from 'commander';
import { cliProgram } from '../src/cli.js';
import { projectRoot } from '../src/project-root.js';
import { openCliServices } from './cli-services.js';
import { FileDeadLetter } from './dead-letter.js';
import { ingestFiles, readLines } from './ingest.js';
import type { Report } from './pipeline.js';
import {
  bullPrefix,
  createIndexerQueue,
  createQueueConnection,
  enqueueRecords,
  queueName,
  waitForRoom,
} from './queue.js';

function whole(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1)
    throw new InvalidArgumentError('must be a positive whole number');
  return parsed;
}

const program = cliProgram(
  'ingest',
  'Index NDJSON source records (corporate, job, master, delete_corporate, delete_job). ' +
    'OpenSearch: OPENSEARCH_URL, else the local node; with REDIS_URL the batches go to the worker.',
)
  .argument('<files...>', 'NDJSON files')
  .option('--batch-size <n>', 'records per _bulk round (per queued job with REDIS_URL)', whole, 1000)
  .option('--no-wait', 'with REDIS_URL: return once queued, without waiting for the report')
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
const options = program.opts<{ batchSize: number; deadLetter: string; wait: boolean }>();
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
    const eventsConnection = connection.duplicate();
    const events = new QueueEvents(queueName, {
      connection: eventsConnection,
      prefix: bullPrefix(services.redisPrefix),
    });
    const total = files.reduce((sum, file) => sum + statSync(file).size, 0);
    let bytes = 0;
    let batch: string[] = [];
    const jobs: Job[] = [];
    const jobIds: string[] = [];
    // completed records jobs are removed at once, so their reports are read from the events
    const waiters = new Map<string, (report: Report | null) => void>();
    const outcomes = new Map<string, Promise<Report | null>>();
    const finished = new Map<string, Report | null>();
    const settle = (id: string, report: Report | null) => {
      finished.set(id, report);
      waiters.get(id)?.(report);
    };
    events.on('completed', ({ jobId, returnvalue }) =>
      settle(jobId, (typeof returnvalue === 'string' ? JSON.parse(returnvalue) : returnvalue) as Report),
    );
    events.on('failed', async ({ jobId }) => {
      const job = await queue.getJob(jobId);
      // given up: the worker has put the batch in the dead-letter list
      if (!job || job.attemptsMade >= (job.opts.attempts ?? 1)) {
        const lost = (job?.data as { records?: unknown[] } | undefined)?.records?.length ?? 0;
        settle(jobId, { unknown: { read: lost, indexed: 0, rejected: lost } });
      }
    });
    await events.waitUntilReady();
    const send = async () => {
      await waitForRoom(queue);
      const job = await enqueueRecords(queue, batch, 'ingest-cli');
      const id = String(job.id);
      jobs.push(job);
      jobIds.push(id);
      outcomes.set(
        id,
        finished.has(id)
          ? Promise.resolve(finished.get(id) ?? null)
          : new Promise((resolve) => waiters.set(id, resolve)),
      );
      batch = [];
      bar.update(bytes);
    };
    bar.start(total, 0, { phase: 'queue', unit: 'bytes' });
    let currentFile = files[0];
    for await (const { line, file } of readLines(files, (read) => {
      bytes += read;
    })) {
      if (file !== currentFile && options.wait) {
        // companies first: the next file's postings find their company indexed
        if (batch.length > 0) await send();
        await Promise.all(outcomes.values());
        currentFile = file;
      }
      batch.push(line);
      if (batch.length >= options.batchSize) await send();
    }
    if (batch.length > 0) await send();
    bar.update(total);
    bar.stop();
    const deadLetterList = `${services.redisPrefix}indexer:dead-letter`;
    if (options.wait) {
      console.log(`queued ${jobs.length} batches; waiting for the worker (npm run worker) to index them`);
      const report: Report = {};
      let deferred = 0;
      const add = (part: Report & { deferred?: number }) => {
        deferred += part.deferred ?? 0;
        for (const [type, counts] of Object.entries(part)) {
          if (typeof counts !== 'object') continue;
          const sum = report[type] ?? { read: 0, indexed: 0, rejected: 0 };
          report[type] = sum;
          sum.read += counts.read;
          sum.indexed += counts.indexed;
          sum.rejected += counts.rejected;
          if (counts.older) sum.older = (sum.older ?? 0) + counts.older;
        }
      };
      for (const id of jobIds) {
        const outcome = await outcomes.get(id);
        if (outcome) add(outcome);
      }
      printReport(report);
      const rejected = Object.values(report).reduce((sum, counts) => sum + counts.rejected, 0);
      if (rejected > 0)
        console.log(`${rejected} rejected records with their reasons: Redis list ${deadLetterList}`);
      if (deferred > 0)
        console.log(`${deferred} postings wait in the queue for their company (not counted above)`);
      process.exitCode = rejected > 0 ? 2 : 0;
    } else {
      console.log(`queued ${jobs.length} batches; rejected records will be in Redis list ${deadLetterList}`);
    }
    await events.close();
    await queue.close();
    // BullMQ leaves connections it was handed open
    eventsConnection.disconnect();
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
