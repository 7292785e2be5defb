/**
 * Every program an operator starts, run as the operator runs it (a child process through
 * tsx, as the npm scripts do) against the test servers: `npm start` (src/main.ts), the
 * generator, ingest (direct and through the queue), the queue worker and the roll-off.
 * Each gets a happy path and a bad input; `--help` is covered where the CLIs are defined.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createEngine } from '../../src/opensearch/engine.js';
import { dropIndices, indexName } from '../../src/opensearch/indices.js';
import { type Run, runToEnd, servingUrl } from '../support/child-runs.js';
import { uniquePrefix } from '../support/env.js';

const root = path.resolve(import.meta.dirname, '..', '..');
const opensearch = createEngine(inject('opensearchUrl'));
const redis = new Redis(inject('redisUrl'));
const prefixes: string[] = [];
const children: ChildProcess[] = [];
let dir: string;

function prefix(label: string): string {
  const p = uniquePrefix(label);
  prefixes.push(p);
  return p;
}

/** The child's environment: this process's, minus the settings a test chooses itself. */
function envWith(extra: Record<string, string>): NodeJS.ProcessEnv {
  const {
    OPENSEARCH_URL: _o,
    REDIS_URL: _r,
    INDEX_PREFIX: _i,
    REDIS_PREFIX: _p,
    PORT: _port,
    LOG_LEVEL: _l,
    ...rest
  } = process.env;
  // no metrics listener: its fixed default ports would collide between test runs sharing a machine
  return { ...rest, LOAD_SAMPLE_DATA: 'false', METRICS_PORT: '0', ...extra };
}

function start(script: string, args: string[], env: Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
    cwd: root,
    env: envWith(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  return child;
}

/** Runs a program to its end (support/child-runs.ts: killed after 3 minutes). */
function run(script: string, args: string[], env: Record<string, string> = {}): Promise<Run> {
  return runToEnd(start(script, args, env));
}

/** Resolves with everything printed so far once `pattern` appears on stdout. */
function waitForOutput(child: ChildProcess, pattern: RegExp): Promise<string> {
  let seen = '';
  return new Promise((resolve, reject) => {
    child.stdout?.on('data', (chunk) => {
      seen += chunk;
      if (pattern.test(seen)) resolve(seen);
    });
    child.once('close', (code) => reject(new Error(`exited (${code}) before ${pattern}: ${seen}`)));
  });
}

function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('close', (code) => resolve(code)));
}

async function count(prefixName: string, index: 'corporates' | 'jobs'): Promise<number> {
  await opensearch.indices.refresh({ index: indexName(prefixName, index) });
  return (await opensearch.count({ index: indexName(prefixName, index) })).body.count;
}

const lines = (file: string) => readFileSync(file, 'utf8').trim().split('\n').length;

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'entry-points-'));
});
afterAll(async () => {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const p of prefixes) {
    await dropIndices(opensearch, p);
    const keys = await redis.keys(`${p}*`);
    if (keys.length > 0) await redis.del(...keys);
  }
  redis.disconnect();
  await opensearch.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('npm start (src/main.ts)', () => {
  it('creates the indices, serves /health, and stops cleanly on SIGTERM', async () => {
    const p = prefix('main');
    const child = start('src/main.ts', [], {
      OPENSEARCH_URL: inject('opensearchUrl'),
      REDIS_URL: inject('redisUrl'),
      INDEX_PREFIX: p,
      REDIS_PREFIX: p,
      PORT: '0', // the system picks the port as the API binds it; the log names it
      LOG_LEVEL: 'info',
    });
    const base = servingUrl(await waitForOutput(child, /serving on http:\/\/127\.0\.0\.1:\d+/)) as string;
    expect(base).toMatch(/^http:\/\/127\.0\.0\.1:[1-9]\d*$/);
    const health = await fetch(`${base}/health`);
    expect(health.status).toBe(200);
    expect((await opensearch.indices.exists({ index: indexName(p, 'corporates') })).body).toBe(true);
    const unauthenticated = await fetch(`${base}/rest/v1/master/prefectures`);
    expect(unauthenticated.status).toBe(401);
    child.kill('SIGTERM');
    expect(await exited(child)).toBe(0);
  });

  it('npm start without REDIS_URL runs match jobs in its process, on a redis-server it stops at exit', async () => {
    const jobs = path.join(dir, 'start-jobs');
    const files = {
      API_KEYS_FILE: path.join(dir, 'start-keys.json'),
      CREDITS_FILE: path.join(dir, 'start-credits.json'),
      MATCH_JOBS_DIR: jobs,
    };
    const created = await run('scripts/keys.ts', ['create', 'dana', '--credits', '10'], files);
    expect(created.code, created.stderr).toBe(0);
    const key = created.stdout.trim();
    const child = start('scripts/start.ts', [], {
      ...files,
      OPENSEARCH_URL: inject('opensearchUrl'),
      INDEX_PREFIX: prefix('start'),
      PORT: '0',
      LOG_LEVEL: 'info',
    });
    const seen = await waitForOutput(child, /serving on http:\/\/127\.0\.0\.1:\d+/);
    const redisPort = Number(
      /match jobs run in this process, .* at redis:\/\/127\.0\.0\.1:(\d+)/.exec(seen)?.[1],
    );
    expect(redisPort).toBeGreaterThan(0);
    const base = servingUrl(seen) as string;
    const upload = await fetch(`${base}/rest/v1/corporates/match-jobs`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'text/csv' },
      body: '会社名\nどこにもない会社\n',
    });
    expect(upload.status).toBe(202);
    const { id } = (await upload.json()) as { id: string };
    let status = 'queued';
    for (let tries = 0; tries < 100 && ['queued', 'running'].includes(status); tries++) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      const job = await fetch(`${base}/rest/v1/corporates/match-jobs/${id}`, {
        headers: { 'x-api-key': key },
      });
      status = ((await job.json()) as { status: string }).status;
    }
    expect(status).toBe('completed');
    child.kill('SIGTERM');
    expect(await exited(child)).toBe(0);
    // the redis-server it started is gone with it
    const refused = await new Promise<string>((resolve) => {
      const socket = net.connect(redisPort, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve('connected');
      });
      socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
    });
    expect(refused).toBe('ECONNREFUSED');
  });

  it('refuses a bad setting before it starts anything, naming it', async () => {
    const result = await run('src/main.ts', [], { PORT: 'eighty', OPENSEARCH_URL: inject('opensearchUrl') });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/PORT must be a whole number.*"eighty"/);
    expect(result.stderr, 'one line, no stack trace').not.toMatch(/\n\s+at /);
  });

  it('refuses a judge table that does not read (MATCH_JUDGE_FILE), naming the file and the fault', async () => {
    const file = path.join(dir, 'judge-table.json');
    writeFileSync(file, JSON.stringify({ weights: { intercept: 'high' }, calibration: [[0, 0]] }));
    const p = prefix('judge');
    const result = await run('src/main.ts', [], {
      PORT: '0',
      OPENSEARCH_URL: inject('opensearchUrl'),
      INDEX_PREFIX: p,
      MATCH_JUDGE_FILE: file,
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('corpsearch-api: judge-table.json: weight intercept is not a number\n');
    const created = await opensearch.indices.exists({ index: indexName(p, 'corporates') });
    expect(created.body, 'refused before anything started: no index created').toBe(false);
    const worker = await run('indexer/bin/worker.ts', [], {
      OPENSEARCH_URL: inject('opensearchUrl'),
      REDIS_URL: 'redis://127.0.0.1:1',
      MATCH_JUDGE_FILE: file,
    });
    expect(worker.code).toBe(1);
    expect(worker.stderr).toContain('judge-table.json: weight intercept is not a number');
  });

  it('starts no engine of its own: without OPENSEARCH_URL, one line naming it, exit 1', async () => {
    // `npm start` (scripts/start.ts) hands the server the local node; the production entry none
    const result = await run('src/main.ts', [], { PORT: '0', LOG_LEVEL: 'info' });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'corpsearch-api: OPENSEARCH_URL is not set: set it to the OpenSearch cluster (`npm start` starts a local node, this entry does not)\n',
    );
    expect(result.stdout, 'no local node started or reused').not.toMatch(/OpenSearch/);
  });
});

describe('npm run generate, ingest, rolloff', () => {
  let files: { corporates: string; jobs: string };

  beforeAll(async () => {
    const out = path.join(dir, 'data');
    const result = await run('sample-data/cli.ts', [
      '--companies',
      '6',
      '--jobs',
      '30',
      '--seed',
      '3',
      '--now',
      '2026-04-01',
      '--out',
      out,
    ]);
    expect(result.code, result.stderr).toBe(0);
    files = { corporates: path.join(out, 'corporates.ndjson'), jobs: path.join(out, 'jobs.ndjson') };
  });

  it('generate writes the asked counts', () => {
    expect(lines(files.corporates)).toBe(6);
    expect(lines(files.jobs)).toBe(30);
  });

  it('generate refuses a count that is not a whole number', async () => {
    const result = await run('sample-data/cli.ts', ['--companies', 'many', '--out', path.join(dir, 'x')]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/--companies.*must be a whole number/);
  });

  it('ingest (no Redis) indexes the files directly; rolloff then runs on them', async () => {
    const p = prefix('ingest');
    const env = { OPENSEARCH_URL: inject('opensearchUrl'), INDEX_PREFIX: p, LOG_LEVEL: 'warn' };
    const result = await run(
      'indexer/bin/ingest.ts',
      [files.corporates, files.jobs, '--dead-letter', path.join(dir, 'dead.ndjson')],
      env,
    );
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(await count(p, 'corporates')).toBe(6);
    expect(await count(p, 'jobs')).toBe(30);

    const rolled = await run('indexer/bin/rolloff.ts', [], env);
    expect(rolled.code, rolled.stdout + rolled.stderr).toBe(0);
    expect(rolled.stdout).toMatch(/rolled off the searchable text of \d+ postings of \d+ companies/);
  });

  it('ingest refuses a file it cannot read, and a bad --batch-size', async () => {
    const env = { OPENSEARCH_URL: inject('opensearchUrl'), INDEX_PREFIX: prefix('ingest-bad') };
    const missing = await run('indexer/bin/ingest.ts', [path.join(dir, 'no-such.ndjson')], env);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('cannot read');
    const batch = await run('indexer/bin/ingest.ts', [files.jobs, '--batch-size', '0'], env);
    expect(batch.code).not.toBe(0);
    expect(batch.stderr).toMatch(/--batch-size.*must be a positive whole number/);
  });

  it('with REDIS_URL, ingest queues the batches and the worker (npm run worker) indexes them', async () => {
    const p = prefix('worker');
    const env = {
      OPENSEARCH_URL: inject('opensearchUrl'),
      REDIS_URL: inject('redisUrl'),
      INDEX_PREFIX: p,
      REDIS_PREFIX: p,
      LOG_LEVEL: 'info',
    };
    const worker = start('indexer/bin/worker.ts', [], env);
    await waitForOutput(worker, /indexer worker running/);
    const result = await run('indexer/bin/ingest.ts', [files.corporates, files.jobs], env);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toContain('waiting for the worker');
    expect(await count(p, 'corporates')).toBe(6);
    expect(await count(p, 'jobs')).toBe(30);
    worker.kill('SIGTERM');
    expect(await exited(worker)).toBe(0);
  });

  it('the worker refuses to start without Redis', async () => {
    const result = await run('indexer/bin/worker.ts', [], {
      OPENSEARCH_URL: inject('opensearchUrl'),
      INDEX_PREFIX: prefix('worker-bad'),
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('worker: the indexer queue lives in Redis: set REDIS_URL');
  });
});
