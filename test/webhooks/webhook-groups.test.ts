/**
 * A group of a dispatcher round (several webhooks' events in one message, src/webhooks/deliver.ts)
 * on Redis with real receivers on loopback: each event is sent once in the group; one that failed
 * goes on alone, on the retry schedule, numbered from its first attempt, and after the schedule's
 * last attempt is a dead letter whose replay starts again from attempt 1; a 410 Gone disables its
 * webhook and leaves the event a dead letter after one attempt, as does a webhook disabled
 * before; a deleted webhook's event is dropped; each webhook's log holds its own attempts in
 * order; a webhook's events picked after its 410 are not sent; WEBHOOK_CONCURRENCY caps what is
 * in flight.
 */
import { Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import pino from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createQueueConnection } from '../../indexer/queue.js';
import type { Services } from '../../src/services.js';
import { listDeadLetters, replayDeadLetters } from '../../src/webhooks/dead-letters.js';
import {
  attemptsFor,
  type WebhookEvent,
  type WebhookMessage,
  webhookQueue,
} from '../../src/webhooks/queue.js';
import { WebhookStore } from '../../src/webhooks/store.js';
import { retryScheduleOf, startWebhookWorker, type WebhookWorker } from '../../src/webhooks/worker.js';
import { setUpServices } from '../support/env.js';
import { compressedWebhooks, Receiver } from '../support/webhook-receiver.js';

let services: Services;
let connection: Redis;
let worker: WebhookWorker;
let store: WebhookStore;
const fine = new Receiver();
const failing = new Receiver();
const gone = new Receiver();
const down = new Receiver();
const slow = new Receiver();
const goneLater = new Receiver();
// the 26 hours compressed to 3 s; the test queues its group itself (no dispatch round); two
// deliveries in flight at most (WEBHOOK_CONCURRENCY), whatever the group's lanes
const config = compressedWebhooks({ dispatchIntervalMs: 60_000, concurrency: 2 });

async function until(done: () => boolean | Promise<boolean>, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await done())) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

beforeAll(async () => {
  services = await setUpServices('webhook-groups');
  store = new WebhookStore(services.redis as Redis, services.config.redisPrefix);
  for (const receiver of [fine, failing, gone, down, slow, goneLater]) await receiver.start();
  failing.answer = 500;
  gone.answer = 410;
  down.answer = 503;
  slow.answer = 'hang';
  slow.hangMs = 100;
  goneLater.answer = 410;
  connection = createQueueConnection(services.config.redisUrl as string);
  worker = startWebhookWorker({
    connection,
    redis: services.redis as Redis,
    redisPrefix: services.config.redisPrefix,
    config,
    logger: pino({ level: 'silent' }),
  });
});
afterAll(async () => {
  await worker?.close();
  connection?.disconnect();
  for (const receiver of [fine, failing, gone, down, slow, goneLater]) await receiver.stop();
  await services?.close();
});

const hook = async (url: string) =>
  (await store.create('u', { savedSearchId: 'ss_group', url, events: ['company.changed'] }, 100))
    ?.id as string;

const event = (cursor: string): WebhookEvent => ({
  id: `evt_group_${cursor}`,
  type: 'company.changed',
  createdAt: '2026-12-02T00:00:00.000Z',
  savedSearchId: 'ss_group',
  data: { corporateNumber: '1234567890123', cursor, fields: ['employeeCount'] },
});

it('sends each event of a group once; a failed one goes on alone, a 410 disables, a deleted webhook drops', async () => {
  const [toFine, toFailing, toGone, deleted, disabled, toDown] = [
    await hook(fine.url),
    await hook(failing.url),
    await hook(gone.url),
    await hook(fine.url),
    await hook(fine.url),
    await hook(down.url),
  ] as [string, string, string, string, string, string];
  await store.delete('u', deleted);
  await store.disable(disabled, 'the receiver answered 410 Gone', new Date());
  const deliveries = [
    { webhookId: toFine, event: event('1-0') },
    { webhookId: toFailing, event: event('1-1') },
    { webhookId: toFine, event: event('1-2') },
    { webhookId: toGone, event: event('1-3') },
    { webhookId: deleted, event: event('1-4') },
    { webhookId: toFine, event: event('1-5') },
    { webhookId: disabled, event: event('1-6') },
    { webhookId: toDown, event: event('1-7') },
  ];
  const queue = webhookQueue(connection, services.config.redisPrefix, retryScheduleOf(config));
  try {
    const message = await queue.add('group', { deliveries } as WebhookMessage, { jobId: 'a-group' });
    await until(async () => (await queue.getJobState(message.id as string)) === 'completed');
    expect((await queue.getJob('a-group'))?.returnvalue).toBe('delivered 3 of 8');
    // the fine receiver: its three, once each, at their first attempt
    expect(fine.received.map((entry) => [entry.eventId, entry.attempt])).toEqual([
      ['evt_group_1-0', 1],
      ['evt_group_1-2', 1],
      ['evt_group_1-5', 1],
    ]);
    const fineLog = await store.deliveries(toFine, 10);
    expect(fineLog.map((entry) => [entry.eventId, entry.outcome]).reverse()).toEqual([
      ['evt_group_1-0', 'delivered'],
      ['evt_group_1-2', 'delivered'],
      ['evt_group_1-5', 'delivered'],
    ]);
    // the failing one: logged as failed, then retried alone, numbered on
    await until(async () => (await store.deliveries(toFailing, 10)).length >= 2);
    failing.answer = 204;
    await until(() => failing.received.length === 1);
    expect(failing.received[0]).toMatchObject({ eventId: 'evt_group_1-1' });
    expect(failing.received[0]?.attempt).toBeGreaterThan(2);
    await until(async () => (await store.deliveries(toFailing, 1))[0]?.outcome === 'delivered');
    const failingLog = (await store.deliveries(toFailing, 100)).reverse();
    expect(failingLog[0]).toMatchObject({ attempt: 1, outcome: 'failed', statusCode: 500 });
    expect(failingLog.map((entry) => entry.attempt)).toEqual(failingLog.map((_, at) => at + 1));
    expect(failingLog.at(-1)).toMatchObject({ outcome: 'delivered', statusCode: 204 });
    // the gone one: disabled at its first answer, its event a dead letter after one attempt
    expect((await store.load(toGone))?.disabledReason).toBe('the receiver answered 410 Gone');
    await until(async () => (await listDeadLetters(queue, { webhookId: toGone })).length === 1);
    expect(await listDeadLetters(queue, { webhookId: toGone })).toMatchObject([
      { eventId: 'evt_group_1-3', attempts: 1 },
    ]);
    expect(await store.deliveries(toGone, 10)).toMatchObject([
      { eventId: 'evt_group_1-3', attempt: 1, outcome: 'gave up', statusCode: 410 },
    ]);
    expect(gone.arrivals).toBe(1);
    // the deleted one: nothing sent, nothing kept; the one disabled before: not sent, a dead letter
    expect(await listDeadLetters(queue, { webhookId: deleted })).toEqual([]);
    await until(async () => (await listDeadLetters(queue, { webhookId: disabled })).length === 1);
    expect(await listDeadLetters(queue, { webhookId: disabled })).toMatchObject([
      { eventId: 'evt_group_1-6', attempts: 1 },
    ]);
    expect(fine.arrivals).toBe(3);
    // the one down throughout: every attempt of the schedule, the group's first among them,
    // then a dead letter; replayed, it starts the schedule again from attempt 1
    const attempts = attemptsFor(retryScheduleOf(config));
    await until(async () => (await listDeadLetters(queue, { webhookId: toDown })).length === 1);
    expect(await listDeadLetters(queue, { webhookId: toDown })).toMatchObject([
      { eventId: 'evt_group_1-7', attempts, lastError: 'answered 503' },
    ]);
    expect(down.arrivals).toBe(attempts);
    const downLog = (await store.deliveries(toDown, 1000)).reverse();
    expect(downLog.map((entry) => entry.attempt)).toEqual(downLog.map((_, at) => at + 1));
    expect(downLog.at(-1)).toMatchObject({ attempt: attempts, outcome: 'gave up' });
    down.answer = 204;
    expect(await replayDeadLetters(queue, { webhookId: toDown })).toBe(1);
    await until(() => down.received.length === 1);
    expect(down.received[0]).toMatchObject({ eventId: 'evt_group_1-7', attempt: 1 });
  } finally {
    await queue.close();
  }
});

it('keeps at most WEBHOOK_CONCURRENCY deliveries in flight, and sends nothing more to a webhook after its 410', async () => {
  const [toSlow, toGoneLater, toFine] = [
    await hook(slow.url),
    await hook(goneLater.url),
    await hook(fine.url),
  ];
  fine.received = [];
  // more events than a group's lanes (32): the last is picked after the first 410 came back
  const deliveries = [
    { webhookId: toGoneLater, event: event('2-0') },
    ...Array.from({ length: 6 }, (_, i) => ({ webhookId: toSlow, event: event(`2-${i + 1}`) })),
    ...Array.from({ length: 30 }, (_, i) => ({ webhookId: toFine, event: event(`2-${i + 7}`) })),
    { webhookId: toGoneLater, event: event('2-37') },
  ];
  const queue = webhookQueue(connection, services.config.redisPrefix, retryScheduleOf(config));
  try {
    const message = await queue.add('group', { deliveries } as WebhookMessage, { jobId: 'b-group' });
    await until(async () => (await queue.getJobState(message.id as string)) === 'completed');
    expect((await queue.getJob('b-group'))?.returnvalue).toBe('delivered 36 of 38');
    expect(slow.received).toHaveLength(6);
    expect(slow.maxInFlight).toBe(2);
    expect(fine.received).toHaveLength(30);
    // the 410 answered the first: the second never sent, both dead letters after one attempt
    expect(goneLater.arrivals).toBe(1);
    await until(async () => (await listDeadLetters(queue, { webhookId: toGoneLater })).length === 2);
    expect(
      (await listDeadLetters(queue, { webhookId: toGoneLater })).map((letter) => letter.eventId).sort(),
    ).toEqual(['evt_group_2-0', 'evt_group_2-37']);
    expect(await store.deliveries(toGoneLater, 10)).toMatchObject([
      { eventId: 'evt_group_2-0', attempt: 1, outcome: 'gave up', statusCode: 410 },
    ]);
  } finally {
    await queue.close();
  }
});

it("replays one webhook's events out of a group that failed whole, and leaves the group the others'", async () => {
  // a queue no delivery worker reads: a worker of the test's own fails the group at once, as
  // the delivery worker's does when Redis is away at every attempt
  const prefix = `${services.config.redisPrefix}split-`;
  const queue = webhookQueue(connection, prefix, retryScheduleOf(config));
  const failer = new Worker(
    'webhooks',
    async (job) => {
      if (job.name === 'earlier') return 'delivered';
      throw new Error('Redis away');
    },
    { connection, prefix: `${prefix}bull` },
  );
  try {
    const deliveries = [
      { webhookId: 'wh_a', event: event('3-0') },
      { webhookId: 'wh_b', event: event('3-1') },
      { webhookId: 'wh_a', event: event('3-2') },
    ];
    // an earlier message of the same id, sent and kept: it must not swallow the replayed one
    await queue.add('earlier', deliveries[0] as WebhookMessage, { jobId: 'wh_a.3-0' });
    await until(async () => (await queue.getJobState('wh_a.3-0')) === 'completed');
    await queue.add('group', { deliveries } as WebhookMessage, { jobId: 'c-group', attempts: 1 });
    await until(async () => (await queue.getJobState('c-group')) === 'failed');
    await failer.close();
    expect((await listDeadLetters(queue)).map((letter) => letter.eventId)).toEqual([
      'evt_group_3-0',
      'evt_group_3-1',
      'evt_group_3-2',
    ]);
    // wh_a's two alone, waiting, from their first attempt; the group keeps wh_b's, failed
    expect(await replayDeadLetters(queue, { webhookId: 'wh_a' })).toBe(2);
    for (const id of ['wh_a.3-0', 'wh_a.3-2']) {
      expect(await queue.getJobState(id)).toBe('waiting');
      expect((await queue.getJob(id))?.data).toMatchObject({ webhookId: 'wh_a', attemptsBefore: 0 });
    }
    expect(await queue.getJobState('c-group')).toBe('failed');
    expect((await listDeadLetters(queue)).map((letter) => [letter.webhookId, letter.eventId])).toEqual([
      ['wh_b', 'evt_group_3-1'],
    ]);
    expect(await replayDeadLetters(queue, { webhookId: 'wh_a' })).toBe(0);
    // wh_b's, its only webhook left: the group itself goes again
    expect(await replayDeadLetters(queue, { webhookId: 'wh_b' })).toBe(1);
    expect(await queue.getJobState('c-group')).toBe('waiting');
    expect(deliveriesOfJob(await queue.getJob('c-group'))).toEqual([
      { webhookId: 'wh_b', event: event('3-1') },
    ]);
  } finally {
    await failer.close();
    await queue.obliterate({ force: true });
    await queue.close();
  }
});

const deliveriesOfJob = (job: { data: WebhookMessage } | undefined) =>
  job && 'deliveries' in job.data ? job.data.deliveries : undefined;
