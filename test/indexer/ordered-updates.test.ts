/**
 * Ordered updates on the real engine, on both ingest paths: records carry `sourceUpdatedAt`,
 * and an older version never replaces or revives a newer state of its key, whatever order the
 * batches land in.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { MemoryDeadLetter } from '../../indexer/dead-letter.js';
import { indexNames } from '../../indexer/index-names.js';
import type { IndexerWorker } from '../../indexer/indexer-worker.js';
import { ingestFiles } from '../../indexer/ingest.js';
import { IngestPipeline } from '../../indexer/pipeline.js';
import { createIndexerQueue, createQueueConnection, enqueueRecords } from '../../indexer/queue.js';
import { rebuildCompanies } from '../../indexer/rebuild.js';
import type { Services } from '../../src/services.js';
import { corporate, job, numbers } from '../fixtures/indexer/records.js';
import { setUpServices } from '../support/env.js';
import { startTestWorker } from '../support/worker.js';

let services: Services;
let names: ReturnType<typeof indexNames>;

const v1 = '2026-11-20T09:00:00+09:00';
const v2 = '2026-11-20T09:00:01+09:00';
const v3 = '2026-11-20T10:00:00+09:00';

async function source(index: string, id: string): Promise<Record<string, unknown> | undefined> {
  const { body } = await services.opensearch.get({ index, id }, { ignore: [404] });
  return (body as { _source?: Record<string, unknown> })._source;
}

beforeAll(async () => {
  services = await setUpServices('ordered');
  names = indexNames(services.config.indexPrefix);
});
afterAll(async () => {
  await services?.close();
});

describe('CLI path (ingestFiles: batches of one record, two in flight)', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'ordered-'));

  async function ingest(records: unknown[]) {
    const file = path.join(dir, `${Math.random().toString(36).slice(2)}.ndjson`);
    writeFileSync(file, `${records.map((record) => JSON.stringify(record)).join('\n')}\n`);
    const deadLetter = new MemoryDeadLetter();
    const result = await ingestFiles([file], {
      client: services.opensearch,
      indexPrefix: services.config.indexPrefix,
      deadLetter,
      batchSize: 1,
    });
    expect(deadLetter.entries).toEqual([]);
    return result;
  }

  it('keeps the newer company and posting when the older versions arrive after them', async () => {
    const newer = job({ corporateNumber: numbers.alpha, title: '新しい版', sourceUpdatedAt: v2 });
    const older = { ...newer, title: '古い版', sourceUpdatedAt: v1 };
    // two runs, so the older versions reach the engine after the newer ones for certain (within
    // one run, batches in flight together land in either order; the test below covers that)
    const first = await ingest([
      corporate({ corporateNumber: numbers.alpha, name: '新社名株式会社', sourceUpdatedAt: v2 }),
      newer,
    ]);
    expect(first.report.corporate).toEqual({ read: 1, indexed: 1, rejected: 0 });
    const result = await ingest([
      corporate({ corporateNumber: numbers.alpha, name: '旧社名株式会社', sourceUpdatedAt: v1 }),
      older,
    ]);
    expect(result.report.corporate).toEqual({ read: 1, indexed: 0, rejected: 0, older: 1 });
    expect(result.report.job).toEqual({ read: 1, indexed: 0, rejected: 0, older: 1 });
    expect(await source(names.corporates, numbers.alpha)).toMatchObject({
      name: '新社名株式会社',
      postings: [expect.objectContaining({ title: '新しい版' })],
    });
    expect(await source(names.jobs, newer.id)).toMatchObject({
      title: '新しい版',
      corporateName: '新社名株式会社',
    });
    expect(await source(names.jobDetails, newer.id)).toMatchObject({ description: newer.description });
  });

  it('a delete followed by a late older upsert leaves the posting deleted, also after a rebuild', async () => {
    // a company of its own (check digit 4): the tests of this file run in any order
    const number = '4010401000008';
    const posting = job({ corporateNumber: number, title: '消える求人', sourceUpdatedAt: v1 });
    await ingest([
      corporate({ corporateNumber: number, name: '求人が消える株式会社', sourceUpdatedAt: v1 }),
      posting,
    ]);
    expect(await source(names.jobs, posting.id)).toBeDefined();
    // two runs, so the upsert lands after the delete for certain (in one run, the two batches
    // are in flight together and land in either order: the posting ends deleted either way,
    // but the upsert would then count as indexed, then deleted)
    await ingest([{ type: 'delete_job', id: posting.id, sourceUpdatedAt: v3 }]);
    const result = await ingest([{ ...posting, sourceUpdatedAt: v2 }]);
    expect(result.report.job).toEqual({ read: 1, indexed: 0, rejected: 0, older: 1 });
    expect(await source(names.jobs, posting.id)).toBeUndefined();
    expect(await source(names.jobDetails, posting.id)).toBeUndefined();
    await rebuildCompanies(services.opensearch, services.config.indexPrefix, [number]);
    const company = await source(names.corporates, number);
    expect(((company?.postings ?? []) as Array<{ id: string }>).map((p) => p.id)).not.toContain(posting.id);
  });

  it('a company delete followed by a late older company record leaves the company deleted', async () => {
    const posting = job({ corporateNumber: numbers.gamma, title: '消える会社の求人', sourceUpdatedAt: v1 });
    await ingest([
      corporate({ corporateNumber: numbers.gamma, name: '消える株式会社', sourceUpdatedAt: v1 }),
      posting,
    ]);
    expect(await source(names.corporates, numbers.gamma)).toBeDefined();
    const deleted = await ingest([
      { type: 'delete_corporate', corporateNumber: numbers.gamma, sourceUpdatedAt: v3 },
    ]);
    expect(deleted.report.delete_corporate).toEqual({ read: 1, indexed: 1, rejected: 0 });
    const late = await ingest([
      corporate({ corporateNumber: numbers.gamma, name: '遅れて届いた旧版株式会社', sourceUpdatedAt: v2 }),
    ]);
    expect(late.report.corporate).toEqual({ read: 1, indexed: 0, rejected: 0, older: 1 });
    expect(await source(names.corporates, numbers.gamma)).toBeUndefined();
    expect(await source(names.jobs, posting.id)).toBeUndefined();
    // a record newer than the delete: the company is back in the source, and in the index
    const back = await ingest([
      corporate({
        corporateNumber: numbers.gamma,
        name: '再登録株式会社',
        sourceUpdatedAt: '2026-11-21T09:00:00+09:00',
      }),
    ]);
    expect(back.report.corporate).toEqual({ read: 1, indexed: 1, rejected: 0 });
    expect(await source(names.corporates, numbers.gamma)).toMatchObject({ name: '再登録株式会社' });
  });

  it('a company delete older than the stored company record leaves the company and its postings', async () => {
    const number = numbers.delta;
    const posting = job({ corporateNumber: number, title: '残る求人', sourceUpdatedAt: v3 });
    await ingest([
      corporate({ corporateNumber: number, name: '残る株式会社', sourceUpdatedAt: v3 }),
      posting,
    ]);
    const result = await ingest([{ type: 'delete_corporate', corporateNumber: number, sourceUpdatedAt: v2 }]);
    expect(result.report.delete_corporate).toEqual({ read: 1, indexed: 0, rejected: 0, older: 1 });
    expect(await source(names.corporates, number)).toMatchObject({ name: '残る株式会社' });
    expect(await source(names.jobs, posting.id)).toMatchObject({ title: '残る求人' });
    // the older delete is still recorded: a record older than it cannot come back either
    const older = await ingest([
      corporate({ corporateNumber: number, name: '最古株式会社', sourceUpdatedAt: v1 }),
    ]);
    expect(older.report.corporate).toEqual({ read: 1, indexed: 0, rejected: 0, older: 1 });
    expect(await source(names.corporates, number)).toMatchObject({ name: '残る株式会社' });
  });

  it('a company delete recorded by another worker while a late older record is being written: the company is deleted again', async () => {
    const number = '7010401000005';
    await ingest([corporate({ corporateNumber: number, name: '競合株式会社', sourceUpdatedAt: v1 })]);
    // the real client, with the other worker's delete landing between this batch's plan and its
    // `_bulk` write (the plan has already read the deletions and found none)
    let raced = false;
    const racing = new Proxy(services.opensearch, {
      get(target, property, receiver) {
        if (property !== 'bulk') return Reflect.get(target, property, receiver);
        return async (...args: unknown[]) => {
          if (!raced) {
            raced = true;
            await target.index({
              index: names.deletedCorporates,
              id: number,
              version: Date.parse(v3),
              version_type: 'external',
              body: { corporateNumber: number, sourceUpdatedAt: v3, deletedAt: new Date().toISOString() },
              refresh: true,
            });
            await target.delete({ index: names.corporates, id: number, refresh: true });
          }
          return (target.bulk as (...a: unknown[]) => Promise<unknown>)(...args);
        };
      },
    });
    const pipeline = new IngestPipeline({
      client: racing,
      indexPrefix: services.config.indexPrefix,
      deadLetter: new MemoryDeadLetter(),
      batchSize: 1,
    });
    await pipeline.add(
      corporate({ corporateNumber: number, name: '遅れた旧版株式会社', sourceUpdatedAt: v2 }),
    );
    await pipeline.flush();
    expect(raced).toBe(true);
    expect(pipeline.report.corporate).toEqual({ read: 1, indexed: 0, rejected: 0, older: 1 });
    expect(await source(names.corporates, number)).toBeUndefined();
  });

  it('two versions in parallel batches, many times over: the newest always wins', async () => {
    // a company of its own (check digit 3), indexed first: the tests of this file run in any order
    const number = '3010401000009';
    await ingest([corporate({ corporateNumber: number, name: '版比べ株式会社', sourceUpdatedAt: v1 })]);
    const pipeline = new IngestPipeline({
      client: services.opensearch,
      indexPrefix: services.config.indexPrefix,
      deadLetter: new MemoryDeadLetter(),
      batchSize: 1,
      maxInFlight: 4,
    });
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) {
      const newest = job({ corporateNumber: number, title: `最新${i}`, sourceUpdatedAt: v3 });
      ids.push(newest.id);
      await pipeline.add({ ...newest, title: `中間${i}`, sourceUpdatedAt: v2 });
      await pipeline.add(newest);
      await pipeline.add({ ...newest, title: `最古${i}`, sourceUpdatedAt: v1 });
    }
    await pipeline.flush();
    const { body } = await services.opensearch.mget({ index: names.jobs, body: { ids } });
    const titles = (body.docs as Array<{ _source?: { title: string } }>).map((doc) => doc._source?.title);
    expect(titles).toEqual(ids.map((_, i) => `最新${i}`));
  });
});

describe('queue path (BullMQ worker, four batches at a time)', () => {
  let connection: Redis;
  let queue: Queue;
  let worker: IndexerWorker;

  beforeAll(async () => {
    connection = createQueueConnection(inject('redisUrl'));
    queue = createIndexerQueue(connection, services.config.redisPrefix);
    worker = startTestWorker(services, connection, { concurrency: 4 });
    await enqueueRecords(
      queue,
      [corporate({ corporateNumber: numbers.beta, name: 'ベータ株式会社' })],
      'test',
    );
    await drained();
  });
  afterAll(async () => {
    await worker?.close();
    await queue?.obliterate({ force: true });
    await queue?.close();
    connection?.disconnect();
  });

  async function drained(): Promise<void> {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const counts = await queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized');
      if (Object.values(counts).every((count) => count === 0) || Date.now() > deadline) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  it('two versions of one posting in reverse order, in different concurrent batches', async () => {
    const newer = job({ corporateNumber: numbers.beta, title: '新しい版', sourceUpdatedAt: v2 });
    const older = { ...newer, title: '古い版', sourceUpdatedAt: v1 };
    await Promise.all([
      enqueueRecords(queue, [newer], 'test'),
      enqueueRecords(queue, [older], 'test'),
      enqueueRecords(
        queue,
        [{ ...newer, title: 'もっと古い版', sourceUpdatedAt: '2026-01-01T00:00:00Z' }],
        'test',
      ),
    ]);
    await drained();
    expect(await source(names.jobs, newer.id)).toMatchObject({ title: '新しい版' });
  });

  it('a company delete followed by a late older company record, in concurrent batches', async () => {
    const number = '6010401000006';
    await enqueueRecords(
      queue,
      [corporate({ corporateNumber: number, name: '消える株式会社', sourceUpdatedAt: v1 })],
      'test',
    );
    await drained();
    expect(await source(names.corporates, number)).toBeDefined();
    await enqueueRecords(
      queue,
      [{ type: 'delete_corporate', corporateNumber: number, sourceUpdatedAt: v3 }],
      'test',
    );
    await drained();
    await Promise.all([
      enqueueRecords(
        queue,
        [corporate({ corporateNumber: number, name: '旧版株式会社', sourceUpdatedAt: v2 })],
        'test',
      ),
      enqueueRecords(
        queue,
        [corporate({ corporateNumber: number, name: '最古株式会社', sourceUpdatedAt: v1 })],
        'test',
      ),
    ]);
    await drained();
    expect(await source(names.corporates, number)).toBeUndefined();
  });

  it('a delete followed by a late older upsert', async () => {
    const posting = job({ corporateNumber: numbers.beta, title: '消える求人', sourceUpdatedAt: v1 });
    await enqueueRecords(queue, [posting], 'test');
    await drained();
    expect(await source(names.jobs, posting.id)).toBeDefined();
    await enqueueRecords(queue, [{ type: 'delete_job', id: posting.id, sourceUpdatedAt: v3 }], 'test');
    await drained();
    await enqueueRecords(queue, [{ ...posting, sourceUpdatedAt: v2 }], 'test');
    await drained();
    expect(await source(names.jobs, posting.id)).toBeUndefined();
    expect(await source(names.jobDetails, posting.id)).toBeUndefined();
  });
});
