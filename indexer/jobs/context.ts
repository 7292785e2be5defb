/**
 * What every job handler of the indexer worker works with (../indexer-worker.ts builds it).
 */
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Engine } from '../../src/opensearch/engine.js';
import type { RetryOptions } from '../../src/opensearch/retry.js';
import type { RedisDeadLetter } from '../dead-letter.js';
import type { Masters } from '../masters.js';

export interface JobContext {
  opensearch: Engine;
  indexPrefix: string;
  /** Commands of the handlers (sets, hashes); not the connection BullMQ blocks on. */
  connection: Redis;
  redisPrefix: string;
  /** For follow-up jobs: rebuilds, deferred records. */
  queue: Queue;
  deadLetter: RedisDeadLetter;
  /** The master lists as every worker currently sees them (shared through Redis). */
  currentMasters(): Promise<Masters>;
  retry?: RetryOptions;
}
