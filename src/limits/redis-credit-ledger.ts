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
 */
import type { Redis } from 'ioredis';
import type { CreditLedger, ReserveResult } from './credit-ledger.js';
import { LimitsStoreUnavailable, storeCall } from './store-unavailable.js';

// KEYS: balance, reservation; ARGV: cost, ttl seconds
// -> {1, balance after} debited | {2, balance} already reserved | {0, balance} short | {-1, balance} cancelled
const reserveScript = `
local state = redis.call('HGET', KEYS[2], 'state')
local balance = tonumber(redis.call('GET', KEYS[1]) or '0')
if state == 'cancelled' then return {-1, balance} end
if state then return {2, balance} end
local cost = tonumber(ARGV[1])
if balance < cost then return {0, balance} end
local after = redis.call('DECRBY', KEYS[1], cost)
redis.call('HSET', KEYS[2], 'state', 'reserved', 'cost', cost, 'account', KEYS[1])
redis.call('EXPIRE', KEYS[2], ARGV[2])
return {1, after}
`;

// KEYS: reservation -> 1 committed now | 0 nothing to commit
const commitScript = `
if redis.call('HGET', KEYS[1], 'state') == 'reserved' then
  redis.call('HSET', KEYS[1], 'state', 'committed')
  return 1
end
return 0
`;

// KEYS: reservation; ARGV: ttl seconds -> {1, balance after} refunded now | {0, 0} nothing to refund
const refundScript = `
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
}

export class RedisCreditLedger implements CreditLedger {
  readonly mode = 'shared' as const;
  private readonly commands: LedgerCommands;

  constructor(
    private readonly redis: Redis,
    private readonly keyPrefix: string,
    private readonly reservationTtlSeconds: number,
  ) {
    // defineCommand sends EVALSHA and falls back to EVAL after a restart emptied the script cache
    redis.defineCommand('csCreditReserve', { numberOfKeys: 2, lua: reserveScript });
    redis.defineCommand('csCreditCommit', { numberOfKeys: 1, lua: commitScript });
    redis.defineCommand('csCreditRefund', { numberOfKeys: 1, lua: refundScript });
    redis.defineCommand('csCreditGrant', { numberOfKeys: 1, lua: grantScript });
    this.commands = redis as unknown as LedgerCommands;
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

  async reserve(userId: string, cost: number, requestId: string): Promise<ReserveResult> {
    const [status, balance] = (await storeCall('credit reserve', () =>
      this.commands.csCreditReserve(
        this.balanceKey(userId),
        this.reservationKey(requestId),
        cost,
        this.reservationTtlSeconds,
      ),
    )) as [number, number];
    if (status === -1)
      throw new LimitsStoreUnavailable(
        'credit reserve',
        new Error('reservation was cancelled after a timeout'),
      );
    return status === 0 ? { ok: false, balance } : { ok: true, balance };
  }

  async commit(requestId: string): Promise<void> {
    await storeCall('credit commit', () => this.commands.csCreditCommit(this.reservationKey(requestId)));
  }

  async refund(requestId: string): Promise<number | null> {
    const [refunded, balance] = (await storeCall('credit refund', () =>
      this.commands.csCreditRefund(this.reservationKey(requestId), this.reservationTtlSeconds),
    )) as [number, number];
    return refunded === 1 ? balance : null;
  }
}
