/** The benchmark report: ratios against the performance targets (docs/decisions/performance-targets.md), and the markdown table. */

import type { DeepWalk } from './deep-walk.js';
import type { StudyRow } from './detail-text-study.js';
import type { IngestFigures } from './ingest-bench.js';
import type { LoadResult } from './load.js';
import { type NameEvalReport, nameEvalMarkdown, nameEvalTargets } from './name-scoring.js';
import { type OffsetRow, offsetTable } from './offset-walk.js';
import type { CopyFetchRow, RecordTextRow } from './record-text-cost.js';

export interface QueryRow {
  name: string;
  path: string;
  totalResults: number | null;
  returned: number;
  apiP50Ms: number;
  rawP50Ms: number;
  /** The same query with `size: 0` (no fetch, sort or highlight): what matching alone costs. */
  rawFloorP50Ms: number;
}

export interface BenchReport {
  startedAt: string;
  machine: Record<string, string | number>;
  dataSet: { companies: number; postings: number; seed: number; dir: string };
  setup: string[];
  ingestion: IngestFigures | null;
  queries: QueryRow[];
  mix: Array<{
    connections: number;
    api: LoadResult;
    raw: LoadResult;
    /** CPU milliseconds per search during the API run: the API process's and the engine's. */
    cpu: { apiMsPerSearch: number; engineMsPerSearch: number };
  }>;
  masters: { connections: number; api: LoadResult; bare: LoadResult };
  apiPeakRssMiB: number | null;
  /** Primary store size of each searched index after the load (not force-merged), MiB. */
  indexSizesMiB?: Record<string, number>;
  detailTextStudy: StudyRow[];
  deepWalk: DeepWalk | null;
  /** The mix's offset queries before (from/size) and after (walked) `walkFrom`: bench/offset-walk.ts. */
  offsets?: OffsetRow[];
  /** Name matching per class of spelling (bench/name-eval.ts); null when not measured. */
  names?: NameEvalReport | null;
  /** Building the answer's records, before (base64, parse, stringify) and after (spliced text). */
  recordText?: RecordTextRow[];
  /** Engine `took` of the mix's queries with binary base64 copies and with keyword text. */
  copyFetch?: CopyFetchRow[];
  ratios: Array<{ what: string; value: number; target: string; met: boolean }>;
}

const r2 = (value: number) => Math.round(value * 100) / 100;

export function computeRatios(report: Omit<BenchReport, 'ratios'>): BenchReport['ratios'] {
  const ratios: BenchReport['ratios'] = [];
  for (const row of report.mix) {
    const c = row.connections;
    const p50 = r2(row.api.latencyMs.p50 / row.raw.latencyMs.p50);
    const p99 = r2(row.api.latencyMs.p99 / row.raw.latencyMs.p99);
    const rps = r2(row.api.rps / row.raw.rps);
    ratios.push({
      what: `search p50 API/raw, c=${c}`,
      value: p50,
      target: c === 1 ? '<= 1.15' : '(none)',
      met: c === 1 ? p50 <= 1.15 : true,
    });
    ratios.push({ what: `search p99 API/raw, c=${c}`, value: p99, target: '<= 1.30', met: p99 <= 1.3 });
    ratios.push({
      what: `search throughput API/raw, c=${c}`,
      value: rps,
      target: c === 32 ? '>= 0.90' : '(none)',
      met: c === 32 ? rps >= 0.9 : true,
    });
    ratios.push({
      what: `search p95 API (ms), c=${c}`,
      value: row.api.latencyMs.p95,
      target: '< 150 (at 1M postings)',
      met: row.api.latencyMs.p95 < 150,
    });
    const cpu = r2(row.cpu.apiMsPerSearch / Math.max(0.001, row.cpu.engineMsPerSearch));
    ratios.push({
      what: `CPU per search API/engine, c=${c}`,
      value: cpu,
      target: '<= 0.15',
      met: cpu <= 0.15,
    });
  }
  for (const query of report.queries) {
    const floor = r2(query.rawP50Ms / Math.max(0.1, query.rawFloorP50Ms));
    // an offset query past `walkFrom`: the API sends the walked page, not this from/size
    const walked = report.offsets?.find((row) => row.name === query.name);
    ratios.push({
      what: `engine p50 ${walked ? 'from/size (before walkFrom)' : 'full'}/size-0: ${query.name}`,
      value: floor,
      target: walked ? '(none)' : '<= 2',
      met: walked ? true : floor <= 2,
    });
  }
  for (const row of report.offsets ?? [])
    ratios.push({
      what: `engine p50 walked page/size-0: ${row.name}`,
      value: row.ratioAfter,
      target: '<= 2',
      met: row.ratioAfter <= 2,
    });
  if (report.deepWalk)
    ratios.push({
      what: `deep walk page p50 at offset ${report.deepWalk.target.toLocaleString('en')} / at 0`,
      value: report.deepWalk.ratioP50,
      target: '<= 2',
      met: report.deepWalk.ratioP50 <= 2,
    });
  const masters = r2(report.masters.api.rps / report.masters.bare.rps);
  ratios.push({
    what: 'masters throughput API/bare Express',
    value: masters,
    target: '>= 0.80',
    met: masters >= 0.8,
  });
  if (report.names) ratios.push(...nameEvalTargets(report.names));
  if (report.ingestion) {
    const ingest = r2(report.ingestion.pipeline.docsPerSecond / report.ingestion.rawBulk.docsPerSecond);
    ratios.push({
      what: 'ingestion pipeline/raw _bulk',
      value: ingest,
      target: '>= 0.80',
      met: ingest >= 0.8,
    });
  }
  return ratios;
}

const ms = (value: number) => value.toFixed(1);

/** The title, the data set, the machine, how the figures were taken and the ratios against the targets. */
function headMarkdown(report: BenchReport): string[] {
  const { dataSet, machine } = report;
  return [
    `# Benchmark, ${report.startedAt}`,
    '',
    `Data set: ${dataSet.companies.toLocaleString('en')} companies, ${dataSet.postings.toLocaleString('en')} postings (seed ${dataSet.seed}).`,
    `Machine: ${machine.cpus} x ${machine.cpuModel}, ${machine.memoryGiB} GiB RAM, ${machine.os}; Node ${machine.node}; OpenSearch ${machine.opensearch} (heap ${machine.opensearchHeap}); code at ${machine.commit}.`,
    '',
    ...report.setup.map((line) => `- ${line}`),
    '',
    '## Ratios (targets: docs/decisions/performance-targets.md)',
    '',
    '| measure | value | target | met |',
    '|---|---|---|---|',
    ...report.ratios.map(
      (ratio) => `| ${ratio.what} | ${ratio.value} | ${ratio.target} | ${ratio.met ? 'yes' : 'no'} |`,
    ),
  ];
}

/** The mix under load per connection count, then each query alone. */
function queriesMarkdown(report: BenchReport): string[] {
  return [
    '',
    '## Query mix',
    '',
    '| connections | API req/s | raw req/s | API p50 / p95 / p99 ms | raw p50 / p95 / p99 ms | API non-2xx | CPU ms per search, API / engine |',
    '|---|---|---|---|---|---|---|',
    ...report.mix.map((row) => {
      const a = row.api.latencyMs;
      const b = row.raw.latencyMs;
      return `| ${row.connections} | ${row.api.rps} | ${row.raw.rps} | ${ms(a.p50)} / ${ms(a.p95)} / ${ms(a.p99)} | ${ms(b.p50)} / ${ms(b.p95)} / ${ms(b.p99)} | ${row.api.non2xx} | ${row.cpu.apiMsPerSearch.toFixed(2)} / ${row.cpu.engineMsPerSearch.toFixed(2)} |`;
    }),
    '',
    '## Each query alone (connections 1)',
    '',
    '| query | hits | API p50 ms | raw p50 ms | raw size 0 p50 ms |',
    '|---|---|---|---|---|',
    ...report.queries.map(
      (query) =>
        `| ${query.name} | ${query.totalResults ?? `(not counted; ${query.returned} returned)`} | ${ms(query.apiP50Ms)} | ${ms(query.rawP50Ms)} | ${ms(query.rawFloorP50Ms)} |`,
    ),
  ];
}

/** Masters beside a bare Express route, the API's peak memory and the index sizes. */
function mastersMarkdown(report: BenchReport): string[] {
  const m = report.masters;
  return [
    '',
    '## Masters and memory',
    '',
    `GET /rest/v1/master/prefectures at ${m.connections} connections: API ${m.api.rps} req/s (p99 ${ms(m.api.latencyMs.p99)} ms), bare Express route ${m.bare.rps} req/s (p99 ${ms(m.bare.latencyMs.p99)} ms).`,
    `Peak RSS of the API process over the whole run: ${report.apiPeakRssMiB ?? 'n/a'} MiB.`,
    ...(report.indexSizesMiB
      ? [
          `Index sizes (primaries, as the load left them, not force-merged): ${Object.entries(
            report.indexSizesMiB,
          )
            .map(([name, mib]) => `${name} ${mib.toLocaleString('en')} MiB`)
            .join(', ')}.`,
        ]
      : []),
  ];
}

/** Offset pages before and after walkFrom (when measured), then the deep walk. */
function pagingMarkdown(report: BenchReport): string[] {
  const walk = report.deepWalk;
  return [
    ...(report.offsets?.length
      ? [
          '',
          '## Offset pages before and after walkFrom (engine, connections 1, p50; bench/offset-walk.ts)',
          '',
          offsetTable(report.offsets),
        ]
      : []),
    '',
    '## Deep paging (job search, every posting, newest first)',
    '',
    walk
      ? `${walk.pages} consecutive pages of ${walk.pageSize} through the API: at offset 0 p50 ${ms(walk.topMs.p50)} ms (p95 ${ms(walk.topMs.p95)}), at offset ${walk.target.toLocaleString('en')} of ${walk.total.toLocaleString('en')} p50 ${ms(walk.deepMs.p50)} ms (p95 ${ms(walk.deepMs.p95)}): x${walk.ratioP50}.`
      : 'Not measured in this run (see the log).',
  ];
}

/** The pipeline beside raw _bulk, when this run ingested. */
function ingestionMarkdown(report: BenchReport): string[] {
  if (!report.ingestion) return [];
  const i = report.ingestion;
  return [
    '',
    '## Ingestion',
    '',
    `${i.documents.total.toLocaleString('en')} documents (${i.documents.corporates} corporates, ${i.documents.jobs} jobs, ${i.documents.jobDetails} job-details, ${i.documents.postingHistory ?? 0} posting-history); ${i.rejected} rejected.`,
    `Pipeline: ${i.pipeline.seconds} s (records ${i.pipeline.recordsSeconds} s + company rebuilds ${i.pipeline.rebuildSeconds} s), ${i.pipeline.docsPerSecond} docs/s. Raw _bulk of the same final documents: ${i.rawBulk.seconds} s, ${i.rawBulk.docsPerSecond} docs/s.`,
  ];
}

/** The detail-text study, nested beside jobs-first, then name matching when the report has it. */
function studiesMarkdown(report: BenchReport): string[] {
  const lines = [
    '',
    '## Company search by detail text (docs/decisions/nested-postings.md), engine time per search, connections 1',
    '',
    '| case | companies | nested p50 / p95 ms | jobs-first p50 / p95 ms |',
    '|---|---|---|---|',
  ];
  for (const row of report.detailTextStudy) {
    const first = row.jobsFirstMs
      ? `${ms(row.jobsFirstMs.p50)} / ${ms(row.jobsFirstMs.p95)}`
      : (row.jobsFirstNote ?? 'n/a');
    lines.push(
      `| ${row.name} | ${row.companies} | ${ms(row.nestedMs.p50)} / ${ms(row.nestedMs.p95)} | ${first} |`,
    );
  }
  if (report.names !== undefined)
    lines.push(
      '',
      report.names
        ? nameEvalMarkdown(report.names).trimEnd()
        : '## Name matching (POST /rest/v1/corporates/match)\n\nNot measured in this run (see the log).',
    );
  return lines;
}

/**
 * The ratios beside those of an earlier report (its markdown, as docs/bench-<size>.md keeps it):
 * a published run is read beside the one it replaces. Ratios of either run alone are listed with
 * a dash for the other.
 */
export function besidePreviousMarkdown(report: BenchReport, previous: string): string[] {
  const commit = previous.match(/code at ([^.\s]+)/)?.[1] ?? 'unknown';
  const started = previous.match(/^# Benchmark, (\S+)/m)?.[1] ?? 'unknown';
  const before = new Map<string, string>();
  const table = previous.split('## Ratios')[1]?.split('\n## ')[0] ?? '';
  for (const line of table.split('\n')) {
    const cells = line.split('|').map((cell) => cell.trim());
    // | measure | value | target | met |
    if (cells.length === 6 && cells[1] && cells[1] !== 'measure' && !cells[1].startsWith('---'))
      before.set(cells[1], cells[2] ?? '');
  }
  if (before.size === 0) return [];
  const now = new Map(report.ratios.map((ratio) => [ratio.what, ratio]));
  const measures = [...new Set([...now.keys(), ...before.keys()])];
  return [
    '',
    `## Beside the previous published run (${started}, code at ${commit})`,
    '',
    '| measure | previous | this run | target | met now |',
    '|---|---|---|---|---|',
    ...measures.map((what) => {
      const ratio = now.get(what);
      return `| ${what} | ${before.get(what) ?? '-'} | ${ratio?.value ?? '-'} | ${ratio?.target ?? '-'} | ${ratio ? (ratio.met ? 'yes' : 'no') : '-'} |`;
    }),
  ];
}

export function toMarkdown(report: BenchReport, previous?: string): string {
  const lines = [
    ...headMarkdown(report),
    ...(previous ? besidePreviousMarkdown(report, previous) : []),
    ...queriesMarkdown(report),
    ...recordTextMarkdown(report),
    ...mastersMarkdown(report),
    ...pagingMarkdown(report),
    ...ingestionMarkdown(report),
    ...studiesMarkdown(report),
  ];
  return `${lines.join('\n')}\n`;
}

/**
 * The records' cost per search of the mix, before and after the copies became text, beside
 * the API's and the engine's CPU per search of the same run.
 */
function recordTextMarkdown(report: BenchReport): string[] {
  const rows = report.recordText ?? [];
  if (rows.length === 0) return [];
  const mean = (pick: (row: RecordTextRow) => number) =>
    rows.reduce((sum, row) => sum + pick(row), 0) / rows.length;
  const saved = (mean((row) => row.beforeUs) - mean((row) => row.afterUs)) / 1000;
  const lines = [
    '',
    '## Records from the copies: decode + serialise per search, before / after (bench/record-text-cost.ts)',
    '',
    '| query | hits | response bytes | before µs | after µs | after / before | raw engine p50 ms, alone |',
    '|---|---|---|---|---|---|---|',
    ...rows.map(
      (row) =>
        `| ${row.name} | ${row.hits} | ${row.responseBytes} | ${row.beforeUs.toFixed(0)} | ${row.afterUs.toFixed(0)} | ${(row.afterUs / row.beforeUs).toFixed(2)} | ${report.queries.find((query) => query.name === row.name)?.rawP50Ms ?? '-'} |`,
    ),
    `| mean of the mix | | | ${mean((row) => row.beforeUs).toFixed(0)} | ${mean((row) => row.afterUs).toFixed(0)} | ${(mean((row) => row.afterUs) / mean((row) => row.beforeUs)).toFixed(2)} | |`,
    '',
    '| connections | CPU ms per search, engine | API (after, measured) | API before (measured + the mean saved above) |',
    '|---|---|---|---|',
    ...report.mix.map(
      (row) =>
        `| ${row.connections} | ${row.cpu.engineMsPerSearch.toFixed(2)} | ${row.cpu.apiMsPerSearch.toFixed(2)} | ${(row.cpu.apiMsPerSearch + saved).toFixed(2)} |`,
    ),
    ...copyFetchMarkdown(report.copyFetch ?? []),
  ];
  return lines;
}

function copyFetchMarkdown(rows: CopyFetchRow[]): string[] {
  if (rows.length === 0) return [];
  return [
    '',
    'The engine, the same queries on two copies of the indices built alike (merged to one segment): engine `took`, median of 15 runs after 3, request cache off.',
    '',
    '| query | copies as stored: base64 in binary doc values, ms | the same text in keyword doc values, ms |',
    '|---|---|---|',
    ...rows.map((row) => `| ${row.name} | ${row.binaryTookMs} | ${row.keywordTookMs} |`),
  ];
}
