/**
 * The data set of the offset study (bench/offset-walk.ts), loaded through the project's
 * pipeline into `--prefix` on OPENSEARCH_URL: the bench's default set (20,000 companies /
 * 200,000 postings, seed 1), generated under .local/bench-data/ (reused when present).
 *
 *   OPENSEARCH_URL=http://127.0.0.1:9201 npx tsx bench/offset-data.ts --prefix bench-offset-
 */

import path from 'node:path';
import { FileDeadLetter } from '../indexer/dead-letter.js';
import { ingestFiles } from '../indexer/ingest.js';
import { cliProgram, positiveWholeNumber } from '../ops/cli.js';
import { projectRoot } from '../ops/local/opensearch-node.js';
import { loadConfigOrExit } from '../src/config.js';
import { createEngine } from '../src/opensearch/engine.js';
import { bootstrapIndices, indexName } from '../src/opensearch/indices.js';
import { benchDataSet } from './data-set.js';

const options = cliProgram('offset-data', 'Load the offset study data set')
  .option('--companies <n>', 'companies', positiveWholeNumber, 20_000)
  .option('--jobs <n>', 'postings', positiveWholeNumber, 200_000)
  .option('--prefix <prefix>', 'index prefix', 'bench-offset-')
  .parse()
  .opts<{ companies: number; jobs: number; prefix: string }>();

const log = (line: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${line}\n`);

async function main() {
  const config = loadConfigOrExit();
  if (!config.opensearchUrl) throw new Error('set OPENSEARCH_URL');
  const now = new Date();
  const day = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  const { dir } = await benchDataSet(
    `c${options.companies}-j${options.jobs}-s1-${day.toISOString().slice(0, 10)}`,
    { companies: options.companies, jobs: options.jobs, seed: 1, now: day },
    log,
  );
  const client = createEngine(config.opensearchUrl);
  await bootstrapIndices(client, options.prefix);
  log(`ingesting into ${options.prefix}*`);
  await ingestFiles([path.join(dir, 'corporates.ndjson'), path.join(dir, 'jobs.ndjson')], {
    client: client.writer(),
    indexPrefix: options.prefix,
    deadLetter: new FileDeadLetter(path.join(projectRoot, '.local', 'bench', 'offset-dead-letter.ndjson')),
    batchSize: 1000,
  });
  await client.indices.refresh({ index: `${options.prefix}*` });
  const jobs = (await client.count({ index: indexName(options.prefix, 'jobs') })).body.count;
  log(`done: ${jobs} postings`);
  await client.close();
}

await main();
