/**
 * A secured engine: the API and the indexer reach OpenSearch over TLS, verified against
 * OPENSEARCH_CA_FILE, with basic-auth credentials (test/support/secured-engine.ts: an HTTPS
 * endpoint on loopback that demands them, in front of the test node). Shown here, with the
 * programs run as an operator runs them: ingest (direct, and through the queue and the
 * worker) and searches go through it; a refused or revoked password makes the API not ready
 * and its searches a clean 503 (no credit kept), and comes back without a restart; a start
 * with a wrong password or without the CA stops with one line naming the setting; the
 * password shows in no response, no log line and no error.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { errors } from '@opensearch-project/opensearch';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { generateDataSet } from '../../sample-data/index.js';
import { accessFailure } from '../../src/opensearch/access-failures.js';
import { createEngine } from '../../src/opensearch/engine.js';
import { dropIndices, indexName } from '../../src/opensearch/indices.js';
import { type Run, runToEnd, servingUrl } from '../support/child-runs.js';
import { uniquePrefix } from '../support/env.js';
import { type SecuredEngine, startSecuredEngine } from '../support/secured-engine.js';

const root = path.resolve(import.meta.dirname, '..', '..');
const username = 'corpsearch_api';
// characters a URL would have to escape, and a length no one types by accident
const password = 'Pa55:w/rd@engine#-7f3c9d1e';
const encoded = Buffer.from(`${username}:${password}`).toString('base64');
const operatorToken = 'operator-token-for-the-secured-engine-test';
const prefix = uniquePrefix('secured');
const direct = createEngine(inject('opensearchUrl'));
const redis = new Redis(inject('redisUrl'));
const children: ChildProcess[] = [];
let engine: SecuredEngine;
let dir: string;
let passwordFile: string;
let files: { corporates: string; jobs: string };

/** This process's environment without any engine or Redis settings, plus `extra`. */
function envWith(extra: Record<string, string>): NodeJS.ProcessEnv {
  const rest = Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) => !/^(OPENSEARCH_|REDIS_|INDEX_PREFIX|PORT$|LOG_LEVEL$|OPERATOR_TOKEN$)/.test(name),
    ),
  );
  return { ...rest, LOAD_SAMPLE_DATA: 'false', METRICS_PORT: '0', ...extra };
}

/** The settings of a deployment on the secured engine. */
function securedEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    OPENSEARCH_URL: engine.url,
    OPENSEARCH_USERNAME: username,
    OPENSEARCH_PASSWORD_FILE: passwordFile,
    OPENSEARCH_CA_FILE: engine.caFile,
    INDEX_PREFIX: prefix,
    REDIS_PREFIX: prefix,
    LOG_LEVEL: 'info',
    ...extra,
  };
}

function start(
  script: string,
  args: string[],
  env: Record<string, string>,
): ChildProcess & { output: () => string } {
  const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
    cwd: root,
    env: envWith(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    output += chunk;
  });
  return Object.assign(child, { output: () => output });
}

/** Runs a program to its end (support/child-runs.ts: killed after 3 minutes). */
function run(script: string, args: string[], env: Record<string, string>): Promise<Run> {
  const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
    cwd: root,
    env: envWith(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  return runToEnd(child);
}

function waitForOutput(child: ChildProcess & { output: () => string }, pattern: RegExp): Promise<void> {
  return new Promise((resolve, reject) => {
    const check = () => {
      if (pattern.test(child.output())) resolve();
    };
    child.stdout?.on('data', check);
    child.stderr?.on('data', check);
    child.once('close', (code) => reject(new Error(`exited (${code}) before ${pattern}: ${child.output()}`)));
    check();
  });
}

function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('close', (code) => resolve(code)));
}

/** Nothing that would give the password away: itself, its basic-auth form, the engine's 401 text. */
function expectNoSecret(text: string): void {
  expect(text).not.toContain(password);
  expect(text).not.toContain(encoded);
  expect(text).not.toContain('Unauthorized');
}

async function count(index: 'corporates' | 'jobs'): Promise<number> {
  await direct.indices.refresh({ index: indexName(prefix, index) });
  return (await direct.count({ index: indexName(prefix, index) })).body.count;
}

beforeAll(async () => {
  engine = await startSecuredEngine(inject('opensearchUrl'), { username, password });
  dir = mkdtempSync(path.join(os.tmpdir(), 'secured-engine-test-'));
  // a Docker secret's file: the password and a newline
  passwordFile = path.join(dir, 'opensearch-password');
  writeFileSync(passwordFile, `${password}\n`, { mode: 0o600 });
  files = await generateDataSet({
    companies: 6,
    jobs: 30,
    seed: 5,
    now: new Date(),
    outDir: path.join(dir, 'data'),
  });
});

afterAll(async () => {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await dropIndices(direct, prefix);
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
  await direct.close();
  await engine?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('the client (src/opensearch/client.ts) against a TLS endpoint that demands basic auth', () => {
  it('with the CA file and the credentials: answers', async () => {
    const client = createEngine(engine.url, {
      auth: { username, password },
      caFile: engine.caFile,
    });
    const before = engine.forwarded;
    const { body } = await client.cluster.health();
    expect(body.cluster_name).toBeTruthy();
    expect(engine.forwarded).toBe(before + 1);
    await client.close();
  });

  it('credentials in the URL, percent-encoded, work the same', async () => {
    const url = new URL(engine.url);
    url.username = encodeURIComponent(username);
    url.password = encodeURIComponent(password);
    const { loadConfig } = await import('../../src/config.js');
    const config = loadConfig({ OPENSEARCH_URL: url.href, OPENSEARCH_CA_FILE: engine.caFile });
    expect(config.opensearchUrl).toBe(engine.url);
    const client = createEngine(config.opensearchUrl as string, config.opensearchAccess);
    expect((await client.cluster.health()).statusCode).toBe(200);
    await client.close();
  });

  it('verification is on: without the CA file, or with another CA, the certificate is refused', async () => {
    const refusedBefore = engine.refused;
    const forwardedBefore = engine.forwarded;
    for (const caFile of [undefined, engine.otherCaFile]) {
      const client = createEngine(engine.url, { auth: { username, password }, caFile });
      const error = await client.cluster.health({}, { maxRetries: 0 }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(errors.ConnectionError);
      expect(accessFailure(error)).toBe('certificate');
      await client.close();
    }
    // the TLS handshake failed: no request, so no credential, ever reached the endpoint
    expect(engine.refused).toBe(refusedBefore);
    expect(engine.forwarded).toBe(forwardedBefore);
  });

  it('a wrong password: 401, named as a credentials failure', async () => {
    const client = createEngine(engine.url, {
      auth: { username, password: 'not-the-password' },
      caFile: engine.caFile,
    });
    const error = await client.cluster.health().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(errors.ResponseError);
    expect((error as errors.ResponseError).meta.statusCode).toBe(401);
    expect(accessFailure(error)).toBe('credentials');
    await client.close();
  });
});

// in an operator's order: ingest first, then search what it wrote (the steps keep their order
// under --sequence.shuffle; the file shares nothing with other files)
describe('the API and the indexer, run as an operator runs them, on the secured engine', {
  shuffle: false,
}, () => {
  it('ingest writes through it, directly and through the queue and the worker', async () => {
    const ingested = await run('indexer/bin/ingest.ts', [files.corporates], securedEnv());
    expect(ingested.code, ingested.stdout + ingested.stderr).toBe(0);
    expect(await count('corporates')).toBe(6);

    const worker = start('indexer/bin/worker.ts', [], securedEnv({ REDIS_URL: inject('redisUrl') }));
    await waitForOutput(worker, /indexer worker running/);
    const queued = await run(
      'indexer/bin/ingest.ts',
      [files.jobs],
      securedEnv({ REDIS_URL: inject('redisUrl') }),
    );
    expect(queued.code, queued.stdout + queued.stderr).toBe(0);
    expect(queued.stdout).toContain('waiting for the worker');
    expect(await count('jobs')).toBe(30);
    worker.kill('SIGTERM');
    expect(await exited(worker)).toBe(0);
    for (const text of [ingested.stdout, ingested.stderr, queued.stdout, queued.stderr, worker.output()])
      expectNoSecret(text);
  });

  it('searches work; a revoked password: not ready, 503 with no credit kept, nothing leaked; back without a restart', async () => {
    const env = securedEnv({ REDIS_URL: inject('redisUrl'), OPERATOR_TOKEN: operatorToken });
    const created = await run('scripts/keys.ts', ['create', 'secured-user', '--credits', '10'], env);
    expect(created.code, created.stderr).toBe(0);
    const key = created.stdout.trim();
    // PORT=0: the system picks the port as the API binds it; the log names it
    const api = start('src/main.ts', [], { ...env, PORT: '0' });
    await waitForOutput(api, /serving on http:\/\/127\.0\.0\.1:\d+/);
    const base = servingUrl(api.output()) as string;
    const asOperator = { Authorization: `Bearer ${operatorToken}` };
    const search = () =>
      fetch(`${base}/rest/v1/jobs/search`, {
        method: 'POST',
        headers: { 'X-API-Key': key, 'Content-Type': 'application/json' },
        body: JSON.stringify({ limit: 5 }),
      });
    const balance = async () => {
      const result = await run('scripts/keys.ts', ['credits', 'secured-user'], env);
      return Number(result.stdout.trim());
    };

    expect((await fetch(`${base}/readyz`)).status).toBe(200);
    const found = await search();
    expect(found.status).toBe(200);
    const body = (await found.json()) as { totalResults: number; results: unknown[] };
    expect(body.totalResults).toBe(30);
    expect(body.results).toHaveLength(5);
    expect(await balance()).toBe(9);

    engine.setPassword('rotated-on-the-engine-side');
    try {
      // /readyz answers from a state checked about once a second (src/http/readiness.ts)
      const ready = await readyzBecomes(base, 503, asOperator);
      expect(ready.status).toBe(503);
      const readyBody = (await ready.json()) as { failing: string[] };
      expect(readyBody.failing).toEqual(expect.arrayContaining(['opensearch', 'indices']));
      const refused = await search();
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBeTruthy();
      const refusedText = await refused.text();
      expectNoSecret(refusedText);
      const { requestId, ...said } = JSON.parse(refusedText) as Record<string, unknown>;
      expect(said.code).toBe('search_unavailable');
      // the request id is a random UUID, which now and then holds "401" (as in 9ae5-4011):
      // the words the engine's refusal would carry are looked for in everything else
      expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
      expect(JSON.stringify(said)).not.toMatch(/security|401|basic/i);
      expect(await balance()).toBe(9);
    } finally {
      engine.setPassword(password);
    }

    expect((await readyzBecomes(base, 200)).status).toBe(200);
    expect((await search()).status).toBe(200);
    api.kill('SIGTERM');
    expect(await exited(api)).toBe(0);
    const log = api.output();
    expect(log).toContain('search engine refused this process');
    expect(log).toContain('"access":"credentials"');
    expectNoSecret(log);
  });

  it('a start with a wrong password or without the CA file: one line naming the setting, exit 1', async () => {
    const wrongFile = path.join(dir, 'wrong-password');
    writeFileSync(wrongFile, 'not-the-password\n');
    const wrong = await run(
      'src/main.ts',
      [],
      securedEnv({ OPENSEARCH_PASSWORD_FILE: wrongFile, PORT: '0' }),
    );
    expect(wrong.code).toBe(1);
    expect(wrong.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(
        /^corpsearch-api: OpenSearch refused the credentials \(401\): check OPENSEARCH_USERNAME/,
      ),
    ]);
    const { OPENSEARCH_CA_FILE: _ca, ...withoutCa } = securedEnv({ PORT: '0' });
    const noCa = await run('indexer/bin/ingest.ts', [files.corporates], withoutCa);
    expect(noCa.code).toBe(1);
    expect(noCa.stderr.trim()).toMatch(
      /^ingest: OpenSearch's TLS certificate was refused: set OPENSEARCH_CA_FILE/,
    );
    for (const text of [wrong.stdout, wrong.stderr, noCa.stdout, noCa.stderr]) expectNoSecret(text);
  });

  it('a user without a right it needs (403), an https URL on a plain-http port: one line each', async () => {
    engine.forbid({ method: 'PUT', path: /^\/[^/_?]+-v\d+/ });
    try {
      const forbidden = await run(
        'src/main.ts',
        [],
        securedEnv({ INDEX_PREFIX: uniquePrefix('forbidden'), PORT: '0' }),
      );
      expect(forbidden.code).toBe(1);
      expect(forbidden.stderr.trim().split('\n')).toEqual([
        expect.stringMatching(/^corpsearch-api: OpenSearch denied this user a permission it needs \(403\)/),
      ]);
      expect(forbidden.stdout + forbidden.stderr).not.toMatch(/security_exception|no permissions/);
    } finally {
      engine.forbid(undefined);
    }
    const plain = new URL(inject('opensearchUrl').split(',')[0] as string);
    const client = createEngine(`https://${plain.host}`, { auth: { username, password } });
    const error = await client.cluster.health({}, { maxRetries: 0 }).catch((e: unknown) => e);
    expect(accessFailure(error)).toBe('tls');
    await client.close();
  });

  it('--print-config names the user and the CA file, never the password', async () => {
    const printed = await run('src/main.ts', ['--print-config'], securedEnv());
    expect(printed.code).toBe(0);
    expectNoSecret(printed.stdout);
    expect(JSON.parse(printed.stdout)).toMatchObject({
      opensearchUrl: engine.url,
      opensearchAccess: { auth: { username, password: '***' }, caFile: engine.caFile },
    });
  });
});

/** Polls /readyz until it answers `status` (at most 10 s: a bound, not a speed claim). */
async function readyzBecomes(
  base: string,
  status: number,
  headers: Record<string, string> = {},
): Promise<globalThis.Response> {
  const started = Date.now();
  for (;;) {
    const res = await fetch(`${base}/readyz`, { headers });
    if (res.status === status || Date.now() - started > 10_000) return res;
    await res.arrayBuffer();
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
