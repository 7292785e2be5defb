/**
 * A webhook worker killed mid-delivery loses nothing: the real worker (indexer/bin/worker.ts)
 * in a child process of this test sends three events to a receiver on loopback that holds
 * every request open; the worker is killed (SIGKILL, by its pid) while they are in flight; a
 * second worker started after it takes the messages up (BullMQ's stalled check, after
 * WEBHOOK_STALL_SECONDS) and the receiver gets every event, each with the id it was first
 * sent with, and no event it was not sent.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createApiKey, keyStoreFor } from '../../src/auth/key-admin.js';
import { defaultConfig } from '../../src/config.js';
import { createApp } from '../../src/http/app.js';
import type { Services } from '../../src/services.js';
import { verifySignature } from '../../src/webhooks/signature.js';
import { corporate, numbers } from '../fixtures/indexer/records.js';
import { setUpServices } from '../support/env.js';
import { changeAsTheWorker, steppingClock } from '../support/pipeline-write.js';
import { Receiver } from '../support/webhook-receiver.js';
import { startWorkerChild, stopChild } from '../support/worker-child.js';

let services: Services;
let app: ReturnType<typeof createApp>;
let dir: string;
const receiver = new Receiver();
const children: ChildProcess[] = [];
const tick = steppingClock('2026-11-29T02:00:00.000Z');
const { alpha, beta, gamma } = numbers;

beforeAll(async () => {
  services = await setUpServices('webhooks-kill', {
    limits: { ...defaultConfig().limits, ratePerSecond: 10_000 },
    webhooks: { ...defaultConfig().webhooks, allowLoopback: true },
  });
  app = createApp(services);
  dir = mkdtempSync(path.join(tmpdir(), 'webhooks-kill-'));
  await receiver.start();
  await changeAsTheWorker(
    services,
    [corporate({ corporateNumber: alpha, name: '株式会社アルファ', prefectureId: 13, employeeCount: 5 })],
    tick,
  );
});
afterAll(async () => {
  // whatever happened, no worker of this test outlives it
  for (const child of children) stopChild(child);
  await receiver.stop();
  await services?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The real worker on this file's prefixes, its webhook schedule compressed. */
function startWorker() {
  const worker = startWorkerChild(services.config, {
    MATCH_JOBS_DIR: dir,
    WEBHOOK_ALLOW_LOOPBACK: 'true',
    WEBHOOK_STALL_SECONDS: '1',
    WEBHOOK_DISPATCH_INTERVAL_MS: '50',
    WEBHOOK_RETRY_FIRST_MS: '100',
    WEBHOOK_RETRY_MAX_DELAY_MS: '500',
    // a held request stays in flight until the kill
    WEBHOOK_TIMEOUT_MS: '60000',
  });
  children.push(worker.child);
  return worker;
}

async function until(done: () => boolean, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!done()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

it('a worker killed mid-delivery is followed by another: every event arrives, duplicates only with the same id', async () => {
  const userId = 'u-kill';
  const { key } = await createApiKey(keyStoreFor(services.redis, services.config.redisPrefix), { userId });
  await services.limits.ledger.grant(userId, 10);
  const saved = await request(app)
    .post('/rest/v1/saved-searches')
    .set('X-API-Key', key)
    .send({ name: '大阪', search: 'corporates', body: { prefectureIdOr: [27] } })
    .expect(201);
  const webhook = await request(app)
    .post('/rest/v1/webhooks')
    .set('X-API-Key', key)
    .send({ savedSearchId: saved.body.id, url: receiver.url })
    .expect(201);

  receiver.answer = 'hang';
  receiver.hangMs = 120_000;
  const first = startWorker();
  let second: ReturnType<typeof startWorker> | undefined;
  try {
    await first.ready;
    await changeAsTheWorker(
      services,
      [
        corporate({ corporateNumber: alpha, name: '株式会社アルファ', prefectureId: 27, employeeCount: 5 }),
        corporate({ corporateNumber: beta, name: '株式会社ベータ', prefectureId: 27, employeeCount: 5 }),
        corporate({ corporateNumber: gamma, name: '株式会社ガンマ', prefectureId: 27, employeeCount: 5 }),
      ],
      tick,
    );
    // all three in flight, held by the receiver: kill the worker under them
    await until(() => receiver.arrivals >= 3, 60_000);
    process.kill(first.child.pid as number, 'SIGKILL');
    await new Promise((resolve) => first.child.once('exit', resolve));
    expect(receiver.received).toEqual([]);

    receiver.answer = 204;
    second = startWorker();
    await second.ready;
    await until(() => new Set(receiver.ids()).size >= 3, 60_000);
    // what it got: the three changes, by the ids of GET /changes, each signed
    const changes = await request(app)
      .get(`/rest/v1/saved-searches/${saved.body.id}/changes`)
      .set('X-API-Key', key)
      .expect(200);
    const expected = changes.body.changes.map(
      (change: { cursor: string }) => `evt_${String(saved.body.id).slice(3)}_${change.cursor}`,
    );
    expect(expected).toHaveLength(3);
    expect([...new Set(receiver.ids())].sort()).toEqual([...expected].sort());
    for (const entry of receiver.received) {
      expect(verifySignature(entry.body, entry.signature, webhook.body.secret)).toBe(true);
      expect(JSON.parse(entry.body).id).toBe(entry.eventId);
    }
  } finally {
    stopChild(first.child);
    if (second) stopChild(second.child);
  }
});
