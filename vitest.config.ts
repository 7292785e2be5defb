import { defineConfig } from 'vitest/config';

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
  },
});
