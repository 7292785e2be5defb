/**
 * Dead letters as an operator handles them, on the real redis-server and engine: every
 * reason of a refused record in the Redis list, the store's list / remove, replay through
 * the queue and the worker and directly through the pipeline (an accepted record leaves the
 * store, a refused one stays with its new reasons), and `npm run dead-letters` itself.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type DeadLetterEntry, RedisDeadLetter } from '../../indexer/dead-letter.js';
import { listDeadLetters, replayDeadLetters, showDeadLetter } from '../../indexer/dead-letter-commands.js';
import {
  countByReason,
  deadLetterId,
  FileDeadLetterStore,
  RedisDeadLetterStore,
} from '../../indexer/dead-letter-store.js';
import { indexNames } from '../../indexer/index-names.js';
import type { IndexerWorker } from '../../indexer/indexer-worker.js';
import { IngestPipeline } from '../../indexer/pipeline.js';
import { createIndexerQueue, createQueueConnection } from '../../indexer/queue.js';
import { replayDirect, replayQueued } from '../../indexer/replay.js';
import type { Services } from '../../src/services.js';
import { corporate, job, numbers } from '../fixtures/indexer/records.js';
import { type Run, runToEnd } from '../support/child-runs.js';
import { setUpServices, uniquePrefix } from '../support/env.js';
import { startTestWorker } from '../support/worker.js';

const root = path.resolve(import.meta.dirname, '..', '..');
let services: Services;
let redis: Redis;
let connection: Redis;
let worker: IndexerWorker;
let dir: string;

function entry(record: unknown, reason: string, source = 'test.ndjson:1'): DeadLetterEntry {
  return { at: '2026-11-25T00:00:00.000Z', type: 'job', key: null, reason, source, record };
}

async function found(index: string, id: string): Promise<boolean> {
  const { body } = await services.opensearch.get({ index, id }, { ignore: [404] });
  return (body as { found?: boolean }).found === true;
}

/** A refused record as the pipeline dead-letters it, every reason in it. */
async function refuse(records: unknown[], sink: RedisDeadLetter | FileDeadLetterStore): Promise<void> {
  const pipeline = new IngestPipeline({
    client: services.opensearch,
    indexPrefix: services.config.indexPrefix,
    deadLetter: sink,
  });
  for (const [position, record] of records.entries())
    await pipeline.add(record, `test.ndjson:${position + 1}`);
  await pipeline.flush();
}

function cli(args: string[], env: Record<string, string>): Promise<Run> {
  const { OPENSEARCH_URL: _o, REDIS_URL: _r, INDEX_PREFIX: _i, REDIS_PREFIX: _p, ...rest } = process.env;
  const child: ChildProcess = spawn(
    process.execPath,
    ['--import', 'tsx', 'indexer/bin/dead-letters.ts', ...args],
    {
      cwd: root,
      env: { ...rest, LOG_LEVEL: 'silent', METRICS_PORT: '0', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  return runToEnd(child);
}

beforeAll(async () => {
  services = await setUpServices('dead-letters');
  redis = services.redis as Redis;
  connection = createQueueConnection(inject('redisUrl'));
  worker = startTestWorker(services, connection);
  dir = mkdtempSync(path.join(os.tmpdir(), 'dead-letters-'));
});

afterAll(async () => {
  await worker.close();
  const queue = createIndexerQueue(connection, services.config.redisPrefix);
  await queue.obliterate({ force: true });
  await queue.close();
  connection.disconnect();
  await services.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the Redis dead-letter list', () => {
  it('holds every reason of a refused record, field by field', async () => {
    const prefix = uniquePrefix('dl-reasons');
    const store = new RedisDeadLetterStore(redis, prefix);
    const { title: _t, ...untitled } = job({ corporateNumber: numbers.alpha });
    await refuse([{ ...untitled, salaryMin: 'many', unknownField: 1 }], new RedisDeadLetter(redis, prefix));
    const [stored] = await store.list();
    expect(stored?.entry.reasons).toEqual(
      expect.arrayContaining([
        { field: 'title', reason: 'is required' },
        { field: 'salaryMin', reason: 'must be integer,null' },
        { field: 'unknownField', reason: 'unknown field' },
      ]),
    );
    expect(stored?.entry.reasons).toHaveLength(3);
    expect(stored?.entry.source).toBe('test.ndjson:1');
    await redis.del(store.location);
  });

  it('lists with stable ids and counts per reason; removes exactly the entry named', async () => {
    const prefix = uniquePrefix('dl-store');
    const store = new RedisDeadLetterStore(redis, prefix);
    await store.add([
      entry({ n: 1 }, 'salaryMin: must be integer,null; mediaId: 9 is not in the media master'),
      entry({ n: 2 }, 'salaryMin: must be integer,null'),
    ]);
    // written before `reasons` existed: its one reason is read from `reason`
    await redis.rpush(
      store.location,
      JSON.stringify(entry({ n: 3 }, 'corporateNumber: company 1 is not indexed')),
    );
    const letters = await store.list();
    expect(letters.map((letter) => letter.id)).toEqual(letters.map((letter) => deadLetterId(letter.line)));
    expect(new Set(letters.map((letter) => letter.id)).size).toBe(3);
    expect(letters[0]?.entry.reasons).toEqual([
      { field: 'salaryMin', reason: 'must be integer,null' },
      { field: 'mediaId', reason: '9 is not in the media master' },
    ]);
    expect(letters[2]?.entry.reasons).toEqual([
      { field: 'corporateNumber', reason: 'company 1 is not indexed' },
    ]);
    expect(countByReason(letters)).toEqual([
      { reason: 'salaryMin: must be integer,null', count: 2 },
      { reason: 'corporateNumber: company 1 is not indexed', count: 1 },
      { reason: 'mediaId: 9 is not in the media master', count: 1 },
    ]);
    expect(await store.remove(letters[1] as never)).toBe(true);
    expect(await store.remove(letters[1] as never)).toBe(false);
    expect((await store.list()).map((letter) => letter.id)).toEqual([letters[0]?.id, letters[2]?.id]);
    await redis.del(store.location);
  });
});

describe('replay through the queue and the worker', () => {
  it('removes an accepted record; a refused one stays with its new reasons', async () => {
    const store = new RedisDeadLetterStore(redis, services.config.redisPrefix);
    const company = corporate({ corporateNumber: numbers.delta, name: 'デルタ株式会社' });
    // refused before for a reason now gone (the engine was away); the other is still wrong
    const bad = { ...job({ corporateNumber: numbers.delta }), salaryMin: 'many', unknownField: 1 };
    await store.add([
      entry(
        company,
        'not indexed: the worker gave up after 8 attempts (OpenSearch unavailable)',
        'a.ndjson:1',
      ),
      entry(bad, 'salaryMin: must be integer,null', 'a.ndjson:2'),
    ]);
    const letters = await store.list();
    const outcomes = await replayQueued(letters, {
      redisUrl: inject('redisUrl'),
      redisPrefix: services.config.redisPrefix,
      store,
      timeoutMs: 60_000,
    });
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['indexed', 'rejected']);
    expect(outcomes[1]?.reasons).toEqual([
      { field: 'unknownField', reason: 'unknown field' },
      { field: 'salaryMin', reason: 'must be integer,null' },
    ]);
    expect(await found(indexNames(services.config.indexPrefix).corporates, numbers.delta)).toBe(true);
    const left = await store.list();
    // the old entries are gone; the refused record is back once, with both reasons
    expect(left.map((letter) => letter.id)).not.toContain(letters[0]?.id);
    expect(left.map((letter) => letter.id)).not.toContain(letters[1]?.id);
    expect(left).toHaveLength(1);
    expect(left[0]?.entry.record).toEqual(bad);
    expect(left[0]?.entry.reasons).toHaveLength(2);
    expect(left[0]?.entry.source).toMatch(/^a\.ndjson:2#\d+:1$/);
    await redis.del(store.location);
  });

  it('keeps the entry when no worker answers in time', async () => {
    await worker.worker.pause();
    const prefix = services.config.redisPrefix;
    const store = new RedisDeadLetterStore(redis, prefix);
    await store.add([entry(corporate({ corporateNumber: numbers.gamma }), 'not indexed: gave up')]);
    const letters = await store.list();
    const outcomes = await replayQueued(letters, {
      redisUrl: inject('redisUrl'),
      redisPrefix: prefix,
      store,
      timeoutMs: 1_500,
    });
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['pending']);
    expect((await store.list()).map((letter) => letter.id)).toEqual([letters[0]?.id]);
    worker.worker.resume();
    await redis.del(store.location);
  });
});

describe('replay without Redis, directly through the pipeline', () => {
  it('indexes a posting once its company is there, removing its entry; a still-bad one stays, new reasons', async () => {
    const file = path.join(dir, 'ingest-direct.ndjson');
    const store = new FileDeadLetterStore(file);
    const orphan = job({ corporateNumber: numbers.beta, id: 'DL-ORPHAN' });
    const bad = { ...job({ corporateNumber: numbers.beta, id: 'DL-BAD' }), mediaId: 999 };
    await refuse([orphan, bad], store);
    const before = await store.list();
    expect(before.map((letter) => letter.entry.reasons[0]?.reason)).toEqual([
      `company ${numbers.beta} is not indexed; ingest its corporate record first`,
      `company ${numbers.beta} is not indexed; ingest its corporate record first`,
    ]);
    // the cause fixed: the company ingested
    await refuse([corporate({ corporateNumber: numbers.beta, name: 'ベータ工業株式会社' })], store);
    const outcomes = await replayDirect(before, {
      client: services.opensearch,
      indexPrefix: services.config.indexPrefix,
      store,
    });
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['indexed', 'rejected']);
    expect(outcomes[1]?.reasons).toEqual([{ field: 'mediaId', reason: '999 is not in the media master' }]);
    expect(await found(indexNames(services.config.indexPrefix).jobs, 'DL-ORPHAN')).toBe(true);
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(1);
    const left = JSON.parse(lines[0] as string) as DeadLetterEntry;
    expect(left.key).toBe('DL-BAD');
    expect(left.reasons).toEqual([{ field: 'mediaId', reason: '999 is not in the media master' }]);
  });
});

describe('npm run dead-letters', () => {
  const fileOnly = { redisUrl: undefined, redisPrefix: 'unused:' };

  function capture(): { out: (line: string) => void; text: () => string } {
    const lines: string[] = [];
    return { out: (line) => lines.push(line), text: () => `${lines.join('\n')}\n` };
  }

  it('lists with counts per reason, shows one entry, and a dry run changes nothing', async () => {
    const file = path.join(dir, 'cli.ndjson');
    const store = new FileDeadLetterStore(file);
    await store.add([
      entry({ n: 1 }, 'salaryMin: must be integer,null; mediaId: 9 is not in the media master', 'x.ndjson:4'),
      entry({ n: 2 }, 'salaryMin: must be integer,null', 'x.ndjson:7'),
    ]);
    const before = readFileSync(file, 'utf8');
    const [first] = await store.list();

    const listed = capture();
    expect(await listDeadLetters(fileOnly, { file, limit: 50 }, listed.out)).toBe(0);
    expect(listed.text()).toContain(`2 dead letters in ${file}`);
    expect(listed.text()).toMatch(/^ +2 {2}salaryMin: must be integer,null$/m);
    expect(listed.text()).toMatch(/^ +1 {2}mediaId: 9 is not in the media master$/m);
    expect(listed.text()).toContain(
      `${first?.id}  2026-11-25T00:00:00.000Z  job  -  x.ndjson:4  salaryMin: must be integer,null (+1 more)`,
    );

    const shown = capture();
    await showDeadLetter(fileOnly, String(first?.id).slice(0, 6), { file }, shown.out);
    expect(shown.text()).toContain(
      '  - salaryMin: must be integer,null\n  - mediaId: 9 is not in the media master',
    );
    expect(shown.text()).toContain('"n": 1');
    await expect(showDeadLetter(fileOnly, 'ffffffffffff', { file }, shown.out)).rejects.toThrow(
      'no dead letter ffffffffffff',
    );

    const dry = capture();
    expect(
      await replayDeadLetters(fileOnly, [], { all: true, dryRun: true, file, timeout: 1 }, dry.out),
    ).toBe(0);
    expect(dry.text()).toContain('dry run: would replay 2');
    expect(readFileSync(file, 'utf8')).toBe(before);
    await expect(replayDeadLetters(fileOnly, [], { file, timeout: 1 }, dry.out)).rejects.toThrow(
      'name the dead letters to replay',
    );
  });

  it('replays the entries named through the worker, exit code 2 when one is refused again', async () => {
    const settings = { redisUrl: inject('redisUrl'), redisPrefix: services.config.redisPrefix };
    const store = new RedisDeadLetterStore(redis, settings.redisPrefix);
    await store.add([
      entry({ ...job({ corporateNumber: numbers.delta }), salaryMin: 'x' }, 'salaryMin: old'),
    ]);
    const [letter] = await store.list();
    const replayed = capture();
    const code = await replayDeadLetters(settings, [String(letter?.id)], { timeout: 60 }, replayed.out);
    expect(code).toBe(2);
    expect(replayed.text()).toContain(`${letter?.id}  rejected: salaryMin: must be integer,null`);
    expect(replayed.text()).toContain('replayed 1: 0 indexed (removed), 1 rejected again');
    await redis.del(store.location);
  });

  it('runs as the operator runs it: list of the Redis list', async () => {
    const prefix = uniquePrefix('dl-cli');
    const store = new RedisDeadLetterStore(redis, prefix);
    await store.add([entry({ n: 1 }, 'salaryMin: must be integer,null')]);
    const listed = await cli(['list'], { REDIS_URL: inject('redisUrl'), REDIS_PREFIX: prefix });
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain(`1 dead letters in ${prefix}indexer:dead-letter`);
    expect(listed.stdout).toMatch(/^ +1 {2}salaryMin: must be integer,null$/m);
    const unknown = await cli(['show', 'ffffffffffff'], {
      REDIS_URL: inject('redisUrl'),
      REDIS_PREFIX: prefix,
    });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^dead-letters: no dead letter ffffffffffff/m);
    await redis.del(store.location);
  });
});
