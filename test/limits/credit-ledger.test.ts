/**
 * The credit ledger on the real redis-server and the real OpenSearch: every grant and every
 * final charge is an entry (refunds, failed and replayed requests are not), filed once however
 * often filing runs, read back by GET /usage and /usage/entries, and enough to rebuild every
 * balance after Redis loses its data; `open` makes balances older than the ledger add up; the
 * real worker files the tail by itself. The single-process ledger keeps the same entries.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreditLedger } from '../../src/limits/credit-ledger.js';
import {
  balanceHistory,
  openBalances,
  rebuildBalances,
  verifyLedger,
} from '../../src/limits/ledger-audit.js';
import type { LedgerEntry } from '../../src/limits/ledger-entry.js';
import {
  fileLedgerTail,
  LedgerFilingFailed,
  ledgerIndex,
  ledgerSums,
  startLedgerFiling,
} from '../../src/limits/ledger-filing.js';
import { createLimits, type Limits } from '../../src/limits/limits.js';
import { LocalCreditLedger } from '../../src/limits/local-credit-ledger.js';
import { openCreditLedger } from '../../src/limits/open-credit-ledger.js';
import { metrics } from '../../src/metrics.js';
import { createEngine } from '../../src/opensearch/engine.js';
import { bootstrapIndices, dropIndices } from '../../src/opensearch/indices.js';
import { projectRoot } from '../../src/project-root.js';
import type { Services } from '../../src/services.js';
import { runToEnd } from '../support/child-runs.js';
import { startDeadEndpoint } from '../support/dead-endpoint.js';
import { setUpServices } from '../support/env.js';
import { search, startLimitsTestApp, type TestApp, userHeaders } from '../support/limits-test-app.js';
import { startWorkerChild, stopChild } from '../support/worker-child.js';

let services: Services;
let limits: Limits;
let app: TestApp;
let broken: TestApp;
let index: string;
const deadEngine = await startDeadEndpoint();
const closedOpenSearch = createEngine(deadEngine.url);

beforeAll(async () => {
  services = await setUpServices('ledger');
  index = ledgerIndex(services.config.indexPrefix);
  limits = createLimits({
    redis: services.redis,
    keyPrefix: services.config.redisPrefix,
    config: { ratePerSecond: 1_000_000, usageRatePerSecond: 1_000, searchCost: 3, detailCost: 2 },
  });
  const deps = { limits, opensearch: services.opensearch, indexPrefix: services.config.indexPrefix };
  app = await startLimitsTestApp(deps);
  broken = await startLimitsTestApp({ ...deps, opensearch: closedOpenSearch, seed: false });
});
afterAll(async () => {
  await Promise.all([app?.close(), broken?.close()]);
  await closedOpenSearch.close();
  await deadEngine.close();
  await services?.close();
});

const ctx = () => ({ ledger: limits.ledger, opensearch: services.opensearch, index });

type EntryView = Omit<LedgerEntry, 'userId'>;
interface Figures {
  creditsSpent: number;
  requests: number;
}
/** What GET /usage and /usage/entries answer (an error answer: none of these). */
interface UsageBody {
  balance: number;
  timeZone: string;
  totals: Figures;
  operations: Array<Figures & { operation: string }>;
  days: Array<Figures & { date: string; creditsGranted: number }>;
  entries: EntryView[];
  nextCursor: string | null;
}

async function get(pathAndQuery: string, user: string): Promise<{ status: number; body: UsageBody }> {
  const res = await fetch(`${app.url}/rest/v1${pathAndQuery}`, { headers: await userHeaders(user) });
  return { status: res.status, body: (await res.json()) as UsageBody };
}

/** Every entry of `user` through GET /usage/entries, page by page (`limit` per page). */
async function allEntries(user: string, limit: number): Promise<{ entries: EntryView[]; pages: number }> {
  const entries: EntryView[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const answer = await get(
      `/usage/entries?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      user,
    );
    expect(answer.status).toBe(200);
    entries.push(...answer.body.entries);
    cursor = answer.body.nextCursor;
    pages += 1;
  } while (cursor);
  return { entries, pages };
}

/** A logger whose lines (JSON) are kept, to read what filing logged. */
function capturedLogs() {
  const lines: Array<{ msg: string; err?: { message: string } }> = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) });
  return { lines, logger };
}

async function documents(user: string): Promise<LedgerEntry[]> {
  await services.opensearch.indices.refresh({ index });
  const { body } = await services.opensearch.search({
    index,
    body: { size: 1000, query: { term: { userId: user } }, sort: [{ at: 'asc' }, { id: 'asc' }] },
  });
  return (body.hits.hits as Array<{ _source: LedgerEntry }>).map((hit) => hit._source);
}

describe('the ledger holds every grant and final charge, nothing else', () => {
  it('searches, a detail, an export, a replay, failures: entries, usage and balances agree', async () => {
    const user = 'ledger-a';
    await limits.ledger.grant(user, 100);
    await limits.ledger.grant(user, -10);
    const requestIds: string[] = [];
    for (let i = 0; i < 4; i += 1) {
      const res = await search(app.url, user);
      expect(res.status).toBe(200);
      requestIds.push(res.headers.get('x-request-id') as string);
      await res.text();
    }
    // the same Idempotency-Key twice: charged once, the replay is no entry
    for (let i = 0; i < 2; i += 1) {
      const res = await search(app.url, user, { headers: { 'Idempotency-Key': 'ledger-replay-1' } });
      expect(res.status).toBe(200);
      await res.text();
    }
    // refused before any reservation (400), and failed in the engine (503, refunded): no entry
    expect((await search(app.url, user, { body: { limit: 'x' } })).status).toBe(400);
    expect((await search(broken.url, user)).status).toBe(503);
    const detail = await fetch(`${app.url}/rest/v1/jobs/J-1/detail`, { headers: await userHeaders(user) });
    expect(detail.status).toBe(200);
    const exported = await search(app.url, user, {
      path: '/rest/v1/corporates/export',
      body: { format: 'jsonl' },
    });
    expect(exported.status).toBe(200);
    await exported.text();
    // a charge is written when its answer is out: wait for the last settlement
    await expect.poll(async () => (await limits.ledger.account(user)).open.reservations).toBe(0);
    const balance = await limits.ledger.balance(user);
    // 90 granted, 5 searches x 3, a detail 2, an export of 1 record 1
    expect(balance).toBe(90 - 15 - 2 - 1);

    expect(await fileLedgerTail(limits.ledger, services.opensearch, index)).toBeGreaterThanOrEqual(9);
    const docs = await documents(user);
    expect(docs.map((d) => d.kind).sort()).toEqual(
      [...Array(2).fill('grant'), ...Array(7).fill('charge')].sort(),
    );
    expect(docs.reduce((sum, d) => sum + d.credits, 0)).toBe(balance);
    const charges = docs.filter((d) => d.kind === 'charge');
    expect(charges.filter((d) => d.operation === 'POST /corporates/search')).toHaveLength(5);
    expect(charges.find((d) => d.operation === 'GET /jobs/{jobId}/detail')?.credits).toBe(-2);
    expect(charges.find((d) => d.operation === 'POST /corporates/export')).toMatchObject({
      credits: -1,
      rows: 1,
    });
    // each charge names the request the caller saw, and the key that made it
    for (const id of requestIds) expect(charges.some((d) => d.requestId === id)).toBe(true);
    expect(charges.every((d) => typeof d.keyId === 'string' && d.keyId.length > 0)).toBe(true);

    const usage = await get('/usage', user);
    expect(usage.status).toBe(200);
    expect(usage.body.balance).toBe(balance);
    expect(usage.body.timeZone).toBe('Asia/Tokyo');
    expect(usage.body.days).toHaveLength(30);
    expect(usage.body.totals).toEqual({ creditsSpent: 18, requests: 7 });
    expect(usage.body.operations[0]).toEqual({
      operation: 'POST /corporates/search',
      creditsSpent: 15,
      requests: 5,
    });
    const today = usage.body.days.at(-1);
    expect(today).toMatchObject({ creditsSpent: 18, requests: 7, creditsGranted: 90 });
    expect(usage.body.days.slice(0, -1).every((d) => d.creditsSpent === 0 && d.requests === 0)).toBe(true);

    // page by page, newest first, every entry once
    const paged = await allEntries(user, 2);
    expect(paged.pages).toBe(5);
    expect(paged.entries.map((e) => e.id).sort()).toEqual(docs.map((d) => d.id).sort());
    const times = paged.entries.map((e) => Date.parse(e.at));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    expect(paged.entries.every((e) => !('userId' in e))).toBe(true);
    const onlyGrants = await get('/usage/entries?kind=grant', user);
    expect(onlyGrants.body.entries.map((e) => e.credits).sort()).toEqual([-10, 100]);
    // another user sees none of them
    expect((await get('/usage/entries', 'ledger-nobody')).body.entries).toEqual([]);
    expect((await get('/usage', 'ledger-nobody')).body.totals).toEqual({ creditsSpent: 0, requests: 0 });

    expect((await verifyLedger(ctx())).differences).toEqual([]);
  });

  it('200 searches over two API processes and 20 grants at once: the entries sum to the balance exactly', async () => {
    const user = 'ledger-busy';
    await limits.ledger.grant(user, 300);
    const second = await startLimitsTestApp({
      limits,
      opensearch: services.opensearch,
      indexPrefix: services.config.indexPrefix,
    });
    try {
      const answers = await Promise.all([
        ...Array.from({ length: 200 }, async (_, i) => {
          const res = await search(i % 2 === 0 ? app.url : second.url, user);
          await res.text();
          return res.status;
        }),
        ...Array.from({ length: 20 }, () => limits.ledger.grant(user, 1).then(() => 'granted')),
      ]);
      const answered = answers.filter((status) => status === 200).length;
      // 320 credits at 3 a search: at most 106 answered (fewer when a search came before the
      // grant it needed), every other one a 402
      expect(answered).toBeGreaterThan(90);
      expect(answered).toBeLessThanOrEqual(106);
      expect(answers.filter((status) => status === 402).length).toBe(200 - answered);
      await expect.poll(async () => (await limits.ledger.account(user)).open.reservations).toBe(0);
      const balance = await limits.ledger.balance(user);
      expect(balance).toBe(320 - 3 * answered);
      await fileLedgerTail(limits.ledger, services.opensearch, index);
      const docs = await documents(user);
      expect(docs.filter((d) => d.kind === 'charge')).toHaveLength(answered);
      expect(docs.filter((d) => d.kind === 'grant')).toHaveLength(21);
      expect(docs.reduce((sum, d) => sum + d.credits, 0)).toBe(balance);
    } finally {
      await second.close();
    }
  });

  it('orders the operations by credits, then requests, then name', async () => {
    const user = 'ledger-ties';
    await limits.ledger.grant(user, 20);
    const charge = async (id: string, operation: string, cost: number) => {
      expect((await limits.ledger.reserve(user, cost, id, undefined, { operation })).ok).toBe(true);
      await limits.ledger.commit(id);
    };
    await charge('ties-1', 'POST /jobs/search', 2);
    await charge('ties-2', 'POST /corporates/search', 2);
    await charge('ties-3', 'GET /jobs/{jobId}/detail', 1);
    await charge('ties-4', 'GET /jobs/{jobId}/detail', 1);
    await charge('ties-5', 'POST /corporates/match', 3);
    await fileLedgerTail(limits.ledger, services.opensearch, index);
    await services.opensearch.indices.refresh({ index });
    const usage = await get('/usage', user);
    expect(usage.body.operations.map((op) => op.operation)).toEqual([
      'POST /corporates/match',
      'GET /jobs/{jobId}/detail',
      'POST /corporates/search',
      'POST /jobs/search',
    ]);
  });

  it('commit and settle write once however often they run; refunds and the sweep write nothing', async () => {
    const user = 'ledger-steps';
    const ledger = limits.ledger;
    await ledger.grant(user, 50);
    await fileLedgerTail(ledger, services.opensearch, index);
    const tag = { operation: 'POST /corporates/match' };
    expect((await ledger.reserve(user, 10, 'steps-commit', undefined, tag)).ok).toBe(true);
    await ledger.commit('steps-commit');
    await ledger.commit('steps-commit');
    await ledger.settle('steps-commit', 1);
    expect((await ledger.reserve(user, 10, 'steps-settle', undefined, tag)).ok).toBe(true);
    expect(await ledger.settle('steps-settle', 4, 12)).toBe(50 - 10 - 4);
    expect(await ledger.settle('steps-settle', 4, 12)).toBeNull();
    expect((await ledger.reserve(user, 5, 'steps-refund', undefined, tag)).ok).toBe(true);
    await ledger.refund('steps-refund');
    await ledger.refund('steps-refund');
    const tail = (await ledger.tail(100)).map((row) => row.entry).filter((e) => e?.userId === user);
    expect(tail).toEqual([
      expect.objectContaining({ id: 'charge:steps-commit', kind: 'charge', credits: -10, ...tag }),
      expect.objectContaining({
        id: 'charge:steps-settle',
        kind: 'charge',
        credits: -4,
        rows: 12,
        reserved: 10,
        ...tag,
      }),
    ]);
  });

  it('filing twice leaves one document per entry', async () => {
    const user = 'ledger-twice';
    await limits.ledger.grant(user, 7);
    await limits.ledger.grant(user, 8);
    // the first filing dies after the copy, before the take-out: the entries stay in the tail
    const dying: CreditLedger = Object.create(limits.ledger);
    dying.dropTail = async () => {
      throw new Error('died');
    };
    await expect(fileLedgerTail(dying, services.opensearch, index)).rejects.toThrow('died');
    expect((await limits.ledger.tail(1000)).filter((row) => row.entry?.userId === user)).toHaveLength(2);
    const filedBefore = (await metrics.ledgerFiled.get()).values[0]?.value ?? 0;
    expect(await limits.ledger.tailLength()).toBeGreaterThanOrEqual(2);
    await fileLedgerTail(limits.ledger, services.opensearch, index);
    expect(await limits.ledger.tailLength()).toBe(0);
    expect(((await metrics.ledgerFiled.get()).values[0]?.value ?? 0) - filedBefore).toBeGreaterThanOrEqual(2);
    const docs = await documents(user);
    expect(docs.map((d) => d.credits).sort()).toEqual([7, 8]);
    expect((await ledgerSums(services.opensearch, index)).get(user)).toBe(15);
  });
});

describe('balances from the ledger', () => {
  it('Redis loses its data: rebuild restores every balance exactly, open reservations kept out', async () => {
    const users = ['rebuild-1', 'rebuild-2', 'rebuild-3'];
    for (const [i, user] of users.entries()) {
      await limits.ledger.grant(user, 20 + i);
      for (let n = 0; n <= i; n += 1) {
        const res = await search(app.url, user);
        expect(res.status).toBe(200);
        await res.text();
      }
    }
    for (const user of users)
      await expect.poll(async () => (await limits.ledger.account(user)).open.reservations).toBe(0);
    const before = new Map(
      await Promise.all(users.map(async (u) => [u, await limits.ledger.balance(u)] as const)),
    );
    expect([...before.values()]).toEqual([20 - 3, 21 - 6, 22 - 9]);
    await fileLedgerTail(limits.ledger, services.opensearch, index);

    // everything of the ledger in Redis gone: balances, reservations, the (filed) tail
    const redis = services.redis as NonNullable<Services['redis']>;
    const keys = await redis.keys(`${services.config.redisPrefix}credits:*`);
    expect(keys.length).toBeGreaterThan(0);
    await redis.del(...keys);
    for (const user of users) expect(await limits.ledger.balance(user)).toBe(0);

    const result = await rebuildBalances(ctx());
    for (const user of users) {
      expect(await limits.ledger.balance(user)).toBe(before.get(user));
      expect(result.restored.find((r) => r.userId === user)).toEqual({
        userId: user,
        before: 0,
        after: before.get(user),
      });
    }
    // a live reservation stays debited: the rebuild leaves it out of the ledger's sum
    expect((await limits.ledger.reserve('rebuild-1', 4, 'rebuild-open')).ok).toBe(true);
    await rebuildBalances(ctx());
    expect(await limits.ledger.balance('rebuild-1')).toBe((before.get('rebuild-1') as number) - 4);
    await limits.ledger.refund('rebuild-open');
    expect((await verifyLedger(ctx())).differences).toEqual([]);
  });

  it('rebuild and open try again while the tail fills, and give up after their tries', async () => {
    await limits.ledger.grant('ledger-retry', 9);
    await fileLedgerTail(limits.ledger, services.opensearch, index);
    // a store whose tail is found filling once (a charge between the filing and the step)
    const once = (method: 'restoreBalance' | 'open'): CreditLedger => {
      const ledger: CreditLedger = Object.create(limits.ledger);
      let refused = false;
      ledger[method] = (async (...args: [string, number]) => {
        if (!refused) {
          refused = true;
          return 'tail';
        }
        return (limits.ledger[method] as (...a: [string, number]) => Promise<unknown>)(...args);
      }) as never;
      return ledger;
    };
    const rebuilt = await rebuildBalances({ ...ctx(), ledger: once('restoreBalance') });
    expect(rebuilt.restored.find((r) => r.userId === 'ledger-retry')?.after).toBe(9);
    expect(await openBalances({ ...ctx(), ledger: once('open') })).toEqual([]);
    const always: CreditLedger = Object.create(limits.ledger);
    always.restoreBalance = async () => 'tail';
    always.open = async () => 'tail';
    await expect(rebuildBalances({ ...ctx(), ledger: always }, 2)).rejects.toThrow('kept filling');
    await expect(openBalances({ ...ctx(), ledger: always }, 2)).rejects.toThrow('kept filling');
  });

  it('a balance older than the ledger: verify names it, open makes it add up, once', async () => {
    const user = 'ledger-old';
    const redis = services.redis as NonNullable<Services['redis']>;
    await redis.set(`${services.config.redisPrefix}credits:balance:${user}`, '70');
    // and a charge made after the upgrade, before `open`
    expect((await limits.ledger.reserve(user, 3, 'old-charge')).ok).toBe(true);
    await limits.ledger.commit('old-charge');
    // and one who did nothing since: no entry at all
    await redis.set(`${services.config.redisPrefix}credits:balance:ledger-quiet`, '15');
    const found = await verifyLedger(ctx(), 50);
    expect(found.differences).toEqual([
      { userId: user, balance: 67, expected: -3, unledgered: false },
      { userId: 'ledger-quiet', balance: 15, expected: 0, unledgered: true },
    ]);
    expect(await openBalances(ctx())).toEqual([
      { userId: user, credits: 70 },
      { userId: 'ledger-quiet', credits: 15 },
    ]);
    expect((await verifyLedger(ctx())).differences).toEqual([]);
    expect(await openBalances(ctx())).toEqual([]);
    expect((await ledgerSums(services.opensearch, index)).get(user)).toBe(67);
  });
});

describe('npm run ledger, as an operator runs it', () => {
  const ledgerCli = (...args: string[]) => {
    const { OPENSEARCH_URL: _o, REDIS_URL: _r, INDEX_PREFIX: _i, REDIS_PREFIX: _p, ...rest } = process.env;
    return runToEnd(
      spawn(process.execPath, ['--import', 'tsx', 'scripts/ledger.ts', ...args], {
        cwd: projectRoot,
        env: {
          ...rest,
          OPENSEARCH_URL: services.config.opensearchUrl,
          REDIS_URL: services.config.redisUrl,
          INDEX_PREFIX: services.config.indexPrefix,
          REDIS_PREFIX: services.config.redisPrefix,
          LOG_LEVEL: 'silent',
        },
      }),
    );
  };

  it('show lists the entries with the balance after each; verify finds a lost balance, rebuild restores it', async () => {
    const user = 'ledger-cli';
    await limits.ledger.grant(user, 40);
    const res = await search(app.url, user);
    expect(res.status).toBe(200);
    await res.text();
    await expect.poll(async () => (await limits.ledger.account(user)).open.reservations).toBe(0);
    // the same history in this process, as the command reads it (after filing, as it does)
    await fileLedgerTail(limits.ledger, services.opensearch, index);
    const history = await balanceHistory(ctx(), user);
    expect(history.rows.map((row) => [row.entry.kind, row.entry.credits, row.balance])).toEqual([
      ['grant', 40, 40],
      ['charge', -3, 37],
    ]);
    expect(history).toMatchObject({ ledgerBalance: 37, open: 0, storeBalance: 37 });
    expect((await balanceHistory(ctx(), user, { from: '2999-01-01' })).rows).toEqual([]);
    expect((await balanceHistory(ctx(), user, { to: '2000-01-01' })).rows).toEqual([]);
    // read a page of one at a time: the same rows
    const paged = await balanceHistory(ctx(), user, { from: '2000-01-01', to: '2999-12-31' }, 1);
    expect(paged.rows).toEqual(history.rows);
    const shown = await ledgerCli('show', user);
    expect(shown.code).toBe(0);
    const lines = shown.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/grant +40 +-> 40/);
    expect(lines[1]).toMatch(/charge +-3 +-> 37 +POST \/corporates\/search/);
    expect(lines.at(-1)).toContain('ledger balance 37, open reservations 0, store balance 37 (they agree)');
    expect((await ledgerCli('verify')).code).toBe(0);
    // the balance lost: verify names the user and fails; rebuild sets it from the ledger
    const redis = services.redis as NonNullable<Services['redis']>;
    await redis.del(`${services.config.redisPrefix}credits:balance:${user}`);
    const found = await ledgerCli('verify');
    expect(found.code).toBe(1);
    expect(found.stdout).toContain(`${user}: balance 0, ledger says 37`);
    const rebuilt = await ledgerCli('rebuild');
    expect(rebuilt.code).toBe(0);
    expect(rebuilt.stdout).toContain(`${user}: 0 -> 37`);
    expect(await limits.ledger.balance(user)).toBe(37);
    expect((await ledgerCli('verify')).code).toBe(0);
  }, 120_000);
});

describe('GET /usage refuses what it cannot answer', () => {
  it('a range backwards or over 366 days, a bad date, a cursor it did not give: 400 naming the field', async () => {
    const user = 'ledger-bad';
    const backwards = await get('/usage?from=2026-11-10&to=2026-11-01', user);
    expect(backwards.status).toBe(400);
    expect(JSON.stringify(backwards.body)).toContain('from');
    const long = await get('/usage?from=2024-01-01&to=2026-11-01', user);
    expect(long.status).toBe(400);
    expect(JSON.stringify(long.body)).toContain('366');
    expect((await get('/usage?from=2026-13-01', user)).status).toBe(400);
    const ancient = await get('/usage?from=0001-01-01&to=0001-01-02', user);
    expect(ancient.status).toBe(400);
    expect(JSON.stringify(ancient.body)).toContain('2000-01-01');
    const cursor = await get('/usage/entries?cursor=bm9wZQ', user);
    expect(cursor.status).toBe(400);
    expect(JSON.stringify(cursor.body)).toContain('cursor');
    const year = await get('/usage?from=2025-11-30&to=2026-11-30', user);
    expect(year.status).toBe(200);
    expect(year.body.days).toHaveLength(366);
  });

  it('has a rate limit of its own: spent, it is a 429 while searches still answer', async () => {
    const own = createLimits({
      redis: services.redis,
      keyPrefix: `${services.config.redisPrefix}own:`,
      config: { ratePerSecond: 1_000_000, usageRatePerSecond: 1 },
    });
    const ownApp = await startLimitsTestApp({
      limits: own,
      opensearch: services.opensearch,
      indexPrefix: services.config.indexPrefix,
    });
    try {
      await own.ledger.grant('ledger-rate', 10);
      const headers = await userHeaders('ledger-rate');
      const statuses = [];
      for (let i = 0; i < 3; i += 1)
        statuses.push((await fetch(`${ownApp.url}/rest/v1/usage`, { headers })).status);
      expect(statuses).toContain(429);
      expect((await search(ownApp.url, 'ledger-rate')).status).toBe(200);
    } finally {
      await ownApp.close();
    }
  });
});

describe('filing by the worker, and the single-process ledger', () => {
  it('the real worker files a grant by itself', async () => {
    const worker = startWorkerChild<{ msg?: string }>(services.config, { LEDGER_FILING_INTERVAL_MS: '100' });
    try {
      await worker.ready;
      await limits.ledger.grant('ledger-worker', 33);
      await expect
        .poll(async () => (await documents('ledger-worker')).map((d) => d.credits), { timeout: 15_000 })
        .toEqual([33]);
      expect((await limits.ledger.tail(10)).filter((row) => row.entry?.userId === 'ledger-worker')).toEqual(
        [],
      );
    } finally {
      stopChild(worker.child);
    }
  });

  it("the CLIs' ledger (openCreditLedger): every call waits for the connection, then reaches Redis", async () => {
    const { ledger, close } = openCreditLedger({
      redisUrl: services.config.redisUrl,
      redisPrefix: `${services.config.redisPrefix}cli-ledger:`,
    });
    try {
      expect(await ledger.grant('cli-ledger-user', 12)).toBe(12);
      expect(await ledger.tailLength()).toBe(1);
      const [row] = await ledger.tail(10);
      expect(row?.entry).toMatchObject({ kind: 'grant', userId: 'cli-ledger-user', credits: 12 });
      await ledger.dropTail([row?.tailId as string]);
      expect(await ledger.tailLength()).toBe(0);
      expect(await ledger.users()).toEqual(['cli-ledger-user']);
      expect(await ledger.restoreBalance('cli-ledger-user', 15)).toEqual({ before: 12, after: 15 });
      expect(await ledger.open('cli-ledger-user', 15)).toBe(0);
      expect(await ledger.open('cli-ledger-user', 15)).toBeNull();
    } finally {
      await close();
    }
  });

  it('filing: an unreadable entry is dropped and logged; a refusing engine keeps entries waiting, logged once', async () => {
    const { lines, logger } = capturedLogs();
    const redis = services.redis as NonNullable<Services['redis']>;
    await redis.xadd(`${services.config.redisPrefix}credits:ledger`, '*', 'id', 'not-an-entry');
    await fileLedgerTail(limits.ledger, services.opensearch, index, logger);
    expect(lines.some((line) => line.msg.includes('cannot be read were dropped'))).toBe(true);
    expect(await limits.ledger.tailLength()).toBe(0);

    const blocked = { index, body: { 'index.blocks.write': true } };
    await services.opensearch.indices.putSettings(blocked);
    const filing = startLedgerFiling({
      ledger: limits.ledger,
      opensearch: services.opensearch,
      index,
      intervalMs: 50,
      logger,
    });
    try {
      await limits.ledger.grant('ledger-blocked', 3);
      await expect(fileLedgerTail(limits.ledger, services.opensearch, index)).rejects.toBeInstanceOf(
        LedgerFilingFailed,
      );
      await expect
        .poll(() => lines.filter((line) => line.msg.includes('entries wait in the tail')).length)
        .toBe(1);
      await new Promise((resolve) => setTimeout(resolve, 300));
      // once per outage, however many rounds failed
      expect(lines.filter((line) => line.msg.includes('entries wait in the tail'))).toHaveLength(1);
      expect(await limits.ledger.tailLength()).toBeGreaterThanOrEqual(1);
      await services.opensearch.indices.putSettings({ index, body: { 'index.blocks.write': false } });
      await expect.poll(() => limits.ledger.tailLength(), { timeout: 10_000 }).toBe(0);
      await expect.poll(() => lines.some((line) => line.msg.includes('works again'))).toBe(true);
      // two at once: the second waits for the first, then finds nothing
      expect(await Promise.all([filing.fileNow(), filing.fileNow()])).toEqual([0, 0]);
    } finally {
      await filing.stop();
      await services.opensearch.indices.putSettings({ index, body: { 'index.blocks.write': false } });
    }
    expect((await documents('ledger-blocked')).map((d) => d.credits)).toEqual([3]);
  });

  it('filing with the engine away logs it as such and keeps the entries', async () => {
    const { lines, logger } = capturedLogs();
    const local = new LocalCreditLedger();
    await local.grant('away-user', 4);
    const filing = startLedgerFiling({
      ledger: local,
      opensearch: closedOpenSearch,
      index,
      intervalMs: 50,
      logger,
    });
    try {
      await expect.poll(() => lines.length, { timeout: 10_000 }).toBeGreaterThan(0);
      expect(lines[0]?.err?.message).toBe('engine or store away');
      expect(await local.tailLength()).toBe(1);
    } finally {
      await filing.stop();
    }
  });

  it('filing where the ledger index is missing files nothing, creates nothing, keeps the entries', async () => {
    const local = new LocalCreditLedger();
    await local.grant('nowhere-user', 5);
    const missing = ledgerIndex(`${services.config.indexPrefix}missing-`);
    await expect(fileLedgerTail(local, services.opensearch, missing)).rejects.toBeInstanceOf(
      LedgerFilingFailed,
    );
    expect(await local.tailLength()).toBe(1);
    expect((await services.opensearch.indices.exists({ index: missing })).body).toBe(false);
  });

  it('the single-process ledger keeps the same entries, in its file until filed', async () => {
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'ledger-')), 'credits.json');
    const local = new LocalCreditLedger(file);
    await local.grant('local-1', 40);
    expect(
      (await local.reserve('local-1', 5, 'local-commit', undefined, { operation: 'POST /jobs/search' })).ok,
    ).toBe(true);
    await local.commit('local-commit');
    await local.reserve('local-1', 6, 'local-settle');
    await local.settle('local-settle', 2, 9);
    await local.reserve('local-1', 3, 'local-refund');
    await local.refund('local-refund');
    // another process reading the same file sees the tail
    const reread = new LocalCreditLedger(file);
    expect((await reread.tail(10)).map((row) => row.entry?.credits)).toEqual([40, -5, -2]);
    expect((await reread.tail(10))[2]?.entry).toMatchObject({ rows: 9, reserved: 6 });
    // a ledger index of its own: this user is not one of the Redis ledger's, which the other
    // tests verify against theirs
    const localPrefix = `${services.config.indexPrefix}local-`;
    await bootstrapIndices(services.opensearch, localPrefix);
    try {
      const localIndex = ledgerIndex(localPrefix);
      await fileLedgerTail(reread, services.opensearch, localIndex);
      expect(await reread.tail(10)).toEqual([]);
      expect((await ledgerSums(services.opensearch, localIndex)).get('local-1')).toBe(33);
      expect(await reread.balance('local-1')).toBe(33);
      expect(await reread.restoreBalance('local-1', 40)).toEqual({ before: 33, after: 40 });
      expect(await reread.users()).toEqual(['local-1']);
      // another user's open reservation is not this one's; a commit of nothing changes nothing
      expect((await reread.reserve('local-2', 0, 'other-open')).ok).toBe(true);
      await reread.commit('no-such-reservation');
      expect(await reread.restoreBalance('nobody-yet', 0)).toEqual({ before: 0, after: 0 });
      // a balance the ledger lacks 7 of: opened once
      expect(await reread.open('local-1', 33)).toBe(7);
      expect((await reread.tail(10))[0]?.entry).toMatchObject({
        id: 'opening:local-1',
        kind: 'opening',
        credits: 7,
      });
      // refused while its entry waits in the tail; once filed, opened before
      expect(await reread.open('local-1', 40)).toBe('tail');
      await fileLedgerTail(reread, services.opensearch, localIndex);
      expect(await reread.open('local-1', 40)).toBeNull();
    } finally {
      await dropIndices(services.opensearch, localPrefix);
    }
  });
});
