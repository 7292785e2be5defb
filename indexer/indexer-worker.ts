/**
 * The BullMQ worker of the indexer (job kinds in ./queue.ts). Records go through the same
 * pipeline and transform as the CLI; rejected records land in the Redis dead-letter list
 * with their reasons; touched companies get one deduplicated rebuild job each.
 * A job that fails (OpenSearch away) is retried with exponential backoff; when BullMQ gives
 * up, its records go to the dead-letter list too, so nothing is dropped silently.
 */
import { type Job, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { metrics } from '../src/metrics.js';
import { accessFailure } from '../src/opensearch/access-failures.js';
import type { Engine } from '../src/opensearch/engine.js';
import { isTransientError, type RetryOptions } from '../src/opensearch/retry.js';
import { type DeadLetterEntry, RedisDeadLetter } from './dead-letter.js';
import type { JobContext } from './jobs/context.js';
import { mastersKey } from './jobs/masters-key.js';
import { drainRebuilds } from './jobs/rebuild-job.js';
import { processRecords } from './jobs/records-job.js';
import { runRollOff } from './jobs/rolloff-job.js';
import { buildMasters, loadMasters, type MasterItem, type MasterName, type Masters } from './masters.js';
import { bullPrefix, createIndexerQueue, queueName, type RecordsJob } from './queue.js';

export { mastersKey };

export interface IndexerWorkerOptions {
  opensearch: Engine;
  indexPrefix: string;
  /** a connection made by createQueueConnection (BullMQ needs maxRetriesPerRequest: null) */
  connection: Redis;
  redisPrefix: string;
  logger: Logger;
  concurrency?: number;
  /** Backoff inside one attempt on transient engine errors (BullMQ retries the job after that). */
  retry?: RetryOptions;
}

export interface IndexerWorker {
  worker: Worker;
  close(): Promise<void>;
}

export function createIndexerWorker(options: IndexerWorkerOptions): IndexerWorker {
  const { opensearch, indexPrefix, connection, redisPrefix, logger } = options;
  const queueConnection = connection.duplicate();
  const workerConnection = connection.duplicate();
  const queue = createIndexerQueue(queueConnection, redisPrefix);
  const deadLetter = new RedisDeadLetter(connection, redisPrefix);
  let masters: Masters = loadMasters();
  let mastersVersion = '';

  /** Master records from any worker are shared through Redis, so every worker names alike. */
  async function currentMasters(): Promise<Masters> {
    const overrides = await connection.hgetall(mastersKey(redisPrefix));
    const version = JSON.stringify(overrides);
    if (version !== mastersVersion) {
      const lists = { ...loadMasters().lists };
      for (const [name, items] of Object.entries(overrides))
        lists[name as MasterName] = JSON.parse(items) as MasterItem[];
      masters = buildMasters(lists);
      mastersVersion = version;
    }
    return masters;
  }

  const context: JobContext = {
    opensearch,
    indexPrefix,
    connection,
    redisPrefix,
    queue,
    deadLetter,
    currentMasters,
    ...(options.retry ? { retry: options.retry } : {}),
  };

  const worker = new Worker(
    queueName,
    async (job: Job) => {
      if (job.name === 'records') return processRecords(context, job as Job<RecordsJob>);
      if (job.name === 'rebuild') return drainRebuilds(context);
      if (job.name === 'rolloff') return runRollOff(context);
      throw new Error(`unknown job kind ${job.name}`);
    },
    {
      connection: workerConnection,
      prefix: bullPrefix(redisPrefix),
      concurrency: options.concurrency ?? 4,
    },
  );

  worker.on('failed', (job, error) => {
    if (!job) return;
    metrics.indexerJobsFailed.inc({ name: job.name });
    const final = job.attemptsMade >= (job.opts.attempts ?? 1);
    const access = accessFailure(error);
    const reason = access
      ? `OpenSearch refused access: ${access}`
      : isTransientError(error)
        ? 'OpenSearch unavailable'
        : 'indexer error';
    logger.warn(
      { jobId: job.id, kind: job.name, attempts: job.attemptsMade, final, reason },
      'indexer job failed',
    );
    if (!final || job.name !== 'records') return;
    const gaveUp = `not indexed: the worker gave up after ${job.attemptsMade} attempts (${reason})`;
    const entries: DeadLetterEntry[] = (job.data as RecordsJob).records.map((record, position) => ({
      at: new Date().toISOString(),
      type: 'unknown',
      key: null,
      reason: gaveUp,
      reasons: [{ field: '(record)', reason: gaveUp }],
      source: `${(job.data as RecordsJob).source ?? 'queue'}#${job.id}:${position + 1}`,
      record,
    }));
    metrics.indexerDeadLettered.inc(entries.length);
    void deadLetter
      .add(entries)
      .catch(() => logger.error({ jobId: job.id }, 'could not write the dead-letter list'));
  });
  worker.on('error', (error) => logger.warn({ err: { message: error.message } }, 'indexer worker error'));

  return {
    worker,
    async close() {
      await worker.close();
      await queue.close();
      // BullMQ leaves connections it was handed open
      queueConnection.disconnect();
      workerConnection.disconnect();
    },
  };
}
