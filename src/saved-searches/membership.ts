/**
 * Which watched saved searches each company was last seen in, and the changes that follow
 * from a new sighting, in Redis (the saved searches' own store, ./store.ts):
 *
 *   <prefix>ss-in:<corporateNumber>      set of saved search ids the company is in
 *   <prefix>ss-members:<savedSearchId>   set of corporate numbers in the search
 *   <prefix>ss-watched:<savedSearchId>   hash corporate number -> its watched fields' values (JSON)
 *   <prefix>ss-changes:<savedSearchId>   stream of changes: type, corporateNumber, at, fields
 *   <prefix>ss-dirty                     set of saved search ids with webhooks and new changes
 *
 * `seen` compares a company's searches now (the percolator's answer, ./watch.ts) with the last
 * ones in one script, so two rebuilds of the same company at once never report a change twice:
 * a search it is in now and was not: `entered`; one it was in and is not: `left`; one it is in
 * both times whose watched values differ: `changed`, naming the fields. The stream entry ids
 * (`<milliseconds>-<sequence>`, given by Redis) are the cursors of `GET /saved-searches/{id}/changes`.
 * Entries older than `retentionDays` are trimmed as the streams are written.
 */
import type { Redis } from 'ioredis';
import { canonicalJson } from '../canonical-json.js';

export type ChangeType = 'entered' | 'left' | 'changed';

export interface Change {
  /** send it back as `cursor` to read the changes after this one */
  cursor: string;
  type: ChangeType;
  corporateNumber: string;
  at: string;
  /** `changed`: the watched fields whose values differ */
  fields?: string[];
}

/** One search a company is in now, with its watched fields' values (field -> JSON text). */
export interface Sighting {
  savedSearchId: string;
  values?: Record<string, string>;
}

/**
 * KEYS: none (the keys are named from ARGV[1], the prefix: one Redis, not a cluster).
 * ARGV: prefix, corporateNumber, at, oldest stream id to keep, then the sightings as JSON
 * ([{savedSearchId, values?}]). Returns the number of changes written.
 */
const seenScript = `
local prefix, company, at, minid = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local now = cjson.decode(ARGV[5])
local inKey = prefix .. 'ss-in:' .. company
local before = {}
for _, id in ipairs(redis.call('SMEMBERS', inKey)) do before[id] = true end
local written = 0
local function add(id, kind, fields)
  local args = {prefix .. 'ss-changes:' .. id, 'MINID', '~', minid, '*', 'type', kind, 'corporateNumber', company, 'at', at}
  if fields then table.insert(args, 'fields'); table.insert(args, fields) end
  redis.call('XADD', unpack(args))
  written = written + 1
  -- a search with webhooks is marked for the dispatcher (src/webhooks/dispatcher.ts)
  if redis.call('SCARD', prefix .. 'ss-webhooks:' .. id) > 0 then redis.call('SADD', prefix .. 'ss-dirty', id) end
end
local seenNow = {}
for _, sighting in ipairs(now) do
  local id = sighting.savedSearchId
  seenNow[id] = true
  local watchedKey = prefix .. 'ss-watched:' .. id
  local values = sighting['values']
  local text = nil
  if type(values) == 'table' then text = cjson.encode(values) end
  if not before[id] then
    redis.call('SADD', inKey, id)
    redis.call('SADD', prefix .. 'ss-members:' .. id, company)
    if text then redis.call('HSET', watchedKey, company, text) end
    add(id, 'entered', nil)
  elseif text then
    local old = redis.call('HGET', watchedKey, company)
    local changed = {}
    local oldValues = {}
    if old then oldValues = cjson.decode(old) end
    for field, value in pairs(values) do
      if oldValues[field] ~= value then table.insert(changed, field) end
    end
    if #changed > 0 then
      table.sort(changed)
      redis.call('HSET', watchedKey, company, text)
      add(id, 'changed', cjson.encode(changed))
    end
  end
end
for id, _ in pairs(before) do
  if not seenNow[id] then
    redis.call('SREM', inKey, id)
    redis.call('SREM', prefix .. 'ss-members:' .. id, company)
    redis.call('HDEL', prefix .. 'ss-watched:' .. id, company)
    add(id, 'left', nil)
  end
end
return written
`;

const dayMs = 24 * 60 * 60 * 1000;

export class Membership {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly retentionDays = 30,
  ) {}

  /** Records where each company is now; returns the number of changes written. */
  async seen(
    companies: ReadonlyArray<{ corporateNumber: string; sightings: Sighting[] }>,
    now: Date,
  ): Promise<number> {
    if (companies.length === 0) return 0;
    const minid = String(now.getTime() - this.retentionDays * dayMs);
    const pipeline = this.redis.pipeline();
    for (const { corporateNumber, sightings } of companies)
      pipeline.eval(
        seenScript,
        0,
        this.prefix,
        corporateNumber,
        now.toISOString(),
        minid,
        JSON.stringify(sightings),
      );
    let written = 0;
    for (const [error, count] of (await pipeline.exec()) ?? []) {
      if (error) throw error;
      written += Number(count);
    }
    return written;
  }

  /** The companies a search starts with (no change reported for them), with their watched values. */
  async start(
    savedSearchId: string,
    members: ReadonlyArray<{ corporateNumber: string; values?: Record<string, string> }>,
  ): Promise<void> {
    const pipeline = this.redis.pipeline();
    for (const { corporateNumber, values } of members) {
      pipeline.sadd(`${this.prefix}ss-in:${corporateNumber}`, savedSearchId);
      pipeline.sadd(`${this.prefix}ss-members:${savedSearchId}`, corporateNumber);
      if (values)
        pipeline.hset(`${this.prefix}ss-watched:${savedSearchId}`, corporateNumber, JSON.stringify(values));
    }
    const failed = ((await pipeline.exec()) ?? []).find(([error]) => error);
    if (failed) throw failed[0];
  }

  /** Forgets a search: its members, their sightings of it, its changes. */
  async forget(savedSearchId: string): Promise<void> {
    const membersKey = `${this.prefix}ss-members:${savedSearchId}`;
    const members = await this.redis.smembers(membersKey);
    const pipeline = this.redis.pipeline();
    for (const company of members) pipeline.srem(`${this.prefix}ss-in:${company}`, savedSearchId);
    pipeline.del(
      membersKey,
      `${this.prefix}ss-watched:${savedSearchId}`,
      `${this.prefix}ss-changes:${savedSearchId}`,
    );
    await pipeline.exec();
  }

  /**
   * Up to `limit` changes after `after` (a cursor), or from `since` (epoch ms) without one;
   * `nextCursor`: the last one's (the cursor sent, or null, when there were none).
   */
  async changes(
    savedSearchId: string,
    from: { after?: string; since?: number; limit: number },
  ): Promise<{ changes: Change[]; nextCursor: string | null }> {
    const start = from.after !== undefined ? `(${from.after}` : `${from.since ?? 0}-0`;
    const entries = await this.redis.xrange(
      `${this.prefix}ss-changes:${savedSearchId}`,
      start,
      '+',
      'COUNT',
      from.limit,
    );
    const changes = entries.map(([cursor, flat]): Change => {
      const values = new Map<string, string>();
      for (let i = 0; i + 1 < flat.length; i += 2) values.set(flat[i] as string, flat[i + 1] as string);
      const fields = values.get('fields');
      return {
        cursor,
        type: values.get('type') as ChangeType,
        corporateNumber: values.get('corporateNumber') ?? '',
        at: values.get('at') ?? '',
        ...(fields ? { fields: JSON.parse(fields) as string[] } : {}),
      };
    });
    return { changes, nextCursor: changes.at(-1)?.cursor ?? from.after ?? null };
  }
}

/** A stream entry id, as a cursor is spelled. */
export const cursorPattern = /^\d{1,15}-\d{1,15}$/;

/**
 * The watched fields' values of a record (field -> canonical JSON text). `hiringActivity` is
 * compared without its `asOf`: the day it was counted moves every night, its counts do not.
 */
export function watchedValues(
  record: Record<string, unknown>,
  fields: readonly string[],
): Record<string, string> {
  return Object.fromEntries(
    fields.map((field) => {
      const value = record[field] ?? null;
      if (field === 'hiringActivity' && value && typeof value === 'object') {
        const { asOf: _asOf, ...counts } = value as Record<string, unknown>;
        return [field, canonicalJson(counts)];
      }
      return [field, canonicalJson(value)];
    }),
  );
}
