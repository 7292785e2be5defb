/**
 * Webhooks end to end, on OpenSearch and Redis, with a real receiver on loopback: a watched
 * saved search's changes (found by the worker's rebuild) are POSTed to the receiver, signed
 * (the receiver verifies with the documented recipe), each event id once; a receiver that
 * answers 500 then 200, one that is down for the whole retry period but a little (the 26 hours
 * compressed: the schedule is a setting), a slow one (timeout), all get everything; a delivery
 * that fails every attempt is a dead letter the operator replays; a rotated secret signs beside
 * the old one; a deleted webhook sends nothing more; the API refuses bad URLs and other users.
 * The worker killed mid-delivery: test/webhooks/webhooks-worker-kill.test.ts.
 */
import type { AddressInfo } from 'node:net';
import type { Redis } from 'ioredis';
import pino from 'pino';
import request from 'supertest';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CorpsearchError, createCorpsearchClient } from '../../client/src/index.js';
import { createQueueConnection } from '../../indexer/queue.js';
import { createApiKey, keyStoreFor } from '../../src/auth/key-admin.js';
import { defaultConfig } from '../../src/config.js';
import { createApp } from '../../src/http/app.js';
import type { Services } from '../../src/services.js';
import { listDeadLetters, replayDeadLetters, replayMessages } from '../../src/webhooks/dead-letters.js';
import { type WebhookEvent, webhookQueue } from '../../src/webhooks/queue.js';
import { verifySignature } from '../../src/webhooks/signature.js';
import { retryScheduleOf, startWebhookWorker, type WebhookWorker } from '../../src/webhooks/worker.js';
import { corporate, job, numbers } from '../fixtures/indexer/records.js';
import { setUpServices } from '../support/env.js';
import { changeAsTheWorker, steppingClock } from '../support/pipeline-write.js';
import { compressedWebhooks, Receiver } from '../support/webhook-receiver.js';

let services: Services;
let app: ReturnType<typeof createApp>;
let connection: Redis;
let worker: WebhookWorker;
const receiver = new Receiver();
const tick = steppingClock('2026-11-29T01:00:00.000Z');
const { alpha, beta, gamma, delta } = numbers;
// the 26 hours compressed to 3 s: retries 50 ms apart, doubling to 400 ms
const webhooks = compressedWebhooks();

const change = (records: Parameters<typeof changeAsTheWorker>[1]) =>
  changeAsTheWorker(services, records, tick);

async function newUser(): Promise<{ key: string; userId: string }> {
  const userId = `u-${Math.random().toString(36).slice(2)}`;
  const { key } = await createApiKey(keyStoreFor(services.redis, services.config.redisPrefix), { userId });
  await services.limits.ledger.grant(userId, 100);
  return { key, userId };
}

const api = (key: string) => ({
  post: (path: string, body: object) => request(app).post(`/rest/v1${path}`).set('X-API-Key', key).send(body),
  /** a POST without a body (enable, rotate-secret) */
  postEmpty: (path: string) => request(app).post(`/rest/v1${path}`).set('X-API-Key', key),
  get: (path: string) => request(app).get(`/rest/v1${path}`).set('X-API-Key', key),
  delete: (path: string) => request(app).delete(`/rest/v1${path}`).set('X-API-Key', key),
});

/** Waits until `done()` holds (polling), or fails after `ms`. */
async function until(done: () => boolean | Promise<boolean>, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await done())) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** A user with a watched search of the companies in `prefectureId`, and a webhook on it. */
async function subscribed(prefectureId: number, url = receiver.url) {
  const user = await newUser();
  const saved = await api(user.key)
    .post('/saved-searches', {
      name: `都道府県 ${prefectureId}`,
      search: 'corporates',
      body: { prefectureIdOr: [prefectureId] },
      watchFields: ['employeeCount'],
    })
    .expect(201);
  const created = await api(user.key).post('/webhooks', { savedSearchId: saved.body.id, url }).expect(201);
  return { user, savedSearchId: saved.body.id as string, webhook: created.body };
}

beforeAll(async () => {
  services = await setUpServices('webhooks', {
    limits: { ...defaultConfig().limits, ratePerSecond: 10_000 },
    webhooks,
    // a search of every company (4) is over it: saved unwatched
    savedSearchWatchMaxResults: 3,
  });
  app = createApp(services);
  await receiver.start();
  await change([
    corporate({ corporateNumber: alpha, name: '株式会社アルファ', prefectureId: 13, employeeCount: 100 }),
    corporate({ corporateNumber: beta, name: '株式会社ベータ', prefectureId: 27, employeeCount: 50 }),
    corporate({ corporateNumber: gamma, name: '株式会社ガンマ', prefectureId: 40, employeeCount: 10 }),
    corporate({ corporateNumber: delta, name: '株式会社デルタ', prefectureId: 1, employeeCount: 10 }),
  ]);
  connection = createQueueConnection(services.config.redisUrl as string);
  worker = startWebhookWorker({
    connection,
    redis: services.redis as Redis,
    redisPrefix: services.config.redisPrefix,
    config: webhooks,
    logger: pino({ level: 'silent' }),
  });
});
afterAll(async () => {
  await worker?.close();
  connection?.disconnect();
  await receiver.stop();
  await services?.close();
});
afterEach(() => {
  receiver.answer = 204;
});

describe('the API', () => {
  it('creates a webhook with its secret once, lists it and shows it without the secret', async () => {
    const { user, savedSearchId, webhook } = await subscribed(47);
    expect(webhook).toMatchObject({
      savedSearchId,
      url: receiver.url,
      events: ['company.entered', 'company.left', 'company.changed'],
      disabledAt: null,
      disabledReason: null,
    });
    expect(webhook.id).toMatch(/^wh_[0-9a-f]{20}$/);
    expect(webhook.secret).toMatch(/^whsec_/);
    // a rotation takes no body: one sent is a mistake named, and nothing rotated
    const withBody = await api(user.key)
      .post(`/webhooks/${webhook.id}/rotate-secret`, { secret: 'mine' })
      .expect(400);
    expect(withBody.body.errors[0].field).toBe('body');
    const one = await api(user.key).get(`/webhooks/${webhook.id}`).expect(200);
    expect(one.body.secretCreatedAt).toBe(webhook.secretCreatedAt);
    expect(one.body.secret).toBeUndefined();
    expect(one.body.id).toBe(webhook.id);
    const list = await api(user.key).get('/webhooks').expect(200);
    expect(list.body.results.map((entry: { id: string }) => entry.id)).toEqual([webhook.id]);
    // another user sees none of it
    const other = await newUser();
    await api(other.key).get(`/webhooks/${webhook.id}`).expect(404);
    await api(other.key).delete(`/webhooks/${webhook.id}`).expect(404);
    await request(app)
      .post(`/rest/v1/webhooks/${webhook.id}/rotate-secret`)
      .set('X-API-Key', other.key)
      .expect(404);
    await api(other.key).get(`/webhooks/${webhook.id}/deliveries`).expect(404);
    expect((await api(other.key).get('/webhooks').expect(200)).body.results).toEqual([]);
  });

  it('refuses a URL that is not https or reaches a private address, an unknown or unwatched search', async () => {
    const { user, savedSearchId } = await subscribed(46);
    for (const [url, reason] of [
      ['http://10.0.0.1/hook', /private/],
      ['https://169.254.169.254/latest/meta-data', /linkLocal/],
      ['ftp://example.com/', /https/],
      ['not a url', /absolute URL/],
    ] as const) {
      const refused = await api(user.key).post('/webhooks', { savedSearchId, url }).expect(400);
      expect(refused.body.errors[0].field).toBe('url');
      expect(refused.body.errors[0].reason).toMatch(reason);
    }
    const unknown = await api(user.key)
      .post('/webhooks', { savedSearchId: 'ss_00000000000000000000', url: receiver.url })
      .expect(400);
    expect(unknown.body.errors[0]).toMatchObject({ field: 'savedSearchId' });
    const everyone = await api(user.key)
      .post('/saved-searches', { name: '全社', search: 'corporates', body: {} })
      .expect(201);
    const unwatched = await api(user.key)
      .post('/webhooks', { savedSearchId: everyone.body.id, url: receiver.url })
      .expect(400);
    expect(unwatched.body.errors[0].reason).toMatch(/not watched/);
    await api(user.key)
      .post('/webhooks', { savedSearchId, url: receiver.url, events: ['company.moved'] })
      .expect(400);
  });

  it('caps the webhooks of a user (409 webhook_limit)', async () => {
    const { user, savedSearchId } = await subscribed(45);
    for (let i = 1; i < webhooks.perUser; i++)
      await api(user.key).post('/webhooks', { savedSearchId, url: receiver.url }).expect(201);
    const refused = await api(user.key).post('/webhooks', { savedSearchId, url: receiver.url }).expect(409);
    expect(refused.body.code).toBe('webhook_limit');
  });
});

describe('the client', () => {
  it('subscribes, lists, shows, rotates, reads the log and deletes; errors as CorpsearchError', async () => {
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const user = await newUser();
      const client = createCorpsearchClient({
        baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        apiKey: user.key,
      });
      const saved = await client.saveSearch({
        name: '沖縄',
        search: 'corporates',
        body: { prefectureIdOr: [47] },
      });
      const created = await client.createWebhook({
        savedSearchId: saved.id,
        url: receiver.url,
        events: ['company.left'],
      });
      expect(created.secret).toMatch(/^whsec_/);
      expect(created.meta.status).toBe(201);
      expect((await client.webhooks()).results.map((w) => w.id)).toEqual([created.id]);
      expect((await client.webhook(created.id)).events).toEqual(['company.left']);
      const rotated = await client.rotateWebhookSecret(created.id);
      expect(rotated.secret).not.toBe(created.secret);
      expect((await client.webhookDeliveries(created.id, { limit: 5 })).deliveries).toEqual([]);
      expect((await client.deleteWebhook(created.id)).meta.status).toBe(204);
      const gone = await client.webhook(created.id).catch((error: unknown) => error);
      expect(gone).toBeInstanceOf(CorpsearchError);
      expect((gone as CorpsearchError).status).toBe(404);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

// the steps share one subscription and its receiver: in order (the suite is shuffled elsewhere)
describe('deliveries', { shuffle: false }, () => {
  let sub: Awaited<ReturnType<typeof subscribed>>;

  it('sends each change once, signed, with the id and cursor of GET /changes', async () => {
    sub = await subscribed(27);
    receiver.received = [];
    await change([
      corporate({ corporateNumber: alpha, name: '株式会社アルファ', prefectureId: 27, employeeCount: 100 }),
      corporate({ corporateNumber: beta, name: '株式会社ベータ', prefectureId: 27, employeeCount: 60 }),
    ]);
    await until(() => receiver.received.length >= 2);
    const changes = await api(sub.user.key).get(`/saved-searches/${sub.savedSearchId}/changes`).expect(200);
    const events = receiver.received.map((entry) => JSON.parse(entry.body));
    expect(events.map((event) => [event.type, event.data.corporateNumber]).sort()).toEqual(
      [
        ['company.changed', beta],
        ['company.entered', alpha],
      ].sort(),
    );
    for (const [i, entry] of receiver.received.entries()) {
      expect(verifySignature(entry.body, entry.signature, sub.webhook.secret)).toBe(true);
      expect(verifySignature(entry.body, entry.signature, 'whsec_wrong')).toBe(false);
      expect(events[i].id).toBe(entry.eventId);
      expect(events[i].savedSearchId).toBe(sub.savedSearchId);
    }
    const cursors = changes.body.changes.map((c: { cursor: string }) => c.cursor).sort();
    expect(events.map((event) => event.data.cursor).sort()).toEqual(cursors);
    expect(events.find((event) => event.type === 'company.changed').data.fields).toEqual(['employeeCount']);
    // nothing more: each event once. Dispatching again queues nothing (the cursor moved); a
    // dispatcher that died before moving its cursor queues the same messages, sent once
    expect(await worker.dispatcher.dispatchAll()).toBe(0);
    await services.redis?.set(`${services.config.redisPrefix}webhook-cursor:${sub.webhook.id}`, '0-0');
    expect(await worker.dispatcher.dispatchAll()).toBeGreaterThanOrEqual(2);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(new Set(receiver.ids()).size).toBe(receiver.received.length);
    expect(receiver.received.length).toBe(2);
    const log = await api(sub.user.key).get(`/webhooks/${sub.webhook.id}/deliveries`).expect(200);
    expect(
      log.body.deliveries.map((d: { outcome: string; statusCode: number }) => [d.outcome, d.statusCode]),
    ).toEqual([
      ['delivered', 204],
      ['delivered', 204],
    ]);
  });

  it('retries a receiver that answers 500, and logs each attempt', async () => {
    receiver.received = [];
    receiver.answer = 500;
    await change([
      corporate({ corporateNumber: alpha, name: '株式会社アルファ', prefectureId: 27, employeeCount: 101 }),
    ]);
    await until(async () => {
      const log = await api(sub.user.key).get(`/webhooks/${sub.webhook.id}/deliveries?limit=1`);
      return log.body.deliveries[0]?.outcome === 'failed';
    });
    receiver.answer = 204;
    await until(() => receiver.received.length >= 1);
    expect(receiver.received[0]?.attempt).toBeGreaterThan(1);
    const log = await api(sub.user.key).get(`/webhooks/${sub.webhook.id}/deliveries?limit=2`).expect(200);
    const [last, before] = log.body.deliveries;
    expect(last).toMatchObject({
      outcome: 'delivered',
      statusCode: 204,
      eventId: receiver.received[0]?.eventId,
    });
    expect(before).toMatchObject({ outcome: 'failed', statusCode: 500, error: 'answered 500' });
  });

  it('a receiver down for most of the retry period gets everything when it is back', async () => {
    receiver.received = [];
    await receiver.stop();
    const downSince = Date.now();
    await change([
      corporate({ corporateNumber: alpha, name: '株式会社アルファ', prefectureId: 13, employeeCount: 101 }),
      corporate({ corporateNumber: gamma, name: '株式会社ガンマ', prefectureId: 27, employeeCount: 10 }),
      corporate({ corporateNumber: beta, name: '株式会社ベータ', prefectureId: 27, employeeCount: 70 }),
    ]);
    await until(async () => {
      const log = await api(sub.user.key).get(`/webhooks/${sub.webhook.id}/deliveries?limit=3`);
      return (
        log.body.deliveries.filter((d: { error: string }) => d.error === 'connection refused').length >= 3
      );
    });
    // down for 2 of the 3 s the retries last (the 26 hours compressed), then back, same port
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, 2_000 - (Date.now() - downSince))));
    await receiver.restart();
    await until(() => receiver.received.length >= 3);
    const types = receiver.received.map((entry) => JSON.parse(entry.body).type).sort();
    expect(types).toEqual(['company.changed', 'company.entered', 'company.left']);
    expect(new Set(receiver.ids()).size).toBe(3);
  });

  it('gives a slow receiver up at the timeout and sends again', async () => {
    receiver.received = [];
    receiver.answer = 'hang';
    receiver.hangMs = 1_000;
    await change([
      corporate({ corporateNumber: beta, name: '株式会社ベータ', prefectureId: 27, employeeCount: 80 }),
    ]);
    await until(async () => {
      const log = await api(sub.user.key).get(`/webhooks/${sub.webhook.id}/deliveries?limit=1`);
      return log.body.deliveries[0]?.error === 'timeout';
    });
    receiver.answer = 204;
    await until(() => receiver.received.length >= 1);
    const log = await api(sub.user.key).get(`/webhooks/${sub.webhook.id}/deliveries?limit=5`).expect(200);
    const timeout = log.body.deliveries.find((d: { error: string }) => d.error === 'timeout');
    expect(timeout).toMatchObject({ outcome: 'failed', statusCode: null });
    expect(timeout.durationMs).toBeLessThan(1_000);
  });

  it('signs with both secrets for a day after a rotation', async () => {
    receiver.received = [];
    const rotated = await request(app)
      .post(`/rest/v1/webhooks/${sub.webhook.id}/rotate-secret`)
      .set('X-API-Key', sub.user.key)
      .expect(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(sub.webhook.secret);
    await change([
      corporate({ corporateNumber: beta, name: '株式会社ベータ', prefectureId: 27, employeeCount: 90 }),
    ]);
    await until(() => receiver.received.length >= 1);
    const [entry] = receiver.received;
    expect(entry?.signature.match(/v1=/g)).toHaveLength(2);
    expect(verifySignature(entry?.body ?? '', entry?.signature ?? '', rotated.body.secret)).toBe(true);
    expect(verifySignature(entry?.body ?? '', entry?.signature ?? '', sub.webhook.secret)).toBe(true);
  });

  it('keeps a delivery that failed every attempt as a dead letter; the operator replays it', async () => {
    receiver.received = [];
    receiver.answer = 503;
    await change([
      corporate({ corporateNumber: beta, name: '株式会社ベータ', prefectureId: 27, employeeCount: 95 }),
    ]);
    const queue = webhookQueue(connection, services.config.redisPrefix, retryScheduleOf(webhooks));
    try {
      await until(
        async () => (await listDeadLetters(queue, { webhookId: sub.webhook.id })).length === 1,
        20_000,
      );
      const [letter] = await listDeadLetters(queue, { webhookId: sub.webhook.id });
      expect(letter).toMatchObject({
        webhookId: sub.webhook.id,
        eventType: 'company.changed',
        lastError: 'answered 503',
      });
      expect(letter?.attempts).toBeGreaterThan(5);
      const log = await api(sub.user.key).get(`/webhooks/${sub.webhook.id}/deliveries?limit=1`).expect(200);
      expect(log.body.deliveries[0]).toMatchObject({ outcome: 'gave up', statusCode: 503 });
      expect(receiver.received).toEqual([]);
      receiver.answer = 204;
      expect(await replayDeadLetters(queue, { webhookId: sub.webhook.id })).toBe(1);
      // a second replay of the same list (another worker's round, the operator) moves nothing
      expect(await replayMessages(queue, [letter?.messageId ?? ''])).toBe(0);
      await until(() => receiver.received.length === 1);
      expect(receiver.received[0]?.eventId).toBe(letter?.eventId);
      expect(await listDeadLetters(queue, { webhookId: sub.webhook.id })).toEqual([]);
    } finally {
      await queue.close();
    }
  });

  it('a receiver that answers 410 Gone disables the webhook: no retry, nothing more queued, until it is enabled', async () => {
    const gone = await subscribed(40);
    receiver.received = [];
    receiver.answer = 410;
    await change([
      corporate({ corporateNumber: gamma, name: '株式会社ガンマ', prefectureId: 40, employeeCount: 11 }),
    ]);
    const queue = webhookQueue(connection, services.config.redisPrefix, retryScheduleOf(webhooks));
    try {
      // a dead letter at the first attempt
      await until(async () => (await listDeadLetters(queue, { webhookId: gone.webhook.id })).length === 1);
      const [letter] = await listDeadLetters(queue, { webhookId: gone.webhook.id });
      expect(letter?.attempts).toBe(1);
      const shown = await api(gone.user.key).get(`/webhooks/${gone.webhook.id}`).expect(200);
      expect(shown.body).toMatchObject({ disabledReason: 'the receiver answered 410 Gone' });
      expect(Date.parse(shown.body.disabledAt)).toBeGreaterThan(0);
      const log = await api(gone.user.key).get(`/webhooks/${gone.webhook.id}/deliveries`).expect(200);
      expect(log.body.deliveries).toMatchObject([{ outcome: 'gave up', statusCode: 410, attempt: 1 }]);
      // the next change is queued for nobody: the receiver hears nothing more
      receiver.answer = 204;
      receiver.received = [];
      await change([
        corporate({ corporateNumber: gamma, name: '株式会社ガンマ', prefectureId: 40, employeeCount: 12 }),
      ]);
      await worker.dispatcher.dispatchAll();
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(receiver.received).toEqual([]);
      // not queued, nor refused by the worker: still the one dead letter
      expect(await listDeadLetters(queue, { webhookId: gone.webhook.id })).toHaveLength(1);
      // a message queued before the 410 and taken after it is not sent: a dead letter
      const late: WebhookEvent = {
        id: 'evt_queued_before_the_410',
        type: letter?.eventType as WebhookEvent['type'],
        createdAt: new Date().toISOString(),
        savedSearchId: gone.savedSearchId,
        data: { corporateNumber: gamma, cursor: '0-1' },
      };
      await queue.add(late.type, { webhookId: gone.webhook.id, event: late }, { jobId: 'queued-before-410' });
      await until(async () => (await listDeadLetters(queue, { webhookId: gone.webhook.id })).length === 2);
      expect(receiver.received).toEqual([]);
      await queue.remove('queued-before-410');
      const changes = await api(gone.user.key)
        .get(`/saved-searches/${gone.savedSearchId}/changes`)
        .expect(200);
      expect(changes.body.changes).toHaveLength(2);
      // enabled again: the dead letter is sent with its event id, then the change refused meanwhile
      const enabled = await api(gone.user.key).postEmpty(`/webhooks/${gone.webhook.id}/enable`).expect(200);
      expect(enabled.body).toMatchObject({ id: gone.webhook.id, disabledAt: null, disabledReason: null });
      await api(gone.user.key).postEmpty(`/webhooks/${gone.webhook.id}/enable`).expect(200);
      await worker.dispatcher.resumeEnabled();
      await until(() => receiver.received.length === 2);
      const [first, second] = changes.body.changes as Array<{ cursor: string }>;
      expect(receiver.received.map((event) => event.eventId).sort()).toEqual(
        [letter?.eventId, `evt_${gone.savedSearchId.slice(3)}_${second?.cursor}`].sort(),
      );
      expect(letter?.eventId).toBe(`evt_${gone.savedSearchId.slice(3)}_${first?.cursor}`);
      expect(await listDeadLetters(queue, { webhookId: gone.webhook.id })).toEqual([]);
      await api(sub.user.key).postEmpty(`/webhooks/${gone.webhook.id}/enable`).expect(404);
    } finally {
      await queue.close();
    }
  });

  it('a deleted webhook sends nothing more; deleting the saved search deletes its webhooks', async () => {
    await api(sub.user.key).delete(`/webhooks/${sub.webhook.id}`).expect(204);
    await api(sub.user.key).get(`/webhooks/${sub.webhook.id}`).expect(404);
    receiver.received = [];
    await change([
      corporate({ corporateNumber: beta, name: '株式会社ベータ', prefectureId: 27, employeeCount: 99 }),
    ]);
    await worker.dispatcher.dispatchAll();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.received).toEqual([]);
    const again = await api(sub.user.key)
      .post('/webhooks', { savedSearchId: sub.savedSearchId, url: receiver.url })
      .expect(201);
    await api(sub.user.key).delete(`/saved-searches/${sub.savedSearchId}`).expect(204);
    await api(sub.user.key).get(`/webhooks/${again.body.id}`).expect(404);
  });

  it('a job search sends job events (default job.* only), with the posting', async () => {
    const user = await newUser();
    const saved = await api(user.key)
      .post('/saved-searches', { name: 'デルタの求人', search: 'jobs', body: { corporateNumberOr: [delta] } })
      .expect(201);
    expect(saved.body.watching).toBe(true);
    const wrongKind = await api(user.key)
      .post('/webhooks', {
        savedSearchId: saved.body.id,
        url: receiver.url,
        events: ['job.entered', 'company.left'],
      })
      .expect(400);
    expect(wrongKind.body.errors).toMatchObject([{ field: 'events[1]', value: 'company.left' }]);
    const created = await api(user.key)
      .post('/webhooks', { savedSearchId: saved.body.id, url: receiver.url })
      .expect(201);
    expect(created.body.events).toEqual(['job.entered', 'job.left', 'job.changed']);
    receiver.received = [];
    const posting = job({ corporateNumber: delta });
    await change([posting]);
    await until(() => receiver.received.length >= 1);
    await change([{ type: 'delete_job', id: posting.id }]);
    await until(() => receiver.received.length >= 2);
    const events = receiver.received.map((entry) => JSON.parse(entry.body));
    expect(events.map((event) => [event.type, event.data.jobId, event.data.corporateNumber])).toEqual([
      ['job.entered', posting.id, delta],
      ['job.left', posting.id, delta],
    ]);
    for (const entry of receiver.received)
      expect(verifySignature(entry.body, entry.signature, created.body.secret)).toBe(true);
  });
});
