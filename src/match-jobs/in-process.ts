/**
 * Match jobs in single-process mode (no REDIS_URL, `npm start`): the jobs' states and queue on
 * a redis-server of their own, a match-job worker in the API's process. Nothing else is kept in
 * that Redis: credits stay in the process's own ledger, which the worker charges.
 *
 *   createServices(config, logger, { matchJobs: (deps) => createInProcessMatchJobs(url, deps) })
 */
import { connectRedis, createRedis } from '../redis.js';
import { createMatchJobs, type InProcessDeps, type MatchJobs } from './service.js';
import { createMatchJobWorker } from './worker.js';

/** The match jobs on the Redis at `redisUrl`, run by a worker in this process. */
export function createInProcessMatchJobs(redisUrl: string, deps: InProcessDeps): MatchJobs {
  const { config, logger } = deps;
  const redis = createRedis(redisUrl);
  redis.on('error', (error) => logger.warn({ err: { message: error.message } }, 'redis connection error'));
  const jobs = createMatchJobs(redis, redisUrl, config);
  const connection = connectRedis(redisUrl, { maxRetriesPerRequest: null });
  connection.on('error', () => {});
  const worker = createMatchJobWorker({
    connection,
    redisPrefix: config.redisPrefix,
    services: { opensearch: deps.opensearch, logger, config },
    ledger: deps.ledger,
    price: deps.price,
    store: jobs.store,
    root: config.matchJobs.dir,
    logger,
    stallSeconds: config.matchJobs.stallSeconds,
    retentionHours: config.matchJobs.retentionHours,
    chunkRecords: config.matchJobs.chunkRecords,
  });
  return {
    ...jobs,
    async close() {
      await worker.close();
      await jobs.close();
      connection.disconnect();
      redis.disconnect();
    },
  };
}
