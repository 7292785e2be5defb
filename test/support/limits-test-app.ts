/**
 * For the limits tests (test/limits/: rate-limit*, credits*, redis-outage*): the REAL app (createApp:
 * auth, masters, rate limit, validation, credits, search and detail routes, error middleware)
 * with the limits under test in their slot, searching the REAL OpenSearch under the file's
 * index prefix, whose indices it seeds with one company and its posting (`seededCompany`,
 * `seededJob`). API keys live in a key file of this test process (the product's FileKeyStore),
 * so the key store stays up while a test takes the limits' Redis away; `search(url, user)`
 * sends the user's key, created on first use and shared by every app the file starts.
 */
import { mkdtempSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Logger } from 'pino';
import { FileKeyStore } from '../../src/auth/file-key-store.js';
import { createApiKey } from '../../src/auth/key-admin.js';
import { corporateSearch, jobSearch } from '../../src/catalogue/searches.js';
import { defaultConfig } from '../../src/config.js';
import { createApp } from '../../src/http/app.js';
import { warmUpValidation } from '../../src/http/validation.js';
import type { Limits } from '../../src/limits/limits.js';
import { createLogger } from '../../src/logger.js';
import type { Engine } from '../../src/opensearch/engine.js';
import { compileRequestChecks } from '../../src/search/parse-request.js';
import { createPaging, type Services } from '../../src/services.js';
import { corporate, indexFixture, job, posting } from '../fixtures/search/docs.js';
import { postJson } from './bounded-http.js';

/** The job every limits test may ask the detail of (GET /rest/v1/jobs/J-1/detail). */
export const detailJobId = 'J-1';

/**
 * What the app's indices hold (unless `seed: false`): one company, its one posting in the job
 * index and that posting's detail. Records to serve make "a refused request served no records"
 * an assertion that can fail: on empty indices every answer, paid for or not, is empty.
 */
export const seededCorporateNumber = '9000000000001';
export const seededCompany = corporate({
  corporateNumber: seededCorporateNumber,
  name: 'リミッツ試験株式会社',
  postings: [posting({ id: detailJobId, title: '試験担当' })],
});
export const seededJob = job({
  id: detailJobId,
  corporateNumber: seededCorporateNumber,
  corporateName: seededCompany.name,
  title: '試験担当',
});

/** Whether an answer's text carries a seeded record: the company's number or the posting's id. */
export function carriesSeededRecord(text: string): boolean {
  return text.includes(seededCorporateNumber) || text.includes(`"${detailJobId}"`);
}

export interface TestApp {
  url: string;
  close(): Promise<void>;
}

const keyStore = new FileKeyStore(
  path.join(mkdtempSync(path.join(os.tmpdir(), 'limits-keys-')), 'keys.json'),
);
const keys = new Map<string, Promise<string>>();
const seeded = new Set<string>();

/** The X-API-Key header of `user` (a key is made on first use). */
export async function userHeaders(user: string): Promise<Record<string, string>> {
  let key = keys.get(user);
  if (!key) {
    key = createApiKey(keyStore, { userId: user }).then((created) => created.key);
    keys.set(user, key);
  }
  return { 'x-api-key': await key };
}

export async function startLimitsTestApp(opts: {
  limits: Limits;
  opensearch: Engine;
  indexPrefix: string;
  /** false for an app whose OpenSearch is unreachable on purpose (it only answers 503). */
  seed?: boolean;
  /** Where the app logs (default: nowhere). */
  logger?: Logger;
  /** The request deadline (default 20 s, see below); the engine-fault tests shorten it. */
  requestDeadlineMs?: number;
  /** The match judge's table (MATCH_JUDGE_FILE; default the one shipped). */
  matchJudgeFile?: string;
}): Promise<TestApp> {
  if (opts.seed !== false && !seeded.has(opts.indexPrefix)) {
    await indexFixture(opts.opensearch, opts.indexPrefix, {
      corporates: [seededCompany],
      jobs: [seededJob],
      jobDetails: [{ id: detailJobId, corporateNumber: seededCorporateNumber, description: '仕事内容' }],
    });
    seeded.add(opts.indexPrefix);
  }
  // as src/main.ts does before serving: no request pays for compiling the schemas
  await warmUpValidation();
  compileRequestChecks([corporateSearch, jobSearch]);
  const services: Services = {
    config: {
      ...defaultConfig(),
      indexPrefix: opts.indexPrefix,
      redisPrefix: 'limits-test:',
      loadSampleData: false,
      logLevel: 'silent',
      // as test/support/env.ts: 1,000 concurrent searches on a loaded machine can outlast the
      // production deadline and Redis budget; those 503s are the deadline tests' subject
      requestDeadlineMs: opts.requestDeadlineMs ?? 20_000,
      // a match has the same deadline here: the fault tests cut matches as they cut searches
      matchDeadlineMs: opts.requestDeadlineMs ?? 20_000,
      redisBudgetMs: 5_000,
      limits: opts.limits.config,
      ...(opts.matchJudgeFile ? { matchJudgeFile: opts.matchJudgeFile } : {}),
    },
    logger: opts.logger ?? createLogger('silent'),
    opensearch: opts.opensearch,
    redis: undefined,
    limits: opts.limits,
    paging: createPaging(defaultConfig(), undefined),
    close: async () => {},
  };
  const app = createApp(services, { keyStore });
  const server: Server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * The engine's own count of the reads run on the file's indices: the queries (searches, counts,
 * exports' pages) and the document gets (a job's detail is one) of every index under the
 * prefix (`<prefix>*`: corporates, jobs, job-details, deleted-corporates), so "a refused request
 * made no engine query" is checked for the job operations as much as for the company ones.
 */
export async function queryTotal(opensearch: Engine, indexPrefix: string): Promise<number> {
  const { body } = await opensearch.indices.stats({ index: `${indexPrefix}*`, metric: ['search', 'get'] });
  const all = body._all?.primaries;
  return Number(all?.search?.query_total ?? Number.NaN) + Number(all?.get?.total ?? Number.NaN);
}

export async function search(
  baseUrl: string,
  user: string,
  opts: { body?: unknown; headers?: Record<string, string>; path?: string } = {},
): Promise<globalThis.Response> {
  return postJson(
    `${baseUrl}${opts.path ?? '/rest/v1/corporates/search'}`,
    { ...(await userHeaders(user)), ...opts.headers },
    opts.body ?? { limit: 1 },
  );
}
