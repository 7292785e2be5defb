/**
 * Inside the webhook thread (./thread.ts): lowers the thread's CPU priority to WEBHOOK_NICE,
 * opens its Redis connections, runs the dispatcher and the deliveries (./worker.ts), says
 * `ready`, and on `close` lets the deliveries in flight finish and says `closed`.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { createLogger } from '../logger.js';
import { connectRedis } from '../redis.js';
import { lowerThreadPriority, type ThreadPriority } from './cpu-priority.js';
import type { ThreadReport, WebhookThreadOptions } from './thread.js';
import { startWebhookWorker } from './worker.js';

const options = workerData as WebhookThreadOptions;
const port = parentPort;
if (!port) throw new Error('src/webhooks/thread-main.ts runs as a worker thread (./thread.ts)');
const logger = createLogger(options.logLevel);
// before anything else, so the threads this one starts (libuv's pool) inherit the priority; a
// host that refuses it (a sandbox without setpriority) leaves the deliveries at the process's
let priority: ThreadPriority | null = null;
try {
  priority = lowerThreadPriority(options.config.nice);
} catch (error) {
  logger.warn({ err: { message: (error as Error).message } }, 'webhook thread priority left as it is');
}
// BullMQ's blocking connection retries without limit; the store's fails fast
const connection = connectRedis(options.redisUrl, { maxRetriesPerRequest: null });
const redis = connectRedis(options.redisUrl);
redis.on('error', (error) => logger.warn({ err: { message: error.message } }, 'redis connection error'));
const webhooks = startWebhookWorker({
  connection,
  redis,
  redisPrefix: options.redisPrefix,
  config: options.config,
  logger,
});
port.on('message', async (message: unknown) => {
  if (message !== 'close') return;
  await webhooks.close();
  redis.disconnect();
  connection.disconnect();
  port.postMessage({ closed: true } satisfies ThreadReport);
  port.close();
});
port.postMessage({ ready: priority } satisfies ThreadReport);
