/**
 * From a posting ingested to its webhook delivered: batches of new postings are queued as
 * `npm run ingest` with REDIS_URL queues them; the indexer worker writes them and rebuilds their
 * companies, recording where each stands in the watched saved searches (the percolator); the
 * webhook worker dispatches and delivers each change to a receiver on loopback, in a process of
 * its own (bench/webhook-receiver.ts). The webhook worker runs as `npm run worker` runs it, on a
 * thread of its own at WEBHOOK_NICE (`--webhook-nice` sets another value); `--webhooks-inline`
 * puts it on the indexer's thread, `--webhooks-apart` in a process of its own. Every search
 * watches `hiringActivity`, so a new posting changes its company in every search it is in. The
 * latency of an event is from its batch being queued to the receiver getting it. Beside it,
 * the same batches without any watched search (the worker's own pace, the floor); each of the
 * two starts once the engine has no merge running. With `--watch-alone`, the same number of
 * new batches once more with the webhook worker stopped (every search still watched): what the
 * watch itself costs ingestion, apart from the deliveries' work on the same cores. With
 * `--floor-after`, the batches once more with every search unregistered: a floor taken after the
 * watch, on caches the watch warmed (the first floor follows the load). The CPU of each
 * process (this one, Redis, the receiver, the engine, the webhook worker's thread or process)
 * over each part is reported beside the times, and the percolations of each watched phase (the
 * rebuild rounds' requests and the engine's time in them). Writes
 * bench-reports/webhook-latency-<time>.json.
 *
 *   OPENSEARCH_URL=http://127.0.0.1:9201 REDIS_URL=redis://127.0.0.1:6379 \
 *     npx tsx bench/webhook-latency.ts --companies 2000 --jobs 20000 --searches 1000 --batches 5 --batch-postings 200
 */
import { createReadStream, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { Redis } from 'ioredis';
import pino from 'pino';
import { MemoryDeadLetter } from '../indexer/dead-letter.js';
import { createIndexerWorker } from '../indexer/indexer-worker.js';
import { ingestFiles } from '../indexer/ingest.js';
import {
  createIndexerQueue,
  createQueueConnection,
  enqueueRecords,
  rebuildSetKey,
} from '../indexer/queue.js';
import { rebuildCompanies } from '../indexer/rebuild.js';
import type { JobSource } from '../indexer/source-types.js';
import { cliProgram, positiveWholeNumber } from '../ops/cli.js';
import { defaultConfig } from '../src/config.js';
import { createEngine } from '../src/opensearch/engine.js';
import { bootstrapIndices, dropIndices } from '../src/opensearch/indices.js';
import { projectRoot } from '../src/project-root.js';
import { Membership } from '../src/saved-searches/membership.js';
import { queriesIndexes } from '../src/saved-searches/watch.js';
import { WebhookStore } from '../src/webhooks/store.js';
import { startWebhookThread } from '../src/webhooks/thread.js';
import { startWebhookWorker } from '../src/webhooks/worker.js';
import { engineCpuMs, processCpuMs } from './cpu.js';
import { benchDataSet } from './data-set.js';
import { type BenchProcess, benchScript, startNodeProcess } from './processes.js';
import { deleteKeys } from './redis-keys.js';
import { benchSearchId, corporateNumbers, registerWatched } from './watched-searches.js';

const options = cliProgram('bench:webhook-latency', 'From a posting ingested to its webhook delivered')
  .option('--companies <n>', 'companies in the data set', positiveWholeNumber, 2000)
  .option('--jobs <n>', 'postings in the data set', positiveWholeNumber, 20_000)
  .option('--searches <n>', 'watched saved searches, each with a webhook', positiveWholeNumber, 1000)
  .option('--batches <n>', 'batches of new postings', positiveWholeNumber, 5)
  .option('--batch-postings <n>', 'new postings per batch', positiveWholeNumber, 200)
  .option(
    '--webhooks-apart',
    'the webhook worker in a process of its own (bench/webhook-worker-process.ts), at the process priority',
  )
  .option(
    '--webhooks-inline',
    "the webhook worker on this process's thread, beside the indexer (the layout before the worker gave it a thread)",
  )
  .option(
    '--webhook-nice <n>',
    "the webhook thread's nice value (WEBHOOK_NICE; 0 keeps the priority); the thread layout only",
    (value: string) => {
      const nice = Number(value);
      if (!Number.isInteger(nice) || nice < 0 || nice > 19) throw new Error('--webhook-nice: 0 to 19');
      return nice;
    },
    defaultConfig().webhooks.nice,
  )
  .option(
    '--watch-alone',
    'then the same number of new batches with the webhook worker stopped: the watch (percolation and membership) without deliveries beside it',
  )
  .option(
    '--floor-after',
    'then the batches once more with every search unregistered: a floor measured after the watch, on warm caches',
  )
  .parse()
  .opts<{
    companies: number;
    jobs: number;
    searches: number;
    batches: number;
    batchPostings: number;
    webhooksApart?: boolean;
    webhooksInline?: boolean;
    webhookNice: number;
    watchAlone?: boolean;
    floorAfter?: boolean;
  }>();

const url = process.env.OPENSEARCH_URL;
const redisUrl = process.env.REDIS_URL;
if (!url || !redisUrl) throw new Error('OPENSEARCH_URL and REDIS_URL name the engine and the Redis to use');

const prefix = 'bench-hooks-';
const client = createEngine(url);
const redis = new Redis(redisUrl);
const connection = createQueueConnection(redisUrl);
const log = (line: string) => console.log(`${new Date().toISOString().slice(11, 19)} ${line}`);
const quiet = pino({ level: 'silent' });

const percentile = (sorted: number[], p: number) =>
  sorted.length === 0 ? null : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

/** `count` new postings cloned from the data set's, under new ids, created now. */
function newPostings(source: JobSource[], batch: number, count: number): JobSource[] {
  return Array.from({ length: count }, (_, i) => {
    const from = source[(batch * count + i) % source.length] as JobSource;
    return { ...from, id: `B${batch}-${i}`, shortId: null, jobCreatedAt: new Date().toISOString() };
  });
}

/** Queues the batches one by one, each after the worker finished the one before; when each was queued. */
async function runBatches(source: JobSource[], first: number): Promise<number[]> {
  const queue = createIndexerQueue(connection, prefix);
  const queued: number[] = [];
  try {
    for (let b = first; b < first + options.batches; b++) {
      queued.push(Date.now());
      await enqueueRecords(queue, newPostings(source, b, options.batchPostings), 'bench');
      // done when nothing is waiting, running or delayed and no rebuild is pending
      for (;;) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        const counts = await queue.getJobCounts('waiting', 'active', 'delayed');
        const pending = await redis.scard(rebuildSetKey(prefix));
        if ((counts.waiting ?? 0) + (counts.active ?? 0) + (counts.delayed ?? 0) === 0 && pending === 0)
          break;
      }
    }
    return queued;
  } finally {
    await queue.close();
  }
}

const companies = () => corporateNumbers(client, prefix);

/** The first `count` postings of the data set's file, read line by line (at 1M the file is 2.9 GB). */
async function firstPostings(file: string, count: number): Promise<JobSource[]> {
  const postings: JobSource[] = [];
  const lines = createInterface({
    input: createReadStream(file, 'utf8'),
    crlfDelay: Number.POSITIVE_INFINITY,
  });
  for await (const line of lines) {
    if (line.trim() !== '') postings.push(JSON.parse(line) as JobSource);
    if (postings.length >= count) break;
  }
  lines.close();
  return postings;
}

let receiver: BenchProcess | undefined;
/** the webhook worker's process with `--webhooks-apart`, while it runs */
let webhookWorker: BenchProcess | undefined;
/** the webhook thread's kernel id (the default layout, as `npm run worker`), while it runs */
let webhookThreadId: number | undefined;
/** the CPU of the webhook thread once stopped (still in this process's figure) */
let webhookThreadEndedMs = 0;
if (options.webhooksApart && options.webhooksInline)
  throw new Error('--webhooks-apart and --webhooks-inline: one layout at a time');
const webhooksLayout = options.webhooksApart ? 'apart' : options.webhooksInline ? 'inline' : 'thread';

/**
 * Until the engine merges none of the bench's segments (twice in a row, half a second apart):
 * the floor followed the load at once, and its time moved by half with the merges the load left
 * running (9.5-15 s for the same batches); the watched batches wait the same way.
 */
async function mergesSettled(): Promise<void> {
  const giveUpAt = Date.now() + 600_000;
  for (let quiet = 0; quiet < 2; ) {
    if (Date.now() > giveUpAt) throw new Error('the engine still merges after 10 minutes');
    await new Promise((resolve) => setTimeout(resolve, 500));
    const { body } = await client.indices.stats({ index: `${prefix}*`, metric: 'merge' });
    quiet = (body._all?.total?.merges?.current ?? 0) === 0 ? quiet + 1 : 0;
  }
}

/**
 * CPU time so far (ms) of this process (the indexer, and with `--webhooks-inline` the
 * dispatcher and the deliveries; the webhook thread's time taken out), Redis, the receiver,
 * the engine, and the webhook worker when it runs on a thread or in a process of its own (0
 * inline).
 */
type CpuSnapshot = { bench: number; redis: number; receiver: number; engine: number; webhookWorker: number };

async function cpuNow(): Promise<CpuSnapshot> {
  const usage = process.cpuUsage();
  const thread = webhookThreadId === undefined ? 0 : processCpuMs(process.pid, webhookThreadId);
  const info = await redis.info('cpu');
  const seconds = (name: string) => Number(info.match(new RegExp(`${name}:([0-9.]+)`))?.[1] ?? 0);
  return {
    bench: (usage.user + usage.system) / 1000 - thread - webhookThreadEndedMs,
    redis: (seconds('used_cpu_user') + seconds('used_cpu_sys')) * 1000,
    receiver: receiver ? processCpuMs(receiver.pid) : 0,
    engine: await engineCpuMs(client),
    webhookWorker: webhookWorker ? processCpuMs(webhookWorker.pid) : thread,
  };
}

type Percolations = { requests: number; engineMs: number };

/**
 * The percolator index's searches so far: how many (one a rebuild round, a shard each) and the
 * engine's time in them. A phase's count tells how many rounds its batches were rebuilt in.
 */
async function percolationsNow(): Promise<Percolations> {
  const { body } = await client.indices.stats({
    index: `${prefix}${queriesIndexes.corporates}`,
    metric: 'search',
  });
  const search = body._all?.primaries?.search;
  return { requests: search?.query_total ?? 0, engineMs: search?.query_time_in_millis ?? 0 };
}

const percolationsSpent = (from: Percolations, to: Percolations): Percolations => ({
  requests: to.requests - from.requests,
  engineMs: to.engineMs - from.engineMs,
});

/** CPU spent between two snapshots, in seconds to a tenth. */
const cpuSpent = (from: CpuSnapshot, to: CpuSnapshot) =>
  Object.fromEntries(
    (Object.keys(from) as Array<keyof CpuSnapshot>).map((key) => [
      key,
      Math.round((to[key] - from[key]) / 100) / 10,
    ]),
  );

const stores = async () => {
  await deleteKeys(redis, `${prefix}*`);
};

try {
  const { files } = await benchDataSet(`c${options.companies}-j${options.jobs}-s1-2026-11-20`, {
    companies: options.companies,
    jobs: options.jobs,
    seed: 1,
    now: new Date('2026-11-20T00:00:00Z'),
  });
  await dropIndices(client, prefix);
  await stores();
  await bootstrapIndices(client, prefix);
  log('ingesting ...');
  await ingestFiles(files, { client, indexPrefix: prefix, deadLetter: new MemoryDeadLetter() });
  const source = await firstPostings(files[1] as string, 20_000);
  // the receiver in a process of its own (bench/webhook-receiver.ts): a customer's server is
  // not on the worker's thread
  mkdirSync(path.join(projectRoot, 'bench-reports'), { recursive: true });
  receiver = await startNodeProcess({
    script: benchScript('bench/webhook-receiver.ts'),
    env: {},
    logFile: path.join(projectRoot, 'bench-reports', 'webhook-receiver.log'),
    readyPath: '/health',
  });
  const receiverUrl = `${receiver.url}/hook`;
  const delivered = async () => Number(await (await fetch(`${receiver?.url}/count`)).text());
  const indexer = createIndexerWorker({
    opensearch: client,
    indexPrefix: prefix,
    connection,
    redisPrefix: prefix,
    logger: quiet,
  });

  // the floor: the same batches, nothing watched
  await mergesSettled();
  log(`floor: ${options.batches} batches of ${options.batchPostings} postings, nothing watched`);
  const floorStarted = Date.now();
  const floorCpu = await cpuNow();
  await runBatches(source, 0);
  const floorMs = Date.now() - floorStarted;
  const floorCpuEnd = await cpuNow();

  // watched: every search with a webhook; the first sighting records the members (no webhook yet)
  await registerWatched(client, prefix, new Membership(redis, prefix).queryFields, options.searches, [
    'hiringActivity',
  ]);
  await rebuildCompanies(client, prefix, await companies(), { watch: new Membership(redis, prefix) });
  const store = new WebhookStore(redis, prefix);
  for (let i = 0; i < options.searches; i++)
    await store.create(
      'bench',
      {
        savedSearchId: benchSearchId(i),
        url: receiverUrl,
        events: ['company.entered', 'company.left', 'company.changed'],
      },
      options.searches,
    );
  const hooks = options.webhooksApart
    ? await startNodeProcess({
        script: benchScript('bench/webhook-worker-process.ts'),
        env: { REDIS_URL: redisUrl, BENCH_PREFIX: prefix },
        logFile: path.join(projectRoot, 'bench-reports', 'webhook-worker.log'),
        readyPath: '/health',
      }).then((worker) => {
        webhookWorker = worker;
        return {
          close: () => {
            webhookWorker = undefined;
            return worker.stop();
          },
        };
      })
    : options.webhooksInline
      ? startWebhookWorker({
          connection,
          redis,
          redisPrefix: prefix,
          config: { ...defaultConfig().webhooks, allowLoopback: true },
          logger: quiet,
        })
      : await startWebhookThread(
          {
            redisUrl,
            redisPrefix: prefix,
            config: { ...defaultConfig().webhooks, allowLoopback: true, nice: options.webhookNice },
            logLevel: 'silent',
          },
          (error) => {
            throw error;
          },
        ).then((thread) => {
          webhookThreadId = thread.priority?.threadId;
          return {
            close: async () => {
              // the thread's time stays in this process's figure: taken out from here on (read
              // before it ends, while /proc still lists it)
              webhookThreadEndedMs += processCpuMs(process.pid, webhookThreadId);
              webhookThreadId = undefined;
              await thread.close();
            },
          };
        });
  await mergesSettled();
  log(`watched: ${options.searches} searches with webhooks; the same batches`);
  const watchedStarted = Date.now();
  const watchedCpu = await cpuNow();
  const watchedPercolations = await percolationsNow();
  const queued = await runBatches(source, options.batches);
  const watchedMs = Date.now() - watchedStarted;
  const watchedCpuEnd = await cpuNow();
  const watchedPercolationsEnd = await percolationsNow();
  // every change found is sent: wait until as many arrived as the streams hold after the cursors
  let expected = 0;
  for (let i = 0; i < options.searches; i++) {
    const cursorStart = queued[0] ?? 0;
    expected += (await redis.xrange(`${prefix}ss-changes:${benchSearchId(i)}`, `${cursorStart}-0`, '+'))
      .length;
  }
  const deadline = Date.now() + 120_000;
  while ((await delivered()) < expected && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 100));
  const drainedCpu = await cpuNow();
  const arrivals = (await (await fetch(`${receiver.url}/arrivals`)).json()) as Array<{
    at: number;
    createdAt: string;
  }>;
  await hooks.close();
  // the watch alone: new batches, every search still watched, no dispatcher or delivery running
  let watchAloneMs: number | null = null;
  let watchAloneCpu: Record<string, number> | null = null;
  let watchAlonePercolations: Percolations | null = null;
  if (options.watchAlone) {
    await mergesSettled();
    log(`watch alone: ${options.batches} more batches, the webhook worker stopped`);
    const aloneStarted = Date.now();
    const aloneCpu = await cpuNow();
    const alonePercolations = await percolationsNow();
    await runBatches(source, 2 * options.batches);
    watchAloneMs = Date.now() - aloneStarted;
    watchAloneCpu = cpuSpent(aloneCpu, await cpuNow());
    watchAlonePercolations = percolationsSpent(alonePercolations, await percolationsNow());
  }
  // the floor again, every search unregistered: the first follows the load, and at 1,000,000
  // postings it has run twice as slow as the batches after it (the engine's caches still cold)
  let floorAfterMs: number | null = null;
  let floorAfterCpu: Record<string, number> | null = null;
  if (options.floorAfter) {
    await registerWatched(client, prefix, new Membership(redis, prefix).queryFields, 0, []);
    await mergesSettled();
    log(`floor after: ${options.batches} more batches, nothing watched`);
    const afterStarted = Date.now();
    const afterCpu = await cpuNow();
    await runBatches(source, 3 * options.batches);
    floorAfterMs = Date.now() - afterStarted;
    floorAfterCpu = cpuSpent(afterCpu, await cpuNow());
  }
  await indexer.close();

  const latencies: number[] = [];
  const afterFound: number[] = [];
  for (const { at, createdAt } of arrivals) {
    const found = Date.parse(createdAt);
    const batchQueued = [...queued].reverse().find((t) => t <= found) ?? queued[0] ?? found;
    latencies.push(at - batchQueued);
    afterFound.push(at - found);
  }
  latencies.sort((a, b) => a - b);
  afterFound.sort((a, b) => a - b);
  const figures = {
    companies: options.companies,
    postings: options.jobs,
    // where the dispatcher and the deliveries ran: a thread at `webhookNice` (as `npm run
    // worker`), this process's thread (inline), or a process of their own (apart)
    webhooks: webhooksLayout,
    ...(webhooksLayout === 'thread' ? { webhookNice: options.webhookNice } : {}),
    searches: options.searches,
    batches: options.batches,
    batchPostings: options.batchPostings,
    eventsFound: expected,
    eventsDelivered: arrivals.length,
    ingestedToDeliveredMs: {
      p50: percentile(latencies, 50),
      p95: percentile(latencies, 95),
      max: latencies.at(-1) ?? null,
    },
    foundToDeliveredMs: {
      p50: percentile(afterFound, 50),
      p95: percentile(afterFound, 95),
      max: afterFound.at(-1) ?? null,
    },
    batchesMs: {
      floor: floorMs,
      watched: watchedMs,
      ratio: floorMs / watchedMs,
      ...(watchAloneMs === null ? {} : { watchAlone: watchAloneMs, watchAloneRatio: floorMs / watchAloneMs }),
      ...(floorAfterMs === null
        ? {}
        : {
            floorAfter: floorAfterMs,
            ratioAfter: floorAfterMs / watchedMs,
            ...(watchAloneMs === null ? {} : { watchAloneRatioAfter: floorAfterMs / watchAloneMs }),
          }),
    },
    // CPU seconds of each process over each part: the batches of each phase, and the deliveries
    // still running after the watched batches ended (until every event arrived)
    cpuSeconds: {
      floor: cpuSpent(floorCpu, floorCpuEnd),
      watched: cpuSpent(watchedCpu, watchedCpuEnd),
      watchedDrain: cpuSpent(watchedCpuEnd, drainedCpu),
      ...(watchAloneCpu ? { watchAlone: watchAloneCpu } : {}),
      ...(floorAfterCpu ? { floorAfter: floorAfterCpu } : {}),
    },
    // the rebuild rounds' percolations over each watched phase, and the engine's time in them
    percolations: {
      watched: percolationsSpent(watchedPercolations, watchedPercolationsEnd),
      ...(watchAlonePercolations ? { watchAlone: watchAlonePercolations } : {}),
    },
  };
  log(JSON.stringify(figures));
  const dir = path.join(projectRoot, 'bench-reports');
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `webhook-latency-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, `${JSON.stringify(figures, null, 2)}\n`);
  log(`report: ${path.relative(projectRoot, file)}`);
} finally {
  await receiver?.stop();
  await dropIndices(client, prefix);
  await stores();
  redis.disconnect();
  connection.disconnect();
  await client.close();
}
