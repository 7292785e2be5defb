/**
 * Where deep offset paging remembers its place: per user and normalised query, the point in
 * time (PIT) the list is read from and the sort values of the record just before known
 * positions ("boundaries"). A page at offset 500,000 then continues with search_after from
 * the boundary at 500,000 (or the nearest one below it) instead of counting from the top.
 *
 *   key   = user + sha256(index, compiled query, sort)
 *   pit   -> 'o2nQ…'                                   (the PIT id)
 *   ckpt  -> { 10000: [1714000000000, 'job-77'], 20000: [...] }   multiples of the stride, kept
 *   recent-> { 500025: [...], 500050: [...] }            page ends, the newest 100 kept
 *
 * Everything expires `ttlSeconds` after its last use, with the PIT's keep-alive. Redis when
 * REDIS_URL is set (shared by every API process), else this process's memory.
 */
import type { Redis } from 'ioredis';

export type SortValues = unknown[];

export interface Boundary {
  position: number;
  after: SortValues;
}

export interface BoundaryStore {
  pit(key: string): Promise<string | undefined>;
  /** Keeps an existing PIT (another request got there first) and returns the one in force. */
  setPitIfAbsent(key: string, pitId: string): Promise<string>;
  /** The known boundary with the greatest position <= `position`, if any. */
  nearest(key: string, position: number): Promise<Boundary | undefined>;
  record(key: string, boundaries: Boundary[], stride: number): Promise<void>;
  drop(key: string): Promise<void>;
}

/** Page ends kept beside the stride checkpoints: enough for a walker going back a few pages. */
const recentKept = 100;

export class RedisBoundaryStore implements BoundaryStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly ttlSeconds: number,
  ) {}

  private keys(key: string) {
    const base = `${this.prefix}paging:${key}`;
    return { pit: `${base}:pit`, ckpt: `${base}:ckpt`, recent: `${base}:recent` };
  }

  async pit(key: string): Promise<string | undefined> {
    return (await this.redis.get(this.keys(key).pit)) ?? undefined;
  }

  async setPitIfAbsent(key: string, pitId: string): Promise<string> {
    const keys = this.keys(key);
    const set = await this.redis.set(keys.pit, pitId, 'EX', this.ttlSeconds, 'NX');
    if (set === 'OK') {
      // boundaries of an earlier PIT do not belong to this one
      await this.redis.del(keys.ckpt, keys.recent);
      return pitId;
    }
    return (await this.redis.get(keys.pit)) ?? pitId;
  }

  async nearest(key: string, position: number): Promise<Boundary | undefined> {
    const keys = this.keys(key);
    const found = await this.redis
      .multi()
      .zrevrangebyscore(keys.ckpt, position, '-inf', 'LIMIT', 0, 1)
      .zrevrangebyscore(keys.recent, position, '-inf', 'LIMIT', 0, 1)
      .exec();
    const members = (found ?? []).flatMap(([, value]) => (value as string[] | null) ?? []);
    return members
      .map(parseMember)
      .reduce<Boundary | undefined>(
        (best, candidate) => (!best || candidate.position > best.position ? candidate : best),
        undefined,
      );
  }

  async record(key: string, boundaries: Boundary[], stride: number): Promise<void> {
    if (boundaries.length === 0) return;
    const keys = this.keys(key);
    const batch = this.redis.multi();
    for (const boundary of boundaries) {
      const target = boundary.position % stride === 0 ? keys.ckpt : keys.recent;
      batch.zadd(target, boundary.position, toMember(boundary));
    }
    batch
      .zremrangebyrank(keys.recent, 0, -(recentKept + 1))
      .expire(keys.pit, this.ttlSeconds)
      .expire(keys.ckpt, this.ttlSeconds)
      .expire(keys.recent, this.ttlSeconds);
    await batch.exec();
  }

  async drop(key: string): Promise<void> {
    const keys = this.keys(key);
    await this.redis.del(keys.pit, keys.ckpt, keys.recent);
  }
}

function toMember({ position, after }: Boundary): string {
  return `${position}:${JSON.stringify(after)}`;
}

function parseMember(member: string): Boundary {
  const colon = member.indexOf(':');
  return {
    position: Number(member.slice(0, colon)),
    after: JSON.parse(member.slice(colon + 1)) as SortValues,
  };
}

interface LocalEntry {
  pit?: string;
  ckpt: Map<number, SortValues>;
  recent: Map<number, SortValues>;
  expiresAt: number;
}

/** SINGLE-PROCESS ONLY (no REDIS_URL): the same, in this process's memory. */
export class LocalBoundaryStore implements BoundaryStore {
  private readonly entries = new Map<string, LocalEntry>();

  constructor(private readonly ttlSeconds: number) {}

  private entry(key: string, create: boolean): LocalEntry | undefined {
    const now = Date.now();
    for (const [name, entry] of this.entries) if (entry.expiresAt <= now) this.entries.delete(name);
    let entry = this.entries.get(key);
    if (!entry && create) {
      entry = { ckpt: new Map(), recent: new Map(), expiresAt: 0 };
      this.entries.set(key, entry);
    }
    if (entry) entry.expiresAt = now + this.ttlSeconds * 1000;
    return entry;
  }

  async pit(key: string): Promise<string | undefined> {
    return this.entry(key, false)?.pit;
  }

  async setPitIfAbsent(key: string, pitId: string): Promise<string> {
    const entry = this.entry(key, true) as LocalEntry;
    if (entry.pit) return entry.pit;
    entry.pit = pitId;
    entry.ckpt.clear();
    entry.recent.clear();
    return pitId;
  }

  async nearest(key: string, position: number): Promise<Boundary | undefined> {
    const entry = this.entry(key, false);
    let best: Boundary | undefined;
    for (const map of [entry?.ckpt, entry?.recent])
      for (const [at, after] of map ?? [])
        if (at <= position && (!best || at > best.position)) best = { position: at, after };
    return best;
  }

  async record(key: string, boundaries: Boundary[], stride: number): Promise<void> {
    const entry = this.entry(key, true) as LocalEntry;
    for (const boundary of boundaries)
      (boundary.position % stride === 0 ? entry.ckpt : entry.recent).set(boundary.position, boundary.after);
    const surplus = [...entry.recent.keys()].sort((a, b) => a - b).slice(0, -recentKept);
    for (const position of surplus) entry.recent.delete(position);
  }

  async drop(key: string): Promise<void> {
    this.entries.delete(key);
  }
}
