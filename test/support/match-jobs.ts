/**
 * For the match-job tests (test/match-jobs/*.test.ts): the real app on services with Redis (so
 * the jobs' store and queue exist), its files in a folder of the test, API keys in a key file
 * of the test process, and the rows of a list whose outcome is known from the match fixture
 * (test/fixtures/match/companies.ts).
 */
import { mkdtempSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import pino from 'pino';
import { inject } from 'vitest';
import { FileKeyStore } from '../../src/auth/file-key-store.js';
import { createApiKey } from '../../src/auth/key-admin.js';
import { defaultConfig } from '../../src/config.js';
import { createApp } from '../../src/http/app.js';
import { warmUpValidation } from '../../src/http/validation.js';
import { createInProcessMatchJobs } from '../../src/match-jobs/in-process.js';
import { MatchJobStore } from '../../src/match-jobs/job-store.js';
import {
  createMatchJobWorker,
  type MatchJobWorker,
  type MatchJobWorkerOptions,
} from '../../src/match-jobs/worker.js';
import type { Services } from '../../src/services.js';
import { companies, indexCompanies } from '../fixtures/match/companies.js';
import { setUpServices } from './env.js';

export interface JobsApp {
  services: Services;
  url: string;
  dir: string;
  headers(user: string, extra?: Record<string, string>): Promise<Record<string, string>>;
  close(): Promise<void>;
}

export async function startJobsApp(
  label: string,
  matchJobs: Partial<Services['config']['matchJobs']> = {},
  options: {
    /** single-process mode (no REDIS_URL): the jobs on the test Redis, a worker in the app's process */
    singleProcess?: boolean;
  } = {},
): Promise<JobsApp> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'match-jobs-'));
  const defaults = defaultConfig();
  const jobsRedisUrl = inject('redisUrl');
  const services = await setUpServices(
    label,
    {
      matchJobs: { ...defaults.matchJobs, dir, stallSeconds: 2, ...matchJobs },
      // the tests poll a job's progress: no 429 in the way
      limits: { ...defaults.limits, ratePerSecond: 1_000_000 },
      ...(options.singleProcess ? { redisUrl: undefined, creditsFile: undefined } : {}),
    },
    options.singleProcess ? { matchJobs: (deps) => createInProcessMatchJobs(jobsRedisUrl, deps) } : {},
  );
  await indexCompanies(services.opensearch, services.config.indexPrefix);
  await warmUpValidation();
  const keyStore = new FileKeyStore(
    path.join(mkdtempSync(path.join(os.tmpdir(), 'jobs-keys-')), 'keys.json'),
  );
  const keys = new Map<string, Promise<string>>();
  const app = createApp(services, { keyStore });
  const server: Server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    services,
    url: `http://127.0.0.1:${port}/rest/v1`,
    dir,
    async headers(user, extra = {}) {
      let key = keys.get(user);
      if (!key) {
        key = createApiKey(keyStore, { userId: user }).then((created) => created.key);
        keys.set(user, key);
      }
      return { 'x-api-key': await key, ...extra };
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await services.close();
    },
  };
}

export const sakuraTokyo = companies.sakuraTokyo.corporateNumber;
export const maruka = companies.maruka.corporateNumber;

/**
 * Row i of a test list (0-based), in a cycle of six with known outcomes:
 *   0 ㈱マルカ物流                 -> matched, maruka
 *   1 サクラ精機, 東京都            -> matched, sakuraTokyo (the prefecture singles it out)
 *   2 サクラ精機                    -> unmatched (two candidates)
 *   3 アオイ工業                    -> unmatched (two in Tokyo)
 *   4 ゼンゼンチガウ商会            -> unmatched
 *   5 (no name)                     -> rejected
 */
export function listRow(i: number): { name: string; prefecture: string; memo: string } {
  const names = ['㈱マルカ物流', 'サクラ精機', 'サクラ精機', 'アオイ工業', 'ゼンゼンチガウ商会', ''];
  return { name: names[i % 6] as string, prefecture: i % 6 === 1 ? '東京都' : '', memo: `memo-${i + 1}` };
}

export function expectedOf(i: number): { status: string; corporateNumber?: string } {
  const k = i % 6;
  if (k === 0) return { status: 'matched', corporateNumber: maruka };
  if (k === 1) return { status: 'matched', corporateNumber: sakuraTokyo };
  if (k === 5) return { status: 'rejected' };
  return { status: 'unmatched' };
}

export function matchedIn(rows: number): number {
  let matched = 0;
  for (let i = 0; i < rows; i++) if (expectedOf(i).status === 'matched') matched += 1;
  return matched;
}

/** A CSV of `rows` rows: header 会社名,都道府県,メモ (the memo column kept, not matched on). */
export function listCsv(rows: number, opts: { bom?: boolean } = {}): string {
  const lines = ['会社名,都道府県,メモ'];
  for (let i = 0; i < rows; i++) {
    const row = listRow(i);
    lines.push(`${row.name},${row.prefecture},"${row.memo}, kept"`);
  }
  return `${opts.bom ? '\uFEFF' : ''}${lines.join('\r\n')}\r\n`;
}

export interface JobView {
  id: string;
  status: string;
  stopReason?: string;
  columns: string[];
  rows: { total: number; done: number; rejected: number; matched: number; unmatched: number };
  creditsCharged: number;
}

/** Polls the job until `until` holds (default: it ended); fails after `ms`. */
export async function waitForJob(
  app: JobsApp,
  user: string,
  id: string,
  until: (job: JobView) => boolean = (job) => !['queued', 'running'].includes(job.status),
  ms = 60_000,
): Promise<JobView> {
  const end = Date.now() + ms;
  for (;;) {
    const res = await fetch(`${app.url}/corporates/match-jobs/${id}`, { headers: await app.headers(user) });
    const job = (await res.json()) as JobView;
    if (until(job)) return job;
    if (Date.now() > end) throw new Error(`job ${id} still ${JSON.stringify(job)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export async function createJob(
  app: JobsApp,
  user: string,
  body: string | Buffer,
  opts: { contentType?: string; query?: string; headers?: Record<string, string> } = {},
): Promise<{
  status: number;
  body: JobView & { errors?: Array<{ field: string; reason: string }> };
  headers: Headers;
}> {
  const res = await fetch(`${app.url}/corporates/match-jobs${opts.query ? `?${opts.query}` : ''}`, {
    method: 'POST',
    headers: await app.headers(user, {
      'content-type': opts.contentType ?? 'text/csv',
      ...opts.headers,
    }),
    body: typeof body === 'string' ? body : new Uint8Array(body),
    signal: AbortSignal.timeout(30_000),
  });
  return { status: res.status, body: (await res.json()) as never, headers: res.headers };
}

/**
 * A match-job worker in the test's process, as `npm run worker` runs one, on the test Redis
 * under the services' prefix, its files in `root`; `close()` stops it and its connection.
 */
export function startTestWorker(
  services: Services,
  root: string,
  overrides: Partial<MatchJobWorkerOptions> = {},
): MatchJobWorker {
  const connection = new Redis(inject('redisUrl'), { maxRetriesPerRequest: null });
  const worker = createMatchJobWorker({
    connection,
    redisPrefix: services.config.redisPrefix,
    services,
    ledger: services.limits.ledger,
    price: services.limits.config.matchCost,
    store: new MatchJobStore(services.redis as Redis, services.config.redisPrefix),
    root,
    logger: pino({ level: 'silent' }),
    stallSeconds: 2,
    retentionHours: 1,
    ...overrides,
  });
  return {
    worker: worker.worker,
    async close() {
      await worker.close();
      connection.disconnect();
    },
  };
}
