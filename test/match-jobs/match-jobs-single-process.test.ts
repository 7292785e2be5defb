/**
 * Match jobs in single-process mode (no REDIS_URL, as `npm start` runs): the jobs' states and
 * queue on a Redis of their own (src/match-jobs/in-process.ts), the worker in the API's
 * process, the credits in the process's own ledger. A job is taken, run to its end and
 * charged there, and its results read back, with nothing but the app running.
 */
import { Redis } from 'ioredis';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { MatchJobStore } from '../../src/match-jobs/job-store.js';
import { createMatchJobWorker } from '../../src/match-jobs/worker.js';
import { createRedis } from '../../src/redis.js';
import { testRedis } from '../support/env.js';
import {
  createJob,
  type JobsApp,
  listCsv,
  matchedIn,
  startJobsApp,
  waitForJob,
} from '../support/match-jobs.js';

let app: JobsApp;

beforeAll(async () => {
  app = await startJobsApp('jobs-single', { chunkRecords: 100 }, { singleProcess: true });
  await app.services.limits.ledger.grant('carol', 10_000);
});
afterAll(async () => {
  const prefix = app?.services.config.redisPrefix;
  await app?.close();
  // the jobs' keys on the shared redis-server: the app's services hold no Redis of their own
  if (prefix) await (await testRedis(prefix)).close();
});

describe('single-process mode', () => {
  it('has no Redis for limits and credits, and still runs a match job to its end, charged once', async () => {
    expect(app.services.redis).toBeUndefined();
    expect(app.services.limits.ledger.mode).toBe('single-process');
    const rows = 300;
    const created = await createJob(app, 'carol', listCsv(rows));
    expect(created.status).toBe(202);
    const job = await waitForJob(app, 'carol', created.body.id);
    expect(job.status).toBe('completed');
    expect(job.rows.done).toBe(rows);
    expect(job.rows.matched).toBe(matchedIn(rows));
    expect(job.creditsCharged).toBe(matchedIn(rows));
    expect(await app.services.limits.ledger.balance('carol')).toBe(10_000 - matchedIn(rows));
    const results = await fetch(`${app.url}/corporates/match-jobs/${created.body.id}/results?format=csv`, {
      headers: await app.headers('carol'),
    });
    expect(results.status).toBe(200);
    // the header and one line per row
    expect((await results.text()).trim().split('\n')).toHaveLength(rows + 1);
  });
});

describe('a match-job worker starting', () => {
  it('sweeps once its store is connected, without a warning for commands sent too early', async () => {
    const lines: string[] = [];
    const prefix = `${app.services.config.redisPrefix}sweep:`;
    // the store's client as the worker binary makes it: not connected yet, no offline queue
    const storeRedis = createRedis(inject('redisUrl'));
    const connection = new Redis(inject('redisUrl'), { maxRetriesPerRequest: null });
    const worker = createMatchJobWorker({
      connection,
      redisPrefix: prefix,
      services: app.services,
      ledger: app.services.limits.ledger,
      price: 1,
      store: new MatchJobStore(storeRedis, prefix),
      root: app.dir,
      logger: pino({ level: 'info' }, { write: (line: string) => lines.push(line) }),
      stallSeconds: 2,
      retentionHours: 1,
    });
    try {
      await new Promise((resolve) => storeRedis.once('ready', resolve));
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(lines.filter((line) => line.includes('retention sweep failed'))).toEqual([]);
    } finally {
      await worker.close();
      connection.disconnect();
      storeRedis.disconnect();
    }
  });
});
