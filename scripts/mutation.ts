/**
 * Mutation testing, one module at a time (stryker.config.mjs, scripts/mutation-modules.mjs):
 *   npm run mutation                                  every module, one after the other
 *   npm run mutation -- text limits                   these modules
 *   npm run mutation -- --mutate src/names/keys.ts one file (or a comma-separated list), with its module's tests
 * Prints one line per module (the figures docs/mutation.md publishes):
 *   mutation text: 812 killed, 40 survived, 3 no coverage, 2 timeout, score 95.0%, 83 static ignored (48 min)
 * Needs OPENSEARCH_URL and REDIS_URL (the tests' servers, test/support/global-setup.ts), except
 * for a module marked `servers: false` (unit-tier tests only): it is given the unit tier's
 * addresses that do not resolve, so no server is started for it and a test reaching one fails.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { noServer } from '../test/support/unit-setup.js';
import { mutationModules } from './mutation-modules.mjs';

const modules = mutationModules;

function parseArgs(argv: string[]): Array<{ name: string; mutate?: string }> {
  const runs: Array<{ name: string; mutate?: string }> = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--mutate') {
      const files = argv[++i];
      if (!files)
        throw new Error('--mutate needs files, e.g. --mutate src/names/keys.ts,src/names/reading.ts');
      const first = files.split(',')[0] as string;
      // a module may name a file's lines only ('src/search/export.ts:199-334')
      const name = Object.keys(modules).find((m) =>
        modules[m]?.mutate.some((entry) => entry === first || entry.startsWith(`${first}:`)),
      );
      if (!name) throw new Error(`${first} is in no module of scripts/mutation-modules.mjs`);
      runs.push({ name, mutate: files });
    } else if (modules[arg]) runs.push({ name: arg });
    else throw new Error(`"${arg}" is not a module (${Object.keys(modules).join(', ')}) or --mutate <file>`);
  }
  return runs.length ? runs : Object.keys(modules).map((name) => ({ name }));
}

type Status = 'Killed' | 'Survived' | 'NoCoverage' | 'Timeout' | 'CompileError' | 'RuntimeError' | 'Ignored';

/** Counts by status from Stryker's JSON report (mutation-testing-report-schema). */
function countMutants(reportFile: string): Record<Status, number> {
  const report = JSON.parse(readFileSync(reportFile, 'utf8')) as {
    files: Record<string, { mutants: Array<{ status: Status }> }>;
  };
  const counts = {} as Record<Status, number>;
  for (const file of Object.values(report.files))
    for (const { status } of file.mutants) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}

function summary(name: string, minutes: number): string {
  const c = countMutants(path.join('.local', 'mutation', name, 'mutation.json'));
  const [killed, survived, noCoverage, timeout] = [
    c.Killed ?? 0,
    c.Survived ?? 0,
    c.NoCoverage ?? 0,
    c.Timeout ?? 0,
  ];
  const detected = killed + timeout;
  const score = (100 * detected) / Math.max(1, detected + survived + noCoverage);
  const ignored = c.Ignored ?? 0;
  return `mutation ${name}: ${killed} killed, ${survived} survived, ${noCoverage} no coverage, ${timeout} timeout, score ${score.toFixed(1)}%, ${ignored} static ignored (${minutes.toFixed(0)} min)`;
}

let failed = false;
const lines: string[] = [];
for (const run of parseArgs(process.argv.slice(2))) {
  const started = Date.now();
  const args = ['stryker', 'run', 'stryker.config.mjs', ...(run.mutate ? ['--mutate', run.mutate] : [])];
  const result = spawnSync('npx', args, {
    stdio: 'inherit',
    env: {
      FC_SEED: '20261122',
      ...process.env,
      // the unit tier's addresses (test/support/unit-setup.ts): the global setup starts nothing
      ...(modules[run.name]?.servers === false
        ? { OPENSEARCH_URL: `http://${noServer}:9200`, REDIS_URL: `redis://${noServer}:6379` }
        : {}),
      MUTATION_MODULE: run.name,
    },
  });
  if (result.status !== 0) {
    failed = true;
    lines.push(`mutation ${run.name}: stryker exited ${result.status}`);
    continue;
  }
  lines.push(summary(run.name, (Date.now() - started) / 60_000));
}
for (const line of lines) console.log(line);
process.exit(failed ? 1 : 0);
