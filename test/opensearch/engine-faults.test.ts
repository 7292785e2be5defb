/**
 * The engine failing in the ways a stopped process does not show (test/support/fault-proxy.ts
 * between the API and the real OpenSearch): 429, 503 and 500 answers, a reset connection, a
 * body cut short, a body that is not JSON, a request never answered. Through every operation
 * that reads the engine (search, count, export, match, job detail, suggest), each answer must be
 * a 503 with Retry-After and an error code of the catalogue, carry no engine text (nor may the
 * log), and leave the credits exact: a charged operation's reservation closed exactly once,
 * a free one never reserving. With the proxy passing again, the same requests succeed, so the
 * failures above are the faults' doing. A caller that hangs up while the engine holds its
 * search gets its reservation back once and its Idempotency-Key freed for the retry.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLimits, type Limits } from '../../src/limits/limits.js';
import { createLogger } from '../../src/logger.js';
import { createEngine } from '../../src/opensearch/engine.js';
import type { Services } from '../../src/services.js';
import { indexFixture, job } from '../fixtures/search/docs.js';
import { setUpServices } from '../support/env.js';
import { type Fault, type FaultProxy, faultSecret, startFaultProxy } from '../support/fault-proxy.js';
import { type LedgerHistory, recordLedger } from '../support/ledger-history.js';
import {
  detailJobId,
  seededCorporateNumber,
  startLimitsTestApp,
  type TestApp,
  userHeaders,
} from '../support/limits-test-app.js';

const deadlineMs = 1_500;
const grant = 20;

let services: Services;
let limits: Limits;
let history: LedgerHistory;
let proxy: FaultProxy;
let proxied: ReturnType<typeof createEngine>;
let app: TestApp;
const logLines: string[] = [];

interface Operation {
  name: string;
  /** Reservations the request makes before the fault hits it (each must be refunded once). */
  reserves: 0 | 1;
  method: 'GET' | 'POST';
  path: string;
  body?: unknown;
  /** Engine reads let through before the fault (an export counts its results first). */
  passFirst?: number;
}

const operations: Operation[] = [
  {
    name: 'company search',
    reserves: 1,
    method: 'POST',
    path: '/rest/v1/corporates/search',
    body: { limit: 1 },
  },
  { name: 'job count', reserves: 0, method: 'POST', path: '/rest/v1/jobs/count', body: {} },
  // the export opens its snapshot and counts on it before it reserves: a fault there reserves nothing...
  {
    name: 'job export',
    reserves: 0,
    method: 'POST',
    path: '/rest/v1/jobs/export',
    body: { format: 'jsonl' },
  },
  // ...and a fault on the reads after it hits a reservation, which must come back whole
  {
    name: 'job export past its count',
    reserves: 1,
    method: 'POST',
    path: '/rest/v1/jobs/export',
    body: { format: 'jsonl' },
    passFirst: 2,
  },
  {
    name: 'match',
    reserves: 1,
    method: 'POST',
    path: '/rest/v1/corporates/match',
    body: { records: [{ name: '株式会社北斗精機製作所' }] },
  },
  { name: 'job detail', reserves: 1, method: 'GET', path: `/rest/v1/jobs/${detailJobId}/detail` },
  { name: 'suggest', reserves: 0, method: 'GET', path: '/rest/v1/corporates/suggest?q=%E3%83%86' },
];

const faults: Fault[] = ['status-429', 'status-503', 'status-500', 'reset', 'truncated', 'malformed', 'hang'];

beforeAll(async () => {
  services = await setUpServices('engine-faults');
  const real = createLimits({
    redis: services.redis,
    keyPrefix: services.config.redisPrefix,
    config: {
      ratePerSecond: 1_000_000,
      searchCost: 2,
      matchCost: 1,
      detailCost: 1,
      exportRecordsPerCredit: 1,
    },
  });
  history = recordLedger(real.ledger);
  limits = { ...real, ledger: history.ledger };
  // three postings at one credit a record (the app's own posting and two more of its company):
  // an export reserves 3, so a settlement that kept any of it would show in the balance
  await indexFixture(services.opensearch, services.config.indexPrefix, {
    jobs: [1, 2].map((n) => job({ id: `J-F${n}`, corporateNumber: seededCorporateNumber })),
  });
  proxy = await startFaultProxy(services.config.opensearchUrl as string);
  proxied = createEngine(proxy.url);
  app = await startLimitsTestApp({
    limits,
    opensearch: proxied,
    indexPrefix: services.config.indexPrefix,
    requestDeadlineMs: deadlineMs,
    logger: createLogger('info', { write: (line: string) => logLines.push(line) }),
  });
});

afterAll(async () => {
  await app?.close();
  await proxied?.close();
  await proxy?.close();
  await services?.close();
});

async function send(
  operation: Operation,
  user: string,
): Promise<{ status: number; headers: Headers; text: string }> {
  const res = await fetch(`${app.url}${operation.path}`, {
    method: operation.method,
    headers: {
      ...(await userHeaders(user)),
      ...(operation.body ? { 'content-type': 'application/json' } : {}),
    },
    body: operation.body ? JSON.stringify(operation.body) : undefined,
    signal: AbortSignal.timeout(30_000),
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

describe.each(faults)('the engine answers %s', (fault) => {
  it.each(operations)('$name: 503 with Retry-After, no engine text, credits exact', async (operation) => {
    const user = `${fault}-${operation.name.replace(/ /g, '-')}`;
    await limits.ledger.grant(user, grant);
    const faultedBefore = proxy.faulted();
    const linesBefore = logLines.length;
    proxy.set(fault, operation.passFirst);
    let answer: Awaited<ReturnType<typeof send>>;
    try {
      answer = await send(operation, user);
    } finally {
      proxy.set('pass');
    }
    expect(proxy.faulted()).toBeGreaterThan(faultedBefore);
    expect(answer.status, answer.text).toBe(503);
    expect(answer.headers.get('retry-after')).toMatch(/^\d+$/);
    const body = JSON.parse(answer.text) as { code: string; message: string };
    expect(fault === 'hang' ? ['deadline_exceeded'] : ['search_unavailable']).toContain(body.code);
    expect(answer.text).not.toContain(faultSecret);
    expect(logLines.slice(linesBefore).join('')).not.toContain(faultSecret);

    // an export the deadline cut before its first byte settles just after the 503 goes out;
    // every other reservation is refunded before its error answer
    await expect.poll(() => limits.ledger.balance(user), { timeout: 5_000 }).toBe(grant);
    const reservations = history.reservations(user);
    expect(reservations).toHaveLength(operation.reserves);
    for (const reservation of reservations) {
      // refunded (a search, a match, the detail) or settled at nothing sent (an export), once
      await expect.poll(() => history.closings(reservation)).toBe(1);
    }
  });
});

describe('the engine answers again', () => {
  it.each(operations)('$name succeeds through the same proxy', async (operation) => {
    const user = `healthy-${operation.name.replace(/ /g, '-')}`;
    await limits.ledger.grant(user, grant);
    const answer = await send(operation, user);
    expect(answer.status, answer.text).toBe(200);
    if (operation.path.endsWith('/export')) expect(answer.headers.get('x-export-credits')).toBe('3');
  });
});

describe('the caller hangs up while the engine holds its search', () => {
  it('its reservation comes back once and its Idempotency-Key is freed: the retry is served, charged once', async () => {
    const user = 'gone-while-held';
    await limits.ledger.grant(user, grant);
    const headers = {
      ...(await userHeaders(user)),
      'content-type': 'application/json',
      'idempotency-key': `gone-${process.pid}-${Date.now()}`,
    };
    const request = { method: 'POST', headers, body: JSON.stringify({ limit: 1 }) };
    const faultedBefore = proxy.faulted();
    proxy.set('hang');
    try {
      const caller = new AbortController();
      const sent = fetch(`${app.url}/rest/v1/corporates/search`, { ...request, signal: caller.signal });
      // the engine holds the search (well inside the deadline): the caller leaves
      await expect.poll(() => proxy.faulted(), { timeout: 10_000 }).toBeGreaterThan(faultedBefore);
      caller.abort();
      await expect(sent).rejects.toThrow();
    } finally {
      proxy.set('pass');
    }
    await expect.poll(() => limits.ledger.balance(user), { timeout: 5_000 }).toBe(grant);
    const reservations = history.reservations(user);
    expect(reservations).toHaveLength(1);
    await expect.poll(() => history.closings(reservations[0] as string)).toBe(1);
    // a claim left in flight would answer the retry 409; a freed one runs it
    const retry = await fetch(`${app.url}/rest/v1/corporates/search`, {
      ...request,
      signal: AbortSignal.timeout(30_000),
    });
    expect(retry.status, await retry.text()).toBe(200);
    expect(await limits.ledger.balance(user)).toBe(grant - 2);
  });
});
