/**
 * The webhook dispatcher (src/webhooks/dispatcher.ts) on the real redis-server, without a
 * worker: the messages it queues for the changes after each webhook's cursor, in groups of
 * webhooks read a few round trips at a time. Each webhook's messages are exactly its changes of
 * the types it takes, however many reads of its stream that takes and however many groups its
 * webhooks span; a disabled webhook gets none and keeps its cursor, and so does one whose record
 * is gone; a dispatch again queues nothing new.
 */
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createQueueConnection } from '../../indexer/queue.js';
import { defaultConfig } from '../../src/config.js';
import { type Dispatcher, startDispatcher } from '../../src/webhooks/dispatcher.js';
import { deliveriesOf, messageId, type WebhookMessage, webhookQueue } from '../../src/webhooks/queue.js';
import { type WebhookEventType, WebhookStore } from '../../src/webhooks/store.js';
import { retryScheduleOf } from '../../src/webhooks/worker.js';
import { testRedis, uniquePrefix } from '../support/env.js';

const prefix = uniquePrefix('dispatcher');
let store: Awaited<ReturnType<typeof testRedis>>;
let redis: Redis;
let connection: Redis;
let queue: Queue<WebhookMessage>;
let webhooks: WebhookStore;
let dispatcher: Dispatcher;
// three entries a read: a stream of seven takes three reads
const readCount = 3;

beforeAll(async () => {
  store = await testRedis(prefix);
  redis = store.redis;
  connection = createQueueConnection(inject('redisUrl'));
  queue = webhookQueue(connection, prefix, retryScheduleOf(defaultConfig().webhooks));
  webhooks = new WebhookStore(redis, prefix);
  dispatcher = startDispatcher({
    redis,
    queue,
    store: webhooks,
    prefix,
    intervalMs: 60_000,
    logger: pino({ level: 'silent' }),
    readCount,
  });
  // its first round runs at once; the tests call the rounds themselves
  await dispatcher.stop();
});
afterAll(async () => {
  await queue?.obliterate({ force: true });
  await queue?.close();
  connection?.disconnect();
  await store?.close();
});

const hook = async (savedSearchId: string, events: WebhookEventType[]) => {
  const created = await webhooks.create(
    'u',
    { savedSearchId, url: 'https://example.com/hook', events },
    10_000,
  );
  return created?.id as string;
};

/** Appends changes to a search's stream as the membership script does; their entry ids. */
async function changes(
  savedSearchId: string,
  kinds: Array<'entered' | 'left' | 'changed'>,
): Promise<string[]> {
  const ids: string[] = [];
  for (const kind of kinds)
    ids.push(
      (await redis.xadd(
        `${prefix}ss-changes:${savedSearchId}`,
        '*',
        'type',
        kind,
        'corporateNumber',
        '1234567890123',
        'at',
        '2026-12-01T00:00:00.000Z',
        ...(kind === 'changed' ? ['fields', '["employeeCount"]'] : []),
      )) as string,
    );
  return ids;
}

/** The ids of the messages queued, sorted. */
async function queuedIds(): Promise<string[]> {
  return (await queue.getWaiting(0, -1)).map((job) => job.id as string).sort();
}

/** The deliveries of the messages queued, each as its own message id would be, sorted. */
async function queuedDeliveries(): Promise<string[]> {
  return (await queue.getWaiting(0, -1))
    .flatMap((job) =>
      deliveriesOf(job.data).map(({ webhookId, event }) => messageId(webhookId, event.data.cursor)),
    )
    .sort();
}

/** Stream entry ids (`<ms>-<seq>`) in the stream's order. */
const streamOrder = (a: string, b: string) => {
  const [am, as] = a.split('-').map(Number) as [number, number];
  const [bm, bs] = b.split('-').map(Number) as [number, number];
  return am - bm || as - bs;
};

describe('the dispatcher', { shuffle: false }, () => {
  it('queues each webhook its changes of the types it takes, over several reads; a disabled one none', async () => {
    const all = await hook('ss_a', ['company.entered', 'company.left', 'company.changed']);
    const enteredOnly = await hook('ss_a', ['company.entered']);
    const other = await hook('ss_b', ['company.changed']);
    const disabled = await hook('ss_b', ['company.changed']);
    await webhooks.disable(disabled, 'test', new Date());
    // deleted between the sets being read and its state (only its record gone): skipped
    const gone = await hook('ss_b', ['company.changed']);
    await redis.del(`${prefix}webhook:${gone}`);
    const disabledCursor = await redis.get(webhooks.cursorKey(disabled));
    const onA = await changes('ss_a', [
      'entered',
      'changed',
      'left',
      'entered',
      'changed',
      'entered',
      'left',
    ]);
    const onB = await changes('ss_b', ['changed', 'entered', 'changed', 'changed']);
    const kindsA = ['entered', 'changed', 'left', 'entered', 'changed', 'entered', 'left'];
    const kindsB = ['changed', 'entered', 'changed', 'changed'];

    const expected = [
      ...onA.map((id) => messageId(all, id)),
      ...onA.filter((_, i) => kindsA[i] === 'entered').map((id) => messageId(enteredOnly, id)),
      ...onB.filter((_, i) => kindsB[i] === 'changed').map((id) => messageId(other, id)),
    ].sort();
    expect(await dispatcher.dispatchAll()).toBe(expected.length);
    expect(await queuedDeliveries()).toEqual(expected);
    // a round's changes go out in groups; each webhook's in its stream's order
    const messages = await queue.getWaiting(0, -1);
    expect(messages.length).toBeLessThan(expected.length);
    for (const message of messages)
      for (const webhookId of [all, enteredOnly, other]) {
        const cursors = deliveriesOf(message.data)
          .filter((delivery) => delivery.webhookId === webhookId)
          .map((delivery) => delivery.event.data.cursor);
        expect(cursors).toEqual([...cursors].sort(streamOrder));
      }
    const ids = await queuedIds();
    // every cursor at its stream's last entry, the disabled one's where it was
    expect(await redis.get(webhooks.cursorKey(all))).toBe(onA.at(-1));
    expect(await redis.get(webhooks.cursorKey(enteredOnly))).toBe(onA.at(-1));
    expect(await redis.get(webhooks.cursorKey(other))).toBe(onB.at(-1));
    expect(await redis.get(webhooks.cursorKey(disabled))).toBe(disabledCursor);
    expect(await redis.get(webhooks.cursorKey(gone))).toBe(disabledCursor);
    const changed = messages
      .flatMap((message) => deliveriesOf(message.data))
      .find((delivery) => delivery.webhookId === other && delivery.event.data.cursor === onB[0]);
    expect(changed?.event).toMatchObject({ type: 'company.changed', data: { fields: ['employeeCount'] } });

    // again: nothing new
    expect(await dispatcher.dispatchAll()).toBe(0);
    expect(await queuedDeliveries()).toEqual(expected);
    // a dispatcher that died before moving the cursors reads the same changes again: the same
    // messages, not queued twice
    for (const webhookId of [all, enteredOnly, other]) await redis.set(webhooks.cursorKey(webhookId), '0-0');
    expect(await dispatcher.dispatchAll()).toBe(expected.length);
    expect(await queuedIds()).toEqual(ids);
    expect(await queuedDeliveries()).toEqual(expected);
  });

  it('a failed read fails the round: nothing queued for it, its cursor where it was', async () => {
    await queue.obliterate({ force: true });
    const broken = await hook('ss_broken', ['company.entered']);
    const cursor = await redis.get(webhooks.cursorKey(broken));
    // a key of another type where its stream should be: XRANGE answers WRONGTYPE
    await redis.set(`${prefix}ss-changes:ss_broken`, 'not a stream');
    await redis.sadd(`${prefix}ss-dirty`, 'ss_broken');
    await expect(dispatcher.dispatchMarked()).rejects.toThrow(/WRONGTYPE/);
    expect(await queuedIds()).toEqual([]);
    expect(await redis.get(webhooks.cursorKey(broken))).toBe(cursor);
    await redis.del(`${prefix}ss-changes:ss_broken`);
  });

  it('a round of marked searches queues theirs only, across groups of webhooks', async () => {
    await queue.obliterate({ force: true });
    // more webhooks on one search than one group reads (200)
    const many: string[] = [];
    for (let i = 0; i < 205; i++) many.push(await hook('ss_c', ['company.entered']));
    const onC = await changes('ss_c', ['entered', 'entered']);
    await changes('ss_a', ['entered']);
    await redis.sadd(`${prefix}ss-dirty`, 'ss_c');
    expect(await dispatcher.dispatchMarked()).toBe(410);
    // exactly these: the unmarked search's change waits for a round that marks or sweeps it
    expect(await queuedDeliveries()).toEqual(
      many.flatMap((id) => onC.map((entry) => messageId(id, entry))).sort(),
    );
    // at most 100 events a message
    for (const message of await queue.getWaiting(0, -1))
      expect(deliveriesOf(message.data).length).toBeLessThanOrEqual(100);
    for (const id of many) expect(await redis.get(webhooks.cursorKey(id))).toBe(onC.at(-1));
    expect(await redis.scard(`${prefix}ss-dirty`)).toBe(0);
    // the sweep queues it, for both webhooks on that search
    expect(await dispatcher.dispatchAll()).toBe(2);
    expect(await queuedDeliveries()).toHaveLength(412);
    expect(await redis.get(webhooks.cursorKey(many[0] as string))).toBe(onC.at(-1));
  });
});
