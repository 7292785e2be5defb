/**
 * The dependencies every request handler sees. Built once per process by `createServices`;
 * tests build their own with per-file index and key prefixes.
 */
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { type KeyChanges, RedisKeyChanges } from './auth/key-changes.js';
import { paging } from './catalogue/paging.js';
import type { Config } from './config.js';
import { ledgerIndex, startLedgerFiling } from './limits/ledger-filing.js';
import { createLimits, type Limits } from './limits/limits.js';
import { startOrphanSweeper } from './limits/orphan-sweeper.js';
import { createMatchJobs, type InProcessDeps, type MatchJobs } from './match-jobs/service.js';
import { createEngine, type Engine } from './opensearch/engine.js';
import { createRedis } from './redis.js';
import {
  type BoundaryStore,
  LocalBoundaryStore,
  RedisBoundaryStore,
} from './search/paging/boundary-store.js';
import { type CursorKeys, cursorKeys } from './search/paging/cursor.js';

export interface PagingServices {
  /** Deep offset paging's remembered places (Redis, else this process). */
  boundaries: BoundaryStore;
  /** AES-256-GCM keys of cursor tokens (CURSOR_KEYS or CURSOR_SECRET, else random per process). */
  cursorKeys: CursorKeys;
  /** index.max_result_window: pages within it use from/size. */
  resultWindow: number;
  /** Results a deep page may walk past the nearest boundary. */
  maxWalk: number;
  /**
   * Pages at this offset or deeper are read from a point in time with search_after, even
   * within the result window (src/catalogue/paging.ts). Not a setting; tests lower it.
   */
  walkFrom: number;
}

export interface Services {
  config: Config;
  logger: Logger;
  opensearch: Engine;
  /** Absent in single-process mode (no REDIS_URL). */
  redis: Redis | undefined;
  /** Rate limiter, credit ledger, Idempotency-Key records (src/limits): Redis, else single-process. */
  limits: Limits;
  paging: PagingServices;
  /** Match jobs (src/match-jobs): Redis mode, or single-process mode given a Redis for the jobs. */
  matchJobs?: MatchJobs;
  /** Revocations announced by pub/sub (Redis mode with API_KEY_CACHE_SECONDS > 0): src/auth/key-changes.ts. */
  keyChanges?: KeyChanges;
  close(): Promise<void>;
}

export function createServices(
  config: Config & { opensearchUrl: string },
  logger: Logger,
  options: {
    /** Single-process mode: the match jobs, given what they share with the API (./match-jobs/in-process.ts). */
    matchJobs?: (deps: InProcessDeps) => MatchJobs;
  } = {},
): Services {
  const opensearch = createEngine(config.opensearchUrl, config.opensearchAccess);
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
  // the ledger's tail is filed by the worker in Redis mode; single-process mode files its own
  const filing =
    limits.mode === 'single-process'
      ? startLedgerFiling({
          ledger: limits.ledger,
          opensearch,
          index: ledgerIndex(config.indexPrefix),
          intervalMs: limits.config.ledgerFilingIntervalMs,
          logger,
        })
      : undefined;
  const keyChanges =
    redis && config.apiKeyCacheSeconds > 0 ? new RedisKeyChanges(redis, config.redisPrefix) : undefined;
  const matchJobs =
    redis && config.redisUrl
      ? createMatchJobs(redis, config.redisUrl, config)
      : options.matchJobs?.({
          config,
          opensearch,
          logger,
          ledger: limits.ledger,
          price: limits.config.matchCost,
        });
  return {
    config,
    logger,
    opensearch,
    redis,
    limits,
    paging: createPaging(config, redis),
    ...(matchJobs ? { matchJobs } : {}),
    keyChanges,
    async close() {
      sweeper.stop();
      await filing?.stop();
      await matchJobs?.close();
      keyChanges?.close();
      redis?.disconnect();
      await opensearch.close();
    },
  };
}

export function createPaging(config: Config, redis: Redis | undefined): PagingServices {
  const resultWindow = config.resultWindow ?? paging.resultWindow;
  return {
    boundaries: redis
      ? new RedisBoundaryStore(redis, config.redisPrefix, paging.deepPagingTtlSeconds)
      : new LocalBoundaryStore(paging.deepPagingTtlSeconds),
    cursorKeys: cursorKeys(config.cursorKeys),
    resultWindow,
    maxWalk: (paging.maxWalk / paging.resultWindow) * resultWindow,
    walkFrom: Math.min(paging.walkFrom, resultWindow),
  };
}
