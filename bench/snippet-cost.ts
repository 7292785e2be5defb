/**
 * `npm run bench:snippets`: what the snippets of a job search without a detail-text condition
 * cost the engine, the highlighter's opening (`no_match_size`, which reads each hit's text from
 * `_source`) against the opening excerpt's doc values (`descriptionOpening`,
 * src/search/opening.ts), for the job queries of the bench's mix (bench/query-mix.ts, at
 * offset 0) compiled by src/search. For each query, rounds alternate the three requests in a
 * rotating order: the highlighter (the request searches sent before), the doc values (the
 * request sent now) and the `size: 0` floor; request cache off. Medians of the engine's `took`
 * and of the round trip, and each one's ratio to the floor. Before timing, each query's two
 * answers are compared: the same snippets for every hit, and how many hits had no excerpt.
 * The data set (500 companies / 5,000 postings by default, generated with detail texts) is
 * loaded through the project's pipeline under `--prefix` and deleted by name at the end.
 *
 *   OPENSEARCH_URL=http://127.0.0.1:9201 npm run bench:snippets
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { FileDeadLetter } from '../indexer/dead-letter.js';
import { ingestFiles } from '../indexer/ingest.js';
import { cliProgram, positiveWholeNumber } from '../ops/cli.js';
import { projectRoot } from '../ops/local/opensearch-node.js';
import { jobSearch } from '../src/catalogue/searches.js';
import { createEngine, type Engine } from '../src/opensearch/engine.js';
import { bootstrapIndices, dropIndices, indexName } from '../src/opensearch/indices.js';
import { compileSearch } from '../src/search/compile-search.js';
import { openingField } from '../src/search/opening.js';
import { parseSearchRequest } from '../src/search/parse-request.js';
import { compileSnippetHighlight, openingOf, snippetsOf, toSnippets } from '../src/search/snippets.js';
import { benchDataSet } from './data-set.js';
import { buildQueryMix } from './query-mix.js';

const options = cliProgram('bench:snippets', 'Snippets: the highlighter against the opening doc values')
  .option('--prefix <prefix>', 'index prefix of the data set', 'bench-snippets-')
  .option('--companies <n>', 'companies', positiveWholeNumber, 500)
  .option('--jobs <n>', 'postings', positiveWholeNumber, 5_000)
  .option('--rounds <n>', 'measured rounds per query (after 5 warm-up rounds)', positiveWholeNumber, 60)
  .option('--keep', 'keep the indices afterwards')
  .parse()
  .opts<{ prefix: string; companies: number; jobs: number; rounds: number; keep?: boolean }>();

const log = (line: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${line}\n`);
const opensearchUrl = process.env.OPENSEARCH_URL;
if (!opensearchUrl) throw new Error('set OPENSEARCH_URL');

type Way = 'highlighter' | 'docValues' | 'floor';
const ways: Way[] = ['highlighter', 'docValues', 'floor'];
type Body = Record<string, unknown>;

async function loadDataSet(client: Engine): Promise<void> {
  const { files } = await benchDataSet(
    `snippets-c${options.companies}-j${options.jobs}`,
    { companies: options.companies, jobs: options.jobs, seed: 7, now: new Date() },
    log,
  );
  const loaded = await client
    .count({ index: indexName(options.prefix, 'jobs') })
    .then((res) => res.body.count as number)
    .catch(() => 0);
  if (loaded === options.jobs) return;
  log(`loading under ${options.prefix} through the pipeline`);
  await bootstrapIndices(client, options.prefix);
  await ingestFiles(files, {
    client: client.writer(),
    indexPrefix: options.prefix,
    deadLetter: new FileDeadLetter(path.join(projectRoot, '.local', 'bench', 'snippets-dead-letter.ndjson')),
    batchSize: 1000,
  });
  await client.indices.refresh({ index: `${options.prefix}*` });
}

/** The three requests of one mix query: as searches sent it before, as sent now, its floor. */
function requestsOf(body: Body): { index: string; bodies: Record<Way, Body>; highlighted: boolean } {
  const plan = { ...parseSearchRequest(jobSearch, body), offset: 0 };
  const compiled = compileSearch(jobSearch, plan, options.prefix);
  const now = compiled.body as Body;
  const highlighted = 'highlight' in now;
  const { docvalue_fields: fetched, ...rest } = now;
  const before = {
    ...rest,
    docvalue_fields: (fetched as unknown[]).filter((field) => field !== openingField),
    highlight: compileSnippetHighlight(plan),
  };
  const { highlight: _h, docvalue_fields: _d, stored_fields: _s, _source: _src, ...counted } = now;
  return {
    index: compiled.index as string,
    highlighted,
    bodies: { highlighter: highlighted ? now : before, docValues: now, floor: { ...counted, size: 0 } },
  };
}

/** The two answers' snippets, hit by hit; how many hits had no excerpt (answered by a second search). */
async function compareAnswers(client: Engine, index: string, bodies: Record<Way, Body>) {
  const withIds = (body: Body) => ({
    ...body,
    docvalue_fields: [...((body.docvalue_fields as unknown[]) ?? []), 'id'],
  });
  const [before, now] = await Promise.all(
    [bodies.highlighter, bodies.docValues].map(
      async (body) => (await client.search({ index, body: withIds(body) as never })).body.hits.hits,
    ),
  );
  let withoutExcerpt = 0;
  let differing = 0;
  now?.forEach((hit, i) => {
    if (openingOf(hit.fields) === undefined) withoutExcerpt++;
    const old = toSnippets(before?.[i]?.highlight as Record<string, string[]> | undefined);
    if (
      openingOf(hit.fields) !== undefined &&
      JSON.stringify(snippetsOf(hit as never)) !== JSON.stringify(old)
    )
      differing++;
  });
  return { hits: now?.length ?? 0, withoutExcerpt, differing };
}

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

/** Rounds of the three requests in a rotating order: engine `took` and round-trip ms per way. */
async function timeQuery(client: Engine, index: string, bodies: Record<Way, Body>) {
  const took: Record<Way, number[]> = { highlighter: [], docValues: [], floor: [] };
  const wall: Record<Way, number[]> = { highlighter: [], docValues: [], floor: [] };
  for (let round = 0; round < options.rounds + 5; round++) {
    for (let k = 0; k < ways.length; k++) {
      const way = ways[(round + k) % ways.length] as Way;
      const started = process.hrtime.bigint();
      const { body } = await client.search({ index, request_cache: false, body: bodies[way] as never });
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      if (round < 5) continue;
      took[way].push(body.took);
      wall[way].push(ms);
    }
  }
  const row = (values: Record<Way, number[]>) =>
    Object.fromEntries(ways.map((way) => [way, median(values[way])]));
  return { tookMs: row(took), wallMs: row(wall) };
}

function table(rows: Awaited<ReturnType<typeof measure>>): string {
  const ratio = (value: number, floor: number) => (floor > 0 ? (value / floor).toFixed(2) : 'n/a');
  const lines = [
    '| query | took ms: highlighter / doc values / floor | x floor: highlighter / doc values | round trip ms: highlighter / doc values / floor | hits, without excerpt, differing |',
    '|---|---|---|---|---|',
  ];
  for (const r of rows) {
    const { highlighter, docValues, floor } = r.tookMs as Record<Way, number>;
    const wall = r.wallMs as Record<Way, number>;
    lines.push(
      `| ${r.name}${r.highlighted ? ' (detail text: highlighter either way)' : ''} | ${highlighter} / ${docValues} / ${floor} | ${ratio(highlighter, floor)} / ${ratio(docValues, floor)} | ${wall.highlighter.toFixed(1)} / ${wall.docValues.toFixed(1)} / ${wall.floor.toFixed(1)} | ${r.answers.hits}, ${r.answers.withoutExcerpt}, ${r.answers.differing} |`,
    );
  }
  return lines.join('\n');
}

async function measure(client: Engine) {
  const rows = [];
  for (const query of buildQueryMix([]).filter((q) => q.path === '/rest/v1/jobs/search')) {
    const { index, bodies, highlighted } = requestsOf(query.body);
    const answers = await compareAnswers(client, index, bodies);
    log(`${query.name}: timing`);
    rows.push({ name: query.name, highlighted, answers, ...(await timeQuery(client, index, bodies)) });
  }
  return rows;
}

async function main(): Promise<void> {
  const client = createEngine(opensearchUrl as string);
  try {
    await loadDataSet(client);
    const rows = await measure(client);
    const at = new Date().toISOString();
    const out = path.join(projectRoot, 'bench-reports');
    mkdirSync(out, { recursive: true });
    const file = path.join(out, `snippets-${at.replace(/[:.]/g, '-')}`);
    writeFileSync(
      `${file}.json`,
      `${JSON.stringify({ at, node: process.version, options, rows }, null, 2)}\n`,
    );
    writeFileSync(`${file}.md`, `# Snippets: highlighter or doc values (${at})\n\n${table(rows)}\n`);
    process.stdout.write(`${table(rows)}\n\nreport: ${file}.md\n`);
  } finally {
    if (!options.keep) await dropIndices(client, options.prefix);
    await client.close();
  }
}

await main();
