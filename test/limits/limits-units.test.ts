/**
 * The limits' arithmetic and wiring, asserted exactly: the export price, the rate limiter of
 * each mode (its decision and headers' numbers, the give-up time on the real Redis), and what
 * createLimits builds, and `refundWithRetry` (a failed request's reservation given back once,
 * retried while the connection to Redis is down). Written against the mutants Stryker left alive (docs/mutation.md);
 * test/limits/rate-limit.test.ts and test/limits/credits-ledger.test.ts show the same through the app.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { Deadline } from '../../src/deadline.js';
import {
  costOf,
  parseIdempotencyKey,
  refundBeforeAnswer,
  refundWithRetry,
} from '../../src/limits/charges.js';
import { exportCost } from '../../src/limits/export-cost.js';
import { createLimits } from '../../src/limits/limits.js';
import { LocalCreditLedger } from '../../src/limits/local-credit-ledger.js';
import { startOrphanSweeper } from '../../src/limits/orphan-sweeper.js';
import { unavailable } from '../../src/limits/rate-limit.js';
import { createRateLimiter } from '../../src/limits/rate-limiter.js';
import {
  describeFailure,
  inRedisBudget,
  LimitsStoreUnavailable,
  storeCall,
} from '../../src/limits/store-unavailable.js';
import { metrics } from '../../src/metrics.js';
import { createRedis } from '../../src/redis.js';

let redis: Redis;
const prefix = `t-limits-units-${randomBytes(4).toString('hex')}-`;

beforeAll(async () => {
  redis = createRedis(inject('redisUrl'));
  // no offline queue (src/redis.ts): wait until the connection is up
  if (redis.status !== 'ready') await new Promise((resolve) => redis.once('ready', resolve));
});
afterAll(async () => {
  const keys = await redis.keys(`*${prefix}*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
});

/**
 * A test on a connection of its own to the real Redis, which it may close and open again:
 * calls in between fail at once (no offline queue), as they do while Redis is away.
 */
async function onOwnConnection(
  keyPrefix: string,
  test: (own: Redis, limits: ReturnType<typeof createLimits>) => Promise<void>,
): Promise<void> {
  const own = createRedis(inject('redisUrl'));
  own.on('error', () => {});
  try {
    if (own.status !== 'ready') await new Promise((resolve) => own.once('ready', resolve));
    await test(own, createLimits({ redis: own, keyPrefix: `${prefix}${keyPrefix}` }));
  } finally {
    own.disconnect();
  }
}

/** The credits the refund counter has counted in this process. */
const refunded = async () => (await metrics.creditsRefunded.get()).values[0]?.value ?? 0;

describe('parseIdempotencyKey, the core check behind the HTTP validator (which refuses the same first)', () => {
  it('passes a missing header and a visible-ASCII key through as they are', () => {
    expect(parseIdempotencyKey(undefined)).toBeUndefined();
    expect(parseIdempotencyKey('9b2f-A~!')).toBe('9b2f-A~!');
    expect(parseIdempotencyKey('k'.repeat(255))).toBe('k'.repeat(255));
  });

  it.each([
    ['a space', 'two words'],
    ['empty', ''],
    ['256 characters', 'k'.repeat(256)],
    ['non-ASCII', 'キー'],
  ])('refuses %s with a 400 naming the header', (_label, header) => {
    let thrown: unknown;
    try {
      parseIdempotencyKey(header);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toMatchObject({ status: 400, errors: [{ field: 'Idempotency-Key' }] });
  });
});

describe('export price', () => {
  it('one credit per started block of records, none for none', () => {
    const config = { exportRecordsPerCredit: 1000 };
    expect([0, 1, 999, 1000, 1001, 2000, 2001].map((n) => exportCost(config, n))).toEqual([
      0, 1, 1, 1, 2, 2, 3,
    ]);
    expect(exportCost({ exportRecordsPerCredit: 10 }, 95)).toBe(10);
  });
});

describe.each([
  ['single-process', (): Redis | undefined => undefined],
  ['shared', (): Redis | undefined => redis],
] as const)('%s rate limiter', (mode, store) => {
  it('allows the budget, then refuses with Retry-After and the window end', async () => {
    const limiter = createRateLimiter({
      redis: store(),
      keyPrefix: `${prefix}${mode}-`,
      pointsPerSecond: 3,
      windowSeconds: 60,
    });
    expect(limiter.mode).toBe(mode);
    const before = Math.floor(Date.now() / 1000);
    const decisions = [];
    for (let i = 0; i < 4; i++) decisions.push(await limiter.consume('alice'));
    expect(decisions.map((d) => [d.allowed, d.limit, d.remaining])).toEqual([
      [true, 3, 2],
      [true, 3, 1],
      [true, 3, 0],
      [false, 3, 0],
    ]);
    const refused = decisions[3] as (typeof decisions)[number];
    // the 60-second window: the reset and Retry-After are most of a minute away, never 0
    expect(refused.retryAfterSeconds).toBeGreaterThan(30);
    expect(refused.retryAfterSeconds).toBeLessThanOrEqual(60);
    expect(refused.resetEpochSeconds).toBeGreaterThan(before + 30);
    expect(refused.resetEpochSeconds).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + 60);
    expect((await limiter.consume('bob')).allowed).toBe(true);
  });

  it('a one-second window: Retry-After is 1 and the reset within a second', async () => {
    const limiter = createRateLimiter({
      redis: store(),
      keyPrefix: `${prefix}${mode}-1s-`,
      pointsPerSecond: 1,
    });
    // both sent in one turn: Redis runs them back to back, inside the one window, however
    // late the machine gets to them
    const before = Math.floor(Date.now() / 1000);
    const [first, refused] = await Promise.all([limiter.consume('carol'), limiter.consume('carol')]);
    expect(first.allowed).toBe(true);
    expect(refused.allowed).toBe(false);
    expect(refused.retryAfterSeconds).toBe(1);
    expect(refused.resetEpochSeconds).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + 1);
    expect(refused.resetEpochSeconds).toBeGreaterThanOrEqual(before);
  });
});

describe('shared rate limiter and the give-up time', () => {
  it('a consume Redis reaches after the caller gave up counts nothing and is unavailable', async () => {
    const limiter = createRateLimiter({
      redis,
      keyPrefix: `${prefix}late-`,
      pointsPerSecond: 2,
      windowSeconds: 60,
    });
    await expect(limiter.consume('dave', Date.now() - 5_000)).rejects.toBeInstanceOf(LimitsStoreUnavailable);
    expect((await limiter.consume('dave')).remaining).toBe(1);
    expect((await limiter.consume('dave')).remaining).toBe(0);
  });
});

describe('createLimits', () => {
  it('shared with Redis; its own budget for suggest, beside the searches', async () => {
    const limits = createLimits({
      redis,
      keyPrefix: `${prefix}app-`,
      config: { ratePerSecond: 1, suggestRatePerSecond: 2, rateWindowSeconds: 60 },
    });
    expect([limits.mode, limits.rateLimiter.mode, limits.ledger.mode]).toEqual([
      'shared',
      'shared',
      'shared',
    ]);
    expect(limits.config.ratePerSecond).toBe(1);
    expect(limits.config.exportRecordsPerCredit).toBe(1000);
    expect((await limits.rateLimiter.consume('erin')).allowed).toBe(true);
    expect((await limits.rateLimiter.consume('erin')).allowed).toBe(false);
    const suggest = [
      await limits.suggestRateLimiter.consume('erin'),
      await limits.suggestRateLimiter.consume('erin'),
    ];
    expect(suggest.map((d) => [d.allowed, d.limit])).toEqual([
      [true, 2],
      [true, 2],
    ]);
    expect((await redis.keys(`*${prefix}app-*`)).sort()).toEqual([
      `${prefix}app-rate:erin`,
      `${prefix}app-suggest-rate:erin`,
    ]);
  });

  it('single-process without Redis', () => {
    const limits = createLimits({ redis: undefined, keyPrefix: `${prefix}local-` });
    expect([limits.mode, limits.rateLimiter.mode, limits.ledger.mode]).toEqual([
      'single-process',
      'single-process',
      'single-process',
    ]);
  });
});

describe('refundWithRetry', () => {
  it('gives a reservation back once and counts it once, however often it is called', async () => {
    const limits = createLimits({ redis, keyPrefix: `${prefix}refund-` });
    await limits.ledger.grant('fay', 10);
    expect(await limits.ledger.reserve('fay', 3, 'req-fay')).toMatchObject({ ok: true, balance: 7 });
    const before = await refunded();
    refundWithRetry(limits, 'req-fay', undefined, 3);
    await expect.poll(() => limits.ledger.balance('fay')).toBe(10);
    await expect.poll(refunded).toBe(before + 3);
    refundWithRetry(limits, 'req-fay', undefined, 3);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await limits.ledger.balance('fay')).toBe(10);
    expect(await refunded()).toBe(before + 3);
  });

  it('retries while the connection to Redis is down, and refunds once it is back', async () => {
    await onOwnConnection('refund-away-', async (own, limits) => {
      await limits.ledger.grant('gus', 10);
      expect(await limits.ledger.reserve('gus', 4, 'req-gus')).toMatchObject({ ok: true, balance: 6 });
      own.disconnect();
      const errors: string[] = [];
      const log = { error: (_fields: unknown, message: string) => errors.push(message) };
      refundWithRetry(limits, 'req-gus', log as unknown as Logger, 4);
      // the first tries (at once, after 250 ms) fail on the closed connection
      await new Promise((resolve) => setTimeout(resolve, 400));
      await own.connect();
      await expect.poll(() => limits.ledger.balance('gus'), { timeout: 5_000 }).toBe(10);
      expect(errors).toEqual([]);
    });
  });
});

describe('costOf, what a request reserves', () => {
  const { config } = createLimits({
    redis: undefined,
    keyPrefix: `${prefix}cost-`,
    config: { searchCost: 1, detailCost: 2, matchCost: 3 },
  });

  it('a search and a detail their prices, whatever the body', () => {
    expect(costOf('search', { records: [1, 2] }, config)).toBe(1);
    expect(costOf('detail', undefined, config)).toBe(2);
  });

  it('a match the worst case (every record a certain match), capped by maxCredits', () => {
    expect(costOf('match', { records: ['a', 'b', 'c', 'd'] }, config)).toBe(12);
    expect(costOf('match', { records: ['a', 'b', 'c', 'd'], maxCredits: 5 }, config)).toBe(5);
    expect(costOf('match', { records: ['a'], maxCredits: 5 }, config)).toBe(3);
    expect(costOf('match', { records: ['a'], maxCredits: 0 }, config)).toBe(0);
    expect(costOf('match', {}, config)).toBe(0);
    expect(costOf('match', undefined, config)).toBe(0);
  });
});

describe('refundBeforeAnswer, the refund a failed request makes before its error is written', () => {
  it('the balance after it; undefined when already refunded; undefined and a warning when the ledger is away', async () => {
    await onOwnConnection('before-answer-', async (own, limits) => {
      await limits.ledger.grant('hal', 10);
      await limits.ledger.reserve('hal', 4, 'req-hal-1');
      await limits.ledger.reserve('hal', 2, 'req-hal-2');
      const before = await refunded();
      expect(await refundBeforeAnswer(limits, { requestId: 'req-hal-1', cost: 4 })).toBe(8);
      expect(await refundBeforeAnswer(limits, { requestId: 'req-hal-1', cost: 4 })).toBeUndefined();
      expect(await refunded()).toBe(before + 4);
      own.disconnect();
      const warnings: Array<[unknown, string]> = [];
      const log = { warn: (fields: unknown, message: string) => warnings.push([fields, message]) };
      const away = await refundBeforeAnswer(
        limits,
        { requestId: 'req-hal-2', cost: 2 },
        log as unknown as Logger,
      );
      expect(away).toBeUndefined();
      expect(warnings).toEqual([
        [{ err: { message: expect.any(String) } }, 'refund deferred: ledger unavailable'],
      ]);
      // without a logger (the CLI's paths) the same, quietly
      expect(await refundBeforeAnswer(limits, { requestId: 'req-hal-2', cost: 2 })).toBeUndefined();
      await expect.poll(() => own.status).toBe('end');
      await own.connect();
      // nothing was given back while away: the reservation is still open for the retry
      expect(await limits.ledger.balance('hal')).toBe(8);
      expect(await limits.ledger.refund('req-hal-2')).toBe(10);
    });
  });
});

describe('store failures: what a log line says, and which errors become the 503', () => {
  it('describeFailure: the message, and the cause only when it is an Error', () => {
    expect(describeFailure(new Error('Connection is closed.'))).toEqual({ message: 'Connection is closed.' });
    expect(describeFailure('a thrown string')).toEqual({ message: 'a thrown string' });
    // the cause is told only for the store's own failure (ioredis's message); another error's
    // cause may carry anything, so it stays out of the line
    expect(describeFailure(new Error('outer', { cause: new Error('inner') }))).toEqual({ message: 'outer' });
    expect(
      describeFailure(new LimitsStoreUnavailable('credit reserve', new Error('Command timed out'))),
    ).toEqual({
      message: 'limits store unavailable during credit reserve',
      cause: 'Command timed out',
    });
    expect(describeFailure(new LimitsStoreUnavailable('credit reserve', 'not an Error'))).toEqual({
      message: 'limits store unavailable during credit reserve',
    });
  });

  it('storeCall: any failure of the call is the store failure, naming the operation and keeping the cause', async () => {
    const cause = new Error('Connection is closed.');
    await expect(storeCall('credit grant', () => Promise.reject(cause))).rejects.toMatchObject({
      name: 'LimitsStoreUnavailable',
      operation: 'credit grant',
      cause,
    });
    expect(await storeCall('credit grant', async () => 7)).toBe(7);
  });

  it('inRedisBudget: a spent Redis budget is the store failure; any other error is thrown on as it is', async () => {
    const spent = new Deadline({ totalMs: 10_000, redisMs: 0 });
    try {
      await expect(inRedisBudget(spent, 'admission', async () => 1)).rejects.toMatchObject({
        name: 'LimitsStoreUnavailable',
        operation: 'admission',
        cause: expect.objectContaining({ name: 'DeadlineExceeded' }),
      });
    } finally {
      spent.release();
    }
    const bug = new TypeError('a bug');
    await expect(inRedisBudget(undefined, 'admission', () => Promise.reject(bug))).rejects.toBe(bug);
  });

  it('unavailable: the store failure is a 503 with Retry-After and a warning; anything else is thrown on', () => {
    const limits = createLimits({
      redis: undefined,
      keyPrefix: `${prefix}unavailable-`,
      config: { unavailableRetryAfterSeconds: 7 },
    });
    const warnings: Array<[unknown, string]> = [];
    const log = { warn: (fields: unknown, message: string) => warnings.push([fields, message]) };
    const answer = unavailable(
      new LimitsStoreUnavailable('rate limit', new Error('x')),
      limits,
      log as unknown as Logger,
    );
    expect([answer.status, answer.code, answer.headers]).toEqual([
      503,
      'limits_unavailable',
      { 'Retry-After': '7' },
    ]);
    expect(warnings).toEqual([
      [
        { err: { message: 'limits store unavailable during rate limit', cause: 'x' } },
        'rate limiter unavailable',
      ],
    ]);
    expect(unavailable(new LimitsStoreUnavailable('rate limit', new Error('x')), limits).status).toBe(503);
    const bug = new TypeError('a bug, not an outage');
    expect(() => unavailable(bug, limits, log as unknown as Logger)).toThrow(bug);
    expect(warnings).toHaveLength(1);
  });
});

describe('the orphan sweeper', () => {
  // a loaded machine may hold a 20 ms timer back for a while: wait up to 10 s for each step
  const slow = { timeout: 10_000 };
  const capture = () => {
    const warnings: Array<[Record<string, unknown>, string]> = [];
    const log = {
      warn: (fields: Record<string, unknown>, message: string) => warnings.push([fields, message]),
    };
    return { warnings, log: log as unknown as Logger };
  };

  it('refunds an orphaned reservation on its own schedule and says so; quiet when there is none', async () => {
    const ledger = new LocalCreditLedger(undefined, 0);
    await ledger.grant('ida', 5);
    await ledger.reserve('ida', 3, 'req-ida');
    const { warnings, log } = capture();
    const sweeper = startOrphanSweeper(ledger, 0.02, log);
    try {
      await expect.poll(() => ledger.balance('ida'), slow).toBe(5);
      // later sweeps find nothing and log nothing
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(warnings).toEqual([
        [
          { reservations: 1, credits: 3 },
          'refunded orphaned credit reservations (their API process died mid-request)',
        ],
      ]);
    } finally {
      sweeper.stop();
    }
  });

  it('a sweep that fails is logged and the schedule goes on', async () => {
    // a ledger file that cannot be read (a directory): every sweep fails, as with Redis away
    const ledger = new LocalCreditLedger(mkdtempSync(path.join(os.tmpdir(), 'ledger-dir-')), 0);
    const { warnings, log } = capture();
    const sweeper = startOrphanSweeper(ledger, 0.02, log);
    try {
      await expect.poll(() => warnings.length, slow).toBeGreaterThanOrEqual(2);
      expect(new Set(warnings.map(([, message]) => message))).toEqual(
        new Set(['orphan sweep skipped: ledger unavailable']),
      );
      expect(warnings[0]?.[0]).toEqual({ err: { message: expect.stringContaining('EISDIR') } });
    } finally {
      sweeper.stop();
    }
  });

  it('without a logger it goes on sweeping: an orphan made after the first sweep is refunded too', async () => {
    const ledger = new LocalCreditLedger(undefined, 0);
    await ledger.grant('jo', 5);
    await ledger.reserve('jo', 2, 'req-jo-1');
    const sweeper = startOrphanSweeper(ledger, 0.02);
    try {
      await expect.poll(() => ledger.balance('jo'), slow).toBe(5);
      await ledger.reserve('jo', 4, 'req-jo-2');
      await expect.poll(() => ledger.balance('jo'), slow).toBe(5);
      expect((await ledger.account('jo')).autoRefunded).toMatchObject({ reservations: 2, credits: 6 });
    } finally {
      sweeper.stop();
    }
  });

  it('without a logger a failing sweep is skipped quietly, and the next one still comes', async () => {
    const failing = new LocalCreditLedger(mkdtempSync(path.join(os.tmpdir(), 'ledger-dir-')), 0);
    let sweeps = 0;
    const counting = Object.assign(Object.create(failing) as LocalCreditLedger, {
      sweepOrphans: () => {
        sweeps += 1;
        return failing.sweepOrphans();
      },
    });
    const sweeper = startOrphanSweeper(counting, 0.02);
    try {
      await expect.poll(() => sweeps, slow).toBeGreaterThanOrEqual(3);
    } finally {
      sweeper.stop();
    }
  });

  it.each([
    [0, 8_000],
    [1, 12_000],
  ])(
    'sweeps every interval give or take a fifth (random %d: after %d ms of a 10 s interval)',
    async (random, due) => {
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
      vi.spyOn(Math, 'random').mockReturnValue(random);
      const ledger = new LocalCreditLedger(undefined, 60_000);
      let sweeps = 0;
      const counting = Object.assign(Object.create(ledger) as LocalCreditLedger, {
        sweepOrphans: async () => {
          sweeps += 1;
          return ledger.sweepOrphans();
        },
      });
      const sweeper = startOrphanSweeper(counting, 10);
      try {
        await vi.advanceTimersByTimeAsync(due - 1);
        expect(sweeps).toBe(0);
        await vi.advanceTimersByTimeAsync(1);
        expect(sweeps).toBe(1);
        await vi.advanceTimersByTimeAsync(due);
        expect(sweeps).toBe(2);
      } finally {
        sweeper.stop();
        vi.restoreAllMocks();
        vi.useRealTimers();
      }
    },
  );

  it('stopped while a sweep runs: that sweep ends, no other starts', async () => {
    const ledger = new LocalCreditLedger(undefined, 60_000);
    let sweeps = 0;
    let sweeper: { stop(): void } | undefined;
    const counting = Object.assign(Object.create(ledger) as LocalCreditLedger, {
      sweepOrphans: async () => {
        sweeps += 1;
        sweeper?.stop();
        return ledger.sweepOrphans();
      },
    });
    sweeper = startOrphanSweeper(counting, 0.01);
    await expect.poll(() => sweeps, slow).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(sweeps).toBe(1);
  });
});
