/**
 * The documents one load leaves, written out so that two versions of the pipeline can be
 * compared byte for byte: `files` go through `ingestFiles` (indexer/ingest.ts) into fresh
 * indices of `--prefix` with a fixed clock, then every document of corporates, jobs and
 * job-details is written as one `<index>\t<id>\t<_source as JSON>` line, sorted by index and id,
 * to `--out`, with one line per company counting its nested postings and those with their
 * detail text (indexed, not in `_source`); the counts and the sha256 of the file are printed
 * and the indices deleted.
 *
 *   OPENSEARCH_URL=http://127.0.0.1:9201 npx tsx bench/ingest-documents.ts \
 *     --prefix docs-a- --out a.tsv .local/data/corporates.ndjson .local/data/jobs.ndjson
 *   (the same with the other version of the code, then `cmp a.tsv b.tsv`)
 */

import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { API } from '@opensearch-project/opensearch';
import { FileDeadLetter } from '../indexer/dead-letter.js';
import { ingestFiles } from '../indexer/ingest.js';
import { cliProgram } from '../ops/cli.js';
import { scan } from '../ops/engine/scan.js';
import { createEngine, type Engine } from '../src/opensearch/engine.js';
import { bootstrapIndices, dropIndices, indexName } from '../src/opensearch/indices.js';

const program = cliProgram('ingest-documents', 'Load files with a fixed clock and write the sorted documents')
  .requiredOption('--prefix <prefix>', 'index prefix of the load (its indices are deleted after)')
  .requiredOption('--out <file>', 'where the sorted documents go')
  .option('--now <instant>', "the load's clock", '2026-11-20T03:00:00.000Z')
  .argument('<files...>', 'NDJSON source files')
  .parse();

const options = program.opts<{ prefix: string; out: string; now: string }>();
const files = program.args;

/** Every `_source` of one index as sorted lines (each index's own key is the scan's total order). */
async function documentLines(client: Engine, name: string): Promise<string[]> {
  const index = indexName(options.prefix, name);
  const key = name === 'corporates' ? 'corporateNumber' : 'id';
  const lines: string[] = [];
  for await (const page of scan(client, { index, query: { match_all: {} }, sort: [{ [key]: 'asc' }] }))
    for (const hit of page) lines.push(`${name}\t${hit.id}\t${JSON.stringify(hit.source)}`);
  return lines.sort();
}

/**
 * Per company, its nested postings and those with their detail text: the text is indexed
 * but kept out of `_source` (mappings/corporates.json), so a scan alone would not show it.
 */
async function nestedTextLines(client: Engine, companies: number): Promise<string[]> {
  const { body } = await client.search({
    index: indexName(options.prefix, 'corporates'),
    body: {
      size: 0,
      // the typings of a terms aggregation leave out `field`
      aggs: {
        companies: {
          terms: { field: 'corporateNumber', size: Math.max(companies, 1) },
          aggs: {
            postings: {
              nested: { path: 'postings' },
              aggs: { withText: { filter: { exists: { field: 'postings.description' } } } },
            },
          },
        },
      },
    } as API.Search_RequestBody,
  });
  type Bucket = { key: string; postings: { doc_count: number; withText: { doc_count: number } } };
  const { buckets } = (body.aggregations as { companies: { buckets: Bucket[] } }).companies;
  return buckets
    .map(
      (bucket) =>
        `nested-text\t${bucket.key}\t${bucket.postings.doc_count} ${bucket.postings.withText.doc_count}`,
    )
    .sort();
}

const url = process.env.OPENSEARCH_URL;
if (!url) throw new Error('OPENSEARCH_URL names the engine to load into');
const client = createEngine(url);
try {
  await dropIndices(client, options.prefix);
  await bootstrapIndices(client, options.prefix);
  const now = new Date(options.now);
  const result = await ingestFiles(files, {
    client: client.writer(),
    indexPrefix: options.prefix,
    deadLetter: new FileDeadLetter(path.join(tmpdir(), `${options.prefix}dead-letters.ndjson`)),
    now: () => now,
  });
  await client.indices.refresh({ index: `${options.prefix}*` });
  const lines: string[] = [];
  for (const name of ['corporates', 'jobs', 'job-details']) {
    const part = await documentLines(client, name);
    process.stdout.write(`${name}: ${part.length} documents\n`);
    lines.push(...part);
    if (name === 'corporates') lines.push(...(await nestedTextLines(client, part.length)));
  }
  const text = `${lines.join('\n')}\n`;
  writeFileSync(options.out, text);
  process.stdout.write(
    `report ${JSON.stringify(result.report)}; rebuilt ${result.rebuild.rebuilt}, fanned out ${result.rebuild.fannedOut}\n`,
  );
  process.stdout.write(`sha256 ${createHash('sha256').update(text).digest('hex')}  ${options.out}\n`);
} finally {
  await dropIndices(client, options.prefix);
  await client.close();
}
