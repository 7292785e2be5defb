/**
 * `npm run dead-letters -- list | show <id> | replay <id...> | replay --all [--dry-run]`:
 * the records the indexer refused, with every reason, and their replay once the cause is
 * fixed (a master list loaded, the company ingested, OpenSearch back). The store is the
 * worker's Redis list with REDIS_URL, else the newest `.local/dead-letter/ingest-*.ndjson`;
 * `--file` names another file. Replay: ./replay.ts.
 */
import path from 'node:path';
import { Redis } from 'ioredis';
import { cliProgram, exitCodesHelp, positiveWholeNumber, runCli } from '../src/cli.js';
import { loadConfigOrExit } from '../src/config.js';
import { projectRoot } from '../src/project-root.js';
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

interface Opened {
  store: DeadLetterStore;
  redisUrl: string | undefined;
  redisPrefix: string;
  close(): void;
}

/** `--file`, else the Redis list (REDIS_URL), else the newest ingest file. */
function openStore(file: string | undefined): Opened {
  const config = loadConfigOrExit();
  const redis = config.redisUrl ? new Redis(config.redisUrl, { maxRetriesPerRequest: 2 }) : undefined;
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

async function withStore(file: string | undefined, work: (opened: Opened) => Promise<void>) {
  const opened = openStore(file);
  try {
    await work(opened);
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

async function list(file: string | undefined, limit: number): Promise<void> {
  await withStore(file, async ({ store }) => {
    const letters = await store.list();
    console.log(`${letters.length} dead letters in ${store.location}`);
    if (letters.length === 0) return;
    console.log('\nentries  reason');
    for (const { reason, count } of countByReason(letters))
      console.log(`${String(count).padStart(7)}  ${reason}`);
    console.log('\nid  at  type  key  source  reason');
    for (const letter of letters.slice(0, limit)) console.log(summary(letter));
    if (letters.length > limit) console.log(`... ${letters.length - limit} more (--limit)`);
  });
}

async function show(id: string, file: string | undefined): Promise<void> {
  await withStore(file, async ({ store }) => {
    const letter = findLetter(await store.list(), id);
    if (!letter) throw new Error(`no dead letter ${id} in ${store.location}`);
    const { entry } = letter;
    console.log(`id: ${letter.id}\nat: ${entry.at}\ntype: ${entry.type}\nkey: ${entry.key ?? '-'}`);
    console.log(`source: ${entry.source ?? '-'}\nreasons:`);
    for (const reason of entry.reasons) console.log(`  - ${joinReasons([reason])}`);
    console.log(`record:\n${JSON.stringify(entry.record, null, 2)}`);
  });
}

interface ReplayOptions {
  all?: boolean;
  dryRun?: boolean;
  file?: string;
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

function report(outcomes: ReplayOutcome[]): void {
  for (const outcome of outcomes) {
    const reasons = outcome.reasons ? `: ${joinReasons(outcome.reasons)}` : '';
    console.log(`${outcome.id}  ${outcome.status}${reasons}`);
  }
  const by = (status: string) => outcomes.filter((outcome) => outcome.status === status).length;
  console.log(
    `replayed ${outcomes.length}: ${by('indexed')} indexed (removed), ${by('rejected')} rejected again (kept with the new reasons), ` +
      `${by('deferred')} waiting in the queue for their company, ${by('pending')} without an answer (kept)`,
  );
  process.exitCode = by('rejected') + by('pending') > 0 ? 2 : 0;
}

async function replay(ids: string[], options: ReplayOptions): Promise<void> {
  await withStore(options.file, async ({ store, redisUrl, redisPrefix }) => {
    const letters = chosen(await store.list(), ids, options.all);
    const target = redisUrl ? 'the indexer queue (a worker must run)' : 'OpenSearch directly';
    if (options.dryRun) {
      for (const letter of letters) console.log(summary(letter));
      console.log(`dry run: would replay ${letters.length} of ${store.location} through ${target}`);
      return;
    }
    if (letters.length === 0) {
      console.log(`nothing to replay in ${store.location}`);
      return;
    }
    if (redisUrl) {
      const timeoutMs = options.timeout * 1000;
      report(await replayQueued(letters, { redisUrl, redisPrefix, store, timeoutMs }));
      return;
    }
    const services = await openCliServices();
    try {
      report(
        await replayDirect(letters, {
          client: services.opensearch,
          indexPrefix: services.indexPrefix,
          store,
        }),
      );
    } finally {
      await services.close();
    }
  });
}

const program = cliProgram(
  'dead-letters',
  'List, show and replay the records the indexer refused, with every reason. Store: the Redis list ' +
    '<REDIS_PREFIX>indexer:dead-letter with REDIS_URL, else the newest .local/dead-letter/ingest-*.ndjson, or --file.',
);
const fileOption = [
  '--file <file>',
  'a dead-letter file of `ingest` (default: the Redis list with REDIS_URL, else the newest .local/dead-letter/ingest-*.ndjson)',
] as const;
program
  .command('list')
  .addHelpText('after', exitCodesHelp)
  .description('counts per reason, then one line per entry: id, time, type, key, source, first reason')
  .option(...fileOption)
  .option('--limit <n>', 'entries to list (the counts cover all)', positiveWholeNumber, 50)
  .action((options: { file?: string; limit: number }) =>
    runCli('dead-letters', () => list(options.file, options.limit)),
  );
program
  .command('show <id>')
  .addHelpText('after', exitCodesHelp)
  .description('one entry with every reason and its record (an id from `list`, or its first digits)')
  .option(...fileOption)
  .action((id: string, options: { file?: string }) => runCli('dead-letters', () => show(id, options.file)));
program
  .command('replay [ids...]')
  .addHelpText('after', exitCodesHelp)
  .description(
    'ingest the records again (through the queue with REDIS_URL, else directly); an accepted one leaves the ' +
      'store, a refused one stays with its new reasons',
  )
  .option('--all', 'every entry of the store')
  .option('--dry-run', 'list what would be replayed, change nothing')
  .option(...fileOption)
  .option('--timeout <seconds>', 'with REDIS_URL: how long to wait for the worker', positiveWholeNumber, 120)
  .action((ids: string[], options: ReplayOptions) => runCli('dead-letters', () => replay(ids, options)));
program.parse();
