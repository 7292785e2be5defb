/**
 * Idempotency-Key records (one per user and key). The first request with a key claims it
 * (`pending`); when it succeeds its response is stored (`done`) and replayed to later
 * requests with the same key and the same body; a different body is a conflict; a twin that
 * arrives while the first is still running is told to retry (IETF draft
 * "The Idempotency-Key HTTP Header Field": 409 while in flight, 422 on a body mismatch).
 * A failed first request releases the key, so a retry runs (and is charged) afresh.
 *
 * Redis: one hash per key, every step one Lua script, so concurrent twins see one winner.
 * Single-process: a Map with expiry times (this process only).
 */
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { luaNowMs, RedisClock } from './redis-clock.js';
import { LimitsStoreUnavailable, storeCall } from './store-unavailable.js';

export interface StoredResponse {
  status: number;
  body: unknown;
}

export type IdempotencyClaim =
  | { kind: 'claimed' }
  | { kind: 'conflict' }
  | { kind: 'in-progress' }
  | { kind: 'replay'; response: StoredResponse };

export interface IdempotencyStore {
  /**
   * Claims `key` for `owner` (the request id) unless it is known already. `giveUpAt` (epoch
   * ms): when the caller stops waiting; a claim the store only gets to after it claims nothing.
   */
  claim(
    userId: string,
    key: string,
    fingerprint: string,
    owner: string,
    giveUpAt?: number,
  ): Promise<IdempotencyClaim>;
  /** Stores the owner's successful response for replay. */
  complete(userId: string, key: string, owner: string, response: StoredResponse): Promise<void>;
  /** Releases the owner's claim after a failure. */
  release(userId: string, key: string, owner: string): Promise<void>;
  /** Redis mode: the record a script claims in (`claimRecord` above) and its pending ttl. */
  readonly redisClaim?: RedisClaimStep;
}

export interface RedisClaimStep {
  recordKey(userId: string, key: string): string;
  pendingSeconds: number;
}

export interface IdempotencyTtls {
  /** How long a stored response is replayed. */
  doneSeconds: number;
  /** How long a claim lives if its process dies before completing or releasing it. */
  pendingSeconds: number;
}

/** The Redis key part for a caller's Idempotency-Key (hashed: callers choose its bytes). */
function keyDigest(key: string): string {
  return createHash('sha256').update(key).digest('base64url');
}

/**
 * Lua (after `luaNowMs`): `claimRecord(key, fingerprint, owner, pending ttl, give-up time)` ->
 * 'claimed' | 'conflict' | 'in-progress' | 'replay', response json | 'late'. A claim run after
 * the API stopped waiting for it claims nothing: it would block the caller's retry with 409s
 * for the pending ttl. Shared with the admission script of src/limits/redis-credit-ledger.ts.
 */
export const luaClaimRecord = `
local function claimRecord(key, fingerprint, owner, pendingTtl, giveUpAt)
  local r = redis.call('HMGET', key, 'fingerprint', 'state', 'response')
  if not r[1] then
    if now > giveUpAt then return 'late' end
    redis.call('HSET', key, 'fingerprint', fingerprint, 'state', 'pending', 'owner', owner)
    redis.call('EXPIRE', key, pendingTtl)
    return 'claimed'
  end
  if r[1] ~= fingerprint then return 'conflict' end
  if r[2] == 'done' then return 'replay', r[3] end
  return 'in-progress'
end`;

// KEYS: record; ARGV: fingerprint, owner, pending ttl, give-up time (Redis ms)
const claimScript = `
${luaNowMs}
${luaClaimRecord}
local kind, response = claimRecord(KEYS[1], ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4]))
return {kind, response}
`;

// KEYS: record; ARGV: owner, response json, done ttl
const completeScript = `
if redis.call('HGET', KEYS[1], 'owner') == ARGV[1] then
  redis.call('HSET', KEYS[1], 'state', 'done', 'response', ARGV[2])
  redis.call('EXPIRE', KEYS[1], ARGV[3])
  return 1
end
return 0
`;

// KEYS: record; ARGV: owner
const releaseScript = `
if redis.call('HGET', KEYS[1], 'owner') == ARGV[1] and redis.call('HGET', KEYS[1], 'state') == 'pending' then
  return redis.call('DEL', KEYS[1])
end
return 0
`;

type Script = (...keysAndArgs: Array<string | number>) => Promise<unknown>;

export class RedisIdempotencyStore implements IdempotencyStore {
  private readonly commands: Record<'csIdemClaim' | 'csIdemComplete' | 'csIdemRelease', Script>;
  private readonly clock: RedisClock;
  readonly redisClaim: RedisClaimStep;

  constructor(
    redis: Redis,
    private readonly keyPrefix: string,
    private readonly ttls: IdempotencyTtls,
  ) {
    redis.defineCommand('csIdemClaim', { numberOfKeys: 1, lua: claimScript });
    redis.defineCommand('csIdemComplete', { numberOfKeys: 1, lua: completeScript });
    redis.defineCommand('csIdemRelease', { numberOfKeys: 1, lua: releaseScript });
    this.commands = redis as unknown as typeof this.commands;
    this.clock = new RedisClock(redis);
    this.redisClaim = {
      recordKey: (userId, key) => this.recordKey(userId, key),
      pendingSeconds: ttls.pendingSeconds,
    };
  }

  private recordKey(userId: string, key: string): string {
    return `${this.keyPrefix}idempotency:${userId}:${keyDigest(key)}`;
  }

  async claim(
    userId: string,
    key: string,
    fingerprint: string,
    owner: string,
    giveUpAt = Date.now() + 2000,
  ): Promise<IdempotencyClaim> {
    const [kind, response] = (await storeCall('idempotency claim', () =>
      this.commands.csIdemClaim(
        this.recordKey(userId, key),
        fingerprint,
        owner,
        this.ttls.pendingSeconds,
        this.clock.toRedisMs(giveUpAt),
      ),
    )) as [IdempotencyClaim['kind'] | 'late', string | undefined];
    if (kind === 'late')
      throw new LimitsStoreUnavailable('idempotency claim', new Error('ran after its expiry'));
    if (kind === 'replay') return { kind, response: JSON.parse(response ?? 'null') as StoredResponse };
    return { kind } as IdempotencyClaim;
  }

  async complete(userId: string, key: string, owner: string, response: StoredResponse): Promise<void> {
    await storeCall('idempotency complete', () =>
      this.commands.csIdemComplete(
        this.recordKey(userId, key),
        owner,
        JSON.stringify(response),
        this.ttls.doneSeconds,
      ),
    );
  }

  async release(userId: string, key: string, owner: string): Promise<void> {
    await storeCall('idempotency release', () =>
      this.commands.csIdemRelease(this.recordKey(userId, key), owner),
    );
  }
}

interface LocalRecord {
  fingerprint: string;
  owner: string;
  response?: StoredResponse;
  expiresAt: number;
}

/** SINGLE-PROCESS ONLY: Idempotency-Key records in this process's memory. */
export class LocalIdempotencyStore implements IdempotencyStore {
  private readonly records = new Map<string, LocalRecord>();

  constructor(private readonly ttls: IdempotencyTtls) {}

  private live(id: string): LocalRecord | undefined {
    const record = this.records.get(id);
    if (record && record.expiresAt <= Date.now()) {
      this.records.delete(id);
      return undefined;
    }
    return record;
  }

  async claim(userId: string, key: string, fingerprint: string, owner: string): Promise<IdempotencyClaim> {
    const id = `${userId}:${keyDigest(key)}`;
    const record = this.live(id);
    if (!record) {
      this.records.set(id, { fingerprint, owner, expiresAt: Date.now() + this.ttls.pendingSeconds * 1000 });
      return { kind: 'claimed' };
    }
    if (record.fingerprint !== fingerprint) return { kind: 'conflict' };
    return record.response ? { kind: 'replay', response: record.response } : { kind: 'in-progress' };
  }

  async complete(userId: string, key: string, owner: string, response: StoredResponse): Promise<void> {
    const record = this.live(`${userId}:${keyDigest(key)}`);
    if (record?.owner !== owner) return;
    record.response = response;
    record.expiresAt = Date.now() + this.ttls.doneSeconds * 1000;
  }

  async release(userId: string, key: string, owner: string): Promise<void> {
    const id = `${userId}:${keyDigest(key)}`;
    const record = this.live(id);
    if (record?.owner === owner && !record.response) this.records.delete(id);
  }
}
