/**
 * Prints the coverage of the last `vitest run --coverage` (from
 * .local/coverage/coverage-summary.json): one line per folder, then the total, then each
 * floor of vitest.config.ts against the figures of the files it covers, so a CI log shows
 * both what is measured and what is required:
 *   coverage src/limits: lines 91.2% statements 90.8% functions 95.0% branches 84.1%
 *   floor src/limits/**: lines 91.2% >= 85, statements 90.8% >= 85, functions 95.0% >= 86, branches 84.1% >= 80
 * A floor missed is marked BELOW and makes the exit code 1 (vitest fails the run on it too).
 * Code run only inside child processes (the CLIs, src/main.ts) is not counted by vitest.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../src/project-root.js';
import { floors } from '../vitest.config.js';

type Metric = 'lines' | 'statements' | 'functions' | 'branches';
type Counts = Record<Metric, { total: number; covered: number }>;
const metrics: Metric[] = ['lines', 'statements', 'functions', 'branches'];

const summary = JSON.parse(
  readFileSync(path.join(projectRoot, '.local', 'coverage', 'coverage-summary.json'), 'utf8'),
) as Record<string, Counts>;
const files = Object.entries(summary)
  .filter(([file]) => file !== 'total')
  .map(([file, counts]) => [path.relative(projectRoot, file), counts] as const);

const empty = (): Counts => Object.fromEntries(metrics.map((m) => [m, { total: 0, covered: 0 }])) as Counts;
function add(sum: Counts, counts: Counts): Counts {
  for (const m of metrics) {
    sum[m].total += counts[m].total;
    sum[m].covered += counts[m].covered;
  }
  return sum;
}

const percent = (c: { total: number; covered: number }) =>
  c.total === 0 ? 100 : (100 * c.covered) / c.total;
const pct = (c: { total: number; covered: number }) => `${percent(c).toFixed(1)}%`;
const line = (name: string, counts: Counts) =>
  `coverage ${name}: ${metrics.map((m) => `${m} ${pct(counts[m])}`).join(' ')}`;

const folders = new Map<string, Counts>();
for (const [file, counts] of files) {
  const folder = path.dirname(file);
  folders.set(folder, add(folders.get(folder) ?? empty(), counts));
}
for (const folder of [...folders.keys()].sort()) console.log(line(folder, folders.get(folder) as Counts));
if (summary.total) console.log(line('total', summary.total));

/** vitest's glob for a floor, as a regular expression (`*` within a folder, `**` across). */
function globRegex(glob: string): RegExp {
  const source = glob
    .split('**')
    .map((part) => part.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*'))
    .join('.*');
  return new RegExp(`^${source}$`);
}

let below = false;
for (const [glob, floor] of Object.entries(floors)) {
  const match = globRegex(glob);
  const counts = files.filter(([file]) => match.test(file)).reduce((sum, [, c]) => add(sum, c), empty());
  const parts = metrics.map((m) => {
    const ok = percent(counts[m]) >= floor[m];
    below ||= !ok;
    return `${m} ${pct(counts[m])} ${ok ? '>=' : 'BELOW'} ${floor[m]}`;
  });
  console.log(`floor ${glob}: ${parts.join(', ')}`);
}
process.exit(below ? 1 : 0);
