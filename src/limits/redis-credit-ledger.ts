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
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { admitInSteps } from './admission.js';
import type {
  AccountReport,
  Admission,
  AdmitRequest,
  CreditLedger,
  ReserveResult,
  SweepResult,
} from './credit-ledger.js';
import { type IdempotencyClaim, luaClaimRecord } from './idempotency-store.js';
import { type ChargeTag, encodeTag, entryFromFields, type TailEntry } from './ledger-entry.js';
import { luaCountRate, type RedisRateStep, rateDecision } from './rate-limiter.js';
import { luaNowMs, RedisClock } from './redis-clock.js';
import { LimitsStoreUnavailable, storeCall } from './store-unavailable.js';

/**
 * Lua (after `luaNowMs`): `reserveCredits(balance key, reservation key, open set, cost, ttl
 * seconds, give-up time (Redis ms), orphan after (ms), user id, tag)` ->
 * 1, balance after: debited | 2, balance: already reserved | 0, balance: short
 * | -1, balance: cancelled, or run after the API stopped waiting for it (debits nothing)
 */
const luaReserveCredits = `
local function reserveCredits(balanceKey, reservationKey, openKey, cost, ttl, giveUpAt, orphanAfter, user, tag)
  local state = redis.call('HGET', reservationKey, 'state')
  local balance = tonumber(redis.call('GET', balanceKey) or '0')
  if state == 'cancelled' then return -1, balance end
  if state then return 2, balance end
  if now > giveUpAt then return -1, balance end
  if balance < cost then return 0, balance end
  local after = redis.call('DECRBY', balanceKey, cost)
  redis.call('HSET', reservationKey, 'state', 'reserved', 'cost', cost, 'account', balanceKey, 'user', user, 'at', now, 'tag', tag)
  redis.call('EXPIRE', reservationKey, ttl)
  redis.call('ZADD', openKey, now + orphanAfter, reservationKey)
  return 1, after
end`;

// KEYS: balance, reservation, open set; ARGV: cost, ttl seconds, give-up time (Redis ms),
// orphan after (ms), user id, tag -> {status, balance} as reserveCredits answers
const reserveScript = `
${luaNowMs}
${luaReserveCredits}
local status, balance = reserveCredits(KEYS[1], KEYS[2], KEYS[3], tonumber(ARGV[1]), ARGV[2],
  tonumber(ARGV[3]), tonumber(ARGV[4]), ARGV[5], ARGV[6])
return {status, balance}
`;

/**
 * The admission of a charged request in one round trip (src/limits/admission.ts): the rate
 * count, the Idempotency-Key claim, the reservation, each with the code of its own script, so
 * each step does exactly what it does alone; a step runs only if the one before let the
 * request through. An empty key skips its step.
 *
 * KEYS: rate counter, idempotency record, balance, reservation, open set
 * ARGV: give-up time (Redis ms), arrival (Redis ms), rate points, window seconds,
 *       fingerprint, owner (request id), pending ttl, cost, reservation ttl, orphan after
 *       (ms), user id, read the balance (1) when the cost is 0, tag
 * -> {'late'} | {'rate', consumed, ms left} | {'claim', consumed, ms left, kind, response, 0, balance}
 *    | {'reserve', consumed, ms left, '', '', status, balance} | {'balance', consumed, ms left, '', '', 0, balance}
 */
const admitScript = `
${luaNowMs}
${luaCountRate}
${luaClaimRecord}
${luaReserveCredits}
local giveUpAt = tonumber(ARGV[1])
if now > giveUpAt then return {'late'} end
local consumed, ttl = 0, 0
if KEYS[1] ~= '' then
  consumed, ttl = countRate(KEYS[1], 1, tonumber(ARGV[4]), tonumber(ARGV[2]))
  if consumed > tonumber(ARGV[3]) then return {'rate', consumed, ttl} end
end
if KEYS[2] ~= '' then
  local kind, response = claimRecord(KEYS[2], ARGV[5], ARGV[6], ARGV[7], giveUpAt)
  if kind ~= 'claimed' then
    local balance = 0
    if kind == 'replay' then balance = tonumber(redis.call('GET', KEYS[3]) or '0') end
    return {'claim', consumed, ttl, kind, response or '', 0, balance}
  end
end
local cost = tonumber(ARGV[8])
if cost > 0 then
  local status, balance = reserveCredits(KEYS[3], KEYS[4], KEYS[5], cost, ARGV[9], giveUpAt,
    tonumber(ARGV[10]), ARGV[11], ARGV[13])
  return {'reserve', consumed, ttl, '', '', status, balance}
end
local balance = 0
if ARGV[12] == '1' then balance = tonumber(redis.call('GET', KEYS[3]) or '0') end
return {'balance', consumed, ttl, '', '', 0, balance}
`;

/**
 * Lua (after `luaNowMs`): `writeCharge(ledger stream, reservation id, credits, rows or '',
 * user, tag, reserved or nil)` (`reserved`: a settlement's reservation before its final price): the charge's ledger entry (./ledger-entry.ts), in the step that makes
 * the reservation final, so a charge is on the ledger exactly when its debit is final.
 */
const luaWriteCharge = `
local function writeCharge(streamKey, id, credits, rows, user, tag, reserved)
  redis.call('XADD', streamKey, '*', 'id', 'charge:' .. id, 'kind', 'charge', 'user', user or '',
    'credits', 0 - credits, 'at', now, 'tag', tag or '', 'rows', rows, 'reserved', reserved or '')
end`;

// KEYS: reservation, open set, ledger stream; ARGV: reservation id -> 1 committed now | 0 nothing to commit
const commitScript = `
${luaNowMs}
${luaWriteCharge}
redis.call('ZREM', KEYS[2], KEYS[1])
local r = redis.call('HMGET', KEYS[1], 'state', 'cost', 'user', 'tag')
if r[1] == 'reserved' then
  redis.call('HSET', KEYS[1], 'state', 'committed')
  writeCharge(KEYS[3], ARGV[1], tonumber(r[2]), '', r[3], r[4])
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

// KEYS: reservation, open set, ledger stream; ARGV: final cost, reservation id, rows or ''
// -> {1, balance after} settled now | {0, 0} not open
const settleScript = `
${luaNowMs}
${luaWriteCharge}
redis.call('ZREM', KEYS[2], KEYS[1])
local r = redis.call('HMGET', KEYS[1], 'state', 'cost', 'account', 'user', 'tag')
if r[1] ~= 'reserved' then return {0, 0} end
local final = math.min(tonumber(ARGV[1]), tonumber(r[2]))
local after = redis.call('INCRBY', r[3], tonumber(r[2]) - final)
redis.call('HSET', KEYS[1], 'state', 'committed', 'cost', final)
writeCharge(KEYS[3], ARGV[2], final, ARGV[3], r[4], r[5], r[2])
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

// KEYS: balance, ledger stream; ARGV: amount, entry id, user id
// -> {1, balance after} | {0, balance} would go below 0
const grantScript = `
${luaNowMs}
local balance = tonumber(redis.call('GET', KEYS[1]) or '0')
local amount = tonumber(ARGV[1])
if balance + amount < 0 then return {0, balance} end
local after = redis.call('INCRBY', KEYS[1], amount)
redis.call('XADD', KEYS[2], '*', 'id', ARGV[2], 'kind', 'grant', 'user', ARGV[3], 'credits', amount, 'at', now)
return {1, after}
`;

/**
 * Lua: the credits of a user's open reservations (`HMGET user, cost` of each in the open set).
 */
const luaOpenCredits = `
local function openCredits(openKey, user)
  local total = 0
  for _, key in ipairs(redis.call('ZRANGE', openKey, 0, -1)) do
    local r = redis.call('HMGET', key, 'user', 'cost', 'state')
    if r[1] == user and r[3] == 'reserved' then total = total + tonumber(r[2]) end
  end
  return total
end`;

// KEYS: balance, open set, ledger stream; ARGV: user id, ledger sum
// -> {1, before, after} | {0} entries wait in the tail
const restoreScript = `
${luaOpenCredits}
if redis.call('XLEN', KEYS[3]) > 0 then return {0} end
local before = tonumber(redis.call('GET', KEYS[1]) or '0')
local after = tonumber(ARGV[2]) - openCredits(KEYS[2], ARGV[1])
redis.call('SET', KEYS[1], after)
return {1, before, after}
`;

// KEYS: balance, open set, ledger stream, opened marker; ARGV: user id, ledger sum
// -> {1, credits} written (0: nothing to write) | {0} opened before | {-1} entries wait in the tail
const openScript = `
${luaNowMs}
${luaOpenCredits}
if redis.call('XLEN', KEYS[3]) > 0 then return {-1} end
if redis.call('SET', KEYS[4], now, 'NX') == false then return {0} end
local credits = tonumber(redis.call('GET', KEYS[1]) or '0') + openCredits(KEYS[2], ARGV[1]) - tonumber(ARGV[2])
if credits ~= 0 then
  redis.call('XADD', KEYS[3], '*', 'id', 'opening:' .. ARGV[1], 'kind', 'opening', 'user', ARGV[1],
    'credits', credits, 'at', now)
end
return {1, credits}
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
  csCreditRestore: (...keysAndArgs: Array<string | number>) => Promise<number[]>;
  csCreditOpen: (...keysAndArgs: Array<string | number>) => Promise<number[]>;
  csCreditAdmit: (...keysAndArgs: Array<string | number>) => Promise<AdmitReply>;
}

type AdmitReply =
  | ['late']
  | ['rate', number, number]
  | ['claim' | 'reserve' | 'balance', number, number, string, string, number, number];

/** How long a grant waits for its replicas (REDIS_WAIT_REPLICAS): under the command timeout (2 s). */
const replicaWaitMs = 1500;

/**
 * A grant made on the primary that fewer replicas than REDIS_WAIT_REPLICAS acknowledged in
 * time: it stands (do not grant again), but a failover before they catch up would lose it.
 */
export class GrantNotReplicated extends Error {
  constructor(
    readonly balance: number,
    readonly acked: number,
    readonly wanted: number,
  ) {
    super(
      `granted on the Redis primary (balance ${balance}), but ${acked} of ${wanted} replicas acknowledged it within ${replicaWaitMs / 1000} s: do not grant again; check with \`npm run keys -- credits <user>\` once the replicas answer`,
    );
    this.name = 'GrantNotReplicated';
  }
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
    /** Replicas that must have a grant before it is acknowledged (REDIS_WAIT_REPLICAS). */
    private readonly waitReplicas = 0,
  ) {
    // defineCommand sends EVALSHA and falls back to EVAL after a restart emptied the script cache
    redis.defineCommand('csCreditReserve', { numberOfKeys: 3, lua: reserveScript });
    redis.defineCommand('csCreditCommit', { numberOfKeys: 3, lua: commitScript });
    redis.defineCommand('csCreditRefund', { numberOfKeys: 2, lua: refundScript });
    redis.defineCommand('csCreditGrant', { numberOfKeys: 2, lua: grantScript });
    redis.defineCommand('csCreditSweep', { numberOfKeys: 1, lua: sweepScript });
    redis.defineCommand('csCreditSettle', { numberOfKeys: 3, lua: settleScript });
    redis.defineCommand('csCreditRestore', { numberOfKeys: 3, lua: restoreScript });
    redis.defineCommand('csCreditOpen', { numberOfKeys: 4, lua: openScript });
    redis.defineCommand('csCreditKeepOpen', { numberOfKeys: 2, lua: keepOpenScript });
    redis.defineCommand('csCreditAdmit', { numberOfKeys: 5, lua: admitScript });
    this.commands = redis as unknown as LedgerCommands;
    this.clock = new RedisClock(redis);
  }

  private get openKey(): string {
    return `${this.keyPrefix}credits:open`;
  }

  /** The ledger's tail: entries not yet filed in the engine (./ledger-filing.ts). */
  private get streamKey(): string {
    return `${this.keyPrefix}credits:ledger`;
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
      this.commands.csCreditGrant(
        this.balanceKey(userId),
        this.streamKey,
        amount,
        `grant:${randomUUID()}`,
        userId,
      ),
    )) as [number, number];
    if (ok !== 1) throw new RangeError(`cannot take ${-amount} credits: the balance is ${balance}`);
    await this.replicated('credit grant', balance);
    return balance;
  }

  /**
   * Waits until `waitReplicas` replicas have every write of this connection so far (WAIT);
   * fewer within 1.5 s: GrantNotReplicated, which says the grant is made on the primary only.
   */
  private async replicated(operation: string, balance: number): Promise<void> {
    if (this.waitReplicas <= 0) return;
    const acked = Number(
      await storeCall(operation, () => this.redis.call('WAIT', this.waitReplicas, replicaWaitMs)),
    );
    if (acked < this.waitReplicas) throw new GrantNotReplicated(balance, acked, this.waitReplicas);
  }

  async reserve(
    userId: string,
    cost: number,
    requestId: string,
    giveUpAt = Date.now() + defaultGiveUpMs,
    tag?: ChargeTag,
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
        encodeTag(tag),
      ),
    )) as [number, number];
    if (status === -1)
      throw new LimitsStoreUnavailable(
        'credit reserve',
        new Error('reservation was cancelled, or ran after the API stopped waiting for it'),
      );
    return status === 0 ? { ok: false, balance } : { ok: true, balance };
  }

  /**
   * One round trip when every step asked for counts or claims in this Redis (the Redis rate
   * limiter and idempotency store); otherwise the steps one by one.
   */
  async admit(request: AdmitRequest): Promise<Admission> {
    const rate = request.rate?.limiter.redisStep;
    const claim = request.claim?.store.redisClaim;
    if ((request.rate && !rate) || (request.claim && !claim)) return admitInSteps(this, request);
    const { userId, requestId } = request;
    const reply = await storeCall('admission', () =>
      this.commands.csCreditAdmit(
        rate ? rate.key(userId) : '',
        claim && request.claim ? claim.recordKey(userId, request.claim.key) : '',
        this.balanceKey(userId),
        this.reservationKey(requestId),
        this.openKey,
        this.clock.toRedisMs(request.giveUpAt ?? Date.now() + defaultGiveUpMs),
        this.clock.toRedisMs(request.rate?.arrivedAt ?? Date.now()),
        rate?.points ?? 0,
        rate?.windowSeconds ?? 1,
        request.claim?.fingerprint ?? '',
        requestId,
        claim?.pendingSeconds ?? 0,
        request.cost,
        this.reservationTtlSeconds,
        this.orphanAfterMs,
        userId,
        request.readBalance ? 1 : 0,
        encodeTag(request.tag),
      ),
    );
    return readAdmission(reply, rate, request);
  }

  async commit(requestId: string): Promise<void> {
    await storeCall('credit commit', () =>
      this.commands.csCreditCommit(this.reservationKey(requestId), this.openKey, this.streamKey, requestId),
    );
  }

  async refund(requestId: string): Promise<number | null> {
    const [refunded, balance] = (await storeCall('credit refund', () =>
      this.commands.csCreditRefund(this.reservationKey(requestId), this.openKey, this.reservationTtlSeconds),
    )) as [number, number];
    return refunded === 1 ? balance : null;
  }

  async settle(requestId: string, finalCost: number, rows?: number): Promise<number | null> {
    const [settled, balance] = (await storeCall('credit settle', () =>
      this.commands.csCreditSettle(
        this.reservationKey(requestId),
        this.openKey,
        this.streamKey,
        finalCost,
        requestId,
        rows ?? '',
      ),
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

  async tail(limit: number): Promise<TailEntry[]> {
    const rows = (await storeCall('ledger tail', () =>
      this.redis.xrange(this.streamKey, '-', '+', 'COUNT', limit),
    )) as Array<[string, string[]]>;
    return rows.map(([tailId, fields]) => ({ tailId, entry: entryFromFields(fields) }));
  }

  async dropTail(tailIds: string[]): Promise<void> {
    if (tailIds.length === 0) return;
    await storeCall('ledger tail', () => this.redis.xdel(this.streamKey, ...tailIds));
  }

  tailLength(): Promise<number> {
    return storeCall('ledger tail', () => this.redis.xlen(this.streamKey));
  }

  async users(): Promise<string[]> {
    const prefix = this.balanceKey('');
    const users: string[] = [];
    await storeCall('credit users', async () => {
      let cursor = '0';
      do {
        const [next, keys] = await this.redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
        for (const key of keys) users.push(key.slice(prefix.length));
        cursor = next;
      } while (cursor !== '0');
    });
    return [...new Set(users)].sort();
  }

  async restoreBalance(
    userId: string,
    ledgerSum: number,
  ): Promise<{ before: number; after: number } | 'tail'> {
    const [done, before, after] = await storeCall('credit restore', () =>
      this.commands.csCreditRestore(this.balanceKey(userId), this.openKey, this.streamKey, userId, ledgerSum),
    );
    return done === 1 ? { before: before as number, after: after as number } : 'tail';
  }

  async open(userId: string, ledgerSum: number): Promise<number | null | 'tail'> {
    const [done, credits] = await storeCall('credit open', () =>
      this.commands.csCreditOpen(
        this.balanceKey(userId),
        this.openKey,
        this.streamKey,
        `${this.keyPrefix}credits:opened:${userId}`,
        userId,
        ledgerSum,
      ),
    );
    if (done === -1) return 'tail';
    if (done !== 1) return null;
    await this.replicated('credit open', credits as number);
    return credits as number;
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

/** The admission script's answer as the steps one by one would have given it. */
function readAdmission(reply: AdmitReply, rate: RedisRateStep | undefined, request: AdmitRequest): Admission {
  if (reply[0] === 'late') throw new LimitsStoreUnavailable('admission', new Error('ran after its expiry'));
  const admission: Admission = {};
  if (rate) admission.rate = rateDecision(rate.points, reply[1], reply[2]);
  if (reply[0] === 'rate') return admission;
  const [outcome, , , kind, response, status, balance] = reply;
  if (outcome === 'claim') {
    admission.claim =
      kind === 'replay' ? { kind, response: JSON.parse(response || 'null') } : ({ kind } as IdempotencyClaim);
    if (kind === 'replay') admission.balance = balance;
    return admission;
  }
  if (request.claim) admission.claim = { kind: 'claimed' };
  if (outcome === 'balance') {
    if (request.readBalance) admission.balance = balance;
    return admission;
  }
  if (status === -1)
    throw new LimitsStoreUnavailable(
      'credit reserve',
      new Error('reservation was cancelled, or ran after the API stopped waiting for it'),
    );
  admission.reserve = { ok: status !== 0, balance };
  return admission;
}
