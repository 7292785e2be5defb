// The modules under mutation testing (stryker.config.mjs): where a wrong line costs money or
// trust. `mutate`: the code mutated; `tests`: the test files that exercise it (the rest of the
// suite is not run against its mutants, to keep a run within reach of a 2-core machine).
export const mutationModules = {
  // filters become OpenSearch queries
  compiler: {
    mutate: [
      'src/search/compile-kinds.ts',
      'src/search/compile-query.ts',
      'src/search/compile-search.ts',
      'src/search/compile-sort.ts',
    ],
    tests: ['test/compile-kinds.test.ts', 'test/compile-search.test.ts', 'test/compile-units.test.ts'],
  },
  // text folding, readings, name keys, corporate numbers
  text: {
    mutate: [
      'src/text/normalize.ts',
      'src/text/name-key.ts',
      'src/text/reading.ts',
      'src/text/corporate-number.ts',
      'src/text/address.ts',
    ],
    tests: [
      'test/name-key.test.ts',
      'test/reading.test.ts',
      'test/text-fold.test.ts',
      // the fold against the table from Python's Unicode data: pure, under a second
      'test/text-fold-table.test.ts',
      'test/text-units.test.ts',
    ],
  },
  // credits and rate limits. test/rate-limit.test.ts and test/redis-stall-rate.test.ts (the
  // limiter through the app, and under a frozen redis-server of their own) are left out: with
  // them a run was estimated at hours on a loaded 2-core machine.
  limits: {
    mutate: [
      'src/limits/export-cost.ts',
      'src/limits/local-credit-ledger.ts',
      'src/limits/redis-credit-ledger.ts',
      'src/limits/rate-limiter.ts',
      'src/limits/limits.ts',
    ],
    tests: ['test/credits-ledger.test.ts', 'test/limits-units.test.ts'],
  },
  // cursor tokens (AES-256-GCM). test/cursors.test.ts (the same through the app on the engine)
  // is left out here: its setup indexes companies again for every mutant run, about a minute
  // each on a loaded 2-core machine (hours for the module), for the checks the unit file makes.
  cursor: {
    mutate: ['src/search/paging/cursor.ts'],
    tests: ['test/cursor-token.test.ts'],
  },
  // export pricing: the reservation, the maxCredits check, the settlement at what was sent
  export: {
    mutate: ['src/limits/export-cost.ts', 'src/search/export.ts'],
    tests: ['test/export.test.ts'],
  },
};
