/**
 * The registry at scale (docs/bench-registry-1m.md): a seeded register of N companies in the
 * NTA's format (indexer/registry/generate.ts) loaded through `import:registry` into an
 * OpenSearch node of its own, then the API over it, with a day's diff applied while searches run.
 *
 *   npx tsx bench/registry-1m.ts all [--companies 1000000] [--port 9240] [--heap 4g]
 *
 * Steps, each usable alone (the node step holds the node until SIGTERM, for the others to use
 * through OPENSEARCH_URL; `all` runs them in one process and stops what it started):
 *   node   start the node (data under .local/registry-bench/opensearch), wait for SIGTERM
 *   load   generate the full files, import them (a child process: wall time, peak RSS), index size
 *   api    redis-server and the API on free ports: RSS, search p50/p95 (API and straight on the
 *          engine), match throughput, the diff applied while searches run (errors, longest pause)
 * Figures go to .local/registry-bench/figures-<step>.json. Every process started is stopped by
 * its pid; `all` deletes the generated files and the node's data at the end (`--keep-files`
 * keeps them).
 */
import { rmSync } from 'node:fs';
import path from 'node:path';
import { Command } from 'commander';
import { writeDiffFile, writeFullFiles } from '../indexer/registry/generate-files.js';
import {
  type BenchOptions,
  benchNodeUrl,
  dataDir,
  holdBenchNode,
  runChild,
  saveFigures,
  startBenchNode,
  workDir,
} from './registry-bench-support.js';

const fullDate = '2026-10-31';
const diffDate = '2026-11-01';

async function engine(url: string, pathAndQuery: string, init?: RequestInit): Promise<unknown> {
  const response = await fetch(`${url}${pathAndQuery}`, init);
  return response.json();
}

async function loadStep(url: string, options: BenchOptions): Promise<void> {
  const universe = { companies: options.companies, seed: options.seed, date: fullDate };
  // as downloaded: the nationwide file, a zip holding one CSV
  const layout = { outDir: dataDir, encoding: 'utf8' as const, split: 0, zip: true, nationwide: true };
  let started = Date.now();
  const files = await writeFullFiles(universe, layout);
  const generateSeconds = (Date.now() - started) / 1000;
  const rows = files.reduce((sum, file) => sum + file.rows, 0);
  // the diff as it is downloaded: a zip holding one CSV
  const diff = await writeDiffFile(universe, diffDate, options.changes, { ...layout, zip: true });
  started = Date.now();
  const run = await runChild(
    'indexer/bin/import-registry.ts',
    [...files.map((file) => file.file), '--restart', '--state-dir', path.join(workDir, 'state')],
    { OPENSEARCH_URL: url, LOG_LEVEL: 'warn' },
  );
  if (run.code !== 0) throw new Error(`import:registry exited ${run.code}:\n${run.output}`);
  await engine(url, '/_refresh', { method: 'POST' });
  const indices = await engine(
    url,
    '/_cat/indices?format=json&bytes=b&h=index,docs.count,store.size,pri.store.size',
  );
  const summary = /read \d+.*rejected \d+/.exec(run.output)?.[0] ?? '';
  saveFigures('load', {
    companies: options.companies,
    rows,
    files: files.map((file) => path.basename(file.file)),
    diffFile: diff.files.map((file) => path.basename(file.file)),
    diffRows: diff.files.reduce((sum, file) => sum + file.rows, 0),
    diffCounts: diff.counts,
    generateSeconds,
    import: {
      seconds: run.seconds,
      rowsPerSecond: Math.round(rows / run.seconds),
      peakRssMiB: Math.round(run.peakMiB),
      summary,
    },
    indices,
  });
}

function parseOptions(): { step: string; options: BenchOptions } {
  const program = new Command('registry-1m')
    .argument('<step>', 'node | load | api | all')
    .option('--companies <n>', 'companies in the register', Number, 1_000_000)
    .option('--port <n>', "the node's HTTP port", Number, 9240)
    .option('--heap <size>', "the node's JVM heap", '4g')
    .option('--seed <n>', 'generator seed', Number, 1)
    .option('--changes <n>', "changes in the day's diff", Number, 3000)
    .option('--seconds <n>', 'seconds per latency measurement', Number, 20)
    .option('--match-batch <n>', 'names per match request', Number, 250)
    .option('--keep-files', 'keep the generated files')
    .parse();
  const step = program.args[0] as string;
  const opts = program.opts<BenchOptions>();
  return { step, options: { ...opts, keepFiles: opts.keepFiles ?? false } };
}

async function main(): Promise<void> {
  const { step, options } = parseOptions();
  if (step === 'node') return holdBenchNode(workDir, 'registry-bench', options);
  if (step === 'load') return loadStep(benchNodeUrl(workDir), options);
  if (step === 'api')
    return (await import('./registry-1m-api.js')).apiStep(benchNodeUrl(workDir), options, workDir, dataDir);
  if (step === 'all') {
    // its data goes with it, unless the files are kept
    const node = await startBenchNode(workDir, 'registry-bench', options, !options.keepFiles);
    try {
      await loadStep(node.url, options);
      await (await import('./registry-1m-api.js')).apiStep(node.url, options, workDir, dataDir);
    } finally {
      await node.stop();
      if (!options.keepFiles) rmSync(dataDir, { recursive: true, force: true });
    }
    return;
  }
  throw new Error(`unknown step ${step}`);
}

await main();
