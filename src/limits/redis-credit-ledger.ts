/**
 * The credit ledger in Redis, shared by every API process. Each step is ONE Lua script, so
 * it is atomic, and every step is keyed by the request id so running it twice changes
 * nothing: ioredis re-sends unanswered commands after a reconnect, and a replayed reserve
 * must not debit twice nor a replayed refund credit twice.
 *
 * Keys: `<prefix>credits:balance:<userId>` (integer) and
 * `<prefix>credits:reservation:<requestId>` (hash: state reserved|committed|refunded|cancelled,
 * cost, account). A refund that arrives before its reserve (the reserve timed out on our side
 * but was still executed later) leaves a `cancelled` marker, and the late reserve then debits
 * nothing.
 *
 * Orphans: every reservation is also in the sorted set `<prefix>credits:open`, scored with the
 * time (Redis's clock) from which it counts as orphaned; commit and refund take it out. A
 * reservation still there after that time belongs to a request whose process died (kill -9,
 * OOM, power) between reserve and commit: `sweepOrphans`, run every few seconds by every API
 * process, refunds those in one script, so whichever process comes first does it and the
 * others find nothing (exactly once). Each automatic refund is recorded for the user
 * (`credits:auto-refunds:<user>`, last 100; totals in `credits:auto-refund-totals:<user>`),
 * which the keys CLI shows. An export holds one reservation for its whole stream, which may
 * last longer than the orphan time: while it streams it pushes its orphan time ahead
 * (`keepOpen`, every third of the orphan time), and settles at the records sent when it ends.
 */
import type { Redis } from 'ioredis';
import type { AccountReport, CreditLedger, ReserveResult, SweepResult } from './credit-ledger.js';
import { luaNowMs, RedisClock } from './redis-clock.js';
import { LimitsStoreUnavailable, storeCall } from './store-unavailable.js';

// KEYS: balance, reservation, open set; ARGV: cost, ttl seconds, give-up time (Redis ms),
// orphan after (ms), user id
// -> {1, balance after} debited | {2, balance} already reserved | {0, balance} short
//    | {-1, balance} cancelled, or run after the API stopped waiting for it (debits nothing)
const reserveScript = `
${luaNowMs}
local state = redis.call('HGET', KEYS[2], 'state')
local balance = tonumber(redis.call('GET', KEYS[1]) or '0')
if state == 'cancelled' then return {-1, balance} end
if state then return {2, balance} end
if now > tonumber(ARGV[3]) then return {-1, balance} end
local cost = tonumber(ARGV[1])
if balance < cost then return {0, balance} end
local after = redis.call('DECRBY', KEYS[1], cost)
redis.call('HSET', KEYS[2], 'state', 'reserved', 'cost', cost, 'account', KEYS[1], 'user', ARGV[5], 'at', now)
redis.call('EXPIRE', KEYS[2], ARGV[2])
redis.call('ZADD', KEYS[3], now + tonumber(ARGV[4]), KEYS[2])
return {1, after}
`;

// KEYS: reservation, open set -> 1 committed now | 0 nothing to commit
const commitScript = `
redis.call('ZREM', KEYS[2], KEYS[1])
if redis.call('HGET', KEYS[1], 'state') == 'reserved' then
  redis.call('HSET', KEYS[1], 'state', 'committed')
  return 1
end
return 0
`;

// KEYS: reservation, open set; ARGV: ttl seconds -> {1, balance after} refunded now | {0, 0} nothing to refund
const refundScript = `
redis.call('ZREM', KEYS[2], KEYS[1])
local r = redis.call('HMGET', KEYS[1], 'state', 'cost', 'account')
if not r[1] then
  redis.call('HSET', KEYS[1], 'state', 'cancelled')
  redis.call('EXPIRE', KEYS[1], ARGV[1])
  return {0, 0}
end
if r[1] ~= 'reserved' then return {0, 0} end
local after = redis.call('INCRBY', r[3], tonumber(r[2]))
redis.call('HSET', KEYS[1], 'state', 'refunded')
return {1, after}
`;

// KEYS: open set; ARGV: batch size, reservation key prefix, auto-refund list prefix,
// totals prefix -> {reservations refunded, credits refunded}
const sweepScript = `
${luaNowMs}
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, tonumber(ARGV[1]))
local refunded, credits = 0, 0
for _, key in ipairs(due) do
  redis.call('ZREM', KEYS[1], key)
  local r = redis.call('HMGET', key, 'state', 'cost', 'account', 'user')
  if r[1] == 'reserved' then
    local cost = tonumber(r[2])
    redis.call('INCRBY', r[3], cost)
    redis.call('HSET', key, 'state', 'refunded', 'refundedBy', 'sweep')
    if r[4] then
      local id = string.sub(key, string.len(ARGV[2]) + 1)
      redis.call('LPUSH', ARGV[3] .. r[4], now .. ' ' .. id .. ' ' .. cost)
      redis.call('LTRIM', ARGV[3] .. r[4], 0, 99)
      redis.call('HINCRBY', ARGV[4] .. r[4], 'count', 1)
      redis.call('HINCRBY', ARGV[4] .. r[4], 'credits', cost)
    end
    refunded = refunded + 1
    credits = credits + cost
  end
end
return {refunded, credits}
`;

// KEYS: reservation, open set; ARGV: final cost -> {1, balance after} settled now | {0, 0} not open
const settleScript = `
redis.call('ZREM', KEYS[2], KEYS[1])
local r = redis.call('HMGET', KEYS[1], 'state', 'cost', 'account')
if r[1] ~= 'reserved' then return {0, 0} end
local final = math.min(tonumber(ARGV[1]), tonumber(r[2]))
local after = redis.call('INCRBY', r[3], tonumber(r[2]) - final)
redis.call('HSET', KEYS[1], 'state', 'committed', 'cost', final)
return {1, after}
`;

// KEYS: reservation, open set; ARGV: orphan after (ms), ttl seconds -> 1 pushed back | 0 not open.
// A renewal that arrives after the settle or the sweep took the reservation out of the set
// adds nothing back (late-harmless); the record's TTL restarts too, so an export longer than
// the TTL still settles.
const keepOpenScript = `
${luaNowMs}
if redis.call('HGET', KEYS[1], 'state') ~= 'reserved' then return 0 end
if not redis.call('ZSCORE', KEYS[2], KEYS[1]) then return 0 end
redis.call('ZADD', KEYS[2], 'XX', now + tonumber(ARGV[1]), KEYS[1])
redis.call('EXPIRE', KEYS[1], ARGV[2])
return 1
`;

// KEYS: balance; ARGV: amount -> {1, balance after} | {0, balance} would go below 0
const grantScript = `
local balance = tonumber(redis.call('GET', KEYS[1]) or '0')
local amount = tonumber(ARGV[1])
if balance + amount < 0 then return {0, balance} end
return {1, redis.call('INCRBY', KEYS[1], amount)}
`;

type Script = (...keysAndArgs: Array<string | number>) => Promise<[number, number] | number>;

interface LedgerCommands {
  csCreditReserve: Script;
  csCreditCommit: Script;
  csCreditRefund: Script;
  csCreditGrant: Script;
  csCreditSweep: Script;
  csCreditSettle: Script;
  csCreditKeepOpen: Script;
}

/** How long a reserve without a request deadline may wait before it debits nothing. */
const defaultGiveUpMs = 2000;
/** Orphans refunded per sweep script run (a sweep loops until none is left). */
const sweepBatch = 200;

export class RedisCreditLedger implements CreditLedger {
  readonly mode = 'shared' as const;
  private readonly commands: LedgerCommands;

  private readonly clock: RedisClock;

  constructor(
    private readonly redis: Redis,
    private readonly keyPrefix: string,
    private readonly reservationTtlSeconds: number,
    /** A reservation neither committed nor refunded after this long is refunded by a sweep. */
    private readonly orphanAfterMs = 60_000,
  ) {
    // defineCommand sends EVALSHA and falls back to EVAL after a restart emptied the script cache
    redis.defineCommand('csCreditReserve', { numberOfKeys: 3, lua: reserveScript });
    redis.defineCommand('csCreditCommit', { numberOfKeys: 2, lua: commitScript });
    redis.defineCommand('csCreditRefund', { numberOfKeys: 2, lua: refundScript });
    redis.defineCommand('csCreditGrant', { numberOfKeys: 1, lua: grantScript });
    redis.defineCommand('csCreditSweep', { numberOfKeys: 1, lua: sweepScript });
    redis.defineCommand('csCreditSettle', { numberOfKeys: 2, lua: settleScript });
    redis.defineCommand('csCreditKeepOpen', { numberOfKeys: 2, lua: keepOpenScript });
    this.commands = redis as unknown as LedgerCommands;
    this.clock = new RedisClock(redis);
  }

  private get openKey(): string {
    return `${this.keyPrefix}credits:open`;
  }

  private autoRefundsKey(userId: string): string {
    return `${this.keyPrefix}credits:auto-refunds:${userId}`;
  }

  private autoRefundTotalsKey(userId: string): string {
    return `${this.keyPrefix}credits:auto-refund-totals:${userId}`;
  }

  private balanceKey(userId: string): string {
    return `${this.keyPrefix}credits:balance:${userId}`;
  }

  private reservationKey(requestId: string): string {
    return `${this.keyPrefix}credits:reservation:${requestId}`;
  }

  balance(userId: string): Promise<number> {
    return storeCall('credit balance', async () =>
      Number((await this.redis.get(this.balanceKey(userId))) ?? 0),
    );
  }

  async grant(userId: string, amount: number): Promise<number> {
    if (!Number.isInteger(amount)) throw new RangeError('amount must be a whole number');
    const [ok, balance] = (await storeCall('credit grant', () =>
      this.commands.csCreditGrant(this.balanceKey(userId), amount),
    )) as [number, number];
    if (ok !== 1) throw new RangeError(`cannot take ${-amount} credits: the balance is ${balance}`);
    return balance;
  }

  async reserve(
    userId: string,
    cost: number,
    requestId: string,
    giveUpAt = Date.now() + defaultGiveUpMs,
  ): Promise<ReserveResult> {
    const [status, balance] = (await storeCall('credit reserve', () =>
      this.commands.csCreditReserve(
        this.balanceKey(userId),
        this.reservationKey(requestId),
        this.openKey,
        cost,
        this.reservationTtlSeconds,
        this.clock.toRedisMs(giveUpAt),
        this.orphanAfterMs,
        userId,
      ),
    )) as [number, number];
    if (status === -1)
      throw new LimitsStoreUnavailable(
        'credit reserve',
        new Error('reservation was cancelled, or ran after the API stopped waiting for it'),
      );
    return status === 0 ? { ok: false, balance } : { ok: true, balance };
  }

  async commit(requestId: string): Promise<void> {
    await storeCall('credit commit', () =>
      this.commands.csCreditCommit(this.reservationKey(requestId), this.openKey),
    );
  }

  async refund(requestId: string): Promise<number | null> {
    const [refunded, balance] = (await storeCall('credit refund', () =>
      this.commands.csCreditRefund(this.reservationKey(requestId), this.openKey, this.reservationTtlSeconds),
    )) as [number, number];
    return refunded === 1 ? balance : null;
  }

  async settle(requestId: string, finalCost: number): Promise<number | null> {
    const [settled, balance] = (await storeCall('credit settle', () =>
      this.commands.csCreditSettle(this.reservationKey(requestId), this.openKey, finalCost),
    )) as [number, number];
    return settled === 1 ? balance : null;
  }

  async keepOpen(requestId: string): Promise<boolean> {
    const renewed = await storeCall('credit keep-open', () =>
      this.commands.csCreditKeepOpen(
        this.reservationKey(requestId),
        this.openKey,
        this.orphanAfterMs,
        this.reservationTtlSeconds,
      ),
    );
    return renewed === 1;
  }

  async sweepOrphans(): Promise<SweepResult> {
    const total = { reservations: 0, credits: 0 };
    for (;;) {
      const [reservations, credits] = (await storeCall('orphan sweep', () =>
        this.commands.csCreditSweep(
          this.openKey,
          sweepBatch,
          this.reservationKey(''),
          this.autoRefundsKey(''),
          this.autoRefundTotalsKey(''),
        ),
      )) as [number, number];
      total.reservations += reservations;
      total.credits += credits;
      if (reservations < sweepBatch) return total;
    }
  }

  async account(userId: string): Promise<AccountReport> {
    return storeCall('credit account', async () => {
      const [[, balance], [, totals], [, recent], [, open]] = (await this.redis
        .multi()
        .get(this.balanceKey(userId))
        .hgetall(this.autoRefundTotalsKey(userId))
        .lrange(this.autoRefundsKey(userId), 0, 9)
        .zrange(this.openKey, '0', '-1', 'WITHSCORES')
        .exec()) as [
        [Error | null, string | null],
        [Error | null, Record<string, string>],
        [Error | null, string[]],
        [Error | null, string[]],
      ];
      // the open set holds every user's reservations; this user's are found by their record
      const openKeys = open.filter((_, i) => i % 2 === 0);
      const owners =
        openKeys.length > 0
          ? await this.redis.eval(
              "local o = {} for i, k in ipairs(KEYS) do o[i] = redis.call('HMGET', k, 'user', 'cost') end return o",
              String(openKeys.length),
              ...openKeys,
            )
          : [];
      const openReservations = (owners as Array<[string | null, string | null]>)
        .map(([user, cost], i) => ({ user, cost: Number(cost ?? 0), dueAt: Number(open[i * 2 + 1]) }))
        .filter((entry) => entry.user === userId);
      return {
        balance: Number(balance ?? 0),
        open: {
          reservations: openReservations.length,
          credits: openReservations.reduce((sum, entry) => sum + entry.cost, 0),
        },
        autoRefunded: {
          reservations: Number(totals.count ?? 0),
          credits: Number(totals.credits ?? 0),
          recent: recent.map((line) => {
            const [at, reservationId, cost] = line.split(' ');
            return {
              at: new Date(Number(at)).toISOString(),
              reservationId: reservationId ?? '',
              cost: Number(cost),
            };
          }),
        },
      };
    });
  }
}
