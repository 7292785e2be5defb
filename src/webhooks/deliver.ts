/**
 * Sending a message's events (./worker.ts runs it as the queue's processor): a message of one
 * event is one attempt, retried by the queue on its schedule; a group of a dispatcher round is
 * sent here at once, and each of its events that was not delivered is queued alone (./queue.ts).
 *
 *   const deliveries = new Deliveries({ store, sender, queue, schedule, concurrency: 32 })
 *   await deliveries.handle(message)   // 'delivered', or throws for the queue to retry
 */
import { type Job, type Queue, UnrecoverableError } from 'bullmq';
import {
  attemptsBeforeOf,
  attemptsFor,
  backoffStrategy,
  messageId,
  type RetrySchedule,
  type WebhookDelivery,
  type WebhookEvent,
  type WebhookMessage,
} from './queue.js';
import type { WebhookSender } from './send.js';
import { signatureHeader, signatureHeaderName } from './signature.js';
import type { DeliveryLogEntry, WebhookStore } from './store.js';

/** The failure of a message whose webhook a 410 Gone disabled. */
const disabledError = 'gone: the receiver answered 410, the webhook is disabled';

/**
 * Sends at most `limit` at a time across every message the worker holds (WEBHOOK_CONCURRENCY
 * deliveries in flight, whether a message holds one event or a hundred).
 */
class Slots {
  private free: number;
  private readonly waiting: Array<() => void> = [];

  constructor(limit: number) {
    this.free = Math.max(1, limit);
  }

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.free > 0) this.free -= 1;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await work();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.free += 1;
    }
  }
}

/** Events of one group in flight at once (each still takes one of the worker's slots). */
const inFlightPerMessage = 32;

export interface DeliveriesOptions {
  store: WebhookStore;
  sender: WebhookSender;
  /** where an event of a group that failed is queued alone */
  queue: Queue<WebhookMessage>;
  schedule: RetrySchedule;
  /** deliveries in flight at most (WEBHOOK_CONCURRENCY) */
  concurrency: number;
}

export class Deliveries {
  private readonly store: WebhookStore;
  private readonly sender: WebhookSender;
  private readonly queue: Queue<WebhookMessage>;
  private readonly slots: Slots;
  private readonly attempts: number;
  private readonly retryDelayOf: ReturnType<typeof backoffStrategy>;

  constructor(options: DeliveriesOptions) {
    this.store = options.store;
    this.sender = options.sender;
    this.queue = options.queue;
    this.slots = new Slots(options.concurrency);
    this.attempts = attemptsFor(options.schedule);
    this.retryDelayOf = backoffStrategy(options.schedule);
  }

  /** The queue's processor: what was done, or an error for the queue to retry the message. */
  async handle(message: Job<WebhookMessage>): Promise<string> {
    if ('deliveries' in message.data) return this.deliverGroup(message.data.deliveries);
    const { webhookId, event } = message.data;
    const loaded = await this.store.loadForDelivery(webhookId, new Date());
    if (!loaded) return 'dropped: the webhook was deleted';
    const { webhook, secrets } = loaded;
    // queued before its receiver answered 410: kept as a dead letter, not sent
    if (webhook.disabledAt) throw new UnrecoverableError(disabledError);
    // numbered on from the attempts it made in a group; the schedule's last attempt ends it
    const number = attemptsBeforeOf(message.data) + message.attemptsMade + 1;
    const last = number >= this.attempts;
    const sent = await this.attempt(webhook.url, secrets, event, number, last);
    await this.store.logAttempt(webhookId, sent.entry);
    if (sent.gone) {
      // the receiver says it is gone for good: no retry, nothing more sent (docs/webhooks.md)
      await this.store.disable(webhookId, 'the receiver answered 410 Gone', new Date(sent.entry.at));
      throw new UnrecoverableError(disabledError);
    }
    if (!sent.ok) {
      const reason = sent.error ?? 'not delivered';
      throw last ? new UnrecoverableError(reason) : new Error(reason);
    }
    return 'delivered';
  }

  /** One attempt of one event: signed at the attempt's time, sent, and its log entry. */
  private async attempt(
    url: string,
    secrets: string[],
    event: WebhookEvent,
    number: number,
    last: boolean,
  ): Promise<{ entry: DeliveryLogEntry; ok: boolean; gone: boolean; error: string | null }> {
    const body = JSON.stringify(event);
    // signed when a slot is free, so the timestamp is the sending's, however long it waited
    let now = new Date();
    const result = await this.slots.run(() => {
      now = new Date();
      return this.sender.send(url, body, {
        [signatureHeaderName]: signatureHeader(body, secrets, now),
        'corpsearch-event-id': event.id,
        'corpsearch-event-type': event.type,
        'corpsearch-delivery-attempt': String(number),
      });
    });
    const gone = result.statusCode === 410;
    const entry: DeliveryLogEntry = {
      eventId: event.id,
      eventType: event.type,
      attempt: number,
      outcome: result.ok ? 'delivered' : gone || last ? 'gave up' : 'failed',
      statusCode: result.statusCode,
      error: gone ? disabledError : result.error,
      at: now.toISOString(),
      durationMs: result.durationMs,
    };
    return { entry, ok: result.ok, gone, error: result.error };
  }

  /** Events queued as messages of their own, each retried on the schedule from `attemptsBefore`. */
  private async queueAlone(alone: Array<WebhookDelivery & { attemptsBefore: number }>): Promise<void> {
    if (alone.length === 0) return;
    await this.queue.addBulk(
      alone.map(({ webhookId, event, attemptsBefore }) => ({
        name: event.type,
        data: { webhookId, event, attemptsBefore },
        opts: {
          jobId: messageId(webhookId, event.data.cursor),
          ...(attemptsBefore > 0 ? { delay: this.retryDelayOf(attemptsBefore) } : {}),
        },
      })),
    );
  }

  /**
   * A group of a dispatcher round: the webhooks read in one round trip, each event sent once
   * here (a few at a time, each webhook's in order), the log entries written in one round trip;
   * each event that failed is queued alone to be retried on the schedule (its first attempt
   * made). A 410 Gone disables its webhook: that event and the webhook's not yet sent are queued
   * alone and become dead letters there, as any message of a disabled webhook. A worker killed
   * midway leaves the message to another (the stalled check), which sends its events again, with
   * their ids.
   */
  private async deliverGroup(deliveries: WebhookDelivery[]): Promise<string> {
    const loaded = await this.store.loadManyForDelivery(
      deliveries.map((delivery) => delivery.webhookId),
      new Date(),
    );
    const logs = new Map<string, Array<DeliveryLogEntry | undefined>>();
    const alone: Array<WebhookDelivery & { attemptsBefore: number }> = [];
    const gone = new Set<string>();
    let next = 0;
    let delivered = 0;
    const lane = async () => {
      while (next < deliveries.length) {
        const delivery = deliveries[next] as WebhookDelivery;
        next += 1;
        const state = loaded.get(delivery.webhookId);
        // deleted: dropped; disabled (now or by a 410 in this group): a dead letter, alone
        if (!state) continue;
        if (state.webhook.disabledAt || gone.has(delivery.webhookId)) {
          alone.push({ ...delivery, attemptsBefore: 0 });
          continue;
        }
        // the log keeps a webhook's attempts in the order they were started
        const log = logs.get(delivery.webhookId) ?? [];
        logs.set(delivery.webhookId, log);
        const at = log.push(undefined) - 1;
        const sent = await this.attempt(
          state.webhook.url,
          state.secrets,
          delivery.event,
          1,
          this.attempts <= 1,
        );
        log[at] = sent.entry;
        if (sent.ok) delivered += 1;
        else if (sent.gone) {
          // at once, so that no other message sends to it meanwhile
          if (!gone.has(delivery.webhookId)) {
            gone.add(delivery.webhookId);
            await this.store.disable(delivery.webhookId, 'the receiver answered 410 Gone', new Date());
          }
          alone.push({ ...delivery, attemptsBefore: 0 });
        } else alone.push({ ...delivery, attemptsBefore: 1 });
      }
    };
    await Promise.all(Array.from({ length: Math.min(inFlightPerMessage, deliveries.length) }, lane));
    await this.store.logAttempts(
      new Map(
        [...logs].map(([webhookId, log]) => [
          webhookId,
          log.filter((entry): entry is DeliveryLogEntry => entry !== undefined),
        ]),
      ),
    );
    await this.queueAlone(alone);
    return `delivered ${delivered} of ${deliveries.length}`;
  }
}
