/**
 * `npm run ingest` with REDIS_URL: NDJSON lines go to the BullMQ queue in batches for the
 * worker (`npm run worker`) instead of being written here; the direct path is ./ingest.ts.
 * With `wait`, each file's batches are indexed before the next file is queued (companies
 * first: the next file's postings find their company indexed), and the workers' reports are
 * summed into one.
 *
 *   const result = await queueFiles(['corporates.ndjson', 'jobs.ndjson'], {
 *     redisUrl: 'redis://127.0.0.1:6379', redisPrefix: 'corpsearch:', batchSize: 1000, wait: true,
 *   });
 *   // { batches: 3, deadLetterList: 'corpsearch:indexer:dead-letter', report: {...}, deferred: 0 }
 */
import { statSync } from 'node:fs';
import { QueueEvents } from 'bullmq';
import { readLines } from './ingest.js';
import type { Report } from './pipeline.js';
import {
  bullPrefix,
  createIndexerQueue,
  createQueueConnection,
  enqueueRecords,
  queueName,
  waitForRoom,
} from './queue.js';

export interface QueueProgress {
  phase: 'queue';
  /** bytes of the files read and queued */
  done: number;
  total: number;
}

export interface QueueIngestOptions {
  redisUrl: string;
  redisPrefix: string;
  /** lines per queued records job */
  batchSize: number;
  /** wait for the worker's reports (and queue each file only once the one before is indexed) */
  wait: boolean;
  onProgress?: (progress: QueueProgress) => void;
  /** every batch is queued; with `wait`, the reports are awaited next */
  onQueued?: (batches: number) => void;
}

export interface QueueIngestResult {
  /** records jobs queued */
  batches: number;
  /** the Redis list where the worker puts refused records with their reasons */
  deadLetterList: string;
  /** with `wait`: the workers' reports of every batch, summed */
  report?: Report;
  /** with `wait`: postings still in the queue, waiting for their company (not in `report`) */
  deferred?: number;
}

type JobReport = Report & { deferred?: number };

export async function queueFiles(files: string[], options: QueueIngestOptions): Promise<QueueIngestResult> {
  const connection = createQueueConnection(options.redisUrl);
  const queue = createIndexerQueue(connection, options.redisPrefix);
  const eventsConnection = connection.duplicate();
  const events = new QueueEvents(queueName, {
    connection: eventsConnection,
    prefix: bullPrefix(options.redisPrefix),
  });
  try {
    const total = files.reduce((sum, file) => sum + statSync(file).size, 0);
    let bytes = 0;
    let batch: string[] = [];
    const jobIds: string[] = [];
    // completed records jobs are removed at once, so their reports are read from the events
    const waiters = new Map<string, (report: JobReport | null) => void>();
    const outcomes = new Map<string, Promise<JobReport | null>>();
    const finished = new Map<string, JobReport | null>();
    const settle = (id: string, report: JobReport | null) => {
      finished.set(id, report);
      waiters.get(id)?.(report);
    };
    events.on('completed', ({ jobId, returnvalue }) =>
      settle(jobId, (typeof returnvalue === 'string' ? JSON.parse(returnvalue) : returnvalue) as JobReport),
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
      jobIds.push(id);
      outcomes.set(
        id,
        finished.has(id)
          ? Promise.resolve(finished.get(id) ?? null)
          : new Promise((resolve) => waiters.set(id, resolve)),
      );
      batch = [];
      options.onProgress?.({ phase: 'queue', done: bytes, total });
    };
    options.onProgress?.({ phase: 'queue', done: 0, total });
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
    options.onProgress?.({ phase: 'queue', done: total, total });
    const deadLetterList = `${options.redisPrefix}indexer:dead-letter`;
    options.onQueued?.(jobIds.length);
    if (!options.wait) return { batches: jobIds.length, deadLetterList };

    const report: Report = {};
    let deferred = 0;
    for (const id of jobIds) {
      const outcome = await outcomes.get(id);
      if (outcome) deferred += addReport(report, outcome);
    }
    return { batches: jobIds.length, deadLetterList, report, deferred };
  } finally {
    await events.close();
    await queue.close();
    // BullMQ leaves connections it was handed open
    eventsConnection.disconnect();
    connection.disconnect();
  }
}

/** Adds one job's report into `sum`; returns the job's deferred postings. */
function addReport(sum: Report, part: JobReport): number {
  for (const [type, counts] of Object.entries(part)) {
    if (typeof counts !== 'object') continue;
    const total = sum[type] ?? { read: 0, indexed: 0, rejected: 0 };
    sum[type] = total;
    total.read += counts.read;
    total.indexed += counts.indexed;
    total.rejected += counts.rejected;
    if (counts.older) total.older = (total.older ?? 0) + counts.older;
  }
  return part.deferred ?? 0;
}
