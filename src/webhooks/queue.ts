/**
 * The webhook deliveries' BullMQ queue, `<REDIS_PREFIX>bull:webhooks:*` beside the indexer's
 * and the match jobs': one message per event and webhook, its id `<webhookId>.<change id>`, so
 * queuing the same change twice (two dispatchers, a dispatcher restarted before it moved its
 * cursor) delivers it once while the message is kept (a day after delivery).
 *
 * Retries follow the schedule of `retrySchedule`: the first after WEBHOOK_RETRY_FIRST_MS
 * (30 s), each next one twice as late up to WEBHOOK_RETRY_MAX_DELAY_MS (15 min), as many as fit
 * in WEBHOOK_RETRY_FOR_SECONDS (26 h), each delay ±10 % so a receiver back from an outage is
 * not met by every retry at once. A message that used them all stays in the queue's failed set:
 * the dead letters (`npm run webhooks -- dead-letters`, `replay`).
 */
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { WebhookEventType } from './store.js';

export const webhookQueueName = 'webhooks';

/** What a receiver gets as the request body (docs/webhooks.md, "Events"). */
export interface WebhookEvent {
  id: string;
  type: WebhookEventType;
  /** when the indexer found the change */
  createdAt: string;
  savedSearchId: string;
  data: {
    /** job.*: the posting */
    jobId?: string;
    /** the company (of the posting, for job.*) */
    corporateNumber: string;
    /** the change's cursor in GET /saved-searches/{id}/changes */
    cursor: string;
    /** *.changed: the watched fields whose values changed */
    fields?: string[];
  };
}

export interface WebhookMessage {
  webhookId: string;
  event: WebhookEvent;
}

export interface RetrySchedule {
  firstMs: number;
  maxDelayMs: number;
  /** attempts are made until at least this long after the first one */
  forMs: number;
}

/** The delay before attempt `attemptsMade + 1`, without jitter. */
export function retryDelay(schedule: RetrySchedule, attemptsMade: number): number {
  return Math.min(schedule.maxDelayMs, schedule.firstMs * 2 ** Math.max(0, attemptsMade - 1));
}

/** Attempts in all: the first, then retries until their delays add up to `forMs`. */
export function attemptsFor(schedule: RetrySchedule): number {
  let attempts = 1;
  let waited = 0;
  while (waited < schedule.forMs) {
    waited += retryDelay(schedule, attempts);
    attempts += 1;
  }
  return attempts;
}

/** BullMQ's `backoffStrategy` for the schedule: ±10 % around `retryDelay`. */
export function backoffStrategy(
  schedule: RetrySchedule,
  random = Math.random,
): (attemptsMade: number) => number {
  return (attemptsMade) => Math.round(retryDelay(schedule, attemptsMade) * (0.9 + 0.2 * random()));
}

const dayMs = 24 * 60 * 60 * 1000;

export function webhookQueue(
  connection: Redis,
  redisPrefix: string,
  schedule: RetrySchedule,
): Queue<WebhookMessage> {
  return new Queue<WebhookMessage>(webhookQueueName, {
    connection,
    prefix: `${redisPrefix}bull`,
    defaultJobOptions: {
      attempts: attemptsFor(schedule),
      backoff: { type: 'schedule' },
      // kept a day: a change queued again meanwhile finds its message and is not sent twice
      removeOnComplete: { age: dayMs / 1000 },
      // the dead letters, until replayed or the newest 100,000 push them out
      removeOnFail: { count: 100_000 },
    },
  });
}

/** The message id of a change for a webhook (BullMQ ids cannot hold ':'). */
export function messageId(webhookId: string, cursor: string): string {
  return `${webhookId}.${cursor}`;
}
