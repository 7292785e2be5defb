/**
 * Everything the rate-limit and credit middleware needs, built once per process from Redis
 * (shared by every API process) or, without REDIS_URL, in this process's memory
 * (single-process mode only; credits then persist in `ledgerFile`).
 */
import type { Redis } from 'ioredis';
import { defaultConfig, type LimitsConfig } from '../config.js';
import type { CreditLedger } from './credit-ledger.js';
import { type ExportSlots, LocalExportSlots, RedisExportSlots } from './export-slots.js';
import { type IdempotencyStore, LocalIdempotencyStore, RedisIdempotencyStore } from './idempotency-store.js';
import { createCreditLedger } from './open-credit-ledger.js';
import { createRateLimiter, type RateLimiter } from './rate-limiter.js';

export interface Limits {
  readonly config: LimitsConfig;
  readonly mode: 'shared' | 'single-process';
  readonly rateLimiter: RateLimiter;
  /** GET /corporates/suggest's own budget (SUGGEST_RATE_LIMIT_PER_SECOND), apart from the searches'. */
  readonly suggestRateLimiter: RateLimiter;
  /** GET /usage and /usage/entries (USAGE_RATE_LIMIT_PER_SECOND): free, a budget of their own. */
  readonly usageRateLimiter: RateLimiter;
  readonly ledger: CreditLedger;
  readonly idempotency: IdempotencyStore;
  /** Running exports per user (EXPORT_MAX_CONCURRENT). */
  readonly exportSlots: ExportSlots;
}

export function createLimits(opts: {
  redis: Redis | undefined;
  keyPrefix: string;
  /** Over the defaults (src/config.ts); the server passes its whole `config.limits`. */
  config?: Partial<LimitsConfig>;
  /** Single-process mode: persist credit balances here (`config.creditsFile`). */
  ledgerFile?: string;
}): Limits {
  const config = { ...defaultConfig().limits, ...opts.config };
  const ttls = {
    doneSeconds: config.idempotencyTtlSeconds,
    pendingSeconds: config.idempotencyPendingTtlSeconds,
  };
  return {
    config,
    mode: opts.redis ? 'shared' : 'single-process',
    rateLimiter: createRateLimiter({
      redis: opts.redis,
      keyPrefix: opts.keyPrefix,
      pointsPerSecond: config.ratePerSecond,
      windowSeconds: config.rateWindowSeconds,
    }),
    suggestRateLimiter: createRateLimiter({
      redis: opts.redis,
      // keys `<prefix>suggest-rate:<user>`, beside the searches' `<prefix>rate:<user>`
      keyPrefix: `${opts.keyPrefix}suggest-`,
      pointsPerSecond: config.suggestRatePerSecond,
      windowSeconds: config.rateWindowSeconds,
    }),
    usageRateLimiter: createRateLimiter({
      redis: opts.redis,
      // keys `<prefix>usage-rate:<user>`
      keyPrefix: `${opts.keyPrefix}usage-`,
      pointsPerSecond: config.usageRatePerSecond,
      windowSeconds: config.rateWindowSeconds,
    }),
    ledger: createCreditLedger({
      redis: opts.redis,
      keyPrefix: opts.keyPrefix,
      reservationTtlSeconds: config.reservationTtlSeconds,
      orphanAfterSeconds: config.reservationOrphanSeconds,
      file: opts.redis ? undefined : opts.ledgerFile,
      waitReplicas: config.waitReplicas,
    }),
    idempotency: opts.redis
      ? new RedisIdempotencyStore(opts.redis, opts.keyPrefix, ttls)
      : new LocalIdempotencyStore(ttls),
    exportSlots: opts.redis
      ? new RedisExportSlots(opts.redis, opts.keyPrefix, config.exportMaxConcurrent)
      : new LocalExportSlots(config.exportMaxConcurrent),
  };
}
