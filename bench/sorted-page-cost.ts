/**
 * Where a sorted page of one query of the mix spends its time beside its size-0 floor
 * (docs/bench.md, "A sorted page beside its floor at 1,000,000 postings"): the compiled request, the floor, and
 * the same request with one part taken away at a time, each straight to the engine.
 *
 *   OPENSEARCH_URL=http://127.0.0.1:9201 npx tsx bench/sorted-page-cost.ts --index-prefix p- \
 *     [--query "hiring activity"] [--rounds 7] [--amount 60]
 *
 * - the indices under `--index-prefix` hold a bench data set, loaded beforehand with the
 *   project's ingest (`INDEX_PREFIX=p- npx tsx indexer/bin/ingest.ts <files>`);
 * - `--rounds` rounds, each sending every variant `--amount` times in a rotating order, 1
 *   connection, no shard request cache, with the load tool of the bench's per-query figures
 *   (bench/load.ts); per variant the median over the rounds of each round's p50, and of the
 *   engine process's CPU per request (/proc/<pid>/stat, the pid from the node's process info:
 *   the engine runs on this machine, as the bench's own; the node stats' CPU figure is
 *   refreshed once a second, too coarse for these runs);
 * - the report names the index's segments and documents, since the floor (a count the
 *   engine takes from whole blocks of matches) and a sort (a value read for every match)
 *   move apart as segments merge.
 * Output: a markdown table on stdout and bench-reports/sorted-page-<time>.json.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { cliProgram, positiveWholeNumber } from '../ops/cli.js';
import { compactRecordField } from '../src/catalogue/record-fields.js';
import { createEngine } from '../src/opensearch/engine.js';
import { projectRoot } from '../src/project-root.js';
import { processCpuMs } from './cpu.js';
import { type LoadRequest, runLoad } from './load.js';
import { buildQueryMix, floorBody, rawMixRequest } from './query-mix.js';

const options = cliProgram('sorted-page-cost', 'A sorted page of the mix beside its floor, part by part')
  .requiredOption('--index-prefix <prefix>', 'the prefix of indices that hold a bench data set')
  .option('--query <text>', 'a query of the mix whose name contains this', 'hiring activity')
  .option('--rounds <n>', 'rounds, each sending every variant in turn', positiveWholeNumber, 7)
  .option('--amount <n>', 'requests per variant in a round', positiveWholeNumber, 60)
  .parse()
  .opts<{ indexPrefix: string; query: string; rounds: number; amount: number }>();

const opensearchUrl = process.env.OPENSEARCH_URL ?? '';
if (!opensearchUrl) throw new Error('set OPENSEARCH_URL');
const log = (line: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${line}\n`);

type Body = Record<string, unknown>;
const r2 = (value: number) => Math.round(value * 100) / 100;
const median = (values: number[]) =>
  r2([...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0);

/** The compiled body, its floor, and the body with one part taken away at a time. */
function variantsOf(body: Body): Array<{ what: string; body: Body }> {
  const sort = Array.isArray(body.sort) ? (body.sort as object[]) : [];
  const first = sort[0];
  const fieldName = first ? Object.keys(first)[0] : undefined;
  const { docvalue_fields: _fields, ...unfetched } = body;
  const { sort: _sort, ...unsorted } = unfetched;
  return [
    { what: 'the compiled request', body },
    { what: 'floor (size 0)', body: floorBody(body) },
    { what: 'only the record copy fetched', body: { ...body, docvalue_fields: [compactRecordField] } },
    { what: 'sorted, nothing fetched', body: unfetched },
    ...(first
      ? [{ what: 'first sort key alone, nothing fetched', body: { ...unfetched, sort: [first] } }]
      : []),
    {
      what: 'sorted without the exact total, nothing fetched',
      body: { ...unfetched, track_total_hits: false },
    },
    {
      what: 'index order (_doc), nothing fetched',
      body: { ...unsorted, sort: [{ _doc: { order: 'asc' } }] },
    },
    { what: 'unsorted (score), nothing fetched', body: unsorted },
    ...(fieldName && fieldName !== '_score'
      ? [
          {
            what: `size 0 + max of ${fieldName}`,
            body: { ...floorBody(body), aggs: { sortField: { max: { field: fieldName } } } },
          },
        ]
      : []),
  ];
}

async function main() {
  const mix = buildQueryMix(Array.from({ length: 100 }, (_, i) => String(1_010_001_000_000 + i)));
  const query = mix.find((candidate) => candidate.name.includes(options.query));
  if (!query) throw new Error(`no query of the mix is named like "${options.query}"`);
  const { compiled, params } = rawMixRequest(query, options.indexPrefix);
  params.set('request_cache', 'false');
  const index = compiled.index as string;
  const variants = variantsOf(compiled.body as Body).map((variant): LoadRequest & { what: string } => ({
    what: variant.what,
    method: 'POST',
    path: `/${index}/_search?${params}`,
    body: JSON.stringify(variant.body),
  }));
  const client = createEngine(opensearchUrl);
  try {
    const catalogued = async (what: string) =>
      (await (await fetch(`${opensearchUrl}/_cat/${what}/${index}?format=json`)).json()) as Array<
        Record<string, string>
      >;
    const segments = (await catalogued('segments')).length;
    const docs = Number((await catalogued('indices'))[0]?.['docs.count']);
    const hits = (
      (await client.search({ index, body: { ...floorBody(compiled.body as Body) } })).body as {
        hits: { total: { value: number } };
      }
    ).hits.total.value;
    log(`${query.name}: ${hits} hits; ${index}: ${segments} segments, ${docs} documents (nested included)`);
    const bytes: number[] = [];
    for (const variant of variants) {
      const response = await fetch(`${opensearchUrl}${variant.path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: variant.body,
      });
      bytes.push((await response.arrayBuffer()).byteLength);
      if (response.status !== 200) throw new Error(`${variant.what}: the engine answered ${response.status}`);
    }
    const info = (await (await fetch(`${opensearchUrl}/_nodes/_local/process`)).json()) as {
      nodes: Record<string, { process: { id: number } }>;
    };
    const pid = Object.values(info.nodes)[0]?.process.id;
    if (!pid || !existsSync(`/proc/${pid}/stat`)) throw new Error('the engine must run on this machine');
    const p50Rounds = variants.map(() => [] as number[]);
    const cpuRounds = variants.map(() => [] as number[]);
    for (let round = 0; round < options.rounds; round++)
      for (let i = 0; i < variants.length; i++) {
        const at = (round + i) % variants.length;
        const before = processCpuMs(pid);
        const run = await runLoad({
          url: opensearchUrl,
          requests: [variants[at] as LoadRequest],
          connections: 1,
          amount: options.amount,
        });
        if (run.non2xx > 0) throw new Error(`${variants[at]?.what}: the engine refused a request`);
        cpuRounds[at]?.push((processCpuMs(pid) - before) / run.requests);
        p50Rounds[at]?.push(run.latencyMs.p50);
      }
    const p50s = p50Rounds.map(median);
    const cpu = cpuRounds.map(median);
    const floor = p50s[1] ?? Number.NaN;
    const floorCpu = cpu[1] ?? Number.NaN;
    const rows = variants.map((variant, i) => ({
      what: variant.what,
      p50Ms: p50s[i] ?? Number.NaN,
      toFloor: r2((p50s[i] ?? Number.NaN) / floor),
      engineCpuMsPerRequest: r2(cpu[i] ?? Number.NaN),
      cpuToFloor: r2((cpu[i] ?? Number.NaN) / floorCpu),
      answerBytes: bytes[i] ?? 0,
    }));
    const lines = [
      `${query.name}: ${hits} hits; ${segments} segments, ${docs} documents; medians of ${options.rounds} rounds of ${options.amount} requests per variant`,
      '',
      '| request | p50 ms | / floor | engine CPU ms per request | / floor | answer bytes |',
      '|---|---|---|---|---|---|',
      ...rows.map(
        (row) =>
          `| ${row.what} | ${row.p50Ms} | ${row.toFloor} | ${row.engineCpuMsPerRequest} | ${row.cpuToFloor} | ${row.answerBytes} |`,
      ),
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
    const at = new Date().toISOString();
    const report = { at, query: query.name, index, hits, segments, docs, options, rows };
    mkdirSync(path.join(projectRoot, 'bench-reports'), { recursive: true });
    const file = path.join(projectRoot, 'bench-reports', `sorted-page-${at.replace(/[:.]/g, '-')}.json`);
    writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
    log(`report: ${path.relative(projectRoot, file)}`);
  } finally {
    await client.close();
  }
}

await main();
