/**
 * The credit ledger itself, on the real redis-server and in single-process mode: atomic
 * check-and-debit, idempotent per reservation id, refund exactly once, never negative.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { CreditLedger } from '../../src/limits/credit-ledger.js';
import { createLimits } from '../../src/limits/limits.js';
import { LocalCreditLedger } from '../../src/limits/local-credit-ledger.js';
import { createCreditLedger, openCreditLedger } from '../../src/limits/open-credit-ledger.js';
import { testRedis, uniquePrefix } from '../support/env.js';

// Redis only: no engine set-up, so the file starts in a moment (it also runs once per
// mutant under `npm run mutation -- limits`)
const redisPrefix = uniquePrefix('credits-ledger');
let store: Awaited<ReturnType<typeof testRedis>>;
let redis: Redis;

beforeAll(async () => {
  store = await testRedis(redisPrefix);
  redis = store.redis;
});
afterAll(async () => {
  await store?.close();
});

const implementations: Array<[string, () => CreditLedger]> = [
  ['Redis', () => createCreditLedger({ redis, keyPrefix: `${redisPrefix}${Math.random()}:` })],
  ['single-process', () => createCreditLedger({ redis: undefined, keyPrefix: '' })],
];

describe.each(implementations)('%s ledger', (_name, make) => {
  it('starts at 0, grants, and refuses to go below 0', async () => {
    const ledger = make();
    expect(await ledger.balance('u')).toBe(0);
    expect(await ledger.grant('u', 10)).toBe(10);
    expect(await ledger.grant('u', -4)).toBe(6);
    await expect(ledger.grant('u', -7)).rejects.toThrow(/balance is 6/);
    expect(await ledger.balance('u')).toBe(6);
  });

  it('reserves atomically: 50 concurrent reservations of 3 on 100 -> 33 succeed, 1 left', async () => {
    const ledger = make();
    await ledger.grant('u', 100);
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => ledger.reserve('u', 3, `r-${i}`)));
    expect(results.filter((r) => r.ok)).toHaveLength(33);
    expect(results.filter((r) => !r.ok).every((r) => r.balance === 1)).toBe(true);
    expect(await ledger.balance('u')).toBe(1);
  });

  it('debits once per reservation id, however often the reserve is replayed', async () => {
    const ledger = make();
    await ledger.grant('u', 10);
    const replays = await Promise.all(Array.from({ length: 5 }, () => ledger.reserve('u', 2, 'same-id')));
    expect(replays.every((r) => r.ok)).toBe(true);
    expect(await ledger.balance('u')).toBe(8);
  });

  it('refunds exactly once, and never a committed debit', async () => {
    const ledger = make();
    await ledger.grant('u', 10);
    await ledger.reserve('u', 4, 'a');
    await ledger.reserve('u', 4, 'b');
    expect(await ledger.balance('u')).toBe(2);
    const refunds = await Promise.all([ledger.refund('a'), ledger.refund('a'), ledger.refund('a')]);
    expect(refunds.filter((r) => r !== null)).toEqual([6]);
    await ledger.commit('b');
    expect(await ledger.refund('b')).toBeNull();
    expect(await ledger.balance('u')).toBe(6);
  });

  it('grants whole credits only: a fraction is refused before anything is written', async () => {
    const ledger = make();
    await ledger.grant('f', 4);
    await expect(ledger.grant('f', 1.5)).rejects.toThrow(RangeError);
    await expect(ledger.grant('f', Number.NaN)).rejects.toThrow('amount must be a whole number');
    expect(await ledger.balance('f')).toBe(4);
  });

  it('a user never granted anything: a reservation is short at 0, the account empty', async () => {
    const ledger = make();
    expect(await ledger.reserve('never-granted', 1, 'n-1')).toEqual({ ok: false, balance: 0 });
    expect(await ledger.account('never-granted')).toEqual({
      balance: 0,
      open: { reservations: 0, credits: 0 },
      autoRefunded: { reservations: 0, credits: 0, recent: [] },
    });
  });

  it('reports a short balance without debiting', async () => {
    const ledger = make();
    await ledger.grant('u', 2);
    expect(await ledger.reserve('u', 3, 'x')).toEqual({ ok: false, balance: 2 });
    expect(await ledger.balance('u')).toBe(2);
  });

  it('a reservation of exactly the balance goes through, to 0; all of it can be taken back, not more', async () => {
    const ledger = make();
    await ledger.grant('w', 3);
    expect(await ledger.reserve('w', 3, 'all')).toEqual({ ok: true, balance: 0 });
    expect(await ledger.grant('w', 5)).toBe(5);
    expect(await ledger.grant('w', -5)).toBe(0);
    expect(await ledger.grant('w', 2)).toBe(2);
    await expect(ledger.grant('w', -7)).rejects.toThrow('cannot take 7 credits: the balance is 2');
    expect(await ledger.balance('w')).toBe(2);
  });

  it('settles a reservation at what was delivered (an export), once; more than reserved is not charged', async () => {
    const ledger = make();
    await ledger.grant('u', 20);
    await ledger.reserve('u', 8, 'export-1');
    expect(await ledger.keepOpen('export-1')).toBe(true);
    expect(await ledger.settle('export-1', 3)).toBe(17);
    expect(await ledger.settle('export-1', 3)).toBeNull();
    expect(await ledger.keepOpen('export-1')).toBe(false);
    await ledger.reserve('u', 5, 'export-2');
    expect(await ledger.settle('export-2', 9)).toBe(12);
    expect(await ledger.balance('u')).toBe(12);
  });
});

describe('Redis ledger after a lost reply', () => {
  it('a reserve that reaches Redis only after its refund debits nothing', async () => {
    const ledger = createCreditLedger({ redis, keyPrefix: `${redisPrefix}late:` });
    await ledger.grant('u', 5);
    // the API gave up on the reserve (timeout) and cancelled it; then Redis runs the old reserve
    expect(await ledger.refund('late-id')).toBeNull();
    await expect(ledger.reserve('u', 1, 'late-id')).rejects.toThrow(/unavailable/);
    expect(await ledger.balance('u')).toBe(5);
  });
});

describe('Redis admission after a lost reply', () => {
  it('an admission that reaches Redis after its caller gave up does nothing: no count, no claim, no debit', async () => {
    const keyPrefix = `${redisPrefix}late-admit:`;
    const limits = createLimits({ redis, keyPrefix, config: { ratePerSecond: 1, rateWindowSeconds: 60 } });
    await limits.ledger.grant('v', 5);
    const request = {
      userId: 'v',
      requestId: 'late-admission',
      rate: { limiter: limits.rateLimiter },
      claim: { store: limits.idempotency, key: 'idem-1', fingerprint: 'fp' },
      cost: 2,
    };
    await expect(limits.ledger.admit({ ...request, giveUpAt: Date.now() - 1_000 })).rejects.toMatchObject({
      name: 'LimitsStoreUnavailable',
      operation: 'admission',
    });
    // the balance, and the grant's ledger entry waiting to be filed: nothing of the admission
    expect((await redis.keys(`${keyPrefix}*`)).sort()).toEqual([
      `${keyPrefix}credits:balance:v`,
      `${keyPrefix}credits:ledger`,
    ]);
    expect(await limits.ledger.balance('v')).toBe(5);
    // the same request in time: counted (the one allowed), claimed and debited
    const admitted = await limits.ledger.admit({ ...request, giveUpAt: Date.now() + 5_000 });
    expect([admitted.rate?.allowed, admitted.claim, admitted.reserve]).toEqual([
      true,
      { kind: 'claimed' },
      { ok: true, balance: 3 },
    ]);
  });
});

describe('single-process file ledger', () => {
  it('two ledgers on one file (the keys CLI and npm start) see the same balances', async () => {
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'credits-')), 'credits.json');
    const server = new LocalCreditLedger(file);
    const cli = new LocalCreditLedger(file);
    expect(await cli.grant('u', 7)).toBe(7);
    expect(await server.reserve('u', 2, 'r1')).toEqual({ ok: true, balance: 5 });
    expect(await cli.balance('u')).toBe(5);
    expect(await server.refund('r1')).toBe(7);
    expect(await cli.balance('u')).toBe(7);
  });

  it('reads a file holding only some of its sections (one written before autoRefunds existed, or by hand)', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'credits-'));
    const partial = path.join(dir, 'partial.json');
    writeFileSync(partial, JSON.stringify({ balances: { u: 9 } }));
    const ledger = new LocalCreditLedger(partial);
    expect(await ledger.account('u')).toEqual({
      balance: 9,
      open: { reservations: 0, credits: 0 },
      autoRefunded: { reservations: 0, credits: 0, recent: [] },
    });
    expect(await ledger.reserve('u', 2, 'r-partial')).toEqual({ ok: true, balance: 7 });
    const empty = path.join(dir, 'empty.json');
    writeFileSync(empty, '{}');
    const blank = new LocalCreditLedger(empty);
    expect(await blank.balance('u')).toBe(0);
    expect(await blank.grant('u', 3)).toBe(3);
    expect(JSON.parse(readFileSync(empty, 'utf8')).balances).toEqual({ u: 3 });
  });

  it('a file that is not JSON is an error, not an empty ledger (no balance is silently lost)', async () => {
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'credits-')), 'credits.json');
    writeFileSync(file, '{"balances": {"u": 5');
    await expect(new LocalCreditLedger(file).balance('u')).rejects.toThrow(SyntaxError);
    expect(readFileSync(file, 'utf8')).toBe('{"balances": {"u": 5');
  });
});

describe('openCreditLedger (the keys CLI)', () => {
  it('opens the Redis ledger under REDIS_PREFIX when REDIS_URL is set', async () => {
    const prefix = `${redisPrefix}cli:`;
    const { ledger, close } = await openCreditLedger({
      redisUrl: inject('redisUrl'),
      redisPrefix: prefix,
    });
    try {
      expect(ledger.mode).toBe('shared');
      await ledger.grant('u', 42);
      expect(await redis.get(`${prefix}credits:balance:u`)).toBe('42');
      // every call waits for the connection, then reaches the same Redis ledger
      expect((await ledger.reserve('u', 2, 'cli-r')).ok).toBe(true);
      expect(await ledger.keepOpen('cli-r')).toBe(true);
      expect(await ledger.settle('cli-r', 1)).toBe(41);
      await ledger.reserve('u', 1, 'cli-c');
      await ledger.commit('cli-c');
      expect(await ledger.refund('cli-c')).toBeNull();
      expect(await ledger.sweepOrphans()).toEqual({ reservations: 0, credits: 0 });
      expect((await ledger.account('u')).balance).toBe(40);
    } finally {
      await close();
    }
  });
});

describe.each([
  [
    'Redis',
    () =>
      createCreditLedger({
        redis,
        keyPrefix: `${redisPrefix}orphans-${Math.random()}:`,
        orphanAfterSeconds: 2,
      }),
  ],
  ['single-process', () => createCreditLedger({ redis: undefined, keyPrefix: '', orphanAfterSeconds: 2 })],
] as Array<[string, () => CreditLedger]>)('%s ledger: orphaned reservations', (_name, make) => {
  it('the sweep refunds each orphan once, only after its time, never a committed one; the account shows both', async () => {
    const ledger = make();
    await ledger.grant('o', 10);
    await ledger.grant('p', 5);
    const before = Date.now();
    expect((await ledger.reserve('o', 3, 'o-1')).ok).toBe(true);
    expect((await ledger.reserve('o', 2, 'o-2')).ok).toBe(true);
    expect((await ledger.reserve('p', 4, 'p-1')).ok).toBe(true);
    await ledger.commit('o-2');
    expect(await ledger.sweepOrphans()).toEqual({ reservations: 0, credits: 0 });
    expect(await ledger.account('o')).toEqual({
      balance: 5,
      open: { reservations: 1, credits: 3 },
      autoRefunded: { reservations: 0, credits: 0, recent: [] },
    });
    // past the orphan time (2 s: the calls above have that long, however slow the machine)
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    expect(await ledger.sweepOrphans()).toEqual({ reservations: 2, credits: 7 });
    expect(await ledger.sweepOrphans()).toEqual({ reservations: 0, credits: 0 });
    const account = await ledger.account('o');
    expect(account).toMatchObject({
      balance: 8,
      open: { reservations: 0, credits: 0 },
      autoRefunded: { reservations: 1, credits: 3 },
    });
    expect(account.autoRefunded.recent).toEqual([{ at: expect.any(String), reservationId: 'o-1', cost: 3 }]);
    const at = Date.parse(account.autoRefunded.recent[0]?.at ?? '');
    expect(at).toBeGreaterThanOrEqual(before);
    expect(at).toBeLessThanOrEqual(Date.now());
    expect(await ledger.refund('o-1')).toBeNull();
    expect((await ledger.account('p')).balance).toBe(5);
  });
});
