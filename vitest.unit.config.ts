import { defineConfig } from 'vitest/config';
import { unitTestFiles } from './test/support/tiers.js';
import base from './vitest.config.js';

// `npm run test:unit`: the unit tier (test/support/tiers.ts), no OpenSearch and no Redis. The
// full suite's settings, but its own global setup (the fast-check seed and server addresses
// that do not resolve: test/support/unit-setup.ts) and no coverage floors (CI measures coverage
// over both tiers in one run of `npm test`).
export default defineConfig({
  test: {
    ...base.test,
    include: unitTestFiles,
    globalSetup: ['test/support/unit-setup.ts'],
    coverage: { ...base.test?.coverage, thresholds: {} },
  },
});
