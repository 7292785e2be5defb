/**
 * Ingestion throughput: the project's pipeline (indexer/ingest.ts: validation, transform,
 * bulk writes, company rebuilds with their fan-out) from the NDJSON source files into one
 * prefix, beside raw `_bulk` of the same final documents (read back from the pipeline's
 * indices) into a second prefix, with the same batch size and two requests in flight.
 */
import { once } from 'node:events';
import { createReadStream, createWriteStream, type WriteStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { FileDeadLetter } from '../indexer/dead-letter.js';
import { ingestFiles } from '../indexer/ingest.js';
import { bulkRequestLimits, sendRawBulk } from '../ops/engine/bulk.js';
import { getSources } from '../src/opensearch/documents.js';
import type { Engine } from '../src/opensearch/engine.js';
import { bootstrapIndices, dropIndices, indexName } from '../src/opensearch/indices.js';
import { withRetry } from '../src/opensearch/retry.js';

export interface IngestFigures {
  documents: { corporates: number; jobs: number; jobDetails: number; postingHistory: number; total: number };
  pipeline: { seconds: number; recordsSeconds: number; rebuildSeconds: number; docsPerSecond: number };
  rawBulk: { seconds: number; docsPerSecond: number };
  rejected: number;
}

// the posting history is written by the company rebuild (indexer/hiring-activity.ts): the raw
// load writes it too, so both sides write the same final documents
const indices = ['corporates', 'jobs', 'job-details', 'posting-history'] as const;

async function count(client: Engine, index: string): Promise<number> {
  const { body } = await client.count({ index });
  return body.count;
}

async function write(stream: WriteStream, text: string): Promise<void> {
  if (!stream.write(text)) await once(stream, 'drain');
}

/**
 * Writes every document of the pipeline's indices as `_bulk` lines for `rawPrefix`. The
 * corporates `_source` leaves out `postings.description` (mappings/corporates.json), so the
 * searchable text is put back from the jobs index: the raw load then indexes what the
 * pipeline indexed.
 */
async function dumpFinalDocuments(
  client: Engine,
  pipelinePrefix: string,
  rawPrefix: string,
  file: string,
): Promise<void> {
  const out = createWriteStream(file);
  for (const name of indices) {
    const source = indexName(pipelinePrefix, name);
    const target = indexName(rawPrefix, name);
    let { body } = await client.search({ index: source, scroll: '2m', size: 500, body: { sort: ['_doc'] } });
    while (body.hits.hits.length > 0) {
      const hits = body.hits.hits as Array<{ _id: string; _source: Record<string, unknown> }>;
      if (name === 'corporates') await restorePostingText(client, pipelinePrefix, hits);
      for (const hit of hits) {
        await write(out, `${JSON.stringify({ index: { _index: target, _id: hit._id } })}\n`);
        await write(out, `${JSON.stringify(hit._source)}\n`);
      }
      ({ body } = await client.scroll({ scroll_id: body._scroll_id as string, scroll: '2m' }));
    }
    if (body._scroll_id) await client.clearScroll({ scroll_id: body._scroll_id });
  }
  out.end();
  await once(out, 'finish');
}

async function restorePostingText(
  client: Engine,
  prefix: string,
  hits: Array<{ _source: Record<string, unknown> }>,
): Promise<void> {
  // a nested posting carries text exactly when the rebuild found it recent: it then keeps
  // its descriptionCollectedAt and the jobs document holds the same text
  const wanted = new Map<string, Record<string, unknown>[]>();
  for (const hit of hits) {
    for (const posting of (hit._source.postings ?? []) as Record<string, unknown>[]) {
      const list = wanted.get(posting.id as string) ?? [];
      list.push(posting);
      wanted.set(posting.id as string, list);
    }
  }
  const ids = [...wanted.keys()];
  for (let i = 0; i < ids.length; i += 1000) {
    const docs = await getSources(client, indexName(prefix, 'jobs'), ids.slice(i, i + 1000), {
      includes: ['description', 'descriptionCollectedAt'],
    });
    for (const doc of docs) {
      for (const posting of wanted.get(doc.id) ?? []) posting.description = null;
      if (!doc.source) continue;
      for (const posting of wanted.get(doc.id) ?? []) posting.description = doc.source.description ?? null;
    }
  }
}

/**
 * `_bulk` of the dumped lines, `inFlight` requests at once, each request cut as the pipeline
 * cuts its own (`bulkRequestLimits`: at most `batch` documents and about 8 MiB; a company with
 * thousands of postings is a document of tens of MB, and 1,000 of them together pass the
 * engine's request size limit). A request whose answer holds fewer items than it sent, or any
 * failed item, counts as a failure and fails the run.
 */
async function rawBulk(client: Engine, file: string, batch: number, inFlight: number) {
  const running = new Set<Promise<void>>();
  let failures = 0;
  const send = (lines: string[]) => {
    // a request the engine turned away whole (overloaded, timed out) is sent again, as the
    // pipeline's own writes are (src/opensearch/retry.ts)
    const text = `${lines.join('\n')}\n`;
    const request = withRetry(() => sendRawBulk(client, text))
      .then((answer) => {
        if (answer.errors || answer.items !== lines.length / 2) failures++;
      })
      .finally(() => running.delete(request));
    running.add(request);
    return request;
  };
  const maxDocs = Math.min(batch, bulkRequestLimits.maxOps);
  let lines: string[] = [];
  let sourceChars = 0;
  for await (const line of createInterface({
    input: createReadStream(file),
    crlfDelay: Number.POSITIVE_INFINITY,
  })) {
    const isSource = lines.length % 2 === 1;
    if (
      !isSource &&
      lines.length > 0 &&
      (lines.length >= maxDocs * 2 || sourceChars > bulkRequestLimits.maxBytes)
    ) {
      send(lines);
      lines = [];
      sourceChars = 0;
      if (running.size >= inFlight) await Promise.race(running);
    }
    lines.push(line);
    if (isSource) sourceChars += line.length;
  }
  if (lines.length > 0) send(lines);
  await Promise.all(running);
  if (failures > 0) throw new Error(`raw _bulk: ${failures} requests had rejected or missing items`);
}

/**
 * 1. pipeline load into `pipelinePrefix` (fresh indices), refresh;
 * 2. the final documents into `dumpFile`;
 * 3. raw `_bulk` of them into `rawPrefix` (fresh indices), refresh.
 */
export async function measureIngestion(options: {
  client: Engine;
  files: string[];
  pipelinePrefix: string;
  rawPrefix: string;
  dumpFile: string;
  deadLetterFile: string;
  batchSize: number;
  log: (line: string) => void;
}): Promise<IngestFigures> {
  const { client, pipelinePrefix, rawPrefix } = options;
  await dropIndices(client, pipelinePrefix);
  await bootstrapIndices(client, pipelinePrefix);
  options.log('ingest: project pipeline (npm run ingest path) ...');
  const started = performance.now();
  const result = await ingestFiles(options.files, {
    client,
    indexPrefix: pipelinePrefix,
    deadLetter: new FileDeadLetter(options.deadLetterFile),
    batchSize: options.batchSize,
  });
  await client.indices.refresh({ index: `${pipelinePrefix}*` });
  const pipelineSeconds = (performance.now() - started) / 1000;
  const documents = {
    corporates: await count(client, indexName(pipelinePrefix, 'corporates')),
    jobs: await count(client, indexName(pipelinePrefix, 'jobs')),
    jobDetails: await count(client, indexName(pipelinePrefix, 'job-details')),
    postingHistory: await count(client, indexName(pipelinePrefix, 'posting-history')),
    total: 0,
  };
  documents.total = documents.corporates + documents.jobs + documents.jobDetails + documents.postingHistory;
  const rejected = Object.values(result.report).reduce((sum, counts) => sum + counts.rejected, 0);
  options.log(
    `ingest: pipeline ${documents.total} documents in ${pipelineSeconds.toFixed(1)} s ` +
      `(records ${result.seconds.records.toFixed(1)} s, rebuilds ${result.seconds.rebuild.toFixed(1)} s)`,
  );

  options.log('ingest: dumping the final documents for the raw _bulk ...');
  await dumpFinalDocuments(client, pipelinePrefix, rawPrefix, options.dumpFile);
  await dropIndices(client, rawPrefix);
  await bootstrapIndices(client, rawPrefix);
  options.log('ingest: raw _bulk of the same documents ...');
  const rawStarted = performance.now();
  await rawBulk(client, options.dumpFile, options.batchSize, 2);
  await client.indices.refresh({ index: `${rawPrefix}*` });
  const rawSeconds = (performance.now() - rawStarted) / 1000;
  const countRaw = () => Promise.all(indices.map((name) => count(client, indexName(rawPrefix, name))));
  let rawCounts = await countRaw();
  if (rawCounts.reduce((a, b) => a + b, 0) !== documents.total) {
    // once more after a second refresh: a short count right after the load must not be a
    // refresh that had not reached every shard yet
    await client.indices.refresh({ index: `${rawPrefix}*` });
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const again = await countRaw();
    options.log(
      `ingest: raw count ${rawCounts.join('/')} at first, ${again.join('/')} after a second refresh`,
    );
    rawCounts = again;
  }
  const rawCount = rawCounts.reduce((a, b) => a + b, 0);
  if (rawCount !== documents.total)
    throw new Error(
      `raw _bulk indexed ${rawCount} documents (${indices.map((name, i) => `${name} ${rawCounts[i]}`).join(', ')}), ` +
        `the pipeline ${documents.total} (corporates ${documents.corporates}, jobs ${documents.jobs}, job-details ${documents.jobDetails}, posting-history ${documents.postingHistory})`,
    );
  options.log(`ingest: raw _bulk ${rawCount} documents in ${rawSeconds.toFixed(1)} s`);
  const perSecond = (seconds: number) => Math.round(documents.total / seconds);
  return {
    documents,
    pipeline: {
      seconds: Math.round(pipelineSeconds * 10) / 10,
      recordsSeconds: Math.round(result.seconds.records * 10) / 10,
      rebuildSeconds: Math.round(result.seconds.rebuild * 10) / 10,
      docsPerSecond: perSecond(pipelineSeconds),
    },
    rawBulk: { seconds: Math.round(rawSeconds * 10) / 10, docsPerSecond: perSecond(rawSeconds) },
    rejected,
  };
}
