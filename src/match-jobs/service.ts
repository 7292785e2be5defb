/**
 * What the API needs of match jobs: the state store, the queue the worker reads, the folder
 * of the files (MATCH_JOBS_DIR). Built by src/services.ts when Redis is configured; without
 * Redis (single-process mode) there is no worker to run a job, and the routes answer 503.
 */
import type { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import type { Config } from '../config.js';
import { MatchJobStore } from './job-store.js';
import { type MatchJobMessage, matchJobQueue } from './queue.js';

export interface MatchJobs {
  store: MatchJobStore;
  queue: Queue<MatchJobMessage>;
  root: string;
  maxRows: number;
  close(): Promise<void>;
}

export function createMatchJobs(
  redis: Redis,
  redisUrl: string,
  config: Pick<Config, 'redisPrefix' | 'matchJobs'>,
): MatchJobs {
  // BullMQ blocks on its connection: one of its own, never giving up on a command
  const connection = new Redis(redisUrl, { maxRetriesPerRequest: null });
  connection.on('error', () => {});
  const queue = matchJobQueue(connection, config.redisPrefix);
  return {
    store: new MatchJobStore(redis, config.redisPrefix),
    queue,
    root: config.matchJobs.dir,
    maxRows: config.matchJobs.maxRows,
    async close() {
      await queue.close();
      connection.disconnect();
    },
  };
}
