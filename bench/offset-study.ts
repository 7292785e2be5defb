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
import { corporateSearch, jobSearch } from '../src/catalogue/searches.js';
import { cliProgram, positiveWholeNumber } from '../src/cli.js';
import { loadConfigOrExit } from '../src/config.js';
import { projectRoot } from '../src/local/opensearch-node.js';
import { createOpenSearchClient } from '../src/opensearch/client.js';
import { compileSearch } from '../src/search/compile-search.js';
import { parseSearchRequest } from '../src/search/parse-request.js';
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

async function main() {
  const config = loadConfigOrExit();
  if (!config.opensearchUrl) throw new Error('set OPENSEARCH_URL');
  const client = createOpenSearchClient(config.opensearchUrl);
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
  const out = path.join(projectRoot, 'bench-reports');
  mkdirSync(out, { recursive: true });
  const file = path.join(out, `offsets-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  writeFileSync(
    file,
    `${JSON.stringify({ prefix: options.prefix, mix: mixRows, sweep: sweepRows }, null, 2)}\n`,
  );
  log(`written ${path.relative(projectRoot, file)}`);
  await client.close();
}

await main();
