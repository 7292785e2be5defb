import { defineConfig } from 'vitest/config';

// Coverage floors per folder (percent of lines and statements, functions, branches): the
// figures of a clean-clone CI run minus one point (2026-11-26, `.ci/run` at 1d417eb, Node 20,
// file order; the comment after each floor: lines / statements / functions / branches), so a
// change that leaves a folder's code untested fails the build. Raise a floor when its folder's
// coverage rises; never lower one to make a change pass. Code run only in child processes
// (src/main.ts, the entry points in indexer/bin/) is reached by test/scripts/entry-points.test.ts but not counted.
// Coverage runs with `--coverage` (CI does; a local `npm test` stays quick);
// scripts/coverage-by-folder.ts prints each floor against its figures.
const floor = (lines: number, functions: number, branches: number) => ({
  lines,
  statements: lines,
  functions,
  branches,
});
export const floors: Record<string, ReturnType<typeof floor>> = {
  // src/config.ts (covered 99 %) became src/config/ (the settings table): src/*.ts lost it and is
  // re-based, src/config/** has a floor of its own (clean-clone run at b3a66c9 minus one point)
  'src/*.ts': floor(67.7, 86.2, 93.7), // 68.7 / 68.7 / 87.2 / 94.7
  'src/config/**': floor(98.6, 99, 95.6), // 99.6 / 99.6 / 100.0 / 96.6
  'src/auth/**': floor(98.1, 99, 95.3), // 99.1 / 99.1 / 100.0 / 96.3
  'src/catalogue/**': floor(98.8, 99, 91.8), // 99.8 / 99.8 / 100.0 / 92.8
  'src/errors/**': floor(97.4, 99, 86.7), // 98.4 / 98.4 / 100.0 / 87.7
  'src/http/*.ts': floor(97.8, 97.6, 85.5), // 98.8 / 98.8 / 98.6 / 86.5
  // re-based when the folder took in the reconciliation and match-job routes (match-jobs.ts: 121
  // of 142 branches): the full run at their merge (2026-11-29) minus one point
  'src/http/routes/**': floor(96.7, 99, 88.7), // 97.9 / 97.9 / 100.0 / 89.7
  'src/http/limits/**': floor(96.5, 99, 90.9), // 97.5 / 97.5 / 100.0 / 91.9 (new: the rate limit and credits steps, out of src/limits; the CI run at the merge of this round, minus one)
  // raised with the tests of the ledger's edges (2026-11-26): the CI run at 1908bcc measured
  // 90.8 % branches here against 91.2 % in a run of the same code the same day, and failed on
  // this floor (a branch taken only when Redis answers after the caller gave up, or a timer wins
  // a race, is reached in one run and not the next: docs/testing.md, "Coverage floors"). Those
  // branches are now reached on purpose (test/limits/limits-units.test.ts, test/limits/credits-ledger.test.ts);
  // clean-clone CI runs since: 96.4 % (before the 'late' tests), 97.0 %
  'src/limits/**': floor(96.9, 98.2, 95.7), // 97.9 / 97.9 / 99.1 / 96.7
  'src/masters/**': floor(99, 99, 74), // 100.0 / 100.0 / 100.0 / 75.0
  'src/opensearch/**': floor(93.4, 88.3, 85.5), // 94.4 / 94.4 / 89.3 / 86.5
  'src/search/*.ts': floor(95.9, 99, 90), // 96.9 / 96.9 / 100.0 / 91.0
  'src/search/paging/**': floor(93.8, 94.2, 87.9), // 94.8 / 94.8 / 95.2 / 88.9
  // re-based when the name key and readings left for src/names (covered 99-100 %) and the CSV
  // reader came in from indexer/registry (csv.ts: 81 % of lines, 3 of 4 functions): the full run
  // of that merge (2026-11-29) minus one point
  'src/text/**': floor(87, 84.7, 89.7), // 88.0 / 88.0 / 85.7 / 90.7
  // the names module (keys, readings, evidence, lookup, judge, match, suggest, tables), out of
  // src/text and src/search: its first full run (2026-11-29) minus one point
  'src/names/**': floor(98.4, 99, 93.4), // 99.4 / 99.4 / 100.0 / 94.4 (clean-clone CI run with test/names/judge-units)
  // match jobs (the worker's chunks, the job store, uploads, results): its first full run minus one
  'src/match-jobs/**': floor(93.8, 97.4, 83.8), // 94.8 / 94.8 / 98.4 / 84.8
  // new (the W3C Reconciliation API): test/reconcile/*.test.ts run alone, minus one point
  'src/reconcile/**': floor(98.2, 99, 97.1), // 99.2 / 99.2 / 100.0 / 98.1
  // src/local/** moved to ops/local/** with its files (git mv), its floor unchanged
  'ops/local/**': floor(84.2, 95.6, 62.8), // 85.2 / 85.2 / 96.6 / 63.8 (raised: run at b14df5b)
  // moved out of src/opensearch/** and src/*.ts (bulk, scan, reindex; the CLI helpers and the
  // backfill): floors of their own, the full run of the ops/ move minus one point
  'ops/engine/**': floor(93.1, 87.6, 81.7), // 94.1 / 94.1 / 88.6 / 82.7
  'ops/*.ts': floor(66.4, 61.5, 75.9), // 67.4 / 67.4 / 62.5 / 76.9
  'indexer/*.ts': floor(82.9, 96.6, 84.5), // 83.9 / 83.9 / 97.6 / 85.5
  'indexer/jobs/**': floor(76.6, 79, 78.2), // 77.6 / 77.6 / 80.0 / 79.2
  // the generator moved from indexer/generate/ to its own package, sample-data/ (same floor)
  'sample-data/**': floor(97.6, 99, 96), // 98.6 / 98.6 / 100.0 / 97.0
  'indexer/registry/**': floor(83.2, 92.5, 87.5), // 84.2 / 84.2 / 93.5 / 88.5
};

// `npm test`: both tiers in one run (test/support/tiers.ts), so coverage is measured over both;
// vitest.unit.config.ts and vitest.integration.config.ts run one tier each
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // one OpenSearch node and one redis-server per run, shared by every test file
    globalSetup: ['test/support/global-setup.ts'],
    // files run in parallel against the shared servers, each under its own prefixes
    pool: 'forks',
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
    testTimeout: 60_000,
    hookTimeout: 120_000,
    teardownTimeout: 60_000,
    reporters: ['default'],
    coverage: {
      provider: 'v8',
      include: ['src/**/*.ts', 'ops/**/*.ts', 'indexer/**/*.ts', 'sample-data/**/*.ts'],
      reporter: ['text-summary', ['json-summary', { file: 'coverage-summary.json' }], 'json'],
      reportsDirectory: '.local/coverage',
      thresholds: floors,
      // a failing run still prints its coverage, so the figures are never a mystery
      reportOnFailure: true,
    },
  },
});
