/**
 * Prints the coverage of the last `vitest run --coverage` per folder (from
 * .local/coverage/coverage-summary.json), one line each, then the total:
 *   coverage src/limits: lines 91.2% statements 90.8% functions 95.0% branches 84.1%
 * Code run only inside child processes (the CLIs, src/main.ts) is not counted by vitest.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../src/project-root.js';

type Metric = 'lines' | 'statements' | 'functions' | 'branches';
type Counts = Record<Metric, { total: number; covered: number }>;
const metrics: Metric[] = ['lines', 'statements', 'functions', 'branches'];

const summary = JSON.parse(
  readFileSync(path.join(projectRoot, '.local', 'coverage', 'coverage-summary.json'), 'utf8'),
) as Record<string, Counts>;

const folders = new Map<string, Counts>();
for (const [file, counts] of Object.entries(summary)) {
  if (file === 'total') continue;
  const folder = path.dirname(path.relative(projectRoot, file));
  const sum =
    folders.get(folder) ?? (Object.fromEntries(metrics.map((m) => [m, { total: 0, covered: 0 }])) as Counts);
  for (const m of metrics) {
    sum[m].total += counts[m].total;
    sum[m].covered += counts[m].covered;
  }
  folders.set(folder, sum);
}

const pct = (c: { total: number; covered: number }) =>
  c.total === 0 ? '100.0%' : `${((100 * c.covered) / c.total).toFixed(1)}%`;
const line = (name: string, counts: Counts) =>
  `coverage ${name}: ${metrics.map((m) => `${m} ${pct(counts[m])}`).join(' ')}`;

for (const folder of [...folders.keys()].sort()) console.log(line(folder, folders.get(folder) as Counts));
if (summary.total) console.log(line('total', summary.total));
