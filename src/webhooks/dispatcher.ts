/**
 * From the saved searches' change streams to the webhook queue. The indexer's membership
 * script (src/saved-searches/membership.ts) marks a saved search that has webhooks and a new
 * change (`<prefix>ss-dirty`); the dispatcher takes the marked ones every
 * WEBHOOK_DISPATCH_INTERVAL_MS and, for each of their webhooks, queues the changes after the
 * webhook's cursor (of the event types it takes), in messages of up to 100 events of several
 * webhooks (./deliver.ts sends them and retries each that failed alone), then moves
 * the cursors. Every 60th round it sweeps every webhook the same way, which catches a mark taken
 * by a dispatcher that died before queuing. The same changes read again into the same group
 * have the same message id (./queue.ts): one delivery; read into other groups, their events may
 * be sent twice, each with its one id.
 *
 *   const dispatcher = startDispatcher({ redis, queue, store, prefix, intervalMs: 500, logger })
 *   await dispatcher.dispatchAll()   // what a round does, at once (tests)
 *   await dispatcher.stop()
 */
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { replayDeadLetters } from './dead-letters.js';
import { groupMessageId, type WebhookDelivery, type WebhookEvent, type WebhookMessage } from './queue.js';
import { repliesOf, type WebhookEventType, type WebhookStore } from './store.js';

/**
 * Entries read from a change stream at a time, per webhook: with `group`, at most 20,000
 * entries (a few MB) and their messages in memory at once, however far behind the webhooks
 * are (a dispatcher that was down); one far behind takes more reads.
 */
const defaultReadCount = 100;
/** Webhooks read in one round trip. */
const group = 200;
/** Messages queued in one `addBulk`. */
const addBulkSize = 1000;
const sweepEveryRounds = 60;

export interface DispatcherOptions {
  redis: Redis;
  queue: Queue<WebhookMessage>;
  store: WebhookStore;
  prefix: string;
  intervalMs: number;
  logger: Logger;
  /** entries read from a change stream at a time, per webhook (100; tests use fewer) */
  readCount?: number;
}

export interface Dispatcher {
  /** Queues the new changes of the marked saved searches' webhooks; the events queued. */
  dispatchMarked(): Promise<number>;
  /** Queues the new changes of every webhook; the events queued. */
  dispatchAll(): Promise<number>;
  /**
   * For each webhook enabled again since the last round: its dead letters queued again (the
   * changes refused while it was disabled, with their event ids), then its changes after its
   * cursor; the dead letters and events queued.
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

/** A webhook as a round reads it: where its cursor is, and what it takes. */
interface Reading {
  webhookId: string;
  savedSearchId: string;
  events: readonly WebhookEventType[];
  cursor: string;
}

type GroupCtx = Pick<DispatcherOptions, 'redis' | 'queue' | 'store' | 'prefix'> & { readCount: number };

/**
 * Queues the new changes of up to `group` webhooks in a few round trips whatever their
 * number: their state and cursors in one, their streams' next entries in one, the messages in
 * one `addBulk`, the cursors moved in one; again for those whose read was full. (One webhook
 * at a time took four or five round trips each, and a batch of postings in 10,000 watched
 * searches marks thousands of them: the worker's thread spent more on those writes than on
 * indexing.) Several webhooks on one search each read its stream (one read per webhook).
 */
async function dispatchGroup(ctx: GroupCtx, webhookIds: readonly string[]): Promise<number> {
  const { redis, queue, store, prefix, readCount } = ctx;
  const states = await store.loadMany(webhookIds);
  // a disabled one (its receiver answered 410) is queued nothing; its cursor stays
  let reading: Reading[] = states.flatMap((state, at) =>
    state && !state.webhook.disabledAt
      ? [
          {
            webhookId: webhookIds[at] as string,
            savedSearchId: state.webhook.savedSearchId,
            events: state.webhook.events,
            cursor: state.cursor ?? '0-0',
          },
        ]
      : [],
  );
  let queued = 0;
  while (reading.length > 0) {
    const reads = redis.pipeline();
    for (const one of reading)
      reads.xrange(`${prefix}ss-changes:${one.savedSearchId}`, `(${one.cursor}`, '+', 'COUNT', readCount);
    const entries = repliesOf(await reads.exec()) as Array<Array<[string, string[]]>>;
    const deliveries: WebhookDelivery[] = [];
    const moved = reading.flatMap((one, at) => {
      const read = entries[at] ?? [];
      if (read.length === 0) return [];
      for (const [id, flat] of read) {
        const event = eventOf(one.savedSearchId, id, flat);
        if (one.events.includes(event.type)) deliveries.push({ webhookId: one.webhookId, event });
      }
      return [{ ...one, cursor: read.at(-1)?.[0] as string, full: read.length === readCount }];
    });
    const messages = inGroups(deliveries);
    for (let at = 0; at < messages.length; at += addBulkSize)
      await queue.addBulk(messages.slice(at, at + addBulkSize));
    queued += deliveries.length;
    if (moved.length === 0) return queued;
    // only after the messages are queued: a crash before this queues them again (the same
    // groups, the same ids, when no other change came meanwhile)
    const cursors = redis.pipeline();
    for (const one of moved) cursors.set(store.cursorKey(one.webhookId), one.cursor, 'XX');
    repliesOf(await cursors.exec());
    reading = moved.filter((one) => one.full);
  }
  return queued;
}

/** Events per message: a group is sent a few at a time, each that failed retried alone. */
const perMessage = 100;

/** A message as `Queue.addBulk` takes it. */
type QueuedMessage = { name: string; data: WebhookMessage; opts: { jobId: string } };

/** A round's deliveries as messages of up to `perMessage` (one alone keeps its own shape). */
function inGroups(deliveries: readonly WebhookDelivery[]): QueuedMessage[] {
  const messages: QueuedMessage[] = [];
  for (let at = 0; at < deliveries.length; at += perMessage) {
    const part = deliveries.slice(at, at + perMessage);
    const [only] = part;
    messages.push({
      name: part.length === 1 && only ? only.event.type : 'group',
      data: part.length === 1 && only ? only : { deliveries: part },
      opts: { jobId: groupMessageId(part) },
    });
  }
  return messages;
}

/** `dispatchGroup` over the webhooks, `group` at a time. */
async function dispatchAllOf(ctx: GroupCtx, webhookIds: readonly string[]): Promise<number> {
  let queued = 0;
  for (let at = 0; at < webhookIds.length; at += group)
    queued += await dispatchGroup(ctx, webhookIds.slice(at, at + group));
  return queued;
}

export function startDispatcher(options: DispatcherOptions): Dispatcher {
  const { redis, queue, store, prefix, logger } = options;
  const ctx: GroupCtx = { redis, queue, store, prefix, readCount: options.readCount ?? defaultReadCount };
  const dispatchWebhooks = (webhookIds: readonly string[]) => dispatchAllOf(ctx, webhookIds);

  async function dispatchSearches(savedSearchIds: readonly string[]): Promise<number> {
    return dispatchWebhooks(await store.onSavedSearches(savedSearchIds));
  }

  const dispatcher = {
    async dispatchMarked() {
      const marked = (await redis.spop(`${prefix}ss-dirty`, 1000)) as string[];
      return marked.length === 0 ? 0 : dispatchSearches(marked);
    },
    async dispatchAll() {
      return dispatchWebhooks(await redis.smembers(store.allSet));
    },
    async resumeEnabled() {
      // each mark is removed once its webhook is resumed: a round that fails midway leaves the
      // rest for the next (a replay and a dispatch done twice queue the same message ids)
      const enabled = await redis.srandmember(store.enabledSet, 100);
      let queued = 0;
      for (const webhookId of enabled) {
        queued += await replayDeadLetters(queue, { webhookId });
        queued += await dispatchWebhooks([webhookId]);
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
