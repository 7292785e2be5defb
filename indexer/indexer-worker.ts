/**
 * The BullMQ worker of the indexer (job kinds in ./queue.ts). Records go through the same
 * pipeline and transform as the CLI; rejected records land in the Redis dead-letter list
 * with their reason; touched companies get one deduplicated rebuild job each.
 * A job that fails (OpenSearch away) is retried with exponential backoff; when BullMQ gives
 * up, its records go to the dead-letter list too, so nothing is dropped silently.
 */
import { type Job, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { OpenSearchClient } from '../src/opensearch/client.js';
import { isTransientError, type RetryOptions } from '../src/opensearch/retry.js';
import { type DeadLetterEntry, RedisDeadLetter } from './dead-letter.js';
import { buildMasters, loadMasters, type MasterItem, type MasterName, type Masters } from './masters.js';
import { IngestPipeline } from './pipeline.js';
import {
  bullPrefix,
  createIndexerQueue,
  maxDeferrals,
  queueName,
  type RecordsJob,
  rebuildSetKey,
  scheduleRebuilds,
} from './queue.js';
import { rebuildCompanies } from './rebuild.js';
import { rollOff } from './rolloff.js';

export interface IndexerWorkerOptions {
  opensearch: OpenSearchClient;
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

export function mastersKey(redisPrefix: string): string {
  return `${redisPrefix}indexer:masters`;
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

  async function processRecords(job: Job<RecordsJob>): Promise<Record<string, unknown>> {
    const deferrals = job.data.deferrals ?? 0;
    const pipeline = new IngestPipeline({
      deferMissingCompany: deferrals < maxDeferrals,
      client: opensearch,
      indexPrefix,
      deadLetter,
      masters: await currentMasters(),
      ...(options.retry ? { retry: options.retry } : {}),
    });
    const before = pipeline.masters;
    for (const [position, record] of job.data.records.entries()) {
      const source = `${job.data.source ?? 'queue'}#${job.id}:${position + 1}`;
      if (typeof record === 'string') await pipeline.addLine(record, source);
      else await pipeline.add(record, source);
    }
    await pipeline.flush();
    if (pipeline.masters !== before) {
      const lists = pipeline.masters.lists;
      await connection.hset(
        mastersKey(redisPrefix),
        Object.fromEntries(Object.entries(lists).map(([name, items]) => [name, JSON.stringify(items)])),
      );
    }
    await scheduleRebuilds(queue, connection, redisPrefix, pipeline.touched);
    if (pipeline.deferred.length > 0) {
      // their company may be in a batch another worker is still writing: try again later
      await queue.add(
        'records',
        {
          records: pipeline.deferred.map((item) => item.record),
          source: job.data.source ?? 'queue',
          deferrals: deferrals + 1,
        } satisfies RecordsJob,
        { delay: 2000 * 2 ** deferrals, removeOnComplete: true, removeOnFail: 100 },
      );
    }
    return {
      ...pipeline.report,
      ...(pipeline.deferred.length > 0 ? { deferred: pipeline.deferred.length } : {}),
    };
  }

  /** Rebuilds the companies in the pending set, 200 at a time, until it is empty. */
  async function drainRebuilds(): Promise<Record<string, number>> {
    const key = rebuildSetKey(redisPrefix);
    const total = { rebuilt: 0, fannedOut: 0 };
    for (;;) {
      const batch = await connection.spop(key, 200);
      if (batch.length === 0) return total;
      try {
        const result = await rebuildCompanies(opensearch, indexPrefix, batch);
        total.rebuilt += result.rebuilt;
        total.fannedOut += result.fannedOut;
        if (result.failures.length > 0) {
          const failed = [...new Set(result.failures.map((failure) => failure.op.ref))];
          await connection.sadd(key, ...failed);
          throw new Error(`${failed.length} company rebuilds were not written`);
        }
      } catch (error) {
        // back into the set, so the retry of this job (or the next drain) does them
        await connection.sadd(key, ...batch);
        throw error;
      }
    }
  }

  const worker = new Worker(
    queueName,
    async (job: Job) => {
      if (job.name === 'records') return processRecords(job as Job<RecordsJob>);
      if (job.name === 'rebuild') return drainRebuilds();
      if (job.name === 'rolloff') {
        const result = await rollOff(opensearch, indexPrefix, { rebuild: false });
        await scheduleRebuilds(queue, connection, redisPrefix, result.companies);
        return { postings: result.postings, companies: result.companies.length };
      }
      throw new Error(`unknown job kind ${job.name}`);
    },
    {
      connection: connection.duplicate(),
      prefix: bullPrefix(redisPrefix),
      concurrency: options.concurrency ?? 4,
    },
  );

  worker.on('failed', (job, error) => {
    if (!job) return;
    const final = job.attemptsMade >= (job.opts.attempts ?? 1);
    const reason = isTransientError(error) ? 'OpenSearch unavailable' : 'indexer error';
    logger.warn(
      { jobId: job.id, kind: job.name, attempts: job.attemptsMade, final, reason },
      'indexer job failed',
    );
    if (!final || job.name !== 'records') return;
    const entries: DeadLetterEntry[] = (job.data as RecordsJob).records.map((record, position) => ({
      at: new Date().toISOString(),
      type: 'unknown',
      key: null,
      reason: `not indexed: the worker gave up after ${job.attemptsMade} attempts (${reason})`,
      source: `${(job.data as RecordsJob).source ?? 'queue'}#${job.id}:${position + 1}`,
      record,
    }));
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
