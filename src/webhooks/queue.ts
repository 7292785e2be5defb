/**
 * The webhook deliveries' BullMQ queue, `<REDIS_PREFIX>bull:webhooks:*` beside the indexer's
 * and the match jobs'. The dispatcher queues a round's changes in groups of up to 100 events
 * (several webhooks', its id `group.<digest of the events' ids>`; one change alone,
 * `<webhookId>.<change id>`), and an event of a group that was not delivered is retried as a
 * message of its own, with the second id. Queuing the same changes twice (two dispatchers, a
 * dispatcher restarted before it moved its cursor, reading the same changes) delivers them once
 * while the message is kept (a day after delivery); a round that read more or other changes the
 * second time makes other groups, and their events may reach a receiver twice, each with its
 * one id.
 *
 * Retries follow the schedule of `retrySchedule`: the first after WEBHOOK_RETRY_FIRST_MS
 * (30 s), each next one twice as late up to WEBHOOK_RETRY_MAX_DELAY_MS (15 min), as many as fit
 * in WEBHOOK_RETRY_FOR_SECONDS (26 h), each delay ±10 % so a receiver back from an outage is
 * not met by every retry at once. A message that used them all stays in the queue's failed set:
 * the dead letters (`npm run webhooks -- dead-letters`, `replay`).
 */
import { createHash } from 'node:crypto';
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

/** One event for one webhook. */
export interface WebhookDelivery {
  webhookId: string;
  event: WebhookEvent;
}

/**
 * A message: one event for one webhook (`attemptsBefore`: the attempts it made in a group before
 * it was queued alone to be retried; the schedule and the attempts' numbers go on from them), or
 * a group of events of one dispatcher round (`deliveries`: up to 100, several webhooks', each
 * webhook's in the order of its stream).
 */
export type WebhookMessage =
  | (WebhookDelivery & { attemptsBefore?: number })
  | { deliveries: WebhookDelivery[] };

/** The events of a message, each with its webhook, in order. */
export function deliveriesOf(message: WebhookMessage): WebhookDelivery[] {
  return 'deliveries' in message
    ? message.deliveries
    : [{ webhookId: message.webhookId, event: message.event }];
}

/** Attempts an event made before its message (in a group, before it was queued alone). */
export function attemptsBeforeOf(message: WebhookMessage): number {
  return 'deliveries' in message ? 0 : (message.attemptsBefore ?? 0);
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

/**
 * BullMQ's `backoffStrategy` for the schedule: ±10 % around `retryDelay`, counting the attempts
 * a message's event made before it was queued alone (`attemptsBefore`).
 */
export function backoffStrategy(
  schedule: RetrySchedule,
  random = Math.random,
): (attemptsMade: number, type?: string, error?: Error, job?: { data?: unknown }) => number {
  return (attemptsMade, _type, _error, job) => {
    const before = job?.data ? attemptsBeforeOf(job.data as WebhookMessage) : 0;
    return Math.round(retryDelay(schedule, before + attemptsMade) * (0.9 + 0.2 * random()));
  };
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

/**
 * The message id of a group of deliveries: a digest of their message ids, so the same changes
 * read again into the same group are the same message.
 */
export function groupMessageId(deliveries: readonly WebhookDelivery[]): string {
  const [only] = deliveries;
  if (deliveries.length === 1 && only) return messageId(only.webhookId, only.event.data.cursor);
  const digest = createHash('sha256');
  for (const { webhookId, event } of deliveries) digest.update(`${messageId(webhookId, event.data.cursor)},`);
  return `group.${digest.digest('hex').slice(0, 40)}`;
}
