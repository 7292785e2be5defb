/**
 * Where rejected records go, with their reason: an NDJSON file under .local/dead-letter/ for
 * the CLI, a Redis list for the worker. Each entry keeps the record, so it can be fixed and
 * ingested again.
 */
import { mkdirSync } from 'node:fs';
import { appendFile } from 'node:fs/promises';
import path from 'node:path';
import type { Redis } from 'ioredis';

export interface DeadLetterEntry {
  at: string;
  type: string;
  /** corporateNumber or job id, when the record got that far */
  key: string | null;
  reason: string;
  /** where the record came from, e.g. `jobs.ndjson:1042` */
  source: string | null;
  record: unknown;
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
    await appendFile(this.location, `${entries.map((entry) => JSON.stringify(entry)).join('\n')}\n`);
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
    await this.redis.rpush(this.location, ...entries.map((entry) => JSON.stringify(entry)));
  }
}

/** Keeps entries in memory (tests, and callers that report the entries themselves). */
export class MemoryDeadLetter implements DeadLetterSink {
  readonly location = 'memory';
  readonly entries: DeadLetterEntry[] = [];

  async add(entries: DeadLetterEntry[]): Promise<void> {
    this.entries.push(...entries);
  }
}
