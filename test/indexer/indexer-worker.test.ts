/**
 * The BullMQ path end to end on the real redis-server and engine: records queued, the worker
 * indexes them with the shared transform, a bad record lands in the Redis dead-letter list
 * with its reason, and the touched company gets one (deduplicated) rebuild. Master records are
 * shared through Redis with the jobs after them, a job queued without a source is named
 * 'queue', and a rebuild that fails leaves its companies pending for the retry.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { corporateCheckDigit } from '../../indexer/corporate-number.js';
import { type DeadLetterEntry, deadLetterKey } from '../../indexer/dead-letter.js';
import { indexNames } from '../../indexer/index-names.js';
import type { IndexerWorker, IndexerWorkerOptions } from '../../indexer/indexer-worker.js';
import { mastersKey } from '../../indexer/jobs/masters-key.js';
import {
  createIndexerQueue,
  createQueueConnection,
  enqueueRecords,
  rebuildSetKey,
  rollOffScheduleId,
  scheduleRebuilds,
  scheduleRollOff,
} from '../../indexer/queue.js';
import { createEngine } from '../../src/opensearch/engine.js';
import type { Services } from '../../src/services.js';
import { corporate, job, numbers } from '../fixtures/indexer/records.js';
import { setUpServices } from '../support/env.js';
import { startTestWorker } from '../support/worker.js';

let services: Services;
let connection: Redis;
let queue: Queue;
let worker: IndexerWorker;
let names: ReturnType<typeof indexNames>;

async function eventually<T>(
  read: () => Promise<T>,
  ok: (value: T) => boolean,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (ok(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/**
 * A worker on a queue and Redis prefix of its own (so its master lists, rebuild set and
 * dead letters touch no other test's), on `opensearch` and `indexPrefix` (this file's by
 * default). `close` stops the worker and removes its queue.
 */
function ownWorker(name: string, overrides: Partial<IndexerWorkerOptions> = {}) {
  const prefix = `${services.config.redisPrefix}${name}-`;
  const ownQueue = createIndexerQueue(connection, prefix);
  const own = startTestWorker(services, connection, { redisPrefix: prefix, ...overrides });
  return {
    prefix,
    queue: ownQueue,
    worker: own,
    async close() {
      await own.close();
      await ownQueue.obliterate({ force: true });
      await ownQueue.close();
      await connection.del(mastersKey(prefix), rebuildSetKey(prefix), deadLetterKey(prefix));
    },
  };
}

/** A corporate number of this file's own, with its check digit. */
function ownNumber(base12: string): string {
  return `${corporateCheckDigit(base12)}${base12}`;
}

async function source(index: string, id: string): Promise<Record<string, unknown> | undefined> {
  const { body } = await services.opensearch.get({ index, id }, { ignore: [404] });
  return (body as { _source?: Record<string, unknown> })._source;
}

beforeAll(async () => {
  services = await setUpServices('worker');
  names = indexNames(services.config.indexPrefix);
  connection = createQueueConnection(inject('redisUrl'));
  queue = createIndexerQueue(connection, services.config.redisPrefix);
  worker = startTestWorker(services, connection);
});

afterAll(async () => {
  await worker.close();
  await queue.obliterate({ force: true });
  await queue.close();
  connection.disconnect();
  await services.close();
});

describe('the indexer worker', () => {
  it('indexes queued records, dead-letters a bad one with its reason, and rebuilds the company', async () => {
    const good = job({ corporateNumber: numbers.gamma, hiringPlanMin: 4 });
    await enqueueRecords(
      queue,
      [
        corporate({ corporateNumber: numbers.gamma, name: 'ガンマ物流株式会社' }),
        good,
        // an NDJSON line, as `npm run ingest` sends them with REDIS_URL set
        JSON.stringify(job({ corporateNumber: numbers.gamma, title: '' })),
      ],
      'test',
    );

    const posting = await eventually(
      () => source(names.jobs, good.id),
      (value) => value !== undefined,
    );
    expect(posting).toMatchObject({ corporateName: 'ガンマ物流株式会社', mediaName: 'doda' });

    const dead = await eventually(
      () => connection.lrange(deadLetterKey(services.config.redisPrefix), 0, -1),
      (entries) => entries.length > 0,
    );
    expect(dead.map((entry) => JSON.parse(entry) as DeadLetterEntry)).toEqual([
      expect.objectContaining({
        type: 'job',
        reason: 'title: must NOT have fewer than 1 characters',
        source: expect.stringMatching(/^test#\d+:3$/),
      }),
    ]);

    const company = await eventually(
      () => source(names.corporates, numbers.gamma),
      (value) => (value?.aggregates as { postingCount?: number } | undefined)?.postingCount === 1,
    );
    expect(company).toMatchObject({
      workLocationCount: 1,
      aggregates: { postingCount: 1, jobHiringPlanMinMax: 4 },
    });
  });

  it('holds back a posting whose company arrives in a later batch, then indexes it', async () => {
    const early = job({ corporateNumber: numbers.beta });
    await enqueueRecords(queue, [early], 'test');
    // the worker has held it back once it re-queued it as a delayed job of its own
    const heldBack = await eventually(
      async () =>
        (await queue.getDelayed()).some((delayed) => JSON.stringify(delayed.data).includes(early.id)),
      (found) => found,
    );
    expect(heldBack).toBe(true);
    await enqueueRecords(
      queue,
      [corporate({ corporateNumber: numbers.beta, name: 'ベータ工業株式会社' })],
      'test',
    );
    const posting = await eventually(
      () => source(names.jobs, early.id),
      (value) => value !== undefined,
    );
    expect(posting).toMatchObject({ corporateName: 'ベータ工業株式会社' });
    const dead = await connection.lrange(deadLetterKey(services.config.redisPrefix), 0, -1);
    expect(dead.some((entry) => entry.includes(early.id))).toBe(false);
  });

  it('dead-letters the records of a job it gave up on (engine unreachable), with the reason', async () => {
    // a real client at a loopback port nothing listens on: every request is refused
    const unreachable = createEngine('http://127.0.0.1:9');
    const down = ownWorker('down', { opensearch: unreachable, retry: { retries: 1, minTimeout: 10 } });
    try {
      const record = corporate({ corporateNumber: numbers.delta });
      await down.queue.add(
        'records',
        { records: [record], source: 'test' },
        { attempts: 2, backoff: { type: 'fixed', delay: 10 } },
      );
      const dead = await eventually(
        () => connection.lrange(deadLetterKey(down.prefix), 0, -1),
        (entries) => entries.length > 0,
      );
      expect(dead.map((entry) => JSON.parse(entry) as DeadLetterEntry)).toEqual([
        expect.objectContaining({
          reason: 'not indexed: the worker gave up after 2 attempts (OpenSearch unavailable)',
          record,
        }),
      ]);
    } finally {
      await down.close();
      await unreachable.close();
    }
  });

  it('shares a master record through Redis: a later job, read afresh, names with it', async () => {
    const own = ownWorker('masters');
    try {
      const media = JSON.parse(
        readFileSync(path.join(import.meta.dirname, '..', '..', 'data', 'masters', 'media.json'), 'utf8'),
      ).items as Array<{ id: number; name: string }>;
      const renamed = media.map((item) => (item.id === 3 ? { ...item, name: 'doda X' } : item));
      await enqueueRecords(own.queue, [{ type: 'master', master: 'media', items: renamed }], 'test');
      const shared = await eventually(
        () => connection.hget(mastersKey(own.prefix), 'media'),
        (value) => value !== null,
      );
      expect(JSON.parse(shared as string)).toEqual(renamed);
      // another job, so its pipeline starts from the lists in Redis, not from the first one's
      const number = ownNumber('010401000031');
      const posting = job({ corporateNumber: number, mediaId: 3 });
      await enqueueRecords(own.queue, [corporate({ corporateNumber: number }), posting], 'test');
      const written = await eventually(
        () => source(names.jobs, posting.id),
        (value) => value !== undefined,
      );
      expect(written).toMatchObject({ mediaId: 3, mediaName: 'doda X' });
    } finally {
      await own.close();
    }
  });

  it("names a job queued without a source 'queue' in its dead letters and in the job it defers", async () => {
    const own = ownWorker('unnamed');
    try {
      const orphan = job({ corporateNumber: ownNumber('010401000032') });
      await enqueueRecords(own.queue, [JSON.stringify(job({ title: '' })), orphan]);
      const dead = await eventually(
        () => connection.lrange(deadLetterKey(own.prefix), 0, -1),
        (entries) => entries.length > 0,
      );
      expect(dead.map((entry) => (JSON.parse(entry) as DeadLetterEntry).source)).toEqual([
        expect.stringMatching(/^queue#\d+:1$/),
      ]);
      const deferred = await eventually(
        () => own.queue.getDelayed(),
        (delayed) => delayed.some((entry) => entry.name === 'records'),
      );
      expect(deferred.find((entry) => entry.name === 'records')?.data).toEqual(
        expect.objectContaining({ records: [orphan], source: 'queue' }),
      );
    } finally {
      await own.close();
    }
  });

  it('puts the companies of a rebuild that fails back in the pending set, and the job fails', async () => {
    // an index prefix with no indices: the rebuild's first request is refused (404, which the
    // client does not resend), so the attempt fails at once
    const own = ownWorker('no-indices', { indexPrefix: `${services.config.indexPrefix}none-` });
    try {
      const pending = [ownNumber('010401000033'), ownNumber('010401000034')];
      await scheduleRebuilds(own.queue, connection, own.prefix, pending);
      // a failed attempt waits for its retry (the queue's backoff) as a delayed job
      const tried = await eventually(
        () => own.queue.getJobs(['delayed', 'failed']),
        (jobs) => jobs.some((entry) => entry.name === 'rebuild' && entry.attemptsMade > 0),
      );
      expect(tried.find((entry) => entry.name === 'rebuild')?.failedReason).toBeTruthy();
      // no attempt in flight while the set is read (pause waits for the active one)
      await own.worker.worker.pause();
      expect((await connection.smembers(rebuildSetKey(own.prefix))).sort()).toEqual(pending.sort());
    } finally {
      await own.close();
    }
  });

  it('schedules the nightly roll-off once, however often the worker starts', async () => {
    await scheduleRollOff(queue);
    await scheduleRollOff(queue);
    expect(await queue.getJobSchedulersCount()).toBe(1);
    expect(await queue.getJobScheduler(rollOffScheduleId)).toMatchObject({
      pattern: '0 3 * * *',
      tz: 'Asia/Tokyo',
      name: 'rolloff',
    });
    await queue.removeJobScheduler(rollOffScheduleId);
  });

  it('keeps one pending rebuild per company however many changes arrive', async () => {
    await worker.worker.pause();
    await scheduleRebuilds(queue, connection, services.config.redisPrefix, [numbers.delta, numbers.delta]);
    await scheduleRebuilds(queue, connection, services.config.redisPrefix, [numbers.delta, numbers.beta]);
    expect((await connection.smembers(rebuildSetKey(services.config.redisPrefix))).sort()).toEqual(
      [numbers.beta, numbers.delta].sort(),
    );
    const pending = await queue.getJobs(['delayed', 'waiting']);
    expect(pending.filter((entry) => entry.name === 'rebuild')).toHaveLength(1);
    worker.worker.resume();
    // the drain empties the set (neither company is indexed: nothing to write, nothing lost)
    const left = await eventually(
      () => connection.scard(rebuildSetKey(services.config.redisPrefix)),
      (count) => count === 0,
      40_000,
    );
    expect(left).toBe(0);
  });
});
