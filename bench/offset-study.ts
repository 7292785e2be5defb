/**
 * `npm run bench:offsets`: the offset queries of the bench's mix (bench/query-mix.ts) and a
 * sweep of offsets, each beside its floor before and after `walkFrom` (bench/offset-walk.ts),
 * on an engine that holds a data set under `--prefix` (bench/offset-data.ts loads one). The
 * sweep is what `walkFrom` (src/catalogue/paging.ts) was chosen from (docs/bench.md).
 *
 *   OPENSEARCH_URL=http://127.0.0.1:9201 npm run bench:offsets -- --prefix bench-offset-
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { cliProgram, positiveWholeNumber } from '../ops/cli.js';
import { projectRoot } from '../ops/local/opensearch-node.js';
import { corporateSearch, jobSearch } from '../src/catalogue/searches.js';
import { type Config, loadConfigOrExit } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import { createEngine } from '../src/opensearch/engine.js';
import { compileSearch } from '../src/search/compile-search.js';
import { closePit } from '../src/search/paging/pit.js';
import { parseSearchRequest } from '../src/search/parse-request.js';
import { searchJobs } from '../src/search/run-search.js';
import { createServices } from '../src/services.js';
import { measureOffsets, type OffsetQuery, offsetTable } from './offset-walk.js';
import { buildQueryMix } from './query-mix.js';

const options = cliProgram('bench:offsets', 'Offset pages beside their floor, from/size and walked')
  .option('--prefix <prefix>', 'index prefix of the data set', 'bench-offset-')
  .option('--amount <n>', 'requests per timing', positiveWholeNumber, 20)
  .option('--sweep <offsets>', 'offsets of the sweep, comma-separated', '250,500,1000,2000,5000,9000')
  .parse()
  .opts<{ prefix: string; amount: number; sweep: string }>();

function compiled(path: string, body: Record<string, unknown>, prefix: string) {
  const search = path.includes('corporates') ? corporateSearch : jobSearch;
  return compileSearch(search, parseSearchRequest(search, body), prefix);
}

const median = (values: number[]) =>
  Math.round(([...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0) * 100) / 100;

/**
 * The mix's job offset query through src/search with Redis, as the API runs it (no HTTP):
 * the same page asked again by one user (its place remembered), a sequential walk of pages
 * from the offset, and first visits (a new user each: a new point in time), beside from/size.
 */
async function measureInProcess(config: Config, prefix: string, amount: number) {
  const services = createServices(
    {
      ...config,
      opensearchUrl: config.opensearchUrl as string,
      indexPrefix: prefix,
      redisPrefix: `${prefix}study:`,
    },
    createLogger('silent'),
  );
  const query = buildQueryMix([]).find((entry) => entry.name.includes('deep offset 5000'));
  if (!query) return [];
  const time = async (body: Record<string, unknown>, userId: string) => {
    const started = performance.now();
    await searchJobs(services, body, { userId });
    return performance.now() - started;
  };
  const rows: Array<{ what: string; p50Ms: number }> = [];
  const measure = async (what: string, run: (i: number) => Promise<number>) => {
    const took: number[] = [];
    for (let i = 0; i < amount; i++) took.push(await run(i));
    rows.push({ what, p50Ms: median(took) });
  };
  const fromSize = { ...services.paging };
  await measure('from/size (walkFrom out of reach)', async () => {
    services.paging.walkFrom = Number.POSITIVE_INFINITY;
    const took = await time(query.body, 'study-from-size');
    services.paging.walkFrom = fromSize.walkFrom;
    return took;
  });
  await time(query.body, 'study-again');
  await measure('the same page again', () => time(query.body, 'study-again'));
  const limit = Number(query.body.limit);
  await time(query.body, 'study-walk');
  await measure('sequential pages', (i) =>
    time({ ...query.body, offset: Number(query.body.offset) + (i + 1) * limit }, 'study-walk'),
  );
  await measure('first visit (new user: point in time opened)', (i) => time(query.body, `study-first-${i}`));
  await closeStudyPits(services, `${prefix}study:`);
  await services.close();
  return rows;
}

/** The points in time the study opened (the engine holds a few hundred per node). */
async function closeStudyPits(services: ReturnType<typeof createServices>, redisPrefix: string) {
  const redis = services.redis;
  if (!redis) return;
  const keys = await redis.keys(`${redisPrefix}paging:*`);
  for (const key of keys.filter((name) => name.endsWith(':pit'))) {
    const pit = await redis.get(key);
    if (pit) await closePit(services.opensearch, pit);
  }
  if (keys.length > 0) await redis.del(...keys);
}

async function main() {
  const config = loadConfigOrExit();
  if (!config.opensearchUrl) throw new Error('set OPENSEARCH_URL');
  const client = createEngine(config.opensearchUrl);
  const mixOffsets: OffsetQuery[] = buildQueryMix([])
    .filter((query) => Number(query.body.offset) > 0)
    .map((query) => ({
      name: query.name,
      request: compiled(query.path, query.body, options.prefix),
      offset: Number(query.body.offset),
    }));
  const mixJob = buildQueryMix([]).find((query) => query.name.includes('deep offset 5000'));
  const sweepBodies = [
    { name: 'job: every posting, newest first', path: '/rest/v1/jobs/search', body: {} },
    ...(mixJob
      ? [{ name: mixJob.name.replace(/, deep offset \d+/, ''), path: mixJob.path, body: mixJob.body }]
      : []),
    { name: 'company: every company, name sort', path: '/rest/v1/corporates/search', body: {} },
  ];
  const sweep: OffsetQuery[] = sweepBodies.flatMap(({ name, path: route, body }) =>
    options.sweep.split(',').map((text) => {
      const offset = Number(text);
      return {
        name,
        request: compiled(route, { ...body, offset, limit: 25, includeTotalResults: false }, options.prefix),
        offset,
      };
    }),
  );
  const log = (line: string) => process.stderr.write(`${line}\n`);
  log(`mix offset queries (${options.amount} requests each, 1 connection, p50) ...`);
  const mixRows = await measureOffsets({
    client,
    opensearchUrl: config.opensearchUrl,
    queries: mixOffsets,
    amount: options.amount,
  });
  log(offsetTable(mixRows));
  log('sweep ...');
  const sweepRows = await measureOffsets({
    client,
    opensearchUrl: config.opensearchUrl,
    queries: sweep,
    amount: options.amount,
  });
  log(offsetTable(sweepRows));
  const inProcess = config.redisUrl ? await measureInProcess(config, options.prefix, options.amount) : [];
  for (const row of inProcess) log(`in process (src/search, Redis): ${JSON.stringify(row)}`);
  const out = path.join(projectRoot, 'bench-reports');
  mkdirSync(out, { recursive: true });
  const file = path.join(out, `offsets-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  writeFileSync(
    file,
    `${JSON.stringify({ prefix: options.prefix, mix: mixRows, sweep: sweepRows, inProcess }, null, 2)}\n`,
  );
  log(`written ${path.relative(projectRoot, file)}`);
  await client.close();
}

await main();
