import { configDefaults, defineConfig } from 'vitest/config';
import { unitTestFiles } from './test/support/tiers.js';
import base from './vitest.config.js';

// `npm run test:integration`: every test file outside the unit tier (test/support/tiers.ts),
// against the shared OpenSearch node and redis-server of test/support/global-setup.ts. No
// coverage floors: they hold for both tiers together (`npm test -- --coverage`).
export default defineConfig({
  test: {
    ...base.test,
    exclude: [...(base.test?.exclude ?? configDefaults.exclude), ...unitTestFiles],
    coverage: { ...base.test?.coverage, thresholds: {} },
  },
});
