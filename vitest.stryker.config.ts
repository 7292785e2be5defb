import { defineConfig, mergeConfig } from 'vitest/config';
import base from './vitest.config.js';

// The suite's config for mutation runs (stryker.config.mjs): the same global setup (the shared
// OpenSearch and Redis of OPENSEARCH_URL / REDIS_URL), no coverage, no floors; Stryker's runner
// picks the test files and runs one worker per Stryker process.
export default mergeConfig(base, defineConfig({ test: { coverage: { enabled: false, thresholds: {} } } }));
