/**
 * What the credit ledger costs and how fast it rebuilds (docs/credits.md): on the engine and
 * Redis named by OPENSEARCH_URL and REDIS_URL, in one run,
 *
 * 1. Redis's own time for a charge's final step with its ledger entry against the same step
 *    without (the scripts of src/limits/redis-credit-ledger.ts, and the same script body with
 *    the XADD taken out), per call, over --calls calls one at a time: the ledger's cost inside
 *    the commit, which runs after the answer is sent (not on the search's latency);
 * 2. filing: --users users, each with one grant and two charges, filed into the ledger index
 *    (entries/s, and this process's CPU per entry);
 * 3. a Redis that lost its data: every `credits:*` key deleted, then every balance rebuilt from
 *    the ledger (`rebuildBalances`), timed, and checked against the balances before.
 *
 * Writes bench-reports/ledger-cost-<time>.json.
 *
 *   OPENSEARCH_URL=http://127.0.0.1:9201 REDIS_URL=redis://127.0.0.1:6391 \
 *     npx tsx bench/ledger-cost.ts --users 100000 --calls 20000
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { cliProgram, positiveWholeNumber } from '../ops/cli.js';
import { rebuildBalances } from '../src/limits/ledger-audit.js';
import { fileLedgerTail, ledgerIndex } from '../src/limits/ledger-filing.js';
import { createCreditLedger } from '../src/limits/open-credit-ledger.js';
import { createEngine } from '../src/opensearch/engine.js';
import { bootstrapIndices, dropIndices } from '../src/opensearch/indices.js';
import { projectRoot } from '../src/project-root.js';
import { connectRedis } from '../src/redis.js';

const options = cliProgram('bench:ledger', 'The credit ledger: its cost per charge, filing, and a rebuild')
  .option('--users <n>', 'users, each with a grant and two charges', positiveWholeNumber, 100_000)
  .option(
    '--calls <n>',
    'charges timed one at a time, with and without the entry',
    positiveWholeNumber,
    20_000,
  )
  .parse()
  .opts<{ users: number; calls: number }>();

const url = process.env.OPENSEARCH_URL;
const redisUrl = process.env.REDIS_URL;
if (!url || !redisUrl) throw new Error('OPENSEARCH_URL and REDIS_URL name the engine and the Redis to use');

const prefix = 'bench-ledger-';
const client = createEngine(url);
const redis = connectRedis(redisUrl);
const ledger = createCreditLedger({ redis, keyPrefix: prefix });
const index = ledgerIndex(prefix);
const log = (line: string) => console.log(`${new Date().toISOString().slice(11, 19)} ${line}`);

async function dropKeys(): Promise<number> {
  let dropped = 0;
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 5000);
    cursor = next;
    if (keys.length > 0) dropped += await redis.del(...keys);
  } while (cursor !== '0');
  return dropped;
}

/** Runs `work(i)` for i < count, `width` at a time. */
async function inParallel(
  count: number,
  width: number,
  work: (i: number) => Promise<unknown>,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < count) await work(next++);
    }),
  );
}

/** Redis's time per call (µs) of the commit with its entry, and of the same step without it. */
async function commitCost(calls: number): Promise<{ withEntryUs: number; withoutEntryUs: number }> {
  const user = 'commit-cost';
  await ledger.grant(user, calls * 2);
  // the same step as the commit script with the ledger entry taken out (the reference)
  const bare = `
redis.call('ZREM', KEYS[2], KEYS[1])
local r = redis.call('HMGET', KEYS[1], 'state', 'cost', 'user', 'tag')
if r[1] == 'reserved' then
  redis.call('HSET', KEYS[1], 'state', 'committed')
  return 1
end
return 0`;
  const bareSha = (await redis.script('LOAD', bare)) as string;
  const timeOf = async (withEntry: boolean): Promise<number> => {
    const ids = Array.from({ length: calls }, (_, i) => `${withEntry ? 'w' : 'b'}-${i}`);
    for (const id of ids)
      await ledger.reserve(user, 1, id, undefined, { operation: 'POST /corporates/search' });
    await redis.call('CONFIG', 'RESETSTAT');
    for (const id of ids) {
      if (withEntry) await ledger.commit(id);
      else await redis.evalsha(bareSha, 2, `${prefix}credits:reservation:${id}`, `${prefix}credits:open`);
    }
    const stats = (await redis.info('commandstats')) as string;
    const line = stats.split('\n').find((l) => l.startsWith('cmdstat_evalsha:'));
    const usecPerCall = Number(/usec_per_call=([\d.]+)/.exec(line ?? '')?.[1] ?? Number.NaN);
    return usecPerCall;
  };
  const withoutEntryUs = await timeOf(false);
  const withEntryUs = await timeOf(true);
  return { withEntryUs, withoutEntryUs };
}

/** The engine's process CPU so far, ms, all nodes. */
async function engineCpuMs(): Promise<number> {
  const { body } = await client.nodes.stats({ metric: ['process'] });
  return Object.values(
    body.nodes as Record<string, { process?: { cpu?: { total_in_millis?: number } } }>,
  ).reduce((sum, node) => sum + (node.process?.cpu?.total_in_millis ?? 0), 0);
}

async function main(): Promise<void> {
  await dropIndices(client, prefix).catch(() => {});
  await bootstrapIndices(client, prefix);
  await dropKeys();
  const report: Record<string, unknown> = {
    users: options.users,
    calls: options.calls,
    at: new Date().toISOString(),
  };

  log(`1. the commit with and without its ledger entry, ${options.calls} calls each, one at a time`);
  const cost = await commitCost(options.calls);
  report.commit = cost;
  log(
    `   Redis time per commit: ${cost.withEntryUs.toFixed(2)} µs with the entry, ${cost.withoutEntryUs.toFixed(2)} µs without (+${(cost.withEntryUs - cost.withoutEntryUs).toFixed(2)} µs)`,
  );
  await fileLedgerTail(ledger, client, index);

  log(`2. ${options.users} users, a grant and two charges each`);
  const seeded = Date.now();
  await inParallel(options.users, 64, async (i) => {
    const user = `u${i}`;
    await ledger.grant(user, 100);
    for (const n of [1, 2]) {
      await ledger.reserve(user, n, `${user}-${n}`, undefined, { operation: 'POST /corporates/search' });
      await ledger.commit(`${user}-${n}`);
    }
  });
  const entries = await ledger.tailLength();
  log(`   ${entries} entries written in ${((Date.now() - seeded) / 1000).toFixed(1)} s`);
  const cpu = process.cpuUsage();
  const engineBefore = await engineCpuMs();
  const filingStarted = Date.now();
  const filed = await fileLedgerTail(ledger, client, index);
  const filingMs = Date.now() - filingStarted;
  const used = process.cpuUsage(cpu);
  const engineUsPerEntry = (((await engineCpuMs()) - engineBefore) * 1000) / filed;
  report.filing = {
    entries: filed,
    ms: filingMs,
    perSecond: Math.round((filed / filingMs) * 1000),
    cpuUsPerEntry: (used.user + used.system) / filed,
    engineCpuUsPerEntry: engineUsPerEntry,
  };
  log(
    `   filed ${filed} in ${(filingMs / 1000).toFixed(1)} s (${Math.round((filed / filingMs) * 1000)}/s); CPU per entry: this process ${((used.user + used.system) / filed).toFixed(1)} µs, the engine ${engineUsPerEntry.toFixed(1)} µs`,
  );

  log('3. every credits:* key deleted (a Redis that lost its data), then rebuilt from the ledger');
  const sample = [0, 1, Math.floor(options.users / 2), options.users - 1].map((i) => `u${i}`);
  const before = await Promise.all(sample.map((user) => ledger.balance(user)));
  await dropKeys();
  const rebuildStarted = Date.now();
  const result = await rebuildBalances({ ledger, opensearch: client, index });
  const rebuildMs = Date.now() - rebuildStarted;
  const after = await Promise.all(sample.map((user) => ledger.balance(user)));
  const exact = JSON.stringify(before) === JSON.stringify(after) && before.every((b) => b === 97);
  report.rebuild = { users: result.restored.length, ms: rebuildMs, exact, sample: { before, after } };
  log(
    `   ${result.restored.length} balances rebuilt in ${(rebuildMs / 1000).toFixed(1)} s; sample before ${before.join(',')}, after ${after.join(',')} (${exact ? 'exact' : 'DIFFERENT'})`,
  );

  const dir = path.join(projectRoot, 'bench-reports');
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `ledger-cost-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  log(`wrote ${path.relative(projectRoot, file)}`);
  await dropKeys();
  await dropIndices(client, prefix);
}

try {
  await main();
} finally {
  redis.disconnect();
  await client.close();
}
