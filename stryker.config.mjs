// Mutation testing (Stryker, its vitest runner): which code is mutated, and by which tests.
// Run one module: `npm run mutation -- text` (or `--mutate src/names/keys.ts`); all: `npm run mutation`.
// scripts/mutation.ts names the module in MUTATION_MODULE; the scores go to docs/mutation.md.
// Each module runs only the test files that exercise it (`testFiles`), with per-test coverage,
// so a mutant runs only the tests that reach it. Sandboxes and reports stay under .local/.
import { mutationModules } from './scripts/mutation-modules.mjs';

const name = process.env.MUTATION_MODULE ?? 'text';
const module = mutationModules[name];
if (!module)
  throw new Error(`MUTATION_MODULE "${name}" is not one of ${Object.keys(mutationModules).join(', ')}`);

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.stryker.config.ts', related: false },
  mutate: module.mutate,
  testFiles: module.tests,
  coverageAnalysis: 'perTest',
  // the machine is shared: one or two workers, and generous timeouts for a loaded CPU
  concurrency: Number(process.env.MUTATION_CONCURRENCY ?? 2),
  // a module of pure functions (text) names a shorter one: its loop mutants that never end
  // each cost the whole timeout, and its tests take milliseconds even on a loaded machine
  timeoutMS: module.timeoutMS ?? 20_000,
  timeoutFactor: 2,
  dryRunTimeoutMinutes: 20,
  tempDirName: `.local/stryker-tmp-${name}`,
  cleanTempDir: 'always',
  ignorePatterns: ['.local', 'bench-reports', 'dist', 'coverage'],
  reporters: ['clear-text', 'progress-append-only', 'json', 'html'],
  clearTextReporter: { allowColor: false, logTests: false, maxTestsToLog: 0 },
  jsonReporter: { fileName: `.local/mutation/${name}/mutation.json` },
  htmlReporter: { fileName: `.local/mutation/${name}/mutation.html` },
  thresholds: { high: 90, low: 80, break: null },
  // Static mutants (module-level constants and tables, evaluated once at import) are not
  // activated by the vitest runner here: a static mutant of a constant a snapshot shows
  // survived while the same mutant set through __STRYKER_ACTIVE_MUTANT__ failed the test.
  // They are left out and counted as "ignored" in docs/mutation.md; each would also rerun
  // every test of its module.
  ignoreStatic: true,
  incremental: false,
};
