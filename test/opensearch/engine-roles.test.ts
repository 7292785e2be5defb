/**
 * The engine users' rights, against the real security plugin (test/support/secured-node.ts:
 * OpenSearch 3.4.0 with opensearch-security 3.4.0.0, TLS, the roles and role mapping shipped in
 * deploy/opensearch-security/, users `corpsearch_api` and `corpsearch_indexer`; the admin
 * certificate only sets up and looks). Shown here:
 * - the indexer's own programs (ingest, roll-off, reindex) run with the indexer's user;
 * - the API's user reads the API's indices (search, count, get, mget, msearch, points in
 *   time) and every write, delete, create or change is a 403;
 * - the API itself, started with the API's user, is ready and answers a search;
 * - neither user reads or changes anything outside the `corpsearch-` indices: another index,
 *   the security index, the security API, cluster settings.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, errors } from '@opensearch-project/opensearch';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { aliasTarget } from '../../ops/engine/reindex.js';
import { generateDataSet } from '../../sample-data/index.js';
import { createOpenSearchClient } from '../../src/opensearch/client.js';
import { createEngine, type Engine } from '../../src/opensearch/engine.js';
import { indexName } from '../../src/opensearch/indices.js';
import { type Run, runToEnd, servingUrl } from '../support/child-runs.js';
import { uniquePrefix } from '../support/env.js';
import { type SecuredNode, startSecuredNode } from '../support/secured-node.js';

const root = path.resolve(import.meta.dirname, '..', '..');
// the roles' index pattern (deploy/opensearch-security/roles.yml): corpsearch-*
const prefix = 'corpsearch-';
const redisPrefix = uniquePrefix('engine-roles');
const users = {
  corpsearch_api: randomBytes(18).toString('base64url'),
  corpsearch_indexer: randomBytes(18).toString('base64url'),
};
const operatorToken = 'operator-token-for-the-engine-roles-test';
const outside = 'outside-data';
const redis = new Redis(inject('redisUrl'));
const children: ChildProcess[] = [];
let node: SecuredNode;
let admin: Client;
let api: Engine;
let indexer: Engine;
let rawClients: { api: Client; indexer: Client };
let dir: string;
/** The indexer's ingest of the test's records, run before the tests (each -t filter finds the data). */
let ingested: Run;

const jobs = indexName(prefix, 'jobs');
const corporates = indexName(prefix, 'corporates');

/** This process's environment without engine, Redis or API settings, plus `extra`. */
function envWith(extra: Record<string, string>): NodeJS.ProcessEnv {
  const rest = Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) => !/^(OPENSEARCH_|REDIS_|INDEX_PREFIX|PORT$|LOG_LEVEL$|OPERATOR_TOKEN$)/.test(name),
    ),
  );
  return { ...rest, LOAD_SAMPLE_DATA: 'false', METRICS_PORT: '0', ...extra };
}

/** A deployment's settings on the secured node, as `user`. */
function asUser(user: keyof typeof users, extra: Record<string, string> = {}): Record<string, string> {
  return {
    OPENSEARCH_URL: node.url,
    OPENSEARCH_USERNAME: user,
    OPENSEARCH_PASSWORD_FILE: path.join(dir, user),
    OPENSEARCH_CA_FILE: node.caFile,
    INDEX_PREFIX: prefix,
    REDIS_PREFIX: redisPrefix,
    LOG_LEVEL: 'info',
    ...extra,
  };
}

function spawnProgram(script: string, args: string[], env: Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
    cwd: root,
    env: envWith(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  return child;
}

function run(script: string, args: string[], env: Record<string, string>): Promise<Run> {
  return runToEnd(spawnProgram(script, args, env));
}

/** The HTTP status of an engine call: its answer's, or the error's. */
async function statusOf(call: Promise<{ statusCode: number | null }>): Promise<number> {
  try {
    return (await call).statusCode ?? 0;
  } catch (error) {
    if (error instanceof errors.ResponseError) return error.meta.statusCode ?? 0;
    throw error;
  }
}

/** Each call's status by name, so a failure names the call that was let through. */
async function statuses(
  calls: Record<string, () => Promise<{ statusCode: number | null }>>,
): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const [name, call] of Object.entries(calls)) out[name] = await statusOf(call());
  return out;
}

/**
 * A `_bulk` the user may send answers 200 and refuses item by item: its status is then its one
 * item's (403 when refused there, 200 when deleted).
 */
async function bulkItemStatus(
  call: Promise<{ statusCode: number | null; body: { items?: Array<Record<string, { status?: number }>> } }>,
): Promise<{ statusCode: number | null }> {
  const { statusCode, body } = await call;
  const item = Object.values(body.items?.[0] ?? {})[0];
  return { statusCode: item?.status ?? statusCode };
}

function allEqual(names: Record<string, unknown>, status: number): Record<string, number> {
  return Object.fromEntries(Object.keys(names).map((name) => [name, status]));
}

async function countAsAdmin(index: string): Promise<number> {
  await admin.indices.refresh({ index });
  return (await admin.count({ index })).body.count;
}

beforeAll(async () => {
  node = await startSecuredNode({ users, log: (message) => console.log(`[engine-roles] ${message}`) });
  dir = mkdtempSync(path.join(os.tmpdir(), 'engine-roles-'));
  for (const [user, password] of Object.entries(users))
    writeFileSync(path.join(dir, user), `${password}\n`, { mode: 0o600 });
  admin = new Client({
    nodes: [node.url],
    ssl: { ca: readFileSync(node.caFile, 'utf8'), cert: node.adminCert.cert, key: node.adminCert.key },
  });
  const access = (user: keyof typeof users) => ({
    auth: { username: user, password: users[user] },
    caFile: node.caFile,
  });
  api = createEngine(node.url, access('corpsearch_api'));
  indexer = createEngine(node.url, access('corpsearch_indexer'));
  // the security API is no call of the engine port: asked through a client of the same user
  rawClients = {
    api: createOpenSearchClient(node.url, access('corpsearch_api')),
    indexer: createOpenSearchClient(node.url, access('corpsearch_indexer')),
  };
  // an index of someone else's on the same cluster
  await admin.index({ index: outside, id: '1', body: { secret: 'not for the project' }, refresh: true });
  const files = await generateDataSet({
    companies: 6,
    jobs: 30,
    seed: 11,
    now: new Date(),
    outDir: path.join(dir, 'data'),
  });
  // the indexer's own program with the indexer's user; no REDIS_URL: the records are written
  // directly rather than queued for a worker
  ingested = await run('indexer/bin/ingest.ts', [files.corporates, files.jobs], asUser('corpsearch_indexer'));
}, 360_000);

afterAll(async () => {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  const keys = await redis.keys(`${redisPrefix}*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
  await Promise.all(
    [admin, api, indexer, rawClients?.api, rawClients?.indexer].map((client) => client?.close()),
  );
  await node?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 120_000);

// in an operator's order: the indexer creates and fills the indices, then the API reads them
describe('the engine roles of deploy/opensearch-security/, on the real security plugin', {
  shuffle: false,
}, () => {
  it('the indexer user runs the indexer: ingest creates the indices and writes the records', async () => {
    expect(ingested.code, ingested.stdout + ingested.stderr).toBe(0);
    expect(await countAsAdmin(corporates)).toBe(6);
    expect(await countAsAdmin(jobs)).toBe(30);
  }, 180_000);

  it('the API user reads the API indices: search, count, get, mget, msearch, a point in time', async () => {
    const hit = (await api.search({ index: jobs, body: { size: 1 } })).body.hits.hits[0];
    expect(hit?._id).toBeTruthy();
    const id = hit?._id as string;
    expect((await api.count({ index: jobs })).body.count).toBe(30);
    expect((await api.get({ index: jobs, id })).body.found).toBe(true);
    expect((await api.mget({ index: jobs, body: { ids: [id] } })).body.docs).toHaveLength(1);
    const multi = await api.msearch({ body: [{ index: corporates }, { size: 0, track_total_hits: true }] });
    expect((multi.body.responses[0] as { hits: { total: { value: number } } }).hits.total.value).toBe(6);
    const pit = await api.createPit({ index: [jobs], keep_alive: '1m' });
    expect(pit.statusCode).toBe(200);
    expect((await api.deletePit({ body: { pit_id: [pit.body.pit_id as string] } })).statusCode).toBe(200);
    // the start-up checks: alias and index existence, and the readiness probe's health
    const concrete = await aliasTarget(api, jobs);
    expect(concrete).toMatch(/^corpsearch-jobs-v\d+$/);
    expect((await api.cluster.health({ index: [jobs, corporates], timeout: '0s' })).statusCode).toBe(200);
  });

  it('the API user may not write, delete, create or change anything: 403 for each', async () => {
    const id = (await api.search({ index: jobs, body: { size: 1 } })).body.hits.hits[0]?._id as string;
    const concrete = (await aliasTarget(api, jobs)) as string;
    const calls = {
      index: () => api.index({ index: jobs, id: 'written-by-the-api', body: {} }),
      create: () => api.create({ index: jobs, id: 'created-by-the-api', body: {} }),
      update: () => api.update({ index: jobs, id, body: { doc: { title: 'changed by the api' } } }),
      delete: () => api.delete({ index: jobs, id }),
      bulk: () => bulkItemStatus(api.bulk({ body: [{ delete: { _index: jobs, _id: id } }] })),
      deleteByQuery: () => api.deleteByQuery({ index: jobs, body: { query: { match_all: {} } } }),
      updateByQuery: () => api.updateByQuery({ index: jobs, body: { query: { match_all: {} } } }),
      reindex: () =>
        api.reindex({ body: { source: { index: jobs }, dest: { index: `${prefix}copied-by-the-api` } } }),
      createIndex: () => api.indices.create({ index: `${prefix}created-by-the-api` }),
      deleteIndex: () => api.indices.delete({ index: concrete }),
      putMapping: () =>
        api.indices.putMapping({ index: jobs, body: { properties: { extra: { type: 'keyword' } } } }),
      putSettings: () => api.indices.putSettings({ index: jobs, body: { index: { number_of_replicas: 0 } } }),
      addAlias: () => api.indices.putAlias({ index: concrete, name: `${prefix}alias-by-the-api` }),
      closeIndex: () => api.indices.close({ index: concrete }),
    };
    expect(await statuses(calls)).toEqual(allEqual(calls, 403));
    expect(await countAsAdmin(jobs)).toBe(30);
    expect((await admin.get({ index: jobs, id })).body.found).toBe(true);
  });

  it('the API, started with the API user, is ready and answers a search (it creates nothing at start)', async () => {
    const env = asUser('corpsearch_api', { REDIS_URL: inject('redisUrl'), OPERATOR_TOKEN: operatorToken });
    const created = await run('scripts/keys.ts', ['create', 'engine-roles-user', '--credits', '10'], env);
    expect(created.code, created.stderr).toBe(0);
    const key = created.stdout.trim();
    const child = spawnProgram('src/main.ts', [], { ...env, PORT: '0' });
    const served = await runUntilServing(child);
    expect(served.base, served.output).toBeTruthy();
    // the indices were there (the indexer made them): the start only checked them
    expect(served.output).not.toContain('created indices');
    const base = served.base as string;
    const ready = await readyzBecomes(base, 200);
    expect(ready.status, await ready.clone().text()).toBe(200);
    const search = (kind: 'jobs' | 'corporates') =>
      fetch(`${base}/rest/v1/${kind}/search`, {
        method: 'POST',
        headers: { 'X-API-Key': key, 'Content-Type': 'application/json' },
        body: JSON.stringify({ limit: 3 }),
      });
    const found = await search('jobs');
    expect(found.status).toBe(200);
    expect(((await found.json()) as { totalResults: number }).totalResults).toBe(30);
    const companies = await search('corporates');
    expect(companies.status).toBe(200);
    expect(((await companies.json()) as { totalResults: number }).totalResults).toBe(6);
    child.kill('SIGTERM');
    expect(await exitCode(child)).toBe(0);
  }, 120_000);

  it('the indexer user runs the roll-off', async () => {
    const rolled = await run('indexer/bin/rolloff.ts', [], asUser('corpsearch_indexer'));
    expect(rolled.code, rolled.stdout + rolled.stderr).toBe(0);
    expect(rolled.stdout).toMatch(/rolled off the searchable text of \d+ postings/);
  }, 120_000);

  it('the indexer user runs a reindex: new indices, aliases moved, the retired ones dropped', async () => {
    const before = await aliasTarget(indexer, jobs);
    const reindexed = await run('scripts/reindex.ts', ['--suffix', 'roles1'], asUser('corpsearch_indexer'));
    expect(reindexed.code, reindexed.stdout + reindexed.stderr).toBe(0);
    expect(await aliasTarget(indexer, jobs)).toBe(`${before}-roles1`);
    expect(await countAsAdmin(jobs)).toBe(30);
    const dropped = await run('scripts/reindex.ts', ['--drop-retired'], asUser('corpsearch_indexer'));
    expect(dropped.code, dropped.stdout + dropped.stderr).toBe(0);
    expect((await admin.indices.exists({ index: before as string })).body).toBe(false);
  }, 180_000);

  it('neither user reads or changes what is not the project’s: another index, the security index and API, cluster settings', async () => {
    const seen: Record<string, Record<string, number>> = {};
    for (const [user, client] of Object.entries({ api, indexer })) {
      seen[user] = await statuses({
        searchOutside: () => client.search({ index: outside }),
        getOutside: () => client.get({ index: outside, id: '1' }),
        searchAll: () => client.search({ index: '*' }),
        writeOutside: () => client.index({ index: outside, id: '2', body: { x: 1 } }),
        deleteOutside: () => client.indices.delete({ index: outside }),
        createOutside: () => client.indices.create({ index: 'not-the-project' }),
        securityIndex: () => client.search({ index: '.opendistro_security' }),
        securityUsers: () =>
          rawClients[user as keyof typeof rawClients].transport.request({
            method: 'GET',
            path: '/_plugins/_security/api/internalusers',
          }),
        clusterSettings: () =>
          client.cluster.putSettings({ body: { persistent: { 'action.destructive_requires_name': false } } }),
      });
    }
    const refused = allEqual(seen.api ?? {}, 403);
    expect(seen).toEqual({ api: refused, indexer: refused });
    expect(await countAsAdmin(outside)).toBe(1);
  });
});

/** Waits until the API logs the address it serves on, or ends. */
function runUntilServing(child: ChildProcess): Promise<{ base?: string; output: string }> {
  let output = '';
  return new Promise((resolve) => {
    const check = (chunk: Buffer) => {
      output += chunk;
      const base = servingUrl(output);
      if (base) resolve({ base, output });
    };
    child.stdout?.on('data', check);
    child.stderr?.on('data', check);
    child.once('close', () => resolve({ output }));
  });
}

function exitCode(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('close', (code) => resolve(code)));
}

/** Polls /readyz until it answers `status` (at most 15 s: a bound, not a speed claim). */
async function readyzBecomes(base: string, status: number): Promise<globalThis.Response> {
  const started = Date.now();
  for (;;) {
    const res = await fetch(`${base}/readyz`);
    if (res.status === status || Date.now() - started > 15_000) return res;
    await res.arrayBuffer();
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
