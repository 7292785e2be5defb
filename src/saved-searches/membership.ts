/**
 * Which watched saved searches each company and each posting was last seen in, and the
 * changes that follow from a new sighting, in Redis (the saved searches' own store, ./store.ts):
 *
 *   <prefix>ss-in:<corporateNumber>      set of company search ids the company is in
 *   <prefix>ss-in-job:<jobId>            set of job search ids the posting is in
 *   <prefix>ss-members:<savedSearchId>   set of the search's members (corporate numbers or job ids)
 *   <prefix>ss-watched:<savedSearchId>   hash member -> its watched fields' values (JSON)
 *   <prefix>ss-changes:<savedSearchId>   stream of changes: type, corporateNumber, jobId (postings), at, fields
 *   <prefix>ss-digest                    hash corporate number -> digest of its last sightings
 *   <prefix>ss-company-jobs:<corporateNumber>  set of the company's postings in some job search
 *   <prefix>ss-job-seen:<corporateNumber>      hash job id -> the version of it last percolated
 *   <prefix>ss-job-owner                 hash job id -> the company it was last seen under
 *   <prefix>ss-dirty                     set of saved search ids with webhooks and new changes
 *
 * `seen` compares a company's searches now (the percolator's answer, ./watch.ts) with the last
 * ones in one script, so two rebuilds of the same company at once never report a change twice:
 * a search it is in now and was not: `entered`; one it was in and is not: `left`; one it is in
 * both times whose watched values differ: `changed`, naming the fields. `seenJobs` does the
 * same for every posting of a company, and a posting the company no longer has (deleted)
 * leaves the searches it was in. The stream entry ids
 * (`<milliseconds>-<sequence>`, given by Redis) are the cursors of `GET /saved-searches/{id}/changes`.
 * Entries older than `retentionDays` are trimmed as the streams are written.
 */
import { createHash } from 'node:crypto';
import type { ChainableCommander, Redis } from 'ioredis';
import { canonicalJson } from '../canonical-json.js';
import { QueryFields } from './query-fields.js';
import type { SavedSearchKind } from './store.js';

export type ChangeType = 'entered' | 'left' | 'changed';

export interface Change {
  /** send it back as `cursor` to read the changes after this one */
  cursor: string;
  type: ChangeType;
  /** job searches: the posting */
  jobId?: string;
  /** the company (of the posting, in a job search) */
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
 * The Lua both scripts share. `add` appends a change to a search's stream (`who`: the entry's
 * record fields, `corporateNumber` and for a posting `jobId`) and marks the search for the
 * webhook dispatcher when it has webhooks (src/webhooks/dispatcher.ts); `compare` records
 * where one record is now (`inKey`: the set of searches it is in; `member`: its id in the
 * searches' member sets and watched-value hashes) and returns how many searches it is in;
 * `leaveAll` takes a record that is gone out of every search it was in.
 */
const sharedLua = `
local prefix, at, minid = ARGV[1], ARGV[3], ARGV[4]
local written = 0
local valueTexts = {}
local decodedTexts = {}
local differences = {}
local function add(id, kind, who, fields)
  local args = {prefix .. 'ss-changes:' .. id, 'MINID', '~', minid, '*', 'type', kind}
  for _, value in ipairs(who) do table.insert(args, value) end
  table.insert(args, 'at'); table.insert(args, at)
  if fields then table.insert(args, 'fields'); table.insert(args, fields) end
  redis.call('XADD', unpack(args))
  written = written + 1
  if redis.call('SCARD', prefix .. 'ss-webhooks:' .. id) > 0 then redis.call('SADD', prefix .. 'ss-dirty', id) end
end
local function decoded(text)
  local values = decodedTexts[text]
  if values == nil then values = cjson.decode(text); decodedTexts[text] = values end
  return values
end
local function changedFields(old, k)
  local key = k .. ' ' .. (old or '')
  local found = differences[key]
  if found ~= nil then return found end
  local oldValues = {}
  if old then oldValues = decoded(old) end
  local changed = {}
  for field, value in pairs(decoded(valueTexts[k])) do
    if oldValues[field] ~= value then table.insert(changed, field) end
  end
  local result = ''
  if #changed > 0 then table.sort(changed); result = cjson.encode(changed) end
  differences[key] = result
  return result
end
local function compare(inKey, member, who, now)
  local before = {}
  for _, id in ipairs(redis.call('SMEMBERS', inKey)) do before[id] = true end
  local seenNow = {}
  local count = 0
  for _, sighting in ipairs(now) do
    local id = sighting[1]
    local k = sighting[2]
    seenNow[id] = true
    count = count + 1
    local watchedKey = prefix .. 'ss-watched:' .. id
    local text = nil
    if k > 0 then text = valueTexts[k] end
    if not before[id] then
      redis.call('SADD', inKey, id)
      redis.call('SADD', prefix .. 'ss-members:' .. id, member)
      if text then redis.call('HSET', watchedKey, member, text) end
      add(id, 'entered', who, nil)
    elseif text then
      local changed = changedFields(redis.call('HGET', watchedKey, member), k)
      if changed ~= '' then
        redis.call('HSET', watchedKey, member, text)
        add(id, 'changed', who, changed)
      end
    end
  end
  for id, _ in pairs(before) do
    if not seenNow[id] then
      redis.call('SREM', inKey, id)
      redis.call('SREM', prefix .. 'ss-members:' .. id, member)
      redis.call('HDEL', prefix .. 'ss-watched:' .. id, member)
      add(id, 'left', who, nil)
    end
  end
  return count
end
local function leaveAll(inKey, member, who)
  compare(inKey, member, who, {})
  redis.call('DEL', inKey)
end
`;

/**
 * A company. KEYS: none (the keys are named from ARGV[1], the prefix: one Redis, not a
 * cluster). ARGV: prefix, corporateNumber, at, oldest stream id to keep, the sightings as JSON
 * in their compact form (`compactSightings`: `{v, s}`), then their digest (kept in `ss-digest`,
 * so the next rebuild that finds the same sightings skips the script). Returns the number of
 * changes written.
 */
const seenScript = `${sharedLua}
local company = ARGV[2]
local input = cjson.decode(ARGV[5])
valueTexts = input.v
compare(prefix .. 'ss-in:' .. company, company, {'corporateNumber', company}, input.s)
if #input.s > 0 then redis.call('HSET', prefix .. 'ss-digest', company, ARGV[6])
else redis.call('HDEL', prefix .. 'ss-digest', company) end
return written
`;

/**
 * The postings of one company. ARGV as `seenScript`'s, the fifth `{present, v, jobs}`: every
 * posting id the company has now, the watched values' texts of all its sightings, and the
 * postings percolated this time (changed since the version last percolated,
 * `ss-job-seen:<corporateNumber>`) with their version and compact sightings
 * ([{jobId, version, s: [[savedSearchId, k], ...]}]). A posting the company had and
 * no longer has is gone (deleted, or now another company's): it leaves every search it was in,
 * unless another company's rebuild has claimed it since (`ss-job-owner`), whose sighting stands.
 */
const seenJobsScript = `${sharedLua}
local company = ARGV[2]
local input = cjson.decode(ARGV[5])
valueTexts = input.v
local companyJobs = prefix .. 'ss-company-jobs:' .. company
local versions = prefix .. 'ss-job-seen:' .. company
local owners = prefix .. 'ss-job-owner'
local present = {}
for _, id in ipairs(input.present) do present[id] = true end
for _, job in ipairs(input.jobs) do
  local id = job.jobId
  local count = compare(prefix .. 'ss-in-job:' .. id, id, {'jobId', id, 'corporateNumber', company}, job.s)
  redis.call('HSET', versions, id, job.version)
  if count > 0 then
    redis.call('SADD', companyJobs, id)
    redis.call('HSET', owners, id, company)
  elseif redis.call('SREM', companyJobs, id) > 0 and redis.call('HGET', owners, id) == company then
    redis.call('HDEL', owners, id)
  end
end
for _, id in ipairs(redis.call('SMEMBERS', companyJobs)) do
  if not present[id] then
    redis.call('SREM', companyJobs, id)
    if redis.call('HGET', owners, id) == company then
      leaveAll(prefix .. 'ss-in-job:' .. id, id, {'jobId', id, 'corporateNumber', company})
      redis.call('HDEL', owners, id)
    end
  end
end
for _, id in ipairs(redis.call('HKEYS', versions)) do
  if not present[id] then redis.call('HDEL', versions, id) end
end
return written
`;

const dayMs = 24 * 60 * 60 * 1000;

export class Membership {
  /** The fields the watched queries read (./query-fields.ts), in the same Redis. */
  readonly queryFields: QueryFields;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly retentionDays = 30,
  ) {
    this.queryFields = new QueryFields(redis, prefix);
  }

  /**
   * Records where each company is now; returns the number of changes written. A company in
   * some search whose sightings are those last recorded (their digest, `ss-digest`) is
   * skipped: nothing changed.
   */
  async seen(
    companies: ReadonlyArray<{ corporateNumber: string; sightings: Sighting[] }>,
    now: Date,
  ): Promise<number> {
    if (companies.length === 0) return 0;
    const inputs = companies.map(({ sightings }) => {
      const texts = new ValueTexts();
      const compact = compactSightings(sightings, texts);
      return JSON.stringify({ v: texts.texts, s: compact });
    });
    const digests = inputs.map(digestOf);
    const stored = await this.redis.hmget(
      `${this.prefix}ss-digest`,
      ...companies.map((company) => company.corporateNumber),
    );
    // no digest (never recorded, in no search since, or a starting member: ./start-watch.ts):
    // the script runs, since only it knows which searches the company is in
    const changed = companies.flatMap(({ corporateNumber }, i) =>
      stored[i] === digests[i]
        ? []
        : [[corporateNumber, inputs[i] as string, digests[i]] as [string, string, string]],
    );
    return this.run(seenScript, changed, now);
  }

  /** The version of each posting last percolated, per company (../indexer/sightings.ts). */
  async jobVersions(corporateNumbers: readonly string[]): Promise<Map<string, Map<string, string>>> {
    const pipeline = this.redis.pipeline();
    for (const company of corporateNumbers) pipeline.hgetall(`${this.prefix}ss-job-seen:${company}`);
    const answers = (await pipeline.exec()) ?? [];
    return new Map(
      corporateNumbers.map((company, i) => {
        const [error, versions] = answers[i] ?? [];
        if (error) throw error;
        return [company, new Map(Object.entries((versions ?? {}) as Record<string, string>))];
      }),
    );
  }

  /**
   * Records where the postings of each company are now: `present`, every posting it has (one
   * it had and is not among them has gone); `jobs`, those percolated now (their version read
   * with the document they were percolated as) with their sightings.
   */
  seenJobs(
    companies: ReadonlyArray<{
      corporateNumber: string;
      present: readonly string[];
      jobs: ReadonlyArray<{ jobId: string; version: string; sightings: Sighting[] }>;
    }>,
    now: Date,
  ): Promise<number> {
    return this.run(
      seenJobsScript,
      companies.map(({ corporateNumber, present, jobs }) => {
        const texts = new ValueTexts();
        const compact = jobs.map(({ jobId, version, sightings }) => ({
          jobId,
          version,
          s: compactSightings(sightings, texts),
        }));
        return [corporateNumber, JSON.stringify({ present, v: texts.texts, jobs: compact })];
      }),
      now,
    );
  }

  private async run(
    script: string,
    /** corporate number, the script's input as JSON text, the digest (`seen` only) */
    companies: ReadonlyArray<readonly [string, string, string?]>,
    now: Date,
  ): Promise<number> {
    if (companies.length === 0) return 0;
    const minid = String(now.getTime() - this.retentionDays * dayMs);
    const pipeline = this.redis.pipeline();
    for (const [corporateNumber, input, digest] of companies)
      pipeline.eval(script, 0, this.prefix, corporateNumber, now.toISOString(), minid, input, digest ?? '');
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
      this.addMember(pipeline, savedSearchId, corporateNumber, values);
    }
    await execAll(pipeline);
  }

  /** The postings a job search starts with (no change reported for them), as `start`. */
  async startJobs(
    savedSearchId: string,
    members: ReadonlyArray<{ jobId: string; corporateNumber: string; values?: Record<string, string> }>,
  ): Promise<void> {
    const pipeline = this.redis.pipeline();
    for (const { jobId, corporateNumber, values } of members) {
      pipeline.sadd(`${this.prefix}ss-in-job:${jobId}`, savedSearchId);
      pipeline.sadd(`${this.prefix}ss-company-jobs:${corporateNumber}`, jobId);
      pipeline.hset(`${this.prefix}ss-job-owner`, jobId, corporateNumber);
      // known to the company's postings (so its deletion is found), percolated at its next rebuild
      pipeline.hsetnx(`${this.prefix}ss-job-seen:${corporateNumber}`, jobId, '');
      this.addMember(pipeline, savedSearchId, jobId, values);
    }
    await execAll(pipeline);
  }

  private addMember(
    pipeline: ChainableCommander,
    savedSearchId: string,
    member: string,
    values: Record<string, string> | undefined,
  ): void {
    pipeline.sadd(`${this.prefix}ss-members:${savedSearchId}`, member);
    if (values) pipeline.hset(`${this.prefix}ss-watched:${savedSearchId}`, member, JSON.stringify(values));
  }

  /**
   * Forgets a search: its members, their sightings of it, its changes. (A posting's entries in
   * `ss-company-jobs` and `ss-job-owner` go at its company's next rebuild, which finds it in no search.)
   */
  async forget(savedSearchId: string, kind: SavedSearchKind = 'corporates'): Promise<void> {
    const membersKey = `${this.prefix}ss-members:${savedSearchId}`;
    const members = await this.redis.smembers(membersKey);
    const inKey = kind === 'jobs' ? 'ss-in-job:' : 'ss-in:';
    const pipeline = this.redis.pipeline();
    for (const member of members) pipeline.srem(`${this.prefix}${inKey}${member}`, savedSearchId);
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
      const jobId = values.get('jobId');
      return {
        cursor,
        type: values.get('type') as ChangeType,
        ...(jobId ? { jobId } : {}),
        corporateNumber: values.get('corporateNumber') ?? '',
        at: values.get('at') ?? '',
        ...(fields ? { fields: JSON.parse(fields) as string[] } : {}),
      };
    });
    return { changes, nextCursor: changes.at(-1)?.cursor ?? from.after ?? null };
  }
}

/** The digest of a company's sightings: of their compact text, the same for the same sightings. */
function digestOf(compactText: string): string {
  return createHash('sha1').update(compactText).digest('base64');
}

/**
 * The distinct watched values of one script call, each as the JSON text the scripts store
 * (`ss-watched`), numbered from 1 in order of first use. A company is in hundreds of searches
 * watching the same fields: its values are sent, stored as, and compared from one text, not one
 * per search (the rebuild hands the same values object to every search watching the same fields:
 * ../../indexer/sightings.ts).
 */
class ValueTexts {
  readonly texts: string[] = [];
  private readonly byObject = new Map<Record<string, string>, number>();
  private readonly byText = new Map<string, number>();

  /** The values' place in `texts` (from 1), 0 for a sighting without watched values. */
  place(values: Record<string, string> | undefined): number {
    if (!values) return 0;
    let k = this.byObject.get(values);
    if (k === undefined) {
      const text = JSON.stringify(values);
      k = this.byText.get(text);
      if (k === undefined) {
        this.texts.push(text);
        k = this.texts.length;
        this.byText.set(text, k);
      }
      this.byObject.set(values, k);
    }
    return k;
  }
}

/**
 * The sightings as the scripts read them: `[savedSearchId, k]`, k the values' place in the
 * call's `v` (ValueTexts) or 0. Equal sightings in the same order give the same text.
 */
function compactSightings(sightings: readonly Sighting[], texts: ValueTexts): Array<[string, number]> {
  return sightings.map(({ savedSearchId, values }) => [savedSearchId, texts.place(values)]);
}

/** Runs a pipeline; its first failure thrown. */
async function execAll(pipeline: ChainableCommander): Promise<void> {
  const failed = ((await pipeline.exec()) ?? []).find(([error]) => error);
  if (failed) throw failed[0];
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
