/**
 * The dead letters as an operator reads and replays them (`npm run dead-letters`,
 * ./bin/dead-letters.ts): the worker's Redis list `<REDIS_PREFIX>indexer:dead-letter`, or an
 * NDJSON file the CLI wrote under .local/dead-letter/. Each entry's id is the first 12 hex
 * digits of the SHA-256 of its stored line, so it needs no counter, is the same in every
 * listing, and a replayed entry is removed by its exact text (LREM): never another entry,
 * never one the worker pushes meanwhile.
 *
 *   const store = new RedisDeadLetterStore(redis, 'corpsearch:');
 *   const letters = await store.list();   // [{ id: '3f9a0c1d2e4b', entry: {..., reasons: [...]}, line }]
 *   await store.remove(letters[0]);        // true once gone
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Redis } from 'ioredis';
import {
  type DeadLetterEntry,
  type DeadLetterReason,
  type DeadLetterSink,
  FileDeadLetter,
  joinReasons,
  RedisDeadLetter,
  reasonsOf,
} from './dead-letter.js';

export interface StoredDeadLetter {
  id: string;
  /** the entry, `reasons` filled in for one written before they existed */
  entry: Required<DeadLetterEntry>;
  /** the stored text, byte for byte (what removal matches) */
  line: string;
}

export interface DeadLetterStore extends DeadLetterSink {
  list(): Promise<StoredDeadLetter[]>;
  /** Removes this one entry; false when it was no longer there (replayed by someone else). */
  remove(letter: StoredDeadLetter): Promise<boolean>;
}

export function deadLetterId(line: string): string {
  return createHash('sha256').update(line).digest('hex').slice(0, 12);
}

function parse(line: string): StoredDeadLetter {
  let value: Partial<DeadLetterEntry> & { reasons?: unknown };
  try {
    value = JSON.parse(line) as typeof value;
  } catch {
    value = { reason: 'this dead-letter line is not JSON', record: line };
  }
  const reasons = reasonsOf(value);
  const entry: Required<DeadLetterEntry> = {
    at: String(value.at ?? ''),
    type: String(value.type ?? 'unknown'),
    key: value.key ?? null,
    reason: value.reason ?? joinReasons(reasons),
    reasons,
    source: value.source ?? null,
    record: value.record ?? null,
  };
  return { id: deadLetterId(line), entry, line };
}

export class RedisDeadLetterStore extends RedisDeadLetter implements DeadLetterStore {
  constructor(
    private readonly client: Redis,
    redisPrefix: string,
  ) {
    super(client, redisPrefix);
  }

  async list(): Promise<StoredDeadLetter[]> {
    return (await this.client.lrange(this.location, 0, -1)).map(parse);
  }

  async remove(letter: StoredDeadLetter): Promise<boolean> {
    return (await this.client.lrem(this.location, 1, letter.line)) > 0;
  }
}

export class FileDeadLetterStore extends FileDeadLetter implements DeadLetterStore {
  async list(): Promise<StoredDeadLetter[]> {
    if (!existsSync(this.location)) return [];
    const text = await readFile(this.location, 'utf8');
    return text
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map(parse);
  }

  /** Writes the file again without the entry (through a new file renamed over it: never half written). */
  async remove(letter: StoredDeadLetter): Promise<boolean> {
    if (!existsSync(this.location)) return false;
    const lines = (await readFile(this.location, 'utf8')).split('\n').filter((line) => line.trim() !== '');
    const at = lines.indexOf(letter.line);
    if (at < 0) return false;
    lines.splice(at, 1);
    const next = `${this.location}.${process.pid}.tmp`;
    await writeFile(next, lines.length > 0 ? `${lines.join('\n')}\n` : '');
    await rename(next, this.location);
    return true;
  }
}

/** The newest `ingest-*.ndjson` the CLI wrote into `dir`, if any. */
export function newestIngestFile(dir: string): string | undefined {
  if (!existsSync(dir)) return undefined;
  const files = readdirSync(dir)
    .filter((name) => /^ingest-.*\.ndjson$/.test(name))
    .map((name) => path.join(dir, name));
  return files.sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0];
}

/** `field: reason` per problem, with how many entries have it, most frequent first. */
export function countByReason(letters: StoredDeadLetter[]): Array<{ reason: string; count: number }> {
  const counts = new Map<string, number>();
  for (const { entry } of letters)
    for (const text of new Set(entry.reasons.map((reason: DeadLetterReason) => joinReasons([reason]))))
      counts.set(text, (counts.get(text) ?? 0) + 1);
  return [...counts]
    .map(([reason, count]) => ({ reason, count }))
    .sort((a, b) => b.count - a.count || a.reason.localeCompare(b.reason));
}

/** The entries an id names: the whole id, or a prefix of at least 4 digits that only one id has. */
export function findLetter(letters: StoredDeadLetter[], id: string): StoredDeadLetter | undefined {
  const exact = letters.find((letter) => letter.id === id);
  if (exact || id.length < 4) return exact;
  const matching = new Set(letters.filter((letter) => letter.id.startsWith(id)).map((letter) => letter.id));
  return matching.size === 1 ? letters.find((letter) => letter.id.startsWith(id)) : undefined;
}
