/**
 * What an export costs and what it is charged, exactly, on the real engine and the real Redis
 * ledger: the count's price (records per credit, rounded up), the maxCredits cap at and past
 * the cost, a short balance, and the settlement of a file cut short (the caller hanging up,
 * the engine failing on a later page, the caller gone before the first byte) at the records
 * handed to the connection. The export runs on a response the test drives (`TestResponse`), so
 * it can stop reading after an exact record; test/search/export.test.ts does the same through the app
 * on a real socket, where only bounds can be asserted.
 */
import { EventEmitter } from 'node:events';
import { Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corporateSearch, jobSearch, type SearchCatalogue } from '../../src/catalogue/searches.js';
import { defaultConfig } from '../../src/config.js';
import { Deadline, DeadlineExceeded } from '../../src/deadline.js';
import { ApiError } from '../../src/errors/catalogue.js';
import { createLogger } from '../../src/logger.js';
import { metrics } from '../../src/metrics.js';
import {
  type ExportRequest,
  type ExportTarget,
  parseExportRequest,
  runExport,
} from '../../src/search/export.js';
import { countFor } from '../../src/search/run-search.js';
import type { Services } from '../../src/services.js';
import { corporate, indexFixture, job } from '../fixtures/search/docs.js';
import { setUpServices } from '../support/env.js';

let services: Services;
/** 25 postings at 10 records per credit: 3 credits (2.5 rounded up), in pages of 10. */
const records = 25;
const perCredit = 10;
const fullCost = 3;

/**
 * The part of a response stream an export uses. `acceptWrites`: how many writes the
 * "socket" takes at once (the header row is one); the write after that returns false, and the
 * export waits for `drain` (`resume()`) or `close` (`hangUp()`).
 */
class TestResponse extends EventEmitter {
  headersSent = false;
  writableEnded = false;
  private gone = false;
  /** `goneAfterChecks`: the caller hangs up after the export asked this many times whether it is there. */
  private checks = 0;
  goneAfterChecks = Number.POSITIVE_INFINITY;
  statusCode = 0;
  headers: Record<string, string> = {};
  rows = 0;
  /** The JSONL lines written. */
  readonly records: string[] = [];
  private writes = 0;
  /** Resolves when a write is refused (the export then waits). */
  readonly stalled: Promise<void>;
  private onStall = () => {};

  get destroyed(): boolean {
    this.checks += 1;
    return this.gone || this.checks > this.goneAfterChecks;
  }
  set destroyed(value: boolean) {
    this.gone = value;
  }

  constructor(private acceptWrites = Number.POSITIVE_INFINITY) {
    super();
    this.stalled = new Promise((resolve) => {
      this.onStall = resolve;
    });
  }
  status(code: number): this {
    this.statusCode = code;
    return this;
  }
  set(headers: Record<string, string>): this {
    Object.assign(this.headers, headers);
    return this;
  }
  write(chunk: Buffer): boolean {
    // a response whose caller is gone takes nothing
    if (this.gone) return false;
    this.headersSent = true;
    this.writes += 1;
    if (this.writes > 1) {
      const text = chunk.toString('utf8');
      this.rows += text.split('\n').length - 1;
      this.records.push(...text.split('\n').filter((line) => line !== ''));
    }
    if (this.writes < this.acceptWrites) return true;
    this.onStall();
    return false;
  }
  end(): this {
    this.writableEnded = true;
    return this;
  }
  destroy(): this {
    this.destroyed = true;
    return this;
  }
  /** The socket took everything: the export goes on, taking writes without limit. */
  resume(): void {
    this.acceptWrites = Number.POSITIVE_INFINITY;
    this.emit('drain');
  }
  hangUp(): void {
    this.destroyed = true;
    this.emit('close');
  }
}

let users = 0;
async function newUser(credits: number): Promise<string> {
  users += 1;
  const user = `pricing-${users}-${Math.random().toString(36).slice(2)}`;
  await services.limits.ledger.grant(user, credits);
  return user;
}

function exportOf(body: Record<string, unknown> = {}): ExportRequest {
  return parseExportRequest(jobSearch, { format: 'jsonl', fields: ['id'], ...body });
}

function run(
  user: string,
  res: TestResponse,
  body: Record<string, unknown> = {},
  over: Services = services,
  search: SearchCatalogue = jobSearch,
  deadline?: Deadline,
) {
  const parsed = parseExportRequest(search, { format: 'jsonl', fields: ['id'], ...body });
  const target: ExportTarget = {
    stream: res as unknown as ExportTarget['stream'],
    begin: ({ status, headers }) => res.status(status).set(headers),
  };
  return runExport(over, search, parsed, user, target, deadline);
}

/** The services with a logger whose lines the test reads. */
function withLogs(): { over: Services; lines: () => Array<Record<string, unknown>> } {
  const written: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      written.push(String(chunk));
      done();
    },
  });
  const logger = createLogger('info', sink);
  return {
    over: { ...services, logger },
    lines: () => written.map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}

/** What the credit counters of /metrics say now. */
async function creditCounters(): Promise<{ charged: number; refunded: number }> {
  const value = async (counter: typeof metrics.creditsCharged) => (await counter.get()).values[0]?.value ?? 0;
  return { charged: await value(metrics.creditsCharged), refunded: await value(metrics.creditsRefunded) };
}

/** The request ids of the reservations open under this file's Redis prefix (the ledger's open set). */
async function openReservations(): Promise<string[]> {
  const prefix = services.config.redisPrefix;
  const members = (await services.redis?.zrange(`${prefix}credits:open`, '0', '-1')) ?? [];
  return members.map((member) => member.slice(`${prefix}credits:reservation:`.length));
}

/** The ledger once nothing is open any more (a refund after a refusal runs in the background). */
async function settled(user: string) {
  await expect
    .poll(async () => (await services.limits.ledger.account(user)).open.reservations, { timeout: 10_000 })
    .toBe(0);
  return services.limits.ledger.account(user);
}

/** A second export runs (status 200), so the first gave its slot back. */
async function slotsFree(user: string): Promise<void> {
  const limit = services.limits.config.exportMaxConcurrent;
  for (let i = 0; i < limit; i++) {
    const held = await services.limits.exportSlots.acquire(user, `probe-${i}`);
    expect(held).toBe(true);
  }
  for (let i = 0; i < limit; i++) await services.limits.exportSlots.release(user, `probe-${i}`);
}

beforeAll(async () => {
  services = await setUpServices('export-pricing', {
    // pages of 10 records, so an export of 25 reads three
    resultWindow: 10,
    // one second: a stalled export must keep its reservation through several orphan timeouts
    limits: { ...defaultConfig().limits, reservationOrphanSeconds: 1 },
  });
  (services.limits.config as { exportRecordsPerCredit: number }).exportRecordsPerCredit = perCredit;
  await indexFixture(services.opensearch, services.config.indexPrefix, {
    jobs: Array.from({ length: records }, (_, i) => job({ id: `price-${String(i).padStart(3, '0')}` })),
    corporates: Array.from({ length: 3 }, (_, i) => corporate({ name: `価格テスト${i}` })),
  });
});
afterAll(async () => {
  await services?.close();
});

describe('the price of an export', () => {
  it('a count says what its export would cost: records per credit, rounded up', async () => {
    const plan = exportOf().plan;
    expect(await countFor(services, jobSearch, plan)).toEqual({
      totalResults: records,
      exportCredits: fullCost,
    });
  });

  it('a whole export is charged its full cost, and says so before the first row', async () => {
    const user = await newUser(100);
    const res = new TestResponse();
    const before = await creditCounters();
    const logs = withLogs();
    await run(user, res, {}, logs.over);
    expect(await creditCounters()).toEqual({ charged: before.charged + fullCost, refunded: before.refunded });
    expect(res.headers['Content-Disposition']).toMatch(
      /^attachment; filename="jobs-\d{4}-\d{2}-\d{2}\.jsonl"$/,
    );
    // the heartbeat stops with the export: no beat after it finds the reservation settled
    await sleep(1000);
    expect(logs.lines()).toEqual([]);
    expect(res.statusCode).toBe(200);
    expect(res.writableEnded).toBe(true);
    expect(res.records.map((line) => (JSON.parse(line) as { id: string }).id).sort()).toEqual(
      Array.from({ length: records }, (_, i) => `price-${String(i).padStart(3, '0')}`),
    );
    expect(res.headers['X-Export-Records']).toBe(String(records));
    expect(res.headers['X-Export-Credits']).toBe(String(fullCost));
    expect(res.headers['X-Credits-Remaining']).toBe(String(100 - fullCost));
    const account = await settled(user);
    expect(account.balance).toBe(100 - fullCost);
    await slotsFree(user);
  });

  it('maxCredits at the cost is enough; one below is a 400 naming both, with nothing charged', async () => {
    const user = await newUser(100);
    await run(user, new TestResponse(), { maxCredits: fullCost });
    expect((await settled(user)).balance).toBe(100 - fullCost);

    const refused = run(user, new TestResponse(), { maxCredits: fullCost - 1 });
    await expect(refused).rejects.toMatchObject({
      status: 400,
      errors: [
        {
          field: 'maxCredits',
          reason: `is ${fullCost - 1}, but this export of ${records} records costs ${fullCost} credits (${perCredit} records per credit); raise maxCredits or narrow the filters`,
        },
      ],
    });
    expect((await settled(user)).balance).toBe(100 - fullCost);
    await slotsFree(user);
  });

  it('maxCredits must be a whole number of at least 0, checked before anything runs', () => {
    for (const maxCredits of [-1, 1.5, '3', 2 ** 53]) {
      expect(() => exportOf({ maxCredits }), String(maxCredits)).toThrow(ApiError);
      try {
        exportOf({ maxCredits });
      } catch (error) {
        expect((error as ApiError).errors).toEqual([
          { field: 'maxCredits', reason: 'must be a whole number of at least 0' },
        ]);
      }
    }
    expect(exportOf({ maxCredits: 0 }).maxCredits).toBe(0);
    expect(exportOf({ maxCredits: 7 }).maxCredits).toBe(7);
    expect('maxCredits' in exportOf()).toBe(false);
  });

  it('a balance one short of the cost is a 402 with the balance in a header; nothing charged', async () => {
    const user = await newUser(fullCost - 1);
    const res = new TestResponse();
    const refused = run(user, res);
    await expect(refused).rejects.toMatchObject({
      status: 402,
      headers: { 'X-Credits-Remaining': String(fullCost - 1) },
    });
    await expect(refused).rejects.toThrow(`this search costs ${fullCost}, the balance is ${fullCost - 1}`);
    expect(res.headersSent).toBe(false);
    const account = await settled(user);
    expect(account.balance).toBe(fullCost - 1);
    await slotsFree(user);
  });

  it('a corporates export prices and writes company records', async () => {
    const user = await newUser(100);
    const res = new TestResponse();
    await run(
      user,
      res,
      { fields: ['name'], sort: { field: 'name', order: 'asc' } },
      services,
      corporateSearch,
    );
    expect(res.records.map((line) => JSON.parse(line))).toEqual([
      { name: '価格テスト0' },
      { name: '価格テスト1' },
      { name: '価格テスト2' },
    ]);
    expect(res.headers['X-Export-Credits']).toBe('1');
    expect(res.headers['Content-Disposition']).toMatch(/filename="corporates-/);
    expect((await settled(user)).balance).toBe(99);
  });

  it('an export of nothing is a file of no rows at no cost', async () => {
    const user = await newUser(100);
    const res = new TestResponse();
    await run(user, res, { corporateNumberOr: ['1000000000000'] });
    expect(res.statusCode).toBe(200);
    expect(res.writableEnded).toBe(true);
    expect(res.rows).toBe(0);
    expect(res.headers['X-Export-Credits']).toBe('0');
    expect((await settled(user)).balance).toBe(100);
  });

  it('all of a user’s export slots in use: a 429, nothing reserved', async () => {
    const user = await newUser(100);
    const limit = services.limits.config.exportMaxConcurrent;
    for (let i = 0; i < limit; i++) await services.limits.exportSlots.acquire(user, `held-${i}`);
    try {
      await expect(run(user, new TestResponse())).rejects.toMatchObject({ status: 429 });
      expect((await settled(user)).balance).toBe(100);
    } finally {
      for (let i = 0; i < limit; i++) await services.limits.exportSlots.release(user, `held-${i}`);
    }
  });

  it('a request deadline passed before the point in time opens: the deadline error, nothing charged', async () => {
    const user = await newUser(100);
    const deadline = new Deadline({ totalMs: 0, redisMs: 0 });
    await expect(run(user, new TestResponse(), {}, services, jobSearch, deadline)).rejects.toBeInstanceOf(
      DeadlineExceeded,
    );
    expect((await settled(user)).balance).toBe(100);
  });

  it('no Redis budget left for the export slot: a 503 saying nothing was charged, one warning', async () => {
    const user = await newUser(100);
    const logs = withLogs();
    const deadline = new Deadline({ totalMs: 60_000, redisMs: 0 });
    await expect(run(user, new TestResponse(), {}, logs.over, jobSearch, deadline)).rejects.toMatchObject({
      status: 503,
      code: 'limits_unavailable',
    });
    deadline.release();
    expect(logs.lines()).toMatchObject([
      {
        msg: 'export: limits store unavailable',
        err: { message: 'limits store unavailable during export slot' },
      },
    ]);
    expect((await settled(user)).balance).toBe(100);
    await slotsFree(user);
  });

  it('a balance of exactly the cost is enough', async () => {
    const user = await newUser(fullCost);
    const res = new TestResponse();
    await run(user, res);
    expect(res.rows).toBe(records);
    expect(res.headers['X-Credits-Remaining']).toBe('0');
    expect((await settled(user)).balance).toBe(0);
  });
});

describe('a partial export is charged for the records sent', () => {
  it('a caller hanging up pays for the records handed over: 11 -> 2 credits, 10 -> 1', async () => {
    for (const [handed, credits] of [
      [11, 2],
      [10, 1],
    ] as const) {
      const user = await newUser(100);
      // the header row and the records before the last are taken; the last is handed over,
      // then the caller leaves (10: the last record of the first page)
      const res = new TestResponse(handed + 1);
      const before = await creditCounters();
      const logs = withLogs();
      const done = run(user, res, {}, logs.over);
      await res.stalled;
      res.hangUp();
      await done;
      expect(res.rows, `${handed}`).toBe(handed);
      expect(res.writableEnded).toBe(false);
      expect((await settled(user)).balance, `${handed}`).toBe(100 - credits);
      expect(await creditCounters()).toEqual({
        charged: before.charged + credits,
        refunded: before.refunded + fullCost - credits,
      });
      expect(logs.lines()).toMatchObject([
        { msg: 'export connection closed early', sent: handed, total: records, exportId: expect.any(String) },
      ]);
      await slotsFree(user);
    }
  });

  it('an engine failure on a later page cuts the file and charges the first page: 1 credit', async () => {
    const user = await newUser(100);
    const res = new TestResponse(11);
    // the next page is read under a deadline already passed: the engine call is refused
    const config = { ...services.config };
    const logs = withLogs();
    const done = run(user, res, {}, { ...logs.over, config });
    await res.stalled;
    config.requestDeadlineMs = 0;
    res.resume();
    await done;
    expect(res.rows).toBe(10);
    // the cause by its class only, never an engine's text
    expect(logs.lines()).toMatchObject([
      { msg: 'export failed mid-stream', sent: 10, err: 'DeadlineExceeded', exportId: expect.any(String) },
    ]);
    expect(res.destroyed).toBe(true);
    expect(res.writableEnded).toBe(false);
    expect((await settled(user)).balance).toBe(100 - 1);
    await slotsFree(user);
  });

  it('a caller gone before the first byte is charged nothing', async () => {
    const user = await newUser(100);
    const res = new TestResponse();
    res.destroyed = true;
    await run(user, res);
    expect(res.statusCode).toBe(0);
    expect(res.rows).toBe(0);
    await expect.poll(() => services.limits.ledger.balance(user), { timeout: 10_000 }).toBe(100);
    expect((await settled(user)).autoRefunded.reservations).toBe(0);
    await slotsFree(user);
  });

  it('a caller gone while the first page is read is sent nothing and charged nothing', async () => {
    const user = await newUser(100);
    const res = new TestResponse();
    // there when the reservation is made, gone at the next look (after the first page)
    res.goneAfterChecks = 1;
    await run(user, res);
    expect(res.statusCode).toBe(0);
    expect(res.rows).toBe(0);
    expect((await settled(user)).balance).toBe(100);
    await slotsFree(user);
  });

  it('a reservation refunded while the file streams: the rest goes uncharged, one warning', async () => {
    const user = await newUser(100);
    const res = new TestResponse(5);
    const before = await creditCounters();
    const logs = withLogs();
    const done = run(user, res, {}, logs.over);
    await res.stalled;
    // as the orphan sweep of a process that lost Redis for an orphan timeout would
    const [exportId] = await openReservations();
    expect(exportId).toBeDefined();
    expect(await services.limits.ledger.refund(exportId as string)).toBe(100);
    await sleep(1500);
    res.resume();
    await done;
    expect(res.rows).toBe(records);
    expect(await services.limits.ledger.balance(user)).toBe(100);
    expect(await creditCounters()).toEqual(before);
    expect(logs.lines()).toMatchObject([
      { msg: 'export reservation no longer open while streaming', exportId },
    ]);
  });

  it('a stalled export keeps its reservation through three orphan timeouts, then pays in full', async () => {
    const user = await newUser(100);
    const res = new TestResponse(5);
    const done = run(user, res);
    await res.stalled;
    for (let waited = 0; waited < 6; waited++) {
      await sleep(500);
      await services.limits.ledger.sweepOrphans();
    }
    const account = await services.limits.ledger.account(user);
    expect(account.open).toEqual({ reservations: 1, credits: fullCost });
    expect(account.autoRefunded.reservations).toBe(0);
    res.resume();
    await done;
    expect(res.rows).toBe(records);
    expect(await settled(user)).toMatchObject({ balance: 100 - fullCost, autoRefunded: { reservations: 0 } });
  }, 30_000);
});
