/**
 * Inside the webhook thread (./thread.ts): lowers the thread's CPU priority to WEBHOOK_NICE,
 * opens its Redis connections, runs the dispatcher and the deliveries (./worker.ts), says
 * `ready`, and on `close` lets the deliveries in flight finish and says `closed`.
 */
import os from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { createLogger, endLogs } from '../logger.js';
import { connectRedis, createRedis } from '../redis.js';
import { currentThreadId, lowerThreadPriority, type ThreadPriority } from './cpu-priority.js';
import type { ThreadReport, WebhookThreadOptions } from './thread.js';
import { startWebhookWorker } from './worker.js';

const options = workerData as WebhookThreadOptions;
const port = parentPort;
if (!port) throw new Error('src/webhooks/thread-main.ts runs as a worker thread (./thread.ts)');
const logger = createLogger(options.logLevel);
// first thing: the work below runs on this thread at the lowered priority (libuv's pool and
// V8's helper threads are the process's, shared, and keep its priority); a host that refuses
// it (a sandbox without setpriority) leaves the deliveries at the process's
let priority: ThreadPriority | null;
try {
  priority = lowerThreadPriority(options.config.nice);
} catch (error) {
  logger.warn({ err: { message: (error as Error).message } }, 'webhook thread priority left as it is');
  const threadId = currentThreadId();
  priority = threadId === null ? null : { threadId, nice: os.getPriority(threadId) };
}
// BullMQ's blocking connection retries without limit; the store's fails fast (createRedis)
const connection = connectRedis(options.redisUrl, { maxRetriesPerRequest: null });
const redis = createRedis(options.redisUrl);
redis.on('error', (error) => logger.warn({ err: { message: error.message } }, 'redis connection error'));
// the store queues no command while it connects: the dispatcher's first round waits for it (5 s
// at most; a Redis still away then fails rounds, each retried, as it would later)
await new Promise<void>((resolve) => {
  if (redis.status === 'ready') resolve();
  redis.once('ready', () => resolve());
  setTimeout(resolve, 5000).unref();
});
const webhooks = startWebhookWorker({
  connection,
  redis,
  redisPrefix: options.redisPrefix,
  config: options.config,
  logger,
});
port.on('message', async (message: unknown) => {
  if (message !== 'close') return;
  try {
    await webhooks.close();
  } catch (error) {
    logger.warn({ err: { message: (error as Error).message } }, 'webhook thread: closing failed');
  }
  redis.disconnect();
  connection.disconnect();
  // pino writes asynchronously: the thread's last lines out before it ends
  await endLogs(logger);
  port.postMessage({ closed: true } satisfies ThreadReport);
  port.close();
});
port.postMessage({ ready: priority } satisfies ThreadReport);
