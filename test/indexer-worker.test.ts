/**
 * The BullMQ path end to end on the real redis-server and engine: records queued, the worker
 * indexes them with the shared transform, a bad record lands in the Redis dead-letter list
 * with its reason, and the touched company gets one (deduplicated) rebuild.
 */
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type DeadLetterEntry, deadLetterKey } from '../indexer/dead-letter.js';
import { indexNames } from '../indexer/index-names.js';
import { createIndexerWorker, type IndexerWorker } from '../indexer/indexer-worker.js';
import {
  createIndexerQueue,
  createQueueConnection,
  enqueueRecords,
  rebuildSetKey,
  rollOffScheduleId,
  scheduleRebuilds,
  scheduleRollOff,
} from '../indexer/queue.js';
import { createOpenSearchClient } from '../src/opensearch/client.js';
import type { Services } from '../src/services.js';
import { corporate, job, numbers } from './fixtures/indexer/records.js';
import { setUpServices } from './support/env.js';
import { startTestWorker } from './support/worker.js';

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
    const prefix = `${services.config.redisPrefix}down-`;
    const downQueue = createIndexerQueue(connection, prefix);
    // a real client at a loopback port nothing listens on: every request is refused
    const unreachable = createOpenSearchClient('http://127.0.0.1:9');
    const downWorker = createIndexerWorker({
      opensearch: unreachable,
      indexPrefix: services.config.indexPrefix,
      connection,
      redisPrefix: prefix,
      logger: pino({ level: 'silent' }),
      retry: { retries: 1, minTimeout: 10 },
    });
    try {
      const record = corporate({ corporateNumber: numbers.delta });
      await downQueue.add(
        'records',
        { records: [record], source: 'test' },
        { attempts: 2, backoff: { type: 'fixed', delay: 10 } },
      );
      const dead = await eventually(
        () => connection.lrange(deadLetterKey(prefix), 0, -1),
        (entries) => entries.length > 0,
      );
      expect(dead.map((entry) => JSON.parse(entry) as DeadLetterEntry)).toEqual([
        expect.objectContaining({
          reason: 'not indexed: the worker gave up after 2 attempts (OpenSearch unavailable)',
          record,
        }),
      ]);
    } finally {
      await downWorker.close();
      await downQueue.obliterate({ force: true });
      await downQueue.close();
      await unreachable.close();
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
