/**
 * `npm run ingest` with REDIS_URL as a function (queueFiles): files in batches onto the real
 * queue, an in-process worker indexing them into the real engine, and the workers' reports
 * summed, as test/indexer/indexer.test.ts holds the direct path (ingestFiles).
 */
import { mkdtempSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type DeadLetterEntry, deadLetterKey } from '../../indexer/dead-letter.js';
import { indexNames } from '../../indexer/index-names.js';
import type { IndexerWorker } from '../../indexer/indexer-worker.js';
import { type QueueProgress, queueFiles } from '../../indexer/ingest-queue.js';
import { createQueueConnection } from '../../indexer/queue.js';
import type { Services } from '../../src/services.js';
import { corporate, job, numbers } from '../fixtures/indexer/records.js';
import { setUpServices } from '../support/env.js';
import { startTestWorker } from '../support/worker.js';

let services: Services;
let connection: Redis;
let worker: IndexerWorker;
let names: ReturnType<typeof indexNames>;
const dir = mkdtempSync(path.join(os.tmpdir(), 'ingest-queue-'));

function ndjson(name: string, lines: unknown[]): string {
  const file = path.join(dir, name);
  writeFileSync(
    file,
    `${lines.map((line) => (typeof line === 'string' ? line : JSON.stringify(line))).join('\n')}\n`,
  );
  return file;
}

async function count(index: string, query: unknown = { match_all: {} }): Promise<number> {
  await services.opensearch.indices.refresh({ index });
  const { body } = await services.opensearch.count({ index, body: { query } as never });
  return body.count;
}

beforeAll(async () => {
  services = await setUpServices('ingest-queue');
  names = indexNames(services.config.indexPrefix);
  connection = createQueueConnection(inject('redisUrl'));
  worker = startTestWorker(services, connection);
});

afterAll(async () => {
  await worker.close();
  connection.disconnect();
  await services.close();
});

describe('queueFiles (ingest with REDIS_URL)', () => {
  it('queues each file in batches, waits for the worker, and sums its reports', async () => {
    const companies = ndjson('corporates.ndjson', [
      corporate({ corporateNumber: numbers.alpha }),
      corporate({ corporateNumber: numbers.beta, name: '株式会社ベータ' }),
      corporate({ corporateNumber: numbers.gamma, name: 'ガンマ物流株式会社' }),
    ]);
    const postings = ndjson('jobs.ndjson', [
      job({ corporateNumber: numbers.alpha }),
      job({ corporateNumber: numbers.beta }),
      // refused by the worker with its reason (an NDJSON line, as the CLI sends them)
      JSON.stringify(job({ id: 'Q-bad', corporateNumber: numbers.alpha, title: '' })),
      job({ corporateNumber: numbers.gamma }),
      job({ corporateNumber: numbers.gamma }),
    ]);
    const progress: QueueProgress[] = [];
    const queued: number[] = [];
    const result = await queueFiles([companies, postings], {
      redisUrl: inject('redisUrl'),
      redisPrefix: services.config.redisPrefix,
      batchSize: 2,
      wait: true,
      onProgress: (step) => progress.push(step),
      onQueued: (batches) => queued.push(batches),
    });

    // 3 lines -> 2 batches, then 5 lines -> 3 batches (a file never shares a batch with the next)
    expect(result).toEqual({
      batches: 5,
      deadLetterList: deadLetterKey(services.config.redisPrefix),
      report: {
        corporate: { read: 3, indexed: 3, rejected: 0 },
        job: { read: 5, indexed: 4, rejected: 1 },
      },
      deferred: 0,
    });
    expect(queued).toEqual([5]);
    const total = statSync(companies).size + statSync(postings).size;
    expect(progress[0]).toEqual({ phase: 'queue', done: 0, total });
    expect(progress.at(-1)).toEqual({ phase: 'queue', done: total, total });
    expect(progress.map((step) => step.done)).toEqual(
      [...progress.map((step) => step.done)].sort((a, b) => a - b),
    );

    // this test's companies only: the other test of the file may have run first
    const own = { terms: { corporateNumber: [numbers.alpha, numbers.beta, numbers.gamma] } };
    expect(await count(names.corporates, own)).toBe(3);
    expect(await count(names.jobs, own)).toBe(4);
    const dead = await connection.lrange(result.deadLetterList, 0, -1);
    expect(dead.map((entry) => JSON.parse(entry) as DeadLetterEntry)).toEqual([
      expect.objectContaining({
        type: 'job',
        key: 'Q-bad',
        reason: 'title: must NOT have fewer than 1 characters',
        source: expect.stringMatching(/^ingest-cli#\d+:1$/),
      }),
    ]);
  });

  it('without wait, returns once queued; the worker indexes the batches after', async () => {
    // its own company, in the same file ahead of the posting: no dependence on the other test
    const extra = job({ corporateNumber: numbers.delta, title: '待たずに投入した求人' });
    const file = ndjson('more-jobs.ndjson', [
      corporate({ corporateNumber: numbers.delta, name: 'デルタ株式会社' }),
      extra,
    ]);
    const queued: number[] = [];
    const result = await queueFiles([file], {
      redisUrl: inject('redisUrl'),
      redisPrefix: services.config.redisPrefix,
      batchSize: 1000,
      wait: false,
      onQueued: (batches) => queued.push(batches),
    });
    expect(result).toEqual({ batches: 1, deadLetterList: deadLetterKey(services.config.redisPrefix) });
    expect(queued).toEqual([1]);

    const deadline = Date.now() + 20_000;
    let found = 0;
    while (found === 0 && Date.now() < deadline) {
      found = await count(names.jobs, { ids: { values: [extra.id] } });
      if (found === 0) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(found).toBe(1);
  });
});
