/**
 * The webhook deliveries, run by `npm run worker` (indexer/bin/worker.ts) beside the indexer's
 * and the match jobs' workers: the dispatcher (./dispatcher.ts) queues, this sends. Each
 * message is one event for one webhook: signed with the webhook's secrets at the attempt's
 * time (./signature.ts), sent (./send.ts), logged (the webhook's delivery log, its last 1,000
 * attempts), and on anything but a 2xx retried on the schedule of ./queue.ts. A message of a
 * deleted webhook is dropped. A 410 Gone disables the webhook (./store.ts, `disable`): that
 * message and those queued after it are dead letters at once, and nothing more is queued. A worker killed mid-attempt loses nothing: BullMQ's stalled-job
 * check hands the message to another worker after about WEBHOOK_STALL_SECONDS, which sends the
 * same event (same id) again.
 *
 *   const webhooks = startWebhookWorker({ connection, redis, redisPrefix, config, logger })
 *   await webhooks.close()
 */
import { UnrecoverableError, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { type Dispatcher, startDispatcher } from './dispatcher.js';
import {
  backoffStrategy,
  type RetrySchedule,
  type WebhookMessage,
  webhookQueue,
  webhookQueueName,
} from './queue.js';
import { WebhookSender } from './send.js';
import { signatureHeader, signatureHeaderName } from './signature.js';
import { type DeliveryLogEntry, WebhookStore } from './store.js';

export type WebhookConfig = Config['webhooks'];

/** The failure of a message whose webhook a 410 Gone disabled. */
const disabledError = 'gone: the receiver answered 410, the webhook is disabled';

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
  const stallMs = config.stallSeconds * 1000;
  const worker = new Worker<WebhookMessage>(
    webhookQueueName,
    async (message) => {
      const { webhookId, event } = message.data;
      const now = new Date();
      const loaded = await store.loadForDelivery(webhookId, now);
      if (!loaded) return 'dropped: the webhook was deleted';
      const { webhook, secrets } = loaded;
      // queued before its receiver answered 410: kept as a dead letter, not sent
      if (webhook.disabledAt) throw new UnrecoverableError(disabledError);
      const body = JSON.stringify(event);
      const attempt = message.attemptsMade + 1;
      const result = await sender.send(webhook.url, body, {
        [signatureHeaderName]: signatureHeader(body, secrets, now),
        'corpsearch-event-id': event.id,
        'corpsearch-event-type': event.type,
        'corpsearch-delivery-attempt': String(attempt),
      });
      const gone = result.statusCode === 410;
      const last = gone || attempt >= (message.opts.attempts ?? 1);
      const entry: DeliveryLogEntry = {
        eventId: event.id,
        eventType: event.type,
        attempt,
        outcome: result.ok ? 'delivered' : last ? 'gave up' : 'failed',
        statusCode: result.statusCode,
        error: gone ? disabledError : result.error,
        at: now.toISOString(),
        durationMs: result.durationMs,
      };
      await store.logAttempt(webhookId, entry);
      if (gone) {
        // the receiver says it is gone for good: no retry, nothing more sent (docs/webhooks.md)
        await store.disable(webhookId, 'the receiver answered 410 Gone', now);
        throw new UnrecoverableError(disabledError);
      }
      if (!result.ok) throw new Error(result.error ?? 'not delivered');
      return 'delivered';
    },
    {
      connection: options.connection,
      prefix: `${redisPrefix}bull`,
      concurrency: config.concurrency,
      settings: { backoffStrategy: backoffStrategy(schedule) },
      lockDuration: stallMs,
      stalledInterval: Math.max(500, Math.floor(stallMs / 2)),
      // a message whose worker was killed is sent again, however often that happens
      maxStalledCount: 1000,
    },
  );
  worker.on('failed', (message, error) => {
    if (!message) return;
    const last = message.attemptsMade >= (message.opts.attempts ?? 1) || error.message === disabledError;
    if (last)
      logger.warn(
        { webhookId: message.data.webhookId, eventId: message.data.event.id, attempts: message.attemptsMade },
        'webhook delivery gave up; a dead letter (npm run webhooks -- dead-letters)',
      );
    else if (error.message === 'refused address')
      logger.warn({ webhookId: message.data.webhookId }, 'webhook URL resolves to a refused address');
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
