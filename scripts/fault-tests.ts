/**
 * `npm run test:faults`: the production shape (scripts/local-stack.ts: 3 OpenSearch nodes,
 * redis-server with the append-only file, 2 API processes, 2 workers) loses one member at a
 * time under load, and each case prints its figures:
 *   a. kill -9 one OpenSearch node during 30 s of search load by several users
 *   b. kill -9 one API process under load
 *   e. SIGTERM to an API process under load
 *   d. restart redis-server under load
 *   f. kill -9 the Redis primary under load (the Sentinels promote its replica)
 *   c. kill -9 one worker in the middle of ingesting 10,000 postings
 * Loopback only; every load is bounded in time; only the processes this script started are
 * signalled (by pid); the stack is stopped in a `finally`. Exit code 1 when a check fails.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { Redis } from 'ioredis';
import { deadLetterKey } from '../indexer/dead-letter.js';
import {
  createIndexerQueue,
  createQueueConnection,
  enqueueRecords,
  rebuildSetKey,
} from '../indexer/queue.js';
import { sleep } from '../ops/local/child-process.js';
import { generateDataSet } from '../sample-data/index.js';
import { createApiKey, keyStoreFor } from '../src/auth/key-admin.js';
import { createLimits } from '../src/limits/limits.js';
import { createEngine, type Engine } from '../src/opensearch/engine.js';
import { projectRoot } from '../src/project-root.js';
import { createRedis } from '../src/redis.js';
import { type Stack, type StackProcess, startStack } from './local-stack.js';

const indexPrefix = 'faults-';
const redisPrefix = 'faults:';
const users = ['fault-u1', 'fault-u2', 'fault-u3', 'fault-u4', 'fault-u5', 'fault-u6'];
const grant = 1_000_000;
/** Start-to-start spacing of one user's searches: 4/s, under the 5/s rate limit. */
const userSpacingMs = 250;
const searchBody = JSON.stringify({ limit: 5, filters: { prefectureId: { any: [13, 27, 14] } } });

const started = Date.now();
const say = (line: string) => console.log(`[faults +${((Date.now() - started) / 1000).toFixed(0)}s] ${line}`);
const failures: string[] = [];
function check(ok: boolean, what: string): void {
  console.log(`  ${ok ? 'ok  ' : 'FAIL'} ${what}`);
  if (!ok) failures.push(what);
}

// ---------- load ----------

interface Outcome {
  user: string;
  api: string;
  status: number | 'error';
  retryAfter: boolean;
  sentAt: number;
  /** When the answer (or the error) came. */
  answeredAt: number;
  error?: string;
  /** What is wrong with the answer's body, when something is (see `bodyProblem`). */
  bodyProblem?: string;
}

interface LoadResult {
  outcomes: Outcome[];
  byStatus: Record<string, number>;
  ok: number;
  clean503: number;
  bare503: number;
  other: number;
  errors: number;
  /** Answers whose body was not what their status promises, or carried engine text. */
  badBodies: number;
}

function summarize(outcomes: Outcome[]): LoadResult {
  const byStatus: Record<string, number> = {};
  for (const o of outcomes) byStatus[String(o.status)] = (byStatus[String(o.status)] ?? 0) + 1;
  return {
    outcomes,
    byStatus,
    ok: outcomes.filter((o) => o.status === 200).length,
    clean503: outcomes.filter((o) => o.status === 503 && o.retryAfter).length,
    bare503: outcomes.filter((o) => o.status === 503 && !o.retryAfter).length,
    other: outcomes.filter((o) => o.status !== 200 && o.status !== 503 && o.status !== 'error').length,
    errors: outcomes.filter((o) => o.status === 'error').length,
    badBodies: outcomes.filter((o) => o.bodyProblem !== undefined).length,
  };
}

/** The error codes a search may answer with while a member of the stack is failing. */
const outageCodes = new Set([
  'search_unavailable',
  'deadline_exceeded',
  'limits_unavailable',
  'key_store_unavailable',
]);

/**
 * A 200 must carry its results; a 503 one of the outage codes with a message; neither may
 * carry the engine's or the index's words (what an engine error would quote).
 */
function bodyProblem(status: number, text: string): string | undefined {
  if (/exception|opensearch|corpsearch-faults|_shards/i.test(text)) return 'engine text in the body';
  let body: { results?: unknown; code?: unknown; message?: unknown };
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    return 'not JSON';
  }
  if (status === 200 && !Array.isArray(body.results)) return '200 without results';
  if (status === 503 && !(outageCodes.has(String(body.code)) && typeof body.message === 'string'))
    return `503 with code ${String(body.code)}`;
  return undefined;
}

/**
 * Every user searches every `userSpacingMs` for `seconds`, round-robin over the API processes
 * `targets()` returns at that moment (the balancer's view). A connection refused takes that
 * API out of the rotation, as a balancer's failed health check would.
 */
async function runLoad(
  keys: Map<string, string>,
  seconds: number,
  targets: () => StackProcess[],
  onRefused?: (api: StackProcess) => void,
): Promise<LoadResult> {
  const outcomes: Outcome[] = [];
  const end = Date.now() + seconds * 1000;
  let turn = 0;
  await Promise.all(
    users.map(async (user) => {
      while (Date.now() < end) {
        const sentAt = Date.now();
        const live = targets();
        const api = live[turn++ % Math.max(1, live.length)];
        if (!api?.url) break;
        try {
          const res = await fetch(`${api.url}/rest/v1/corporates/search`, {
            method: 'POST',
            headers: { 'Content-Type': 'application/json', 'X-API-Key': keys.get(user) ?? '' },
            body: searchBody,
            signal: AbortSignal.timeout(20_000),
          });
          const problem = bodyProblem(res.status, await res.text());
          outcomes.push({
            user,
            api: api.name,
            status: res.status,
            retryAfter: res.headers.has('retry-after'),
            sentAt,
            answeredAt: Date.now(),
            ...(problem ? { bodyProblem: problem } : {}),
          });
        } catch (error) {
          const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).name;
          if (cause === 'ECONNREFUSED') onRefused?.(api);
          outcomes.push({
            user,
            api: api.name,
            status: 'error',
            retryAfter: false,
            sentAt,
            answeredAt: Date.now(),
            error: cause,
          });
        }
        const wait = sentAt + userSpacingMs - Date.now();
        if (wait > 0) await sleep(wait);
      }
    }),
  );
  return summarize(outcomes);
}

function printLoad(label: string, r: LoadResult): void {
  const errorKinds: Record<string, number> = {};
  for (const o of r.outcomes) if (o.error) errorKinds[o.error] = (errorKinds[o.error] ?? 0) + 1;
  const bodyKinds: Record<string, number> = {};
  for (const o of r.outcomes)
    if (o.bodyProblem) bodyKinds[o.bodyProblem] = (bodyKinds[o.bodyProblem] ?? 0) + 1;
  console.log(
    `  ${label}: ${r.outcomes.length} searches: ${r.ok} x 200, ${r.clean503} x 503 with Retry-After, ${r.bare503} x 503 without, ${r.other} other statuses ${JSON.stringify(r.byStatus)}, ${r.errors} connection errors ${JSON.stringify(errorKinds)}, ${r.badBodies} bodies not as their status promises ${JSON.stringify(bodyKinds)}`,
  );
  // every scenario: a 200 carries results, a 503 an outage code and a message, none the engine's words
  check(
    r.badBodies === 0,
    `every answer's body as its status promises, no engine text: ${JSON.stringify(bodyKinds)}`,
  );
}

// ---------- data checks ----------

/** Document count and a SHA-256 over the sorted ids of one alias (every id, read by scroll). */
async function fingerprint(os: Engine, alias: string): Promise<{ count: number; sha: string }> {
  await os.indices.refresh({ index: alias });
  const ids: string[] = [];
  let response = (
    await os.search({
      index: alias,
      scroll: '1m',
      body: { size: 5000, _source: false, query: { match_all: {} } } as never,
    })
  ).body as { _scroll_id?: string; hits: { hits: Array<{ _id: string }> } };
  while (response.hits.hits.length > 0) {
    for (const hit of response.hits.hits) ids.push(hit._id);
    response = (await os.scroll({ scroll_id: response._scroll_id as string, scroll: '1m' } as never))
      .body as typeof response;
  }
  if (response._scroll_id) await os.clearScroll({ scroll_id: response._scroll_id } as never).catch(() => {});
  return { count: ids.length, sha: shaOf(ids) };
}

function shaOf(ids: string[]): string {
  return createHash('sha256')
    .update([...ids].sort().join('\n'))
    .digest('hex')
    .slice(0, 16);
}

async function allFingerprints(os: Engine): Promise<string> {
  const parts: string[] = [];
  for (const name of ['corporates', 'jobs', 'job-details']) {
    const f = await fingerprint(os, `${indexPrefix}${name}`);
    parts.push(`${name} ${f.count} docs sha ${f.sha}`);
  }
  return parts.join('; ');
}

async function primaryHolder(os: Engine, stack: Stack, index: string): Promise<Stack['nodes'][number]> {
  const shards = (await os.cat.shards({ index, format: 'json', h: 'prirep,id' } as never))
    .body as unknown as Array<{
    prirep: string;
    id: string;
  }>;
  const primaryId = shards.find((row) => row.prirep === 'p')?.id ?? '';
  const info = (await os.nodes.info({ node_id: '_all' } as never)).body as unknown as {
    nodes: Record<string, { transport_address: string }>;
  };
  const address =
    Object.entries(info.nodes).find(([id]) => id.startsWith(primaryId))?.[1].transport_address ?? '';
  const holder = stack.nodes.find((node) => address.endsWith(`:${node.transportPort}`));
  if (!holder) throw new Error(`no stack node holds the primary of ${index} (${address})`);
  return holder;
}

async function clusterHealth(os: Engine): Promise<string> {
  try {
    return ((await os.cluster.health({}, { timeoutMs: 5000 })).body as { status: string }).status;
  } catch {
    return 'unreachable';
  }
}

async function waitForGreen(os: Engine, timeoutMs: number): Promise<number> {
  const from = Date.now();
  while (Date.now() - from < timeoutMs) {
    if ((await clusterHealth(os)) === 'green') return Date.now() - from;
    await sleep(1000);
  }
  return -1;
}

/**
 * Queue jobs waiting, running or delayed, plus companies waiting for a rebuild. The nightly
 * roll-off's next run is a delayed job that is always there: it is not pending work.
 */
async function pendingWork(queue: ReturnType<typeof createIndexerQueue>, redis: Redis): Promise<number> {
  const counts = await queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized', 'waiting-children');
  const scheduled = (await queue.getDelayed()).filter((job) => job.name === 'rolloff').length;
  const jobs = Object.values(counts).reduce((a, b) => a + b, 0) - scheduled;
  return jobs + (await redis.scard(rebuildSetKey(redisPrefix)));
}

/** Until no queue job is waiting, running or delayed and no company rebuild is pending. */
async function waitIdle(
  queue: ReturnType<typeof createIndexerQueue>,
  redis: Redis,
  timeoutMs: number,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if ((await pendingWork(queue, redis)) === 0) return true;
    if (Date.now() > deadline) return false;
    await sleep(1000);
  }
}

async function balances(limits: ReturnType<typeof createLimits>): Promise<Map<string, number>> {
  const result = new Map<string, number>();
  for (const user of users) result.set(user, await limits.ledger.balance(user));
  return result;
}

/** Reservations the ledger still holds as `reserved` (debited, neither committed nor refunded). */
async function openReservations(redis: Redis): Promise<Map<string, number>> {
  const open = new Map<string, number>();
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(
      cursor,
      'MATCH',
      `${redisPrefix}credits:reservation:*`,
      'COUNT',
      1000,
    );
    cursor = next;
    for (const key of keys) {
      const [state, account] = await redis.hmget(key, 'state', 'account');
      if (state !== 'reserved' || !account) continue;
      const user = account.slice(`${redisPrefix}credits:balance:`.length);
      open.set(user, (open.get(user) ?? 0) + 1);
    }
  } while (cursor !== '0');
  return open;
}

/**
 * What the orphan sweep gave back during a case, per user: reservations open at its start
 * (a process killed in an earlier case left them; every live one was settled by then) and
 * gone at its end. The sweep refunds them a fixed time after the kill, which can fall in a
 * later case's window and lower its spending by as much.
 */
function sweptDuring(openBefore: Map<string, number>, openAfter: Map<string, number>) {
  return (user: string) => Math.max(0, (openBefore.get(user) ?? 0) - (openAfter.get(user) ?? 0));
}

/** Waits until no balance moved for 2 s (late commits and refund retries done), at most `ms`. */
async function settledBalances(
  limits: ReturnType<typeof createLimits>,
  ms: number,
): Promise<Map<string, number>> {
  const deadline = Date.now() + ms;
  let last = JSON.stringify([...(await balances(limits))]);
  for (;;) {
    await sleep(2000);
    const now = await balances(limits);
    const text = JSON.stringify([...now]);
    if (text === last || Date.now() > deadline) return now;
    last = text;
  }
}

function creditDiffs(
  before: Map<string, number>,
  after: Map<string, number>,
  charged: (user: string) => number,
): { exact: boolean; spent: number; expected: number } {
  let spent = 0;
  let expected = 0;
  let exact = true;
  for (const user of users) {
    const used = (before.get(user) ?? 0) - (after.get(user) ?? 0);
    spent += used;
    expected += charged(user);
    if (used !== charged(user)) exact = false;
  }
  return { exact, spent, expected };
}

const oks = (r: LoadResult, user: string) =>
  r.outcomes.filter((o) => o.user === user && o.status === 200).length;

// ---------- main ----------

/** The running stack, the clients on it, the users' keys and the data the cases share. */
interface Fault {
  s: Stack;
  os: Engine;
  control: Redis;
  limits: ReturnType<typeof createLimits>;
  keys: Map<string, string>;
  queue: ReturnType<typeof createIndexerQueue>;
  liveApis: Set<StackProcess>;
  /** The API processes a balancer would send to now. */
  targets: () => StackProcess[];
  takeOut: (api: StackProcess) => boolean;
  jobLines: string[];
  earlyJobs: string[];
  laterJobs: string[];
}

/**
 * The users' keys and credits, the companies and the first 2,000 postings indexed through the
 * queue, company rebuilds done and the cluster green.
 */
async function prepareFixture(
  s: Stack,
  os: Engine,
  control: Redis,
  files: Awaited<ReturnType<typeof generateDataSet>>,
): Promise<Fault> {
  const limits = createLimits({ redis: control, keyPrefix: redisPrefix });
  const keys = new Map<string, string>();
  for (const user of users) {
    keys.set(user, (await createApiKey(keyStoreFor(control, redisPrefix), { userId: user })).key);
    await limits.ledger.grant(user, grant);
  }
  const queue = createIndexerQueue(control, redisPrefix);
  queue.on('error', () => {});
  const companies = readFileSync(files.corporates, 'utf8').split('\n').filter(Boolean);
  for (let i = 0; i < companies.length; i += 500)
    await enqueueRecords(queue, companies.slice(i, i + 500), 'faults');
  const deadline = Date.now() + 120_000;
  while (
    (await os.count({ index: `${indexPrefix}corporates` }).catch(() => ({ body: { count: 0 } }))).body.count <
    companies.length
  ) {
    if (Date.now() > deadline) throw new Error('the companies were not indexed within 120 s');
    await sleep(1000);
  }
  // postings in place before case a, so its before/after checksums cover all three indices
  const jobLines = readFileSync(files.jobs, 'utf8').split('\n').filter(Boolean);
  const earlyJobs = jobLines.slice(0, 2000);
  const laterJobs = jobLines.slice(2000);
  for (let i = 0; i < earlyJobs.length; i += 1000)
    await enqueueRecords(queue, earlyJobs.slice(i, i + 1000), 'faults-early-jobs');
  if (!(await waitIdle(queue, control, 180_000)))
    throw new Error('the first postings were not indexed within 180 s');
  if ((await waitForGreen(os, 120_000)) < 0) throw new Error('the cluster was not green within 120 s');
  say(
    `${companies.length} companies and ${earlyJobs.length} postings indexed through the queue, company rebuilds done, cluster green`,
  );
  const liveApis = new Set(s.apis);
  const targets = () => s.apis.filter((api) => liveApis.has(api));
  const takeOut = (api: StackProcess) => liveApis.delete(api);
  return { s, os, control, limits, keys, queue, liveApis, targets, takeOut, jobLines, earlyJobs, laterJobs };
}

/** a. kill -9 one OpenSearch node during 30 s of search load. */
async function caseKillOpenSearchNode(f: Fault): Promise<void> {
  const { os, limits, s, keys, targets } = f;
  say('a. kill -9 one OpenSearch node during 30 s of search load (6 users, 4 searches/s each)');
  const docsBefore = await allFingerprints(os);
  const before = await balances(limits);
  // the node holding the primary of the searched index: its searches must move to the replica
  const victim = await primaryHolder(os, s, `${indexPrefix}corporates-v1`);
  const load = runLoad(keys, 30, targets);
  await sleep(8000);
  say(`   kill -9 node-${victim.index} (pid ${victim.pid()}, holds the primary of corporates)`);
  await victim.kill9();
  await sleep(7000);
  say(`   restarting node-${victim.index}`);
  const restartStarted = Date.now();
  const restarted = victim.restart();
  const result = await load;
  await restarted;
  say(`   node-${victim.index} rejoined after ${((Date.now() - restartStarted) / 1000).toFixed(1)} s`);
  const greenMs = await waitForGreen(os, 180_000);
  const after = await settledBalances(limits, 40_000);
  const docsAfter = await allFingerprints(os);
  printLoad('load', result);
  const credits = creditDiffs(before, after, (user) => oks(result, user));
  console.log(`  credits spent ${credits.spent}, searches answered 200: ${credits.expected}`);
  console.log(`  documents before: ${docsBefore}\n  documents after:  ${docsAfter}`);
  check(
    result.other === 0 && result.bare503 === 0 && result.errors === 0,
    'a: every response a 200 or a 503 with Retry-After',
  );
  check(result.ok > 0, 'a: searches kept being answered');
  check(credits.exact, 'a: no credit kept for a failed search (per user: spent == 200s)');
  check(docsBefore === docsAfter, 'a: no document lost (counts and id checksums equal)');
  check(
    greenMs >= 0,
    `a: cluster green again ${greenMs >= 0 ? `${(greenMs / 1000).toFixed(1)} s after the node rejoined` : 'NOT within 180 s'}`,
  );
}

/** b. kill -9 one API process under load. */
async function caseKillApi(f: Fault): Promise<void> {
  const { limits, s, keys, targets, takeOut, control, liveApis } = f;
  say('b. kill -9 one API process during 20 s of load');
  const before = await balances(limits);
  const victim = s.apis[0] as StackProcess;
  const survivor = s.apis[1] as StackProcess;
  const load = runLoad(keys, 20, targets, takeOut);
  await sleep(6000);
  const killedAt = Date.now();
  say(`   kill -9 ${victim.name} (pid ${victim.pid()})`);
  takeOut(victim);
  await victim.signal('SIGKILL');
  const result = await load;
  const after = await settledBalances(limits, 40_000);
  const orphans = await openReservations(control);
  const fromSurvivor = summarize(result.outcomes.filter((o) => o.api === survivor.name));
  const afterKill = summarize(result.outcomes.filter((o) => o.api === survivor.name && o.sentAt > killedAt));
  const lost = result.outcomes.filter((o) => o.api === victim.name && o.status === 'error');
  printLoad('load', result);
  console.log(
    `  ${survivor.name}: ${fromSurvivor.outcomes.length} searches (${afterKill.outcomes.length} after the kill), ${fromSurvivor.ok} x 200`,
  );
  console.log(
    `  in flight on ${victim.name} when it died: ${lost.length}; reservations it left open: ${[...orphans.values()].reduce((a, b) => a + b, 0)}`,
  );
  const credits = creditDiffs(before, after, (user) => oks(result, user) + (orphans.get(user) ?? 0));
  console.log(
    `  credits spent ${credits.spent} == 200s answered + reservations left open by the killed process: ${credits.expected}`,
  );
  check(
    fromSurvivor.ok === fromSurvivor.outcomes.length && afterKill.outcomes.length > 0,
    `b: ${survivor.name} kept serving, every answer a 200`,
  );
  check(credits.exact, 'b: balances exact (spent == 200s + open reservations of the killed process)');
  say(`   restarting ${victim.name}`);
  await victim.restart();
  liveApis.add(victim);
}

/** e. SIGTERM to an API process under load. */
async function caseTerminateApi(f: Fault): Promise<void> {
  const { limits, s, keys, targets, takeOut, liveApis, control } = f;
  say('e. SIGTERM to an API process during 20 s of load');
  const victim = s.apis[1] as StackProcess;
  const before = await balances(limits);
  const openBefore = await openReservations(control);
  const load = runLoad(keys, 20, targets, takeOut);
  await sleep(6000);
  const signalledAt = Date.now();
  say(`   SIGTERM ${victim.name} (pid ${victim.pid()})`);
  const exited = victim.signal('SIGTERM');
  // the balancer notices through /readyz; until then new requests may still be sent
  const exitMs = await exited;
  takeOut(victim);
  const result = await load;
  const inFlight = result.outcomes.filter((o) => o.api === victim.name && o.sentAt < signalledAt);
  const lateErrors = result.outcomes.filter((o) => o.api === victim.name && o.sentAt >= signalledAt);
  const inFlightErrors = inFlight.filter((o) => o.status !== 200);
  printLoad('load', result);
  console.log(
    `  ${victim.name} exited ${(exitMs / 1000).toFixed(2)} s after SIGTERM; requests sent to it before the signal: ${inFlight.length}, of them not 200: ${inFlightErrors.length}; sent after: ${lateErrors.length} (${lateErrors.filter((o) => o.status === 'error').length} refused)`,
  );
  const after = await settledBalances(limits, 40_000);
  const swept = sweptDuring(openBefore, await openReservations(control));
  const credits = creditDiffs(before, after, (user) => oks(result, user) - swept(user));
  const sweptTotal = users.reduce((sum, user) => sum + swept(user), 0);
  if (sweptTotal > 0) console.log(`  earlier orphans the sweep refunded meanwhile: ${sweptTotal}`);
  check(inFlightErrors.length === 0, 'e: requests in flight at SIGTERM all finished with 200');
  check(exitMs <= 10_000, `e: exited within 10 s (${(exitMs / 1000).toFixed(2)} s)`);
  check(credits.exact, 'e: balances exact (spent == 200s, less earlier orphans swept meanwhile)');
  say(`   restarting ${victim.name}`);
  await victim.restart();
  liveApis.add(victim);
}

/** d. restart redis-server under load. */
async function caseRestartRedis(f: Fault): Promise<void> {
  const { limits, control, keys, targets, s } = f;
  say('d. restart redis-server during 30 s of load');
  const before = await balances(limits);
  const openBefore = await openReservations(control);
  const keyCount = (await control.zcard(`${redisPrefix}apikeys`)) as number;
  const load = runLoad(keys, 30, targets);
  await sleep(6000);
  say(`   redis-server: SIGTERM (pid ${s.redis.pid()}), 3 s down, start again on the same port and AOF`);
  const downAt = Date.now();
  await s.redis.restart(3000);
  const upAt = Date.now();
  const result = await load;
  const after = await settledBalances(limits, 45_000);
  const keyCountAfter = (await control.zcard(`${redisPrefix}apikeys`)) as number;
  const firstOkAfter = result.outcomes
    .filter((o) => o.status === 200 && o.sentAt >= upAt)
    .sort((x, y) => x.sentAt - y.sentAt)[0];
  const during = summarize(result.outcomes.filter((o) => o.sentAt >= downAt && o.sentAt < upAt));
  printLoad('load', result);
  console.log(
    `  while Redis was down (${((upAt - downAt) / 1000).toFixed(1)} s): ${during.ok} x 200, ${during.clean503} x 503 with Retry-After; first 200 ${firstOkAfter ? `${((firstOkAfter.sentAt - upAt) / 1000).toFixed(1)} s` : 'never'} after it was back`,
  );
  console.log(`  API keys in Redis before ${keyCount}, after ${keyCountAfter}`);
  const swept = sweptDuring(openBefore, await openReservations(control));
  const credits = creditDiffs(before, after, (user) => oks(result, user) - swept(user));
  const sweptTotal = users.reduce((sum, user) => sum + swept(user), 0);
  console.log(
    `  credits spent ${credits.spent}, searches answered 200 less earlier orphans swept meanwhile (${sweptTotal}): ${credits.expected}`,
  );
  check(
    result.other === 0 && result.bare503 === 0 && result.errors === 0,
    'd: every response a 200 or a 503 with Retry-After',
  );
  check(
    during.clean503 > 0 && firstOkAfter !== undefined,
    'd: searches 503 while Redis is away, then recover with nothing restarted',
  );
  check(keyCountAfter === keyCount && keyCount === users.length, 'd: API keys survived the restart (AOF)');
  check(credits.exact, 'd: balances survived and are exact (spent == 200s, less earlier orphans swept)');
}

/** The stated bound of case f: a failover answers again within this after the kill. */
const failoverBoundMs = 15_000;

/**
 * Grants 1 credit to `user` every 200 ms until `stop()`, each acknowledged only once a replica
 * has it (REDIS_WAIT_REPLICAS 1): how many were acknowledged, and how many were tried.
 */
function startGranter(url: string, user: string): { stop(): Promise<{ acked: number; tried: number }> } {
  const redis = createRedis(url);
  redis.on('error', () => {});
  const ledger = createLimits({ redis, keyPrefix: redisPrefix, config: { waitReplicas: 1 } }).ledger;
  let running = true;
  let acked = 0;
  let tried = 0;
  const loop = (async () => {
    while (running) {
      tried += 1;
      await ledger.grant(user, 1).then(
        () => {
          acked += 1;
        },
        () => {},
      );
      await sleep(200);
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      redis.disconnect();
      return { acked, tried };
    },
  };
}

/** Of 10 searches sent at once by a fresh user: how many were answered 200 and how many 429. */
async function burst(f: Fault, user: string): Promise<{ ok: number; limited: number }> {
  const { key } = await createApiKey(keyStoreFor(f.control, redisPrefix), { userId: user });
  await f.limits.ledger.grant(user, 100);
  const api = f.targets()[0] as StackProcess;
  const statuses = await Promise.all(
    Array.from({ length: 10 }, () =>
      fetch(`${api.url}/rest/v1/corporates/search`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-API-Key': key },
        body: searchBody,
      }).then((res) => res.status),
    ),
  );
  return { ok: statuses.filter((s) => s === 200).length, limited: statuses.filter((s) => s === 429).length };
}

/**
 * Case f's failover, per API process: each finds the new primary on its own, so its failover
 * ends at its own first 200 sent after the kill (`backOf`, ms; infinite if none), and a 503
 * belongs to it when answered after the kill and sent at most 1 s after that first 200 (a
 * search in flight at the kill, sent before and answered after, is in it). `back`: the
 * stack's first 200 after the kill.
 */
function failoverWindows(result: LoadResult, killedAt: number) {
  const backOf = (api?: string) => {
    const first = result.outcomes
      .filter((o) => (api === undefined || o.api === api) && o.status === 200 && o.sentAt >= killedAt)
      .sort((x, y) => x.sentAt - y.sentAt)[0];
    return first ? first.sentAt - killedAt : Number.POSITIVE_INFINITY;
  };
  const unavailable = result.outcomes.filter((o) => o.status === 503);
  const outside = unavailable.filter(
    (o) => o.answeredAt < killedAt || o.sentAt > killedAt + backOf(o.api) + 1000,
  );
  const processes = [...new Set(result.outcomes.map((o) => o.api))];
  return { back: backOf(), backOf, processes, unavailable, outside };
}

/** f. kill -9 the Redis primary under load: the Sentinels promote the replica. */
async function caseKillRedisPrimary(f: Fault): Promise<void> {
  const { limits, keys, targets, s } = f;
  const sentinel = s.redis.sentinel;
  if (!sentinel) throw new Error('case f needs the stack in Sentinel mode');
  say('f. kill -9 the Redis primary during 30 s of load; the Sentinels promote the replica');
  const before = await balances(limits);
  const granterUser = 'fault-granter';
  const granterBefore = await limits.ledger.balance(granterUser);
  const granter = startGranter(s.redis.url, granterUser);
  const load = runLoad(keys, 30, targets);
  await sleep(8000);
  const victim = await sentinel.primary();
  say(`   kill -9 the Redis primary (port ${victim.port}, pid ${victim.pid()})`);
  const killedAt = Date.now();
  await victim.kill9();
  const promoted = await sentinel.waitForFailover(victim.port, 60_000);
  const promotedAt = Date.now();
  say(
    `   the Sentinels named port ${promoted} primary ${((promotedAt - killedAt) / 1000).toFixed(1)} s after the kill`,
  );
  const result = await load;
  const grants = await granter.stop();
  say(`   restarting the old primary (port ${victim.port}): the Sentinels make it a replica`);
  await victim.restart();
  const after = await settledBalances(limits, 45_000);
  const granterAfter = await limits.ledger.balance(granterUser);
  const { back, backOf, processes, unavailable, outside } = failoverWindows(result, killedAt);
  // charges are replicated asynchronously: those committed on the old primary in the moment
  // before the kill that its replica had not yet received are lost (free searches), never doubled
  const lastSecond = result.outcomes.filter(
    (o) => o.status === 200 && o.sentAt >= killedAt - 1000 && o.sentAt < killedAt,
  ).length;
  const credits = creditDiffs(before, after, (user) => oks(result, user));
  printLoad('load', result);
  console.log(
    `  answered again ${(back / 1000).toFixed(1)} s after the kill (stated bound ${failoverBoundMs / 1000} s); ${unavailable.length} x 503, ${outside.length} of them outside the failover${outside.length > 0 ? ` (${outside.map((o) => `${o.api} sent ${o.sentAt - killedAt} ms, answered ${o.answeredAt - killedAt} ms after the kill`).join('; ')})` : ''}`,
  );
  console.log(
    `  grants: ${grants.acked} acknowledged of ${grants.tried} tried; the balance grew by ${granterAfter - granterBefore}`,
  );
  console.log(
    `  credits spent ${credits.spent}, searches answered 200: ${credits.expected}; answered in the second before the kill: ${lastSecond}`,
  );
  const rate = await burst(f, 'fault-rate-after');
  console.log(
    `  10 searches at once by a fresh user after the failover: ${rate.ok} x 200, ${rate.limited} x 429`,
  );
  check(
    result.other === 0 && result.bare503 === 0 && result.errors === 0,
    'f: every response a 200 or a 503 with Retry-After',
  );
  check(back <= failoverBoundMs, `f: answered again within ${failoverBoundMs / 1000} s of the kill`);
  // the window is each process's own: so each must come back (one left on the old primary
  // would otherwise have every 503 of its own inside its endless window)
  check(
    processes.every((api) => backOf(api) <= failoverBoundMs),
    `f: each API process answered again within ${failoverBoundMs / 1000} s of the kill (${processes.map((api) => `${api} ${(backOf(api) / 1000).toFixed(1)} s`).join(', ')})`,
  );
  check(outside.length === 0, 'f: 503 only between the kill and the first answer after it');
  check(
    granterAfter - granterBefore >= grants.acked && granterAfter - granterBefore <= grants.tried,
    'f: no acknowledged grant lost (acknowledged <= granted <= tried)',
  );
  check(credits.spent <= credits.expected, 'f: no charge counted twice (spent <= 200s)');
  check(
    credits.expected - credits.spent <= lastSecond,
    'f: spent == 200s, less at most the searches answered in the second before the kill',
  );
  check(rate.ok === 5 && rate.limited === 5, 'f: the rate limit exact after the failover (5 of 10 at once)');
}

/** c. kill -9 a worker in the middle of ingesting 10,000 postings (10 batches), at 4,000 searchable. */
async function caseKillWorker(f: Fault): Promise<void> {
  const { os, control, queue, s, jobLines, earlyJobs, laterJobs } = f;
  say('c. kill -9 one worker in the middle of ingesting 10,000 postings');
  const lines = laterJobs;
  // the index holds the early postings too: every one of the 12,000 exactly once
  const expectedIds = jobLines.map((line) => (JSON.parse(line) as { id: string }).id);
  const ingestStart = Date.now();
  for (let i = 0; i < lines.length; i += 1000)
    await enqueueRecords(queue, lines.slice(i, i + 1000), 'faults-jobs');
  const victim = s.workers[0] as StackProcess;
  const jobsAlias = `${indexPrefix}jobs`;
  const count = async () => (await os?.count({ index: jobsAlias }).catch(() => undefined))?.body.count ?? 0;
  while ((await count()) < earlyJobs.length + 4000) {
    if (Date.now() - ingestStart > 180_000)
      throw new Error('ingestion did not reach 4,000 of the new postings in 180 s');
    await sleep(500);
  }
  const atKill = await count();
  say(
    `   ${atKill} postings searchable (${earlyJobs.length} from before): kill -9 ${victim.name} (pid ${victim.pid()})`,
  );
  await victim.signal('SIGKILL');
  await sleep(3000);
  say(`   restarting ${victim.name}`);
  await victim.restart();
  const doneBy = Date.now() + 900_000;
  let lastReport = Date.now();
  for (;;) {
    const pending = await pendingWork(queue, control);
    if (pending === 0 && (await count()) >= expectedIds.length) break;
    if (Date.now() > doneBy) break;
    if (Date.now() - lastReport > 30_000) {
      lastReport = Date.now();
      say(`   ${await count()} postings searchable; ${pending} queue jobs and company rebuilds pending`);
    }
    await sleep(1000);
  }
  const ingestSeconds = (Date.now() - ingestStart) / 1000;
  const jobs = await fingerprint(os, jobsAlias);
  const details = await fingerprint(os, `${indexPrefix}job-details`);
  const deadLettered = await control.llen(deadLetterKey(redisPrefix));
  const failedJobs = await queue.getFailedCount();
  const expectedSha = shaOf(expectedIds);
  console.log(
    `  ${lines.length} postings queued in ${Math.ceil(lines.length / 1000)} batches; ${atKill - earlyJobs.length} of them indexed when the worker was killed; all done after ${ingestSeconds.toFixed(1)} s`,
  );
  console.log(
    `  jobs ${jobs.count} docs sha ${jobs.sha}; job-details ${details.count} docs sha ${details.sha}; expected ${expectedIds.length} sha ${expectedSha}; dead-lettered ${deadLettered}; failed jobs ${failedJobs}`,
  );
  check(
    jobs.count === expectedIds.length && jobs.sha === expectedSha,
    'c: every posting in jobs exactly once (count and id checksum)',
  );
  check(
    details.count === expectedIds.length && details.sha === expectedSha,
    'c: every posting in job-details exactly once',
  );
  check(deadLettered === 0 && failedJobs === 0, 'c: nothing dead-lettered, no job given up');
  await queue.close();
}

/** What the processes' own metrics say about all of the above. */
async function printMetrics(s: Stack): Promise<void> {
  const scrape = async (url: string) => (await fetch(url)).text().catch(() => '');
  const pick = (text: string, name: string) =>
    text
      .split('\n')
      .filter((line) => line.startsWith(name))
      .map((line) => `    ${line}`)
      .join('\n');
  for (const api of s.apis) {
    const text = await scrape(api.metricsUrl);
    console.log(
      `  metrics of ${api.name} (since its last start):\n${pick(text, 'corpsearch_credits_')}\n${pick(text, 'corpsearch_requests_rejected_total')}`,
    );
  }
  for (const worker of s.workers) {
    const text = await scrape(worker.metricsUrl);
    console.log(
      `  metrics of ${worker.name}:\n${pick(text, 'corpsearch_indexer_records_total')}\n${pick(text, 'corpsearch_indexer_queue_jobs')}`,
    );
  }
}

async function main(): Promise<void> {
  const workDir = mkdtempSync(path.join(projectRoot, '.local', 'faults-'));
  let stack: Stack | undefined;
  let control: Redis | undefined;
  let os: Engine | undefined;
  try {
    say('generating 1,000 companies and 12,000 postings (2,000 before the faults, 10,000 for case c)');
    const files = await generateDataSet({
      companies: 1000,
      // case c's 10,000 (20,000 before 2026-11-29): 10 batches of 1,000 over 2 workers, the kill
      // at 4,000 searchable, so batches are still queued and in flight on the killed worker
      jobs: 12_000,
      seed: 15,
      outDir: path.join(workDir, 'data'),
      now: new Date('2026-11-21T00:00:00Z'),
    });
    say(
      'starting the stack: 3 OpenSearch nodes (512m), Redis primary + replica + 3 Sentinels (appendonly), 2 APIs, 2 workers',
    );
    stack = await startStack({
      baseDir: path.join(workDir, 'stack'),
      clusterName: `corpsearch-faults-${process.pid}`,
      heap: '512m',
      env: { INDEX_PREFIX: indexPrefix, REDIS_PREFIX: redisPrefix, LOG_LEVEL: 'warn' },
      ephemeral: true,
      // a primary, a replica and three Sentinels: case f kills the primary
      redis: 'sentinel',
      // `--built`: the API and workers from dist/ (after `npm run build`), which start faster
      built: process.argv.includes('--built'),
      log: say,
    });
    const s = stack;
    say(
      `stack up: OpenSearch ${s.opensearchUrl}, Redis ${s.redis.url}, APIs ${s.apis.map((a) => a.url).join(' ')}`,
    );
    // the checks read every id and refresh indices on a busy machine: more time than a search gets
    os = createEngine(s.opensearchUrl).writer();
    control = createQueueConnection(s.redis.url);
    // case d takes Redis away on purpose; the connection reconnects by itself
    control.on('error', () => {});
    const fault = await prepareFixture(s, os, control, files);
    await caseKillOpenSearchNode(fault);
    await caseKillApi(fault);
    await caseTerminateApi(fault);
    await caseRestartRedis(fault);
    await caseKillRedisPrimary(fault);
    await caseKillWorker(fault);
    await printMetrics(s);
  } finally {
    say('stopping the stack');
    control?.disconnect();
    await os?.close();
    await stack?.stop();
    rmSync(workDir, { recursive: true, force: true });
  }
  say(
    failures.length === 0
      ? 'all fault checks passed'
      : `${failures.length} fault checks FAILED:\n  ${failures.join('\n  ')}`,
  );
  process.exitCode = failures.length === 0 ? 0 : 1;
}

await main().catch((error: Error) => {
  console.error(`[faults] aborted: ${error.message}`);
  process.exitCode = 1;
});
