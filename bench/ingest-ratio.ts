/**
 * The ingestion step of `npm run bench` alone (./ingest-bench.ts), on an engine that is
 * already running, at a size that suits a shared machine; also the Node CPU each side spent.
 * Both prefixes' indices are deleted at the end.
 *
 *   OPENSEARCH_URL=http://127.0.0.1:9201 npm run -s bench:ingest -- --companies 2000 --jobs 20000 --prefix ir-
 */

import path from 'node:path';
import type { Client } from '@opensearch-project/opensearch';
import { cliProgram, positiveWholeNumber, wholeNumber } from '../ops/cli.js';
import { createOpenSearchClient } from '../src/opensearch/client.js';
import { engineOver } from '../src/opensearch/engine.js';
import { dropIndices } from '../src/opensearch/indices.js';
import { benchDataSet } from './data-set.js';
import { measureIngestion } from './ingest-bench.js';

const options = cliProgram('bench:ingest', 'Ingestion beside raw _bulk, on a running engine')
  .option('--companies <n>', 'companies in the data set', positiveWholeNumber, 2000)
  .option('--jobs <n>', 'postings in the data set', positiveWholeNumber, 20_000)
  .option('--seed <n>', 'seed of the data set', wholeNumber, 1)
  .option('--prefix <prefix>', 'index prefix (pipeline: <prefix>p-, raw: <prefix>r-)', 'bench-ingest-')
  .option('--repeat <n>', 'measurements in a row', positiveWholeNumber, 1)
  .parse()
  .opts<{ companies: number; jobs: number; seed: number; prefix: string; repeat: number }>();

const url = process.env.OPENSEARCH_URL;
if (!url) throw new Error('OPENSEARCH_URL names the engine to load into');

const { dir, files } = await benchDataSet(
  `c${options.companies}-j${options.jobs}-s${options.seed}-2026-11-20`,
  {
    ...options,
    now: new Date('2026-11-20T00:00:00Z'),
  },
);

/** Requests, bytes sent and bytes answered, per side and kind of request (`pipeline POST _bulk`). */
type Traffic = Record<string, { requests: number; sentBytes: number; answeredBytes: number }>;

function countTraffic(bulkClient: Client, side: () => string | undefined): Traffic {
  const traffic: Traffic = {};
  bulkClient.on('response', (_error, result) => {
    const name = side();
    const params = result?.meta?.request?.params;
    if (!name || !params) return;
    const kind = `${name} ${params.method} ${(params.path.match(/\/_[a-z_]+/g) ?? ['/']).join('')}`;
    const body = params.body as unknown;
    const sent =
      typeof body === 'string' ? Buffer.byteLength(body) : body ? Buffer.byteLength(JSON.stringify(body)) : 0;
    const answered = Number(result?.headers?.['content-length'] ?? 0);
    const entry = traffic[kind] ?? { requests: 0, sentBytes: 0, answeredBytes: 0 };
    traffic[kind] = entry;
    entry.requests++;
    entry.sentBytes += sent;
    entry.answeredBytes += answered;
  });
  return traffic;
}

// the client's response events count the traffic; the engine port writes through it
const rawClient = createOpenSearchClient(url);
const client = engineOver(rawClient);
const pipelinePrefix = `${options.prefix}p-`;
const rawPrefix = `${options.prefix}r-`;
try {
  for (let round = 1; round <= options.repeat; round++) {
    // Node's own CPU, per side: the log lines mark where each side starts and ends
    const marks: Record<string, NodeJS.CpuUsage> = {};
    let side: string | undefined;
    const bulkClient = client.writer();
    const traffic = countTraffic(rawClient, () => side);
    const figures = await measureIngestion({
      client: bulkClient,
      files,
      pipelinePrefix,
      rawPrefix,
      dumpFile: path.join(dir, `${options.prefix}final-documents.bulk.ndjson`),
      deadLetterFile: path.join(dir, `${options.prefix}dead-letter.ndjson`),
      batchSize: 1000,
      log: (line) => {
        if (line.startsWith('ingest: project pipeline')) {
          marks.pipeline = process.cpuUsage();
          side = 'pipeline';
        }
        if (line.startsWith('ingest: pipeline ')) {
          marks.pipelineEnd = process.cpuUsage(marks.pipeline);
          side = undefined;
        }
        if (line.startsWith('ingest: raw _bulk of')) {
          marks.raw = process.cpuUsage();
          side = 'raw';
        } else if (line.startsWith('ingest: raw _bulk ') && marks.raw) {
          marks.rawEnd = process.cpuUsage(marks.raw);
          side = undefined;
        }
        process.stderr.write(`${line}\n`);
      },
    });
    const cpu = (usage: NodeJS.CpuUsage | undefined) =>
      usage ? Math.round((usage.user + usage.system) / 1000) / 1000 : null;
    const ratio = Math.round((figures.pipeline.docsPerSecond / figures.rawBulk.docsPerSecond) * 100) / 100;
    process.stdout.write(
      `${JSON.stringify({ round, ratio, ...figures, nodeCpuSeconds: { pipeline: cpu(marks.pipelineEnd), raw: cpu(marks.rawEnd) }, traffic })}\n`,
    );
  }
} finally {
  await dropIndices(client, pipelinePrefix);
  await dropIndices(client, rawPrefix);
  await client.close();
}
