/**
 * What `npm run dead-letters` does (./bin/dead-letters.ts holds only its arguments): list,
 * show and replay the records the indexer refused. The store is the worker's Redis list with
 * REDIS_URL, else the newest `.local/dead-letter/ingest-*.ndjson`; `file` names another file.
 * Each command writes its lines through `out` and returns the exit code. Replay: ./replay.ts.
 *
 *   await listDeadLetters({ redisUrl: undefined, redisPrefix: '' }, { file: 'dl.ndjson', limit: 50 }, console.log)
 */
import path from 'node:path';
import { projectRoot } from '../src/project-root.js';
import { connectRedis } from '../src/redis.js';
import { openCliServices } from './cli-services.js';
import { joinReasons } from './dead-letter.js';
import {
  countByReason,
  type DeadLetterStore,
  FileDeadLetterStore,
  findLetter,
  newestIngestFile,
  RedisDeadLetterStore,
  type StoredDeadLetter,
} from './dead-letter-store.js';
import { type ReplayOutcome, replayDirect, replayQueued } from './replay.js';

const defaultDir = path.join(projectRoot, '.local', 'dead-letter');

/** Where the servers are: REDIS_URL and REDIS_PREFIX (src/config.ts). */
export interface StoreSettings {
  redisUrl: string | undefined;
  redisPrefix: string;
}

export type Out = (line: string) => void;

interface Opened {
  store: DeadLetterStore;
  redisUrl: string | undefined;
  redisPrefix: string;
  close(): void;
}

/** `--file`, else the Redis list (REDIS_URL), else the newest ingest file. */
function openStore(config: StoreSettings, file: string | undefined): Opened {
  const redis = config.redisUrl ? connectRedis(config.redisUrl, { maxRetriesPerRequest: 2 }) : undefined;
  const close = () => redis?.disconnect();
  const base = { redisUrl: config.redisUrl, redisPrefix: config.redisPrefix, close };
  if (file) return { ...base, store: new FileDeadLetterStore(path.resolve(file)) };
  if (redis) return { ...base, store: new RedisDeadLetterStore(redis, config.redisPrefix) };
  const newest = newestIngestFile(defaultDir);
  if (!newest)
    throw new Error(
      `no dead-letter store: set REDIS_URL (the worker's list) or give --file <file> (none in ${defaultDir})`,
    );
  return { ...base, store: new FileDeadLetterStore(newest) };
}

async function withStore<T>(
  config: StoreSettings,
  file: string | undefined,
  work: (opened: Opened) => Promise<T>,
): Promise<T> {
  const opened = openStore(config, file);
  try {
    return await work(opened);
  } finally {
    opened.close();
  }
}

function summary(letter: StoredDeadLetter): string {
  const { entry } = letter;
  const first = joinReasons(entry.reasons.slice(0, 1));
  const more = entry.reasons.length > 1 ? ` (+${entry.reasons.length - 1} more)` : '';
  return [letter.id, entry.at, entry.type, entry.key ?? '-', entry.source ?? '-', `${first}${more}`].join(
    '  ',
  );
}

export async function listDeadLetters(
  config: StoreSettings,
  options: { file?: string | undefined; limit: number },
  out: Out,
): Promise<number> {
  return withStore(config, options.file, async ({ store }) => {
    const letters = await store.list();
    out(`${letters.length} dead letters in ${store.location}`);
    if (letters.length === 0) return 0;
    out('\nentries  reason');
    for (const { reason, count } of countByReason(letters)) out(`${String(count).padStart(7)}  ${reason}`);
    out('\nid  at  type  key  source  reason');
    for (const letter of letters.slice(0, options.limit)) out(summary(letter));
    if (letters.length > options.limit) out(`... ${letters.length - options.limit} more (--limit)`);
    return 0;
  });
}

export async function showDeadLetter(
  config: StoreSettings,
  id: string,
  options: { file?: string | undefined },
  out: Out,
): Promise<number> {
  return withStore(config, options.file, async ({ store }) => {
    const letter = findLetter(await store.list(), id);
    if (!letter) throw new Error(`no dead letter ${id} in ${store.location}`);
    const { entry } = letter;
    out(`id: ${letter.id}\nat: ${entry.at}\ntype: ${entry.type}\nkey: ${entry.key ?? '-'}`);
    out(`source: ${entry.source ?? '-'}\nreasons:`);
    for (const reason of entry.reasons) out(`  - ${joinReasons([reason])}`);
    out(`record:\n${JSON.stringify(entry.record, null, 2)}`);
    return 0;
  });
}

export interface ReplayOptions {
  all?: boolean;
  dryRun?: boolean;
  file?: string | undefined;
  /** seconds to wait for the worker (REDIS_URL) */
  timeout: number;
}

function chosen(letters: StoredDeadLetter[], ids: string[], all: boolean | undefined): StoredDeadLetter[] {
  if (all && ids.length > 0) throw new Error('give ids or --all, not both');
  if (all) return letters;
  if (ids.length === 0) throw new Error('name the dead letters to replay (ids from `list`) or give --all');
  return ids.map((id) => {
    const letter = findLetter(letters, id);
    if (!letter) throw new Error(`no dead letter ${id}`);
    return letter;
  });
}

/** One line per entry and a total; exit code 2 when any was refused again or not answered. */
function report(outcomes: ReplayOutcome[], out: Out): number {
  for (const outcome of outcomes) {
    const reasons = outcome.reasons ? `: ${joinReasons(outcome.reasons)}` : '';
    out(`${outcome.id}  ${outcome.status}${reasons}`);
  }
  const by = (status: string) => outcomes.filter((outcome) => outcome.status === status).length;
  out(
    `replayed ${outcomes.length}: ${by('indexed')} indexed (removed), ${by('rejected')} rejected again (kept with the new reasons), ` +
      `${by('deferred')} waiting in the queue for their company, ${by('pending')} without an answer (kept)`,
  );
  return by('rejected') + by('pending') > 0 ? 2 : 0;
}

export async function replayDeadLetters(
  config: StoreSettings,
  ids: string[],
  options: ReplayOptions,
  out: Out,
): Promise<number> {
  return withStore(config, options.file, async ({ store, redisUrl, redisPrefix }) => {
    const letters = chosen(await store.list(), ids, options.all);
    const target = redisUrl ? 'the indexer queue (a worker must run)' : 'OpenSearch directly';
    if (options.dryRun) {
      for (const letter of letters) out(summary(letter));
      out(`dry run: would replay ${letters.length} of ${store.location} through ${target}`);
      return 0;
    }
    if (letters.length === 0) {
      out(`nothing to replay in ${store.location}`);
      return 0;
    }
    if (redisUrl) {
      const timeoutMs = options.timeout * 1000;
      return report(await replayQueued(letters, { redisUrl, redisPrefix, store, timeoutMs }), out);
    }
    const services = await openCliServices();
    try {
      const direct = { client: services.opensearch, indexPrefix: services.indexPrefix, store };
      return report(await replayDirect(letters, direct), out);
    } finally {
      await services.close();
    }
  });
}
