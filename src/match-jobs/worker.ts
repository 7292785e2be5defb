/**
 * The match jobs' BullMQ queue (`<REDIS_PREFIX>bull:match-jobs:*`, beside the indexer's) and
 * its worker, run by `npm run worker` (indexer/bin/worker.ts) next to the indexer's. One job
 * message per job id (`{jobId}`); the rows and the progress are the job's own (./process.ts),
 * so a message taken up again after a worker was killed (BullMQ's stalled-job check, after
 * MATCH_JOB_STALL_SECONDS) continues where the state says.
 *
 * The worker also sweeps the jobs that ended more than MATCH_JOB_RETENTION_HOURS ago: their
 * folder and their state are deleted (`sweepEnded`).
 */
import { Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { CreditLedger } from '../limits/credit-ledger.js';
import type { Services } from '../services.js';
import { jobFiles, removeJobDir } from './files.js';
import type { MatchJobStore } from './job-store.js';
import { type ProcessContext, processJob } from './process.js';
import { type MatchJobMessage, matchJobQueueName } from './queue.js';

export interface MatchJobWorkerOptions {
  connection: Redis;
  redisPrefix: string;
  services: Pick<Services, 'opensearch' | 'logger' | 'config'>;
  ledger: CreditLedger;
  price: number;
  store: MatchJobStore;
  root: string;
  logger: Logger;
  stallSeconds: number;
  retentionHours: number;
  /** Jobs run at once by this worker (default 1). */
  concurrency?: number;
  chunkRecords?: number;
}

export interface MatchJobWorker {
  worker: Worker<MatchJobMessage>;
  close(): Promise<void>;
}

export function createMatchJobWorker(options: MatchJobWorkerOptions): MatchJobWorker {
  const ctx: ProcessContext = {
    services: options.services,
    ledger: options.ledger,
    price: options.price,
    store: options.store,
    root: options.root,
    logger: options.logger,
    ...(options.chunkRecords ? { chunkRecords: options.chunkRecords } : {}),
  };
  const stallMs = options.stallSeconds * 1000;
  const worker = new Worker<MatchJobMessage>(
    matchJobQueueName,
    async (message) => {
      const job = await processJob(ctx, message.data.jobId);
      return { status: job?.status };
    },
    {
      connection: options.connection,
      prefix: `${options.redisPrefix}bull`,
      concurrency: options.concurrency ?? 1,
      // a killed worker's lock lapses after this; the next stalled check hands the job on
      lockDuration: stallMs,
      stalledInterval: Math.max(1000, Math.floor(stallMs / 2)),
      // however often workers are killed, the job is continued, never failed for it
      maxStalledCount: 1000,
    },
  );
  worker.on('failed', (message, error) => {
    if (!message) return;
    const last = message.attemptsMade >= (message.opts.attempts ?? 1);
    options.logger.warn(
      { jobId: message.data.jobId, attempt: message.attemptsMade, err: { message: error.message } },
      last ? 'match job failed' : 'match job attempt failed; retried',
    );
    if (last)
      void options.store.transition(message.data.jobId, ['queued', 'running'], 'failed').catch(() => {});
  });
  worker.on('error', (error) =>
    options.logger.warn({ err: { message: error.message } }, 'match job worker error'),
  );
  const sweep = async () => {
    try {
      await sweepEnded(options.store, options.root, options.retentionHours, options.logger);
    } catch (error) {
      options.logger.warn({ err: { message: (error as Error).message } }, 'match job retention sweep failed');
    }
  };
  // the first sweep once the store is connected: before, its commands would be refused
  void options.store.ready().then(sweep);
  const timer = setInterval(() => void sweep(), 10 * 60 * 1000);
  timer.unref();
  return {
    worker,
    async close() {
      clearInterval(timer);
      await worker.close();
    },
  };
}

/** Deletes the folders and state of the jobs that ended more than `retentionHours` ago. */
export async function sweepEnded(
  store: MatchJobStore,
  root: string,
  retentionHours: number,
  logger: Logger,
  now = Date.now(),
): Promise<number> {
  const ids = await store.endedBefore(now - retentionHours * 3_600_000);
  for (const id of ids) {
    const job = await store.get(id);
    await removeJobDir(jobFiles(root, id));
    await store.remove(id, job?.userId);
  }
  if (ids.length > 0) logger.info({ jobs: ids.length }, 'match jobs past their retention deleted');
  return ids.length;
}
