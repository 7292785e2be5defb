/**
 * From the saved searches' change streams to the webhook queue. The indexer's membership
 * script (src/saved-searches/membership.ts) marks a saved search that has webhooks and a new
 * change (`<prefix>ss-dirty`); the dispatcher takes the marked ones every
 * WEBHOOK_DISPATCH_INTERVAL_MS and, for each of their webhooks, queues one message per change
 * after the webhook's cursor (of the event types it takes), then moves the cursor. Every 60th
 * round it sweeps every webhook the same way, which catches a mark taken by a dispatcher that
 * died before queuing. A change queued twice has the same message id (./queue.ts): one delivery.
 *
 *   const dispatcher = startDispatcher({ redis, queue, store, prefix, intervalMs: 500, logger })
 *   await dispatcher.dispatchAll()   // what a round does, at once (tests)
 *   await dispatcher.stop()
 */
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { replayDeadLetters } from './dead-letters.js';
import { messageId, type WebhookEvent, type WebhookMessage } from './queue.js';
import type { WebhookEventType, WebhookStore } from './store.js';

const batch = 500;
const sweepEveryRounds = 60;

export interface DispatcherOptions {
  redis: Redis;
  queue: Queue<WebhookMessage>;
  store: WebhookStore;
  prefix: string;
  intervalMs: number;
  logger: Logger;
}

export interface Dispatcher {
  /** Queues the new changes of the marked saved searches' webhooks; the messages queued. */
  dispatchMarked(): Promise<number>;
  /** Queues the new changes of every webhook; the messages queued. */
  dispatchAll(): Promise<number>;
  /**
   * For each webhook enabled again since the last round: its dead letters queued again (the
   * changes refused while it was disabled, with their event ids), then its changes after its
   * cursor; the messages queued.
   */
  resumeEnabled(): Promise<number>;
  stop(): Promise<void>;
}

/** The event of a change stream entry. */
export function eventOf(savedSearchId: string, cursor: string, flat: string[]): WebhookEvent {
  const values = new Map<string, string>();
  for (let i = 0; i + 1 < flat.length; i += 2) values.set(flat[i] as string, flat[i + 1] as string);
  const fields = values.get('fields');
  const jobId = values.get('jobId');
  return {
    id: `evt_${savedSearchId.slice(3)}_${cursor}`,
    type: `${jobId ? 'job' : 'company'}.${values.get('type')}` as WebhookEventType,
    createdAt: values.get('at') ?? '',
    savedSearchId,
    data: {
      ...(jobId ? { jobId } : {}),
      corporateNumber: values.get('corporateNumber') ?? '',
      cursor,
      ...(fields ? { fields: JSON.parse(fields) as string[] } : {}),
    },
  };
}

export function startDispatcher(options: DispatcherOptions): Dispatcher {
  const { redis, queue, store, prefix, logger } = options;

  async function dispatchWebhook(webhookId: string): Promise<number> {
    const webhook = await store.load(webhookId);
    // a disabled one (its receiver answered 410) is queued nothing; its cursor stays
    if (!webhook || webhook.disabledAt) return 0;
    const stream = `${prefix}ss-changes:${webhook.savedSearchId}`;
    let cursor = (await redis.get(store.cursorKey(webhookId))) ?? '0-0';
    let queued = 0;
    for (;;) {
      const entries = await redis.xrange(stream, `(${cursor}`, '+', 'COUNT', batch);
      if (entries.length === 0) return queued;
      const messages = entries
        .map(([id, flat]) => eventOf(webhook.savedSearchId, id, flat))
        .filter((event) => webhook.events.includes(event.type))
        .map((event) => ({
          name: event.type,
          data: { webhookId, event },
          opts: { jobId: messageId(webhookId, event.data.cursor) },
        }));
      if (messages.length > 0) await queue.addBulk(messages);
      queued += messages.length;
      cursor = entries.at(-1)?.[0] as string;
      // only after the messages are queued: a crash before this queues them again, same ids
      await redis.set(store.cursorKey(webhookId), cursor, 'XX');
      if (entries.length < batch) return queued;
    }
  }

  async function dispatchSearches(savedSearchIds: readonly string[]): Promise<number> {
    let queued = 0;
    for (const savedSearchId of savedSearchIds)
      for (const webhookId of await store.onSavedSearch(savedSearchId))
        queued += await dispatchWebhook(webhookId);
    return queued;
  }

  const dispatcher = {
    async dispatchMarked() {
      const marked = (await redis.spop(`${prefix}ss-dirty`, 1000)) as string[];
      return marked.length === 0 ? 0 : dispatchSearches(marked);
    },
    async dispatchAll() {
      let queued = 0;
      for (const webhookId of await redis.smembers(store.allSet)) queued += await dispatchWebhook(webhookId);
      return queued;
    },
    async resumeEnabled() {
      // each mark is removed once its webhook is resumed: a round that fails midway leaves the
      // rest for the next (a replay and a dispatch done twice queue the same message ids)
      const enabled = await redis.srandmember(store.enabledSet, 100);
      let queued = 0;
      for (const webhookId of enabled) {
        queued += await replayDeadLetters(queue, { webhookId });
        queued += await dispatchWebhook(webhookId);
        await redis.srem(store.enabledSet, webhookId);
      }
      return queued;
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };

  let stopped = false;
  let round = 0;
  let running: Promise<unknown> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  const tick = () => {
    if (stopped) return;
    round += 1;
    const dispatch = () =>
      round % sweepEveryRounds === 1 ? dispatcher.dispatchAll() : dispatcher.dispatchMarked();
    const work = dispatcher.resumeEnabled().then(dispatch);
    running = work
      .catch((error: Error) =>
        // Redis away: the marks and cursors are where they were; the next round goes on
        logger.warn({ err: { message: error.message } }, 'webhook dispatch failed; retried next round'),
      )
      .finally(() => {
        if (!stopped) timer = setTimeout(tick, options.intervalMs);
      });
  };
  timer = setTimeout(tick, 0);
  return dispatcher;
}
