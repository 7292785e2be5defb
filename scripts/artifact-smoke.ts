/**
 * `npm run smoke:artifact`: the production artifact, built as the Dockerfile builds it, run the
 * way compose runs it. The tracked files (what `COPY . .` takes past .dockerignore) into a
 * temporary folder, and there the Dockerfile's steps: `npm install`, `npm run build`,
 * `npm prune --omit=dev`; then, against a local OpenSearch node and redis-server,
 * `node dist/src/main.js` and `node dist/indexer/bin/worker.js` from that folder, and the built CLIs
 * for a key and an ingest through the queue: readiness, one ingest, one search. The working
 * tree's own dist/ and node_modules/ are not touched. Everything it starts is stopped in a
 * `finally`.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, type ManagedChild, sleep, spawnManaged } from '../ops/local/child-process.js';
import { startLocalOpenSearch } from '../ops/local/opensearch-node.js';
import { startLocalRedis } from '../ops/local/redis-server.js';
import { projectRoot } from '../src/project-root.js';

const started = Date.now();
const say = (line: string) =>
  console.log(`[artifact +${((Date.now() - started) / 1000).toFixed(0)}s] ${line}`);

function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): string {
  const result = spawnSync(command, args, { cwd, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (result.status !== 0)
    throw new Error(
      `${command} ${args.join(' ')} failed (${result.status}):\n${result.stdout}\n${result.stderr}`,
    );
  return result.stdout;
}

async function waitReady(url: string, child: ManagedChild): Promise<void> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.child.exitCode !== null) throw new Error(`exited during start-up:\n${child.tail()}`);
    const status = await fetch(`${url}/readyz`).then(
      (res) => res.status,
      () => 0,
    );
    if (status === 200) return;
    if (Date.now() > deadline) throw new Error(`${url}/readyz not 200 within 120 s:\n${child.tail()}`);
    await sleep(300);
  }
}

/** The parts of a search answer the smoke reads. */
interface SmokeBody {
  totalResults?: number;
  results?: Array<{ id?: string }>;
}

async function post(
  url: string,
  key: string,
  body: unknown,
): Promise<{ status: number; credits: number; body: SmokeBody }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-API-Key': key },
    body: JSON.stringify(body),
  });
  return {
    status: res.status,
    credits: Number(res.headers.get('x-credits-remaining')),
    body: await res.json(),
  };
}

/**
 * What the built API must do beyond one search: a company search charged exactly one credit, a
 * count free, a bad filter a 400 naming the field and uncharged, a job's detail served, and
 * its metrics listener answering with the request counter.
 */
async function checkServedArtifact(url: string, key: string, metricsPort: string): Promise<void> {
  const first = await post(`${url}/rest/v1/corporates/search`, key, { limit: 1, includeTotalResults: true });
  const second = await post(`${url}/rest/v1/corporates/search`, key, { limit: 1 });
  if (first.status !== 200 || first.body.totalResults !== 20)
    throw new Error(
      `company search: ${first.status}, totalResults ${first.body.totalResults}, expected 200 and 20`,
    );
  if (second.credits !== first.credits - 1)
    throw new Error(`a company search charged ${first.credits - second.credits} credits, expected 1`);
  const count = await post(`${url}/rest/v1/jobs/count`, key, {});
  const bad = await post(`${url}/rest/v1/corporates/search`, key, { prefectureIdOr: ['Tokyo'] });
  if (count.status !== 200 || bad.status !== 400 || !JSON.stringify(bad.body).includes('prefectureIdOr'))
    throw new Error(
      `count ${count.status} (expected 200), bad filter ${bad.status} ${JSON.stringify(bad.body)} (expected 400 naming prefectureIdOr)`,
    );
  const after = await post(`${url}/rest/v1/corporates/search`, key, { limit: 1 });
  if (after.status !== 200)
    throw new Error(`company search answered ${after.status}: ${JSON.stringify(after.body)}`);
  if (after.credits !== second.credits - 1)
    throw new Error(
      `a count and a refused search changed the balance: ${second.credits} -> ${after.credits + 1}`,
    );
  const jobs = await post(`${url}/rest/v1/jobs/search`, key, { limit: 1 });
  const jobId = jobs.body.results?.[0]?.id;
  const detail = await fetch(`${url}/rest/v1/jobs/${encodeURIComponent(jobId ?? '-')}/detail`, {
    headers: { 'X-API-Key': key },
  });
  if (detail.status !== 200) throw new Error(`job detail of ${jobId}: ${detail.status}`);
  const metrics = await fetch(`http://127.0.0.1:${metricsPort}/metrics`).then((res) => res.text());
  if (!metrics.includes('/rest/v1/corporates/search'))
    throw new Error('the metrics listener does not count the company searches');
  say(
    'company search charged 1 credit; count free; bad filter 400 uncharged; job detail 200; metrics served',
  );
}

/**
 * The Dockerfile's build stage, step for step, in a copy of the tracked files under `tmp`
 * (not `npm ci`: the image is built with `npm install` and pruned, and the smoke must test that
 * artifact). Returns the copy's folder.
 */
function buildArtifact(tmp: string): string {
  const app = path.join(tmp, 'app');
  mkdirSync(app);
  const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: projectRoot, encoding: 'utf8' })
    .split('\0')
    .filter(Boolean);
  for (const file of tracked) cpSync(path.join(projectRoot, file), path.join(app, file), { recursive: true });
  say('npm install in a copy of the tracked files');
  run('npm', ['install', '--no-fund', '--no-audit', '--loglevel=error'], app);
  say('npm run build && npm prune --omit=dev (production dependencies only)');
  run('npm', ['run', '-s', 'build'], app);
  run('npm', ['prune', '--omit=dev', '--no-fund', '--no-audit', '--loglevel=error'], app);
  const devOnly = ['tsx', 'vitest', 'typescript', '@biomejs/biome'].filter(
    (name) => spawnSync('test', ['-e', path.join(app, 'node_modules', name)]).status === 0,
  );
  if (devOnly.length > 0)
    throw new Error(`dev dependencies present in the production copy: ${devOnly.join(', ')}`);
  return app;
}

/** The environment of the built processes, as compose gives it: the API on `port`. */
async function artifactEnv(tmp: string, opensearchUrl: string, redisUrl: string, port: number) {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: tmp,
    NODE_ENV: 'production',
    OPENSEARCH_URL: opensearchUrl,
    REDIS_URL: redisUrl,
    HOST: '127.0.0.1',
    PORT: String(port),
    LOAD_SAMPLE_DATA: 'false',
    // the checks below send several searches within a second: the smoke's user is not rate
    // limited (its credits are still reserved and charged)
    RATE_LIMIT_EXEMPT_USERS: 'smoke',
    METRICS_PORT: String(await freePort()),
    LOG_LEVEL: 'warn',
  };
  return env;
}

/** A key from the built keys CLI, and 20 companies with 100 postings ingested through the queue. */
function createKeyAndIngest(app: string, tmp: string, env: NodeJS.ProcessEnv): string {
  const key = run(
    process.execPath,
    ['dist/scripts/keys.js', 'create', 'smoke', '--credits', '1000'],
    app,
    env,
  ).trim();
  const dataDir = path.join(tmp, 'data');
  run(
    process.execPath,
    ['dist/sample-data/cli.js', '--companies', '20', '--jobs', '100', '--seed', '7', '--out', dataDir],
    app,
    env,
  );
  say('ingest through the queue (built CLI -> built worker)');
  run(
    process.execPath,
    [
      'dist/indexer/bin/ingest.js',
      path.join(dataDir, 'corporates.ndjson'),
      path.join(dataDir, 'jobs.ndjson'),
    ],
    app,
    env,
  );
  return key;
}

/**
 * One POST for the wait below; `undefined` when the connection failed. The ingest ran with this
 * process's event loop blocked (spawnSync), longer than the API keeps an idle connection open:
 * the pooled connection from the health check may be closed under it, which fetch reports as
 * "fetch failed". Such an error is noted in `errors` and retried.
 */
async function tryPost(url: string, key: string, body: unknown, errors: string[]) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-API-Key': key },
    body: JSON.stringify(body),
  }).catch((error: Error & { cause?: { code?: string; message?: string } }) => {
    errors.push(`${error.message} (${error.cause?.code ?? error.cause?.message ?? 'no cause'})`);
    return undefined;
  });
  if (!res) return undefined;
  const answer = (await res.json()) as { totalResults?: number };
  if (res.status !== 200) throw new Error(`${url} answered ${res.status}: ${JSON.stringify(answer)}`);
  return answer.totalResults ?? 0;
}

/**
 * Searches until all 100 postings are found and counts until all 20 companies are, for at most
 * 60 s. Each index shows what was written at its own refresh (about once a second): the
 * postings can be searchable while their companies, written before them, are not yet. Waiting
 * for the postings alone once let the company search below find 0 of 20.
 */
async function waitForIngest(url: string, key: string): Promise<void> {
  let postings: number | undefined = 0;
  let companies: number | undefined = 0;
  const deadline = Date.now() + 60_000;
  const errors: string[] = [];
  while (Date.now() < deadline) {
    postings = await tryPost(
      `${url}/rest/v1/jobs/search`,
      key,
      { limit: 1, includeTotalResults: true },
      errors,
    );
    companies = await tryPost(`${url}/rest/v1/corporates/count`, key, {}, errors);
    if (postings === 100 && companies === 20) break;
    await sleep(1000);
  }
  if (postings !== 100 || companies !== 20)
    throw new Error(
      `found ${postings ?? 'no answer'} postings and ${companies ?? 'no answer'} companies, expected 100 and 20${errors.length > 0 ? `; last connection error: ${errors.at(-1)}` : ''}`,
    );
  say(
    `one search: 200, totalResults ${postings}; companies counted: ${companies} (all ingested through the queue)`,
  );
}

/** A clean stop: SIGTERM, and both built processes exit 0 by themselves. */
async function stopCleanly(api: ManagedChild, worker: ManagedChild): Promise<void> {
  await api.stop(10_000);
  await worker.stop(10_000);
  const [apiExit, workerExit] = [await api.exited, await worker.exited];
  if (apiExit !== 0 || workerExit !== 0)
    throw new Error(`on SIGTERM the API exited ${apiExit} and the worker ${workerExit}, expected 0 and 0`);
  say('SIGTERM: the API and the worker exited 0');
}

async function main(): Promise<void> {
  const stops: Array<() => Promise<void>> = [];
  /** Printed when the smoke fails: the last lines each built process wrote. */
  const children: Array<[string, ManagedChild]> = [];
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'corpsearch-artifact-'));
  try {
    const app = buildArtifact(tmp);
    const node = await startLocalOpenSearch({
      baseDir: path.join(tmp, 'opensearch'),
      clusterName: `corpsearch-artifact-${process.pid}`,
      heap: '512m',
      ephemeral: true,
      log: say,
    });
    stops.push(node.stop);
    const redis = await startLocalRedis({ logDir: path.join(tmp, 'redis') });
    stops.push(redis.stop);
    const port = await freePort();
    const env = await artifactEnv(tmp, node.url, redis.url, port);
    const worker = spawnManaged(process.execPath, ['dist/indexer/bin/worker.js'], {
      cwd: app,
      env: { ...env, METRICS_PORT: String(await freePort()) },
      logFile: path.join(tmp, 'worker.log'),
    });
    stops.push(() => worker.stop(10_000));
    children.push(['worker', worker]);
    const api = spawnManaged(process.execPath, ['dist/src/main.js'], {
      cwd: app,
      env,
      logFile: path.join(tmp, 'api.log'),
    });
    stops.push(() => api.stop(10_000));
    children.push(['API', api]);
    const url = `http://127.0.0.1:${port}`;
    await waitReady(url, api);
    const health = await fetch(`${url}/health`).then((res) => res.status);
    if (health !== 200) throw new Error(`GET /health answered ${health}`);
    say(`node dist/src/main.js ready at ${url} (GET /readyz 200, GET /health ${health})`);

    const key = createKeyAndIngest(app, tmp, env);
    await waitForIngest(url, key);
    await checkServedArtifact(url, key, env.METRICS_PORT as string);
    await stopCleanly(api, worker);
    writeFileSync(path.join(tmp, 'ok'), '');
    say('production artifact smoke passed');
  } catch (error) {
    for (const [name, child] of children)
      console.error(
        `[artifact] the ${name}'s last lines (exit code ${child.child.exitCode ?? 'none yet'}):\n${child.tail()}`,
      );
    throw error;
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => {});
    rmSync(tmp, { recursive: true, force: true });
  }
}

await main().catch((error: Error) => {
  console.error(`[artifact] FAILED: ${error.message}`);
  process.exitCode = 1;
});
