/**
 * Where a sorted page of one query of the mix spends its time beside its size-0 floor
 * (docs/bench.md, "A sorted page beside its floor at 1,000,000 postings"): the compiled
 * request, the floor, and variants that change one part of the request (nothing fetched or
 * only the record copy, the tie-break dropped, no exact total, `_doc` or score order, a bare
 * `max` of a numeric or date sort field), each straight to the engine.
 *
 *   OPENSEARCH_URL=http://127.0.0.1:9201 npx tsx bench/sorted-page-cost.ts --index-prefix p- \
 *     [--query "hiring activity"] [--rounds 7] [--amount 60]
 *
 * - the indices under `--index-prefix` hold a bench data set, loaded beforehand with the
 *   project's ingest, straight to the engine (`INDEX_PREFIX=p- LOAD_SAMPLE_DATA=false
 *   REDIS_URL= npx tsx indexer/bin/ingest.ts <files>`);
 * - `--rounds` rounds, each sending every variant `--amount` times (the variants' order
 *   rotated each round), 1 connection, no shard request cache, with the load tool of the
 *   bench's per-query figures (bench/load.ts); per variant the median of the rounds' p50s;
 * - the engine process's CPU per request: its ticks (/proc/<pid>/stat, the pid from the node's
 *   process info: the engine runs on this machine, as the bench's own) over all rounds of a
 *   variant divided by its requests. A tick is 10 ms here, so over 420 requests the figure
 *   moves in steps of about 0.02 ms; the node stats' CPU is refreshed once a second, too coarse;
 * - the index's segments are counted before and after the rounds: the floor (a count) and a
 *   sort (a value read for every match) move apart as segments merge, and merges running
 *   during the rounds show in the engine's CPU.
 * Output: a markdown table on stdout and bench-reports/sorted-page-<time>.json.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { cliProgram, positiveWholeNumber } from '../ops/cli.js';
import { compactRecordField } from '../src/catalogue/record-fields.js';
import { indexName } from '../src/opensearch/indices.js';
import { projectRoot } from '../src/project-root.js';
import { processCpuMs } from './cpu.js';
import { type LoadRequest, percentile, runLoad } from './load.js';
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
  percentile(
    [...values].sort((a, b) => a - b),
    50,
  );
const floorWhat = 'floor (size 0)';

async function engineJson<T>(pathAndQuery: string, body?: unknown): Promise<T> {
  const response = await fetch(`${opensearchUrl}${pathAndQuery}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (response.status !== 200) throw new Error(`${pathAndQuery}: the engine answered ${response.status}`);
  return (await response.json()) as T;
}

/** The field's type in the index (`keyword`, `integer`, …), undefined when unmapped. */
async function fieldType(index: string, field: string): Promise<string | undefined> {
  const caps = await engineJson<{ fields: Record<string, Record<string, unknown>> }>(
    `/${index}/_field_caps?fields=${encodeURIComponent(field)}`,
  );
  return Object.keys(caps.fields[field] ?? {})[0];
}

const aggregatable = new Set(['long', 'integer', 'short', 'byte', 'double', 'float', 'scaled_float', 'date']);

/** The compiled body, its floor, and the variants that change one part of it. */
function variantsOf(body: Body, maxField: string | undefined): Array<{ what: string; body: Body }> {
  const sort = Array.isArray(body.sort) ? (body.sort as object[]) : [];
  const first = sort[0];
  const { docvalue_fields: _fields, ...unfetched } = body;
  const { sort: _sort, ...unsorted } = unfetched;
  return [
    { what: 'the compiled request', body },
    { what: floorWhat, body: floorBody(body) },
    { what: 'only the record copy fetched', body: { ...body, docvalue_fields: [compactRecordField] } },
    { what: 'sorted, nothing fetched', body: unfetched },
    ...(first && sort.length > 1
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
    ...(maxField
      ? [
          {
            what: `size 0 + max of ${maxField}`,
            body: { ...floorBody(body), aggs: { sortField: { max: { field: maxField } } } },
          },
        ]
      : []),
  ];
}

async function segmentCount(index: string): Promise<number> {
  return (await engineJson<unknown[]>(`/_cat/segments/${index}?format=json`)).length;
}

type Variant = LoadRequest & { what: string };

/**
 * Each variant's median p50 over the rounds and the engine process's CPU per request over all
 * of them; any refusal, error or timeout stops the run.
 */
async function measure(variants: Variant[]): Promise<{ p50s: number[]; cpu: number[] }> {
  const info = await engineJson<{ nodes: Record<string, { process: { id: number } }> }>(
    '/_nodes/_local/process',
  );
  const pid = Object.values(info.nodes)[0]?.process.id;
  if (!pid || !existsSync(`/proc/${pid}/stat`)) throw new Error('the engine must run on this machine');
  const p50Rounds = variants.map(() => [] as number[]);
  const cpuMs = variants.map(() => 0);
  const answered = variants.map(() => 0);
  for (let round = 0; round < options.rounds; round++)
    for (let i = 0; i < variants.length; i++) {
      const at = (round + i) % variants.length;
      const variant = variants[at] as Variant;
      const before = processCpuMs(pid);
      const run = await runLoad({
        url: opensearchUrl,
        requests: [variant],
        connections: 1,
        amount: options.amount,
      });
      cpuMs[at] = (cpuMs[at] ?? 0) + processCpuMs(pid) - before;
      if (run.non2xx > 0 || run.errors > 0 || run.timeouts > 0 || run.requests === 0)
        throw new Error(
          `${variant.what}: ${run.non2xx} refused, ${run.errors} errors, ${run.timeouts} timeouts`,
        );
      answered[at] = (answered[at] ?? 0) + run.requests;
      p50Rounds[at]?.push(run.latencyMs.p50);
    }
  return {
    p50s: p50Rounds.map(median),
    cpu: cpuMs.map((spent, i) => spent / (answered[i] ?? 1)),
  };
}

/** 100 corporate numbers of the loaded set, for the mix's id-list query (as bench/run.ts gives it). */
async function corporateNumbersOf(prefix: string): Promise<string[]> {
  const found = await engineJson<{ hits: { hits: Array<{ fields?: { corporateNumber?: string[] } }> } }>(
    `/${indexName(prefix, 'corporates')}/_search`,
    { size: 100, _source: false, docvalue_fields: ['corporateNumber'], sort: [{ corporateNumber: 'asc' }] },
  );
  return found.hits.hits.flatMap((hit) => hit.fields?.corporateNumber ?? []);
}

async function main() {
  const mix = buildQueryMix(await corporateNumbersOf(options.indexPrefix));
  const query = mix.find((candidate) => candidate.name.includes(options.query));
  if (!query) throw new Error(`no query of the mix is named like "${options.query}"`);
  const { compiled, params } = rawMixRequest(query, options.indexPrefix);
  params.set('request_cache', 'false');
  const index = compiled.index as string;
  const body = compiled.body as Body;
  const firstKey = Array.isArray(body.sort) ? Object.keys((body.sort as object[])[0] ?? {})[0] : undefined;
  const maxField =
    firstKey && aggregatable.has((await fieldType(index, firstKey)) ?? '') ? firstKey : undefined;
  const variants = variantsOf(body, maxField).map(
    (variant): Variant => ({
      what: variant.what,
      method: 'POST',
      path: `/${index}/_search?${params}`,
      body: JSON.stringify(variant.body),
    }),
  );
  const segmentsBefore = await segmentCount(index);
  const docs = Number(
    (await engineJson<Array<Record<string, string>>>(`/_cat/indices/${index}?format=json`))[0]?.[
      'docs.count'
    ],
  );
  // the deep-offset queries count no total: the count here always does
  const counted = await engineJson<{ hits: { total: { value: number } } }>(`/${index}/_search`, {
    ...floorBody(body),
    track_total_hits: true,
  });
  const hits = counted.hits.total.value;
  log(
    `${query.name}: ${hits} hits; ${index}: ${segmentsBefore} segments, ${docs} documents (nested included)`,
  );
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
  const { p50s, cpu } = await measure(variants);
  const segmentsAfter = await segmentCount(index);
  if (segmentsAfter !== segmentsBefore)
    log(`the index merged during the rounds: ${segmentsBefore} -> ${segmentsAfter} segments`);
  const floorAt = variants.findIndex((variant) => variant.what === floorWhat);
  const floor = p50s[floorAt] ?? Number.NaN;
  const floorCpu = cpu[floorAt] ?? Number.NaN;
  const rows = variants.map((variant, i) => ({
    what: variant.what,
    p50Ms: r2(p50s[i] ?? Number.NaN),
    toFloor: r2((p50s[i] ?? Number.NaN) / floor),
    engineCpuMsPerRequest: r2(cpu[i] ?? Number.NaN),
    cpuToFloor: r2((cpu[i] ?? Number.NaN) / floorCpu),
    answerBytes: bytes[i] ?? 0,
  }));
  const lines = [
    `${query.name}: ${hits} hits; ${segmentsBefore} segments before the rounds, ${segmentsAfter} after, ${docs} documents; medians of ${options.rounds} rounds of ${options.amount} requests per variant`,
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
  const report = { at, query: query.name, index, hits, segmentsBefore, segmentsAfter, docs, options, rows };
  mkdirSync(path.join(projectRoot, 'bench-reports'), { recursive: true });
  const file = path.join(projectRoot, 'bench-reports', `sorted-page-${at.replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  log(`report: ${path.relative(projectRoot, file)}`);
}

await main();
