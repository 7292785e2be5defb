/**
 * The API's Redis connection (keys, rate limits, credits, Idempotency-Key records): built
 * here for the server (src/services.ts) and the keys CLI alike. The indexer's BullMQ
 * connection has other needs (indexer/queue.ts).
 */
import { Redis } from 'ioredis';

export function createRedis(url: string): Redis {
  return new Redis(url, {
    // fail fast instead of queueing commands while Redis is away (searches fail closed)
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2000,
    commandTimeout: 2000,
    retryStrategy: (times) => Math.min(times * 200, 2000),
  });
}
