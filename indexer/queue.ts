/**
 * The indexer's BullMQ queue. Job kinds:
 *   records  {records: SourceRecord-like[], source?}  a batch from the ingestion pipeline
 *   rebuild  {corporateNumber}                       one company rebuild (deduplicated)
 *   rolloff  {}                                       nightly (repeatable) removal of old texts
 * Keys live under `<REDIS_PREFIX>bull:indexer:*`.
 */
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';

export const queueName = 'indexer';
/** A posting change waits this long, so a burst of changes to one company costs one rebuild. */
export const rebuildDelayMs = 1000;
export const rollOffScheduleId = 'nightly-rolloff';

export interface RecordsJob {
  records: unknown[];
  source?: string;
}

export interface RebuildJob {
  corporateNumber: string;
}

export function bullPrefix(redisPrefix: string): string {
  return `${redisPrefix}bull`;
}

/** BullMQ blocks on Redis, so its connections must not give up on a command (maxRetriesPerRequest null). */
export function createQueueConnection(url: string): Redis {
  return new Redis(url, { maxRetriesPerRequest: null });
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

export async function enqueueRecords(queue: Queue, records: unknown[], source?: string): Promise<void> {
  await queue.add('records', { records, ...(source ? { source } : {}) } satisfies RecordsJob);
}

/**
 * One rebuild per company however many changes arrive: BullMQ deduplication by
 * corporateNumber. While a rebuild runs, one more is kept (keepLastIfActive), so a change
 * that lands during a rebuild is never lost.
 */
export async function scheduleRebuilds(queue: Queue, corporateNumbers: Iterable<string>): Promise<void> {
  const all = [...corporateNumbers];
  for (let i = 0; i < all.length; i += 200) {
    await Promise.all(
      all.slice(i, i + 200).map((corporateNumber) =>
        queue.add('rebuild', { corporateNumber } satisfies RebuildJob, {
          delay: rebuildDelayMs,
          deduplication: { id: `rebuild-${corporateNumber}`, keepLastIfActive: true },
        }),
      ),
    );
  }
}

/** The nightly roll-off, 03:00 JST. */
export async function scheduleRollOff(queue: Queue): Promise<void> {
  await queue.upsertJobScheduler(
    rollOffScheduleId,
    { pattern: '0 3 * * *', tz: 'Asia/Tokyo' },
    { name: 'rolloff' },
  );
}
