/**
 * For the keys CLI (`npm run keys -- credits <user> --grant N`): the ledger the API server
 * uses under the same configuration: Redis at REDIS_URL under REDIS_PREFIX, else the
 * single-process file under .local/. Call `close()` when done.
 *
 *   const { ledger, close } = await openCreditLedger(loadConfig());
 *   await ledger.grant('user-1', 100); // -> new balance
 *   await close();
 */
import type { Config } from '../config.js';
import { createRedis } from '../services.js';
import { type CreditLedger, createCreditLedger, localLedgerFile } from './credit-ledger.js';

export async function openCreditLedger(config: Pick<Config, 'redisUrl' | 'redisPrefix'>): Promise<{
  ledger: CreditLedger;
  close(): Promise<void>;
}> {
  if (!config.redisUrl) {
    return {
      ledger: createCreditLedger({ redis: undefined, keyPrefix: '', file: localLedgerFile }),
      close: async () => {},
    };
  }
  const redis = createRedis(config.redisUrl);
  redis.on('error', () => {}); // a failing call reports it (LimitsStoreUnavailable)
  // commands are not queued while connecting (enableOfflineQueue: false), so wait for it
  const ready = await new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), 5000);
    redis.once('ready', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
  if (!ready) {
    redis.disconnect();
    throw new Error('Redis at REDIS_URL did not answer within 5 s');
  }
  return {
    ledger: createCreditLedger({ redis, keyPrefix: config.redisPrefix }),
    close: async () => {
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}
