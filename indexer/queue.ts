/**
 * The indexer's BullMQ queue. Job kinds:
 *   records  {records: SourceRecord-like[], source?}  a batch from the ingestion pipeline
 *   rebuild  {}                                       drains the set of companies to rebuild
 *   rolloff  {}                                       nightly (repeatable) removal of old texts
 * Keys live under `<REDIS_PREFIX>bull:indexer:*`.
 */
import { type Job, Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { connectRedis } from '../src/redis.js';

export const queueName = 'indexer';
/** A posting change waits this long, so a burst of changes to one company costs one rebuild. */
export const rebuildDelayMs = 1000;
export const rollOffScheduleId = 'nightly-rolloff';

export interface RecordsJob {
  records: unknown[];
  source?: string;
  /** how many times these postings came back because their company was not indexed yet */
  deferrals?: number;
}

/** Postings waiting for their company come back this many times (2 s, 4 s, ... 32 s) before they are rejected. */
export const maxDeferrals = 5;

export function bullPrefix(redisPrefix: string): string {
  return `${redisPrefix}bull`;
}

/** BullMQ blocks on Redis, so its connections must not give up on a command (maxRetriesPerRequest null). */
export function createQueueConnection(url: string): Redis {
  return connectRedis(url, { maxRetriesPerRequest: null });
}

export function createIndexerQueue(connection: Redis, redisPrefix: string): Queue {
  return new Queue(queueName, {
    connection,
    prefix: bullPrefix(redisPrefix),
    defaultJobOptions: {
      attempts: 8,
      backoff: { type: 'exponential', delay: 1000 },
      removeOnComplete: 1000,
      removeOnFail: 5000,
    },
  });
}

/** A records job holds its batch in Redis: drop it once done (failures keep 100 for a look). */
export async function enqueueRecords(queue: Queue, records: unknown[], source?: string): Promise<Job> {
  return queue.add('records', { records, ...(source ? { source } : {}) } satisfies RecordsJob, {
    removeOnComplete: true,
    removeOnFail: 100,
  });
}

/**
 * Waits while the worker is `maxWaiting` batches behind, so a large file is not parked in
 * Redis memory all at once.
 */
export async function waitForRoom(queue: Queue, maxWaiting = 20): Promise<void> {
  while ((await queue.getWaitingCount()) > maxWaiting)
    await new Promise((resolve) => setTimeout(resolve, 250));
}

export function rebuildSetKey(redisPrefix: string): string {
  return `${redisPrefix}indexer:rebuild-pending`;
}

/**
 * Company rebuilds are deduplicated through a Redis set of corporateNumbers (a company changed
 * a hundred times is in it once) drained by one `rebuild` job at a time, 1,000 companies per
 * round (../rebuild.ts, `rebuildChunkSize`). The job is deduplicated too (keepLastIfActive): changes during the
 * delay fold into the pending job, and a change that lands while a drain runs leaves exactly
 * one more drain behind it, so none is lost.
 */
export async function scheduleRebuilds(
  queue: Queue,
  redis: Redis,
  redisPrefix: string,
  corporateNumbers: Iterable<string>,
): Promise<void> {
  const all = [...corporateNumbers];
  if (all.length === 0) return;
  for (let i = 0; i < all.length; i += 1000)
    await redis.sadd(rebuildSetKey(redisPrefix), ...all.slice(i, i + 1000));
  await queue.add(
    'rebuild',
    {},
    {
      delay: rebuildDelayMs,
      deduplication: { id: 'rebuild', keepLastIfActive: true },
      removeOnComplete: true,
      removeOnFail: 100,
    },
  );
}

/** The nightly roll-off, 03:00 JST. */
export async function scheduleRollOff(queue: Queue): Promise<void> {
  await queue.upsertJobScheduler(
    rollOffScheduleId,
    { pattern: '0 3 * * *', tz: 'Asia/Tokyo' },
    { name: 'rolloff' },
  );
}
