/**
 * The webhook deliveries, run by `npm run worker` (indexer/bin/worker.ts) beside the indexer's
 * and the match jobs' workers: the dispatcher (./dispatcher.ts) queues, ./deliver.ts sends. A
 * message holds one event for one webhook, or a group of a dispatcher round's events of several
 * webhooks (up to 100). Each event is signed with its webhook's secrets at the attempt's time
 * (./signature.ts), sent (./send.ts) and logged (the webhook's delivery log, its last 1,000
 * attempts); an event of a group that was not delivered is queued alone, and a message of one
 * event is retried on anything but a 2xx on the schedule of ./queue.ts. A group costs the queue
 * two script calls instead of two per event (three quarters of Redis's work per event before;
 * docs/bench.md, "Webhook deliveries in groups"). A message of a deleted webhook is dropped. A
 * 410 Gone disables the webhook (./store.ts, `disable`): that event and those queued after it
 * are dead letters at once, and nothing more is queued. A worker killed mid-attempt loses
 * nothing: BullMQ's stalled-job check hands the message to another worker after about
 * WEBHOOK_STALL_SECONDS, which sends its events (same ids) again.
 *
 *   const webhooks = startWebhookWorker({ connection, redis, redisPrefix, config, logger })
 *   await webhooks.close()
 */
import { Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { Deliveries } from './deliver.js';
import { type Dispatcher, startDispatcher } from './dispatcher.js';
import {
  attemptsBeforeOf,
  backoffStrategy,
  deliveriesOf,
  type RetrySchedule,
  type WebhookMessage,
  webhookQueue,
  webhookQueueName,
} from './queue.js';
import { WebhookSender } from './send.js';
import { WebhookStore } from './store.js';

export type WebhookConfig = Config['webhooks'];

export function retryScheduleOf(config: WebhookConfig): RetrySchedule {
  return {
    firstMs: config.retryFirstMs,
    maxDelayMs: config.retryMaxDelayMs,
    forMs: config.retryForSeconds * 1000,
  };
}

export interface WebhookWorkerOptions {
  /** BullMQ's blocking connection (maxRetriesPerRequest: null) */
  connection: Redis;
  /** the store's connection */
  redis: Redis;
  redisPrefix: string;
  config: WebhookConfig;
  logger: Logger;
}

export interface WebhookWorker {
  worker: Worker<WebhookMessage>;
  dispatcher: Dispatcher;
  close(): Promise<void>;
}

export function startWebhookWorker(options: WebhookWorkerOptions): WebhookWorker {
  const { config, logger, redis, redisPrefix } = options;
  const store = new WebhookStore(redis, redisPrefix);
  const schedule = retryScheduleOf(config);
  const sender = new WebhookSender({
    policy: { allowLoopback: config.allowLoopback },
    timeoutMs: config.timeoutMs,
    maxResponseBytes: 64 * 1024,
  });
  const queue = webhookQueue(options.connection, redisPrefix, schedule);
  const deliveries = new Deliveries({ store, sender, queue, schedule, concurrency: config.concurrency });
  const stallMs = config.stallSeconds * 1000;
  const worker = new Worker<WebhookMessage>(webhookQueueName, (message) => deliveries.handle(message), {
    connection: options.connection,
    prefix: `${redisPrefix}bull`,
    concurrency: config.concurrency,
    settings: { backoffStrategy: backoffStrategy(schedule) },
    lockDuration: stallMs,
    stalledInterval: Math.max(500, Math.floor(stallMs / 2)),
    // a message whose worker was killed is sent again, however often that happens
    maxStalledCount: 1000,
  });
  worker.on('failed', (message, error) => {
    if (!message) return;
    // the schedule's last attempt, and a 410, fail for good (UnrecoverableError)
    const last = message.attemptsMade >= (message.opts.attempts ?? 1) || error.name === 'UnrecoverableError';
    if (last)
      logger.warn(
        {
          webhookId: deliveriesOf(message.data)[0]?.webhookId,
          eventId: deliveriesOf(message.data)[0]?.event.id,
          attempts: attemptsBeforeOf(message.data) + message.attemptsMade,
        },
        'webhook delivery gave up; a dead letter (npm run webhooks -- dead-letters)',
      );
    else if (error.message === 'refused address')
      logger.warn(
        { webhookId: deliveriesOf(message.data)[0]?.webhookId },
        'webhook URL resolves to a refused address',
      );
  });
  worker.on('error', (error) => logger.warn({ err: { message: error.message } }, 'webhook worker error'));
  const dispatcher = startDispatcher({
    redis,
    queue,
    store,
    prefix: redisPrefix,
    intervalMs: config.dispatchIntervalMs,
    logger,
  });
  return {
    worker,
    dispatcher,
    async close() {
      await dispatcher.stop();
      await worker.close();
      await queue.close();
      await sender.close();
    },
  };
}
