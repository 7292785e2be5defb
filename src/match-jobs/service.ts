/**
 * What the API needs of match jobs: the state store, the queue the worker reads, the folder
 * of the files (MATCH_JOBS_DIR). Built by src/services.ts when Redis is configured. Without
 * REDIS_URL (single-process mode), `npm start` gives the jobs a redis-server of their own and
 * a worker in the API's process (./in-process.ts); with neither, the routes answer 503.
 */
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { CreditLedger } from '../limits/credit-ledger.js';
import type { Engine } from '../opensearch/engine.js';
import { connectRedis } from '../redis.js';
import { MatchJobStore } from './job-store.js';
import { type MatchJobMessage, matchJobQueue } from './queue.js';

export interface MatchJobs {
  store: MatchJobStore;
  /** The jobs' store: the API's own Redis, or (`npm start` without REDIS_URL) the jobs' redis-server. */
  redis: Redis;
  queue: Queue<MatchJobMessage>;
  root: string;
  maxRows: number;
  close(): Promise<void>;
}

/** What a worker in the API's process shares with it (./in-process.ts). */
export interface InProcessDeps {
  config: Config;
  opensearch: Engine;
  logger: Logger;
  ledger: CreditLedger;
  price: number;
}

export function createMatchJobs(
  redis: Redis,
  redisUrl: string,
  config: Pick<Config, 'redisPrefix' | 'matchJobs'>,
): MatchJobs {
  // BullMQ blocks on its connection: one of its own, never giving up on a command
  const connection = connectRedis(redisUrl, { maxRetriesPerRequest: null });
  connection.on('error', () => {});
  const queue = matchJobQueue(connection, config.redisPrefix);
  return {
    store: new MatchJobStore(redis, config.redisPrefix),
    redis,
    queue,
    root: config.matchJobs.dir,
    maxRows: config.matchJobs.maxRows,
    async close() {
      await queue.close();
      connection.disconnect();
    },
  };
}
