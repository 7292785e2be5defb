/**
 * Where rejected records go, with their reasons: an NDJSON file under .local/dead-letter/ for
 * the CLI, a Redis list for the worker. Each entry keeps the record, so it can be fixed and
 * ingested again (`npm run dead-letters`, ./bin/dead-letters.ts). An entry carries every
 * problem of its record in `reasons` (field and reason each) and the same joined by `; ` in
 * `reason`, the field entries written before `reasons` existed have alone.
 */
import { mkdirSync } from 'node:fs';
import { appendFile } from 'node:fs/promises';
import path from 'node:path';
import type { Redis } from 'ioredis';

/** One problem of a record: the field it is about (`(record)`: the whole record) and what is wrong. */
export interface DeadLetterReason {
  field: string;
  reason: string;
}

export interface DeadLetterEntry {
  at: string;
  type: string;
  /** corporateNumber or job id, when the record got that far */
  key: string | null;
  /** every reason joined by `; ` (kept for readers of the entries written before `reasons`) */
  reason: string;
  /**
   * every problem of the record, in the order found; a writer that gives only `reason` (its
   * problems joined by `; `) gets them split here, by the sinks
   */
  reasons?: DeadLetterReason[];
  /** where the record came from, e.g. `jobs.ndjson:1042` */
  source: string | null;
  record: unknown;
}

export function joinReasons(reasons: DeadLetterReason[]): string {
  return reasons
    .map(({ field, reason }) => (field === '(record)' ? reason : `${field}: ${reason}`))
    .join('; ');
}

/**
 * A reason of one line as a problem: `mediaId: 999 is not in the media master` names its
 * field; a sentence (`rejected by OpenSearch: ...`, `not indexed: ...`) is about the record.
 */
export function reasonFromText(text: string): DeadLetterReason {
  const named = /^([A-Za-z_][\w.[\]]*): (.+)$/s.exec(text);
  return named?.[1] && named[2] ? { field: named[1], reason: named[2] } : { field: '(record)', reason: text };
}

/** The problems of an entry, also of one written without `reasons` (its `reason`, split at `; `). */
export function reasonsOf(entry: { reason?: unknown; reasons?: unknown }): DeadLetterReason[] {
  if (Array.isArray(entry.reasons) && entry.reasons.length > 0) return entry.reasons as DeadLetterReason[];
  return String(entry.reason ?? 'unknown')
    .split('; ')
    .map(reasonFromText);
}

/** The entry as stored: `reasons` always there. */
export function withReasons(entry: DeadLetterEntry): Required<DeadLetterEntry> {
  return { ...entry, reasons: reasonsOf(entry) };
}

export interface DeadLetterSink {
  readonly location: string;
  add(entries: DeadLetterEntry[]): Promise<void>;
}

export class FileDeadLetter implements DeadLetterSink {
  constructor(readonly location: string) {
    mkdirSync(path.dirname(location), { recursive: true });
  }

  async add(entries: DeadLetterEntry[]): Promise<void> {
    if (entries.length === 0) return;
    await appendFile(
      this.location,
      `${entries.map((entry) => JSON.stringify(withReasons(entry))).join('\n')}\n`,
    );
  }
}

export function deadLetterKey(redisPrefix: string): string {
  return `${redisPrefix}indexer:dead-letter`;
}

export class RedisDeadLetter implements DeadLetterSink {
  readonly location: string;

  constructor(
    private readonly redis: Redis,
    redisPrefix: string,
  ) {
    this.location = deadLetterKey(redisPrefix);
  }

  async add(entries: DeadLetterEntry[]): Promise<void> {
    if (entries.length === 0) return;
    await this.redis.rpush(this.location, ...entries.map((entry) => JSON.stringify(withReasons(entry))));
  }
}

/** Keeps entries in memory (tests, and callers that report the entries themselves). */
export class MemoryDeadLetter implements DeadLetterSink {
  readonly location = 'memory';
  readonly entries: Required<DeadLetterEntry>[] = [];

  async add(entries: DeadLetterEntry[]): Promise<void> {
    this.entries.push(...entries.map(withReasons));
  }
}
