/**
 * The dependencies every request handler sees. Built once per process by `createServices`;
 * tests build their own with per-file index and key prefixes.
 */
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import { createLimits, type Limits } from './limits/limits.js';
import { startOrphanSweeper } from './limits/orphan-sweeper.js';
import { createOpenSearchClient, type OpenSearchClient } from './opensearch/client.js';
import { createRedis } from './redis.js';

export interface Services {
  config: Config;
  logger: Logger;
  opensearch: OpenSearchClient;
  /** Absent in single-process mode (no REDIS_URL). */
  redis: Redis | undefined;
  /** Rate limiter, credit ledger, Idempotency-Key records (src/limits): Redis, else single-process. */
  limits: Limits;
  close(): Promise<void>;
}

export function createServices(config: Config & { opensearchUrl: string }, logger: Logger): Services {
  const opensearch = createOpenSearchClient(config.opensearchUrl);
  const redis = config.redisUrl ? createRedis(config.redisUrl) : undefined;
  redis?.on('error', (error) => logger.warn({ err: { message: error.message } }, 'redis connection error'));
  const limits = createLimits({
    redis,
    keyPrefix: config.redisPrefix,
    config: config.limits,
    ledgerFile: config.creditsFile,
  });
  // every API process sweeps: orphans get refunded as long as any one of them runs
  const sweeper = startOrphanSweeper(limits.ledger, limits.config.sweepIntervalSeconds, logger);
  return {
    config,
    logger,
    opensearch,
    redis,
    limits,
    async close() {
      sweeper.stop();
      redis?.disconnect();
      await opensearch.close();
    },
  };
}
