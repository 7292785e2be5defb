/**
 * The public records at scale (docs/public-records.md, "Speed at 1,000,000 companies"): a
 * seeded register of N companies loaded through `import:registry` into an OpenSearch node of
 * its own, then, each as its command runs it (a child process: wall time, rows per second, peak
 * RSS), the full invoice register (`import:invoices`) and every gBizINFO file
 * (`import:gbizinfo --kind …`); then the API over it: searches with the public records'
 * filters beside the same compiled request straight on the engine and at size 0 (the engine's
 * own floor for the filter), and the invoice register's day diff applied while two connections
 * search.
 *
 *   npx tsx bench/public-records-1m.ts all [--companies 1000000] [--port 9260] [--heap 4g]
 *
 * Steps as bench/registry-1m.ts has them (node | load | api | all); figures in
 * .local/public-records-bench/figures-<step>.json. Every process started is stopped by its pid;
 * `all` deletes the generated files and the node's data at the end (`--keep-files` keeps them).
 */
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { Command } from 'commander';
import { recordKinds } from '../indexer/gbizinfo/format.js';
import { writeRecordFile } from '../indexer/gbizinfo/generate.js';
import { writeInvoiceDiffFile, writeInvoiceFullFile } from '../indexer/invoice/generate-files.js';
import { writeFullFiles } from '../indexer/registry/generate-files.js';
import { projectRoot } from '../src/project-root.js';
import { type LoadRequest, runLoad } from './load.js';
import { stopAll } from './processes.js';
import { prepare, searchDuring } from './registry-1m-api.js';
import {
  type BenchOptions,
  benchNodeUrl,
  holdBenchNode,
  memoryOf,
  runChild,
  saveFigures,
  startBenchApi,
  startBenchNode,
} from './registry-bench-support.js';

const workDir = path.join(projectRoot, '.local', 'public-records-bench');
const dataDir = path.join(workDir, 'data');
const fullDate = '2026-10-31';
const diffDate = '2026-11-01';

/** One command's load of one file: wall time with the command's start, rows per second, peak RSS. */
async function timedImport(script: string, args: string[], url: string, rows: number) {
  const run = await runChild(script, args, { OPENSEARCH_URL: url, LOG_LEVEL: 'warn' });
  // exit 2: some rows rejected (counted in the summary); anything else is a failure
  if (run.code !== 0 && run.code !== 2) throw new Error(`${script} exited ${run.code}:\n${run.output}`);
  return {
    rows,
    seconds: run.seconds,
    rowsPerSecond: Math.round(rows / run.seconds),
    peakRssMiB: Math.round(run.peakMiB),
    exit: run.code,
    summary: /read \d+[^\n]*/.exec(run.output)?.[0] ?? run.output.slice(-400),
  };
}

async function loadStep(url: string, options: BenchOptions): Promise<void> {
  mkdirSync(dataDir, { recursive: true });
  const universe = { companies: options.companies, seed: options.seed, date: fullDate };
  const layout = { outDir: dataDir, encoding: 'utf8' as const, split: 0, zip: true, nationwide: true };
  const figures: Record<string, unknown> = { companies: options.companies };
  const state = (name: string) => ['--restart', '--state-dir', path.join(workDir, `state-${name}`)];

  const register = await writeFullFiles(universe, layout);
  const registerRows = register.reduce((sum, file) => sum + file.rows, 0);
  figures.register = await timedImport(
    'indexer/bin/import-registry.ts',
    [...register.map((file) => file.file), ...state('registry')],
    url,
    registerRows,
  );
  saveFigures('load', figures, workDir);

  const invoices = await writeInvoiceFullFile(universe, layout);
  await writeInvoiceDiffFile(universe, diffDate, options.changes, layout);
  figures.invoices = await timedImport(
    'indexer/bin/import-invoices.ts',
    [...invoices.map((file) => file.file), ...state('invoices')],
    url,
    invoices.reduce((sum, file) => sum + file.rows, 0),
  );
  saveFigures('load', figures, workDir);

  const gbizinfo: Record<string, unknown> = {};
  for (const kind of recordKinds) {
    const { file, rows } = writeRecordFile(kind, universe, dataDir, 'utf8');
    gbizinfo[kind] = await timedImport(
      'indexer/bin/import-gbizinfo.ts',
      ['--kind', kind, file, ...state(`gbizinfo-${kind}`)],
      url,
      rows,
    );
    figures.gbizinfo = gbizinfo;
    saveFigures('load', figures, workDir);
  }
}

/** Company searches on the public records' filters, one of each kind. */
const searches: Array<{ name: string; body: Record<string, unknown> }> = [
  { name: 'no filter (reference)', body: { limit: 25 } },
  { name: 'invoiceRegistered', body: { invoiceRegistered: true, prefectureIdOr: [13], limit: 25 } },
  { name: 'invoiceRegisteredOn', body: { invoiceRegisteredOn: '2024-04-01', limit: 25 } },
  {
    name: 'invoiceRegistrationDate + endReason',
    body: { invoiceRegistrationDateFrom: '2023-10-01', invoiceEndReasonOr: ['cancelled'], limit: 25 },
  },
  { name: 'hasInvoiceRecord false', body: { hasInvoiceRecord: false, prefectureIdOr: [27], limit: 25 } },
  {
    name: 'subsidyTotalYen + body, sorted',
    body: {
      subsidyTotalYenMin: 1_000_000,
      subsidyBodyIdOr: [11, 29],
      sort: { field: 'subsidyTotalYen', order: 'desc' },
      limit: 25,
    },
  },
  { name: 'procurementLatestOn', body: { procurementLatestOnFrom: '2025-01-01', limit: 25 } },
  { name: 'certificationKindId', body: { certificationKindIdOr: [3, 4], limit: 25 } },
  { name: 'awardKindId + count', body: { awardKindIdOr: [1, 6], awardCountMin: 1, limit: 25 } },
  {
    name: 'workplace figures',
    body: { workplaceAverageAgeMax: 35, workplaceFemaleManagerPercentMin: 20, limit: 25 },
  },
  {
    name: 'facets: certification kinds',
    body: { hasCertifications: true, facets: ['certificationKindId'], limit: 25 },
  },
];

/** The same compiled request at size 0: what the engine spends finding and counting, no hit fetched. */
function floorOf(raw: LoadRequest): LoadRequest {
  const body = JSON.parse(raw.body as string) as Record<string, unknown>;
  delete body.sort;
  delete body.docvalue_fields;
  return { ...raw, body: JSON.stringify({ ...body, size: 0, from: 0 }) };
}

async function apiStep(engineUrl: string, options: BenchOptions): Promise<void> {
  const stops: Array<() => Promise<void>> = [];
  try {
    const { api, key } = await startBenchApi(engineUrl, workDir, stops);
    const prepared = prepare(key, searches);
    const each = [];
    for (const query of prepared) {
      const check = await fetch(`${api.url}${query.api.path}`, {
        method: 'POST',
        headers: query.api.headers,
        body: query.api.body,
      });
      const body = (await check.json()) as { totalResults?: number | null };
      if (check.status !== 200) throw new Error(`${query.name}: the API answered ${check.status}`);
      const amount = 40;
      const apiRun = await runLoad({ url: api.url, requests: [query.api], connections: 1, amount });
      const raw = await runLoad({ url: engineUrl, requests: [query.raw], connections: 1, amount });
      const floor = await runLoad({ url: engineUrl, requests: [floorOf(query.raw)], connections: 1, amount });
      each.push({
        query: query.name,
        hits: body.totalResults ?? null,
        apiP50: apiRun.latencyMs.p50,
        rawP50: raw.latencyMs.p50,
        floorP50: floor.latencyMs.p50,
        // the engine's own: the full page beside the size-0 floor (the target: within 2x)
        rawOverFloor: Math.round((raw.latencyMs.p50 / floor.latencyMs.p50) * 100) / 100,
        apiOverRaw: Math.round((apiRun.latencyMs.p50 / raw.latencyMs.p50) * 100) / 100,
        non2xx: apiRun.non2xx + raw.non2xx + floor.non2xx,
      });
      saveFigures('api', { each }, workDir);
    }
    // the searches of the mix without a diff, then while the invoice diff loads
    const before = await runLoad({
      url: api.url,
      requests: prepared.map((query) => query.api),
      connections: 2,
      seconds: options.seconds,
    });
    const diffFiles = readdirSync(dataDir)
      .filter((file) => file.startsWith('invoice_diff_'))
      .map((file) => path.join(dataDir, file));
    if (diffFiles.length === 0) throw new Error('no invoice diff: run the load step first');
    const importing = runChild(
      'indexer/bin/import-invoices.ts',
      [...diffFiles, '--restart', '--state-dir', path.join(workDir, 'state-diff')],
      { OPENSEARCH_URL: engineUrl, LOG_LEVEL: 'warn' },
    );
    const during = await searchDuring(api.url, prepared, importing);
    const diffRun = await importing;
    saveFigures(
      'api',
      {
        each,
        apiRssMiB: memoryOf(api.pid)?.rssMiB ?? null,
        mixBefore: { requests: before.requests, latencyMs: before.latencyMs, non2xx: before.non2xx },
        invoiceDiffWhileSearching: {
          importSeconds: diffRun.seconds,
          importExit: diffRun.code,
          summary: /read \d+[^\n]*/.exec(diffRun.output)?.[0] ?? diffRun.output.slice(-400),
          searches: during,
          p95DuringOverBefore:
            Math.round((during.latencyMs.p95 / Math.max(before.latencyMs.p95, 0.001)) * 100) / 100,
        },
      },
      workDir,
    );
  } finally {
    await stopAll(stops, console.log);
  }
}

function parseOptions(): { step: string; options: BenchOptions } {
  const program = new Command('public-records-1m')
    .argument('<step>', 'node | load | api | all')
    .option('--companies <n>', 'companies in the register', Number, 1_000_000)
    .option('--port <n>', "the node's HTTP port", Number, 9260)
    .option('--heap <size>', "the node's JVM heap", '4g')
    .option('--seed <n>', 'generator seed', Number, 1)
    .option('--changes <n>', "changes in the invoice register's day diff", Number, 3000)
    .option('--seconds <n>', 'seconds of the search mix before the diff', Number, 20)
    .option('--keep-files', 'keep the generated files')
    .parse();
  const opts = program.opts<BenchOptions>();
  return {
    step: program.args[0] as string,
    options: { ...opts, matchBatch: 0, keepFiles: opts.keepFiles ?? false },
  };
}

async function main(): Promise<void> {
  const { step, options } = parseOptions();
  if (step === 'node') return holdBenchNode(workDir, 'public-records-bench', options);
  if (step === 'load') return loadStep(benchNodeUrl(workDir), options);
  if (step === 'api') return apiStep(benchNodeUrl(workDir), options);
  if (step === 'all') {
    const node = await startBenchNode(workDir, 'public-records-bench', options, !options.keepFiles);
    try {
      await loadStep(node.url, options);
      await apiStep(node.url, options);
    } finally {
      await node.stop();
      if (!options.keepFiles) rmSync(dataDir, { recursive: true, force: true });
    }
    return;
  }
  throw new Error(`unknown step ${step}`);
}

await main();
