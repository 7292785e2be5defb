/**
 * For the keys CLI (`npm run keys -- credits <user> --grant N`): the ledger the API server
 * uses under the same configuration: Redis at REDIS_URL under REDIS_PREFIX, else the
 * single-process file under .local/. Call `close()` when done.
 *
 *   const { ledger, close } = openCreditLedger(loadConfig());
 *   await ledger.grant('user-1', 100); // -> new balance
 *   await close();
 */
import type { Redis } from 'ioredis';
import { type Config, defaultConfig } from '../config.js';
import { createRedis } from '../redis.js';
import type { CreditLedger } from './credit-ledger.js';
import { LocalCreditLedger } from './local-credit-ledger.js';
import { RedisCreditLedger } from './redis-credit-ledger.js';

export function createCreditLedger(opts: {
  redis: Redis | undefined;
  keyPrefix: string;
  reservationTtlSeconds?: number;
  /** A reservation still open after this long is refunded by the sweep (default 60 s). */
  orphanAfterSeconds?: number;
  /** Single-process mode only: persist balances here (omit for memory only). */
  file?: string;
  /** Redis only: replicas that must have a grant before it is acknowledged (REDIS_WAIT_REPLICAS). */
  waitReplicas?: number;
}): CreditLedger {
  const orphanAfterMs = (opts.orphanAfterSeconds ?? 60) * 1000;
  return opts.redis
    ? new RedisCreditLedger(
        opts.redis,
        opts.keyPrefix,
        opts.reservationTtlSeconds ?? 3600,
        orphanAfterMs,
        opts.waitReplicas ?? 0,
      )
    : new LocalCreditLedger(opts.file, orphanAfterMs);
}

export function openCreditLedger(
  config: Pick<Config, 'redisUrl' | 'redisPrefix'> & Partial<Pick<Config, 'creditsFile' | 'limits'>>,
): {
  ledger: CreditLedger;
  close(): Promise<void>;
} {
  if (!config.redisUrl) {
    return {
      ledger: createCreditLedger({
        redis: undefined,
        keyPrefix: '',
        file: config.creditsFile ?? defaultConfig().creditsFile,
        orphanAfterSeconds: orphanAfterSeconds(config),
      }),
      close: async () => {},
    };
  }
  const redis = createRedis(config.redisUrl);
  redis.on('error', () => {}); // a failing call reports it (LimitsStoreUnavailable)
  const ledger = createCreditLedger({
    redis,
    keyPrefix: config.redisPrefix,
    orphanAfterSeconds: orphanAfterSeconds(config),
    waitReplicas: (config.limits ?? defaultConfig().limits).waitReplicas,
  });
  const ready = untilReady(redis, 5000);
  ready.catch(() => {}); // reported by the first call that waits on it
  return {
    // commands are not queued while connecting (enableOfflineQueue: false): each call waits
    ledger: {
      mode: ledger.mode,
      balance: (userId) => ready.then(() => ledger.balance(userId)),
      grant: (userId, amount) => ready.then(() => ledger.grant(userId, amount)),
      reserve: (userId, cost, id, giveUpAt, tag) =>
        ready.then(() => ledger.reserve(userId, cost, id, giveUpAt, tag)),
      commit: (id) => ready.then(() => ledger.commit(id)),
      refund: (id) => ready.then(() => ledger.refund(id)),
      sweepOrphans: () => ready.then(() => ledger.sweepOrphans()),
      account: (userId) => ready.then(() => ledger.account(userId)),
      settle: (id, cost, rows) => ready.then(() => ledger.settle(id, cost, rows)),
      keepOpen: (id) => ready.then(() => ledger.keepOpen(id)),
      admit: (request) => ready.then(() => ledger.admit(request)),
      tail: (limit) => ready.then(() => ledger.tail(limit)),
      dropTail: (tailIds) => ready.then(() => ledger.dropTail(tailIds)),
      tailLength: () => ready.then(() => ledger.tailLength()),
      users: () => ready.then(() => ledger.users()),
      restoreBalance: (userId, sum) => ready.then(() => ledger.restoreBalance(userId, sum)),
      open: (userId, sum) => ready.then(() => ledger.open(userId, sum)),
    },
    close: async () => {
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}

function orphanAfterSeconds(config: Partial<Pick<Config, 'limits'>>): number {
  return (config.limits ?? defaultConfig().limits).reservationOrphanSeconds;
}

async function untilReady(redis: Redis, timeoutMs: number): Promise<void> {
  if (redis.status === 'ready') return;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`Redis did not answer within ${timeoutMs} ms`)),
      timeoutMs,
    );
    redis.once('ready', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}
