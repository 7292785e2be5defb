/**
 * What watching saved searches costs the company rebuild (the step every ingested posting goes
 * through): the same companies rebuilt without a watch, then with 1,000 and 10,000 watched
 * company searches in the percolator (src/saved-searches/watch.ts), then, with no company
 * search, 1,000 and 10,000 watched job searches (every posting of each rebuilt company
 * percolated), each rebuild timed in the same run on the same engine. The searches are drawn
 * from the filters sales lists and agencies use (./watched-searches.ts), so most of them match
 * few records, as saved lists do. Writes bench-reports/watch-cost-<time>.json.
 *
 *   OPENSEARCH_URL=http://127.0.0.1:9201 REDIS_URL=redis://127.0.0.1:6379 \
 *     npx tsx bench/watch-cost.ts --companies 5000 --jobs 50000 --searches 1000,10000 --job-searches 1000,10000
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Redis } from 'ioredis';
import { MemoryDeadLetter } from '../indexer/dead-letter.js';
import { ingestFiles } from '../indexer/ingest.js';
import { rebuildCompanies } from '../indexer/rebuild.js';
import { cliProgram, positiveWholeNumber } from '../ops/cli.js';
import { createEngine } from '../src/opensearch/engine.js';
import { bootstrapIndices, dropIndices } from '../src/opensearch/indices.js';
import { projectRoot } from '../src/project-root.js';
import { Membership } from '../src/saved-searches/membership.js';
import { benchDataSet } from './data-set.js';
import { deleteKeys } from './redis-keys.js';
import { corporateNumbers, registerWatched } from './watched-searches.js';

const options = cliProgram('bench:watch-cost', 'The company rebuild with and without watched saved searches')
  .option('--companies <n>', 'companies in the data set', positiveWholeNumber, 5000)
  .option('--jobs <n>', 'postings in the data set', positiveWholeNumber, 50_000)
  .option('--searches <list>', 'watched company searches per measurement, comma-separated', '1000,10000')
  .option(
    '--job-searches <list>',
    'watched job searches per measurement, comma-separated (none: "")',
    '1000,10000',
  )
  .parse()
  .opts<{ companies: number; jobs: number; searches: string; jobSearches: string }>();

const url = process.env.OPENSEARCH_URL;
const redisUrl = process.env.REDIS_URL;
if (!url || !redisUrl) throw new Error('OPENSEARCH_URL and REDIS_URL name the engine and the Redis to use');

const prefix = 'bench-watch-';
const client = createEngine(url);
const redis = new Redis(redisUrl);
const queryFields = new Membership(redis, prefix).queryFields;
const log = (line: string) => console.log(`${new Date().toISOString().slice(11, 19)} ${line}`);

async function watch(count: number): Promise<void> {
  await registerWatched(client, prefix, queryFields, count, ['employeeCount']);
}

const companies = () => corporateNumbers(client, prefix);

/** The bench's sightings in Redis (a run stopped before its end leaves them). */
async function dropWatchState(): Promise<void> {
  await deleteKeys(redis, `${prefix}ss-*`);
}

async function timedRebuild(all: string[], membership?: Membership): Promise<number> {
  const started = performance.now();
  await rebuildCompanies(client, prefix, all, membership ? { watch: membership } : {});
  return (performance.now() - started) / 1000;
}

try {
  const { files } = await benchDataSet(`c${options.companies}-j${options.jobs}-s1-2026-11-20`, {
    companies: options.companies,
    jobs: options.jobs,
    seed: 1,
    now: new Date('2026-11-20T00:00:00Z'),
  });
  await dropIndices(client, prefix);
  await bootstrapIndices(client, prefix);
  await dropWatchState();
  log('ingesting ...');
  await ingestFiles(files, { client, indexPrefix: prefix, deadLetter: new MemoryDeadLetter() });
  const all = await companies();
  const membership = new Membership(redis, `${prefix}`);
  type Figure = {
    searches: number;
    seconds: number;
    companiesPerSecond: number;
    ratio: number;
    /** the first rebuild after the searches were registered: every record new to the watch */
    firstSeconds?: number;
  };
  const figures: Figure[] = [];
  const jobSearchFigures: Figure[] = [];
  // warm: one rebuild of everything before the timed ones
  await timedRebuild(all);
  const without = await timedRebuild(all);
  log(`rebuild of ${all.length} companies without a watch: ${without.toFixed(1)} s`);
  figures.push({ searches: 0, seconds: without, companiesPerSecond: all.length / without, ratio: 1 });
  for (const count of options.searches.split(',').map(Number)) {
    await watch(count);
    await dropWatchState();
    // the first sighting records every member; the timed one compares with it
    const firstSeconds = await timedRebuild(all, membership);
    const seconds = await timedRebuild(all, membership);
    const ratio = without / seconds;
    log(
      `with ${count} watched searches: first ${firstSeconds.toFixed(1)} s, then ${seconds.toFixed(1)} s (throughput ${ratio.toFixed(2)} of without)`,
    );
    figures.push({ searches: count, seconds, companiesPerSecond: all.length / seconds, ratio, firstSeconds });
  }
  await registerWatched(client, prefix, queryFields, 0, []);
  for (const count of options.jobSearches.split(',').filter(Boolean).map(Number)) {
    await registerWatched(client, prefix, queryFields, count, ['salaryMax'], 'jobs');
    await dropWatchState();
    const firstSeconds = await timedRebuild(all, membership);
    const seconds = await timedRebuild(all, membership);
    const ratio = without / seconds;
    log(
      `with ${count} watched job searches: first ${firstSeconds.toFixed(1)} s, then ${seconds.toFixed(1)} s (throughput ${ratio.toFixed(2)} of without)`,
    );
    jobSearchFigures.push({
      searches: count,
      seconds,
      companiesPerSecond: all.length / seconds,
      ratio,
      firstSeconds,
    });
  }
  const dir = path.join(projectRoot, 'bench-reports');
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `watch-cost-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  writeFileSync(
    file,
    `${JSON.stringify({ companies: all.length, postings: options.jobs, figures, jobSearchFigures }, null, 2)}\n`,
  );
  log(`report: ${path.relative(projectRoot, file)}`);
} finally {
  await dropIndices(client, prefix);
  await dropWatchState();
  redis.disconnect();
  await client.close();
}
