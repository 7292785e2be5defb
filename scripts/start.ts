/**
 * `npm start`: the API (src/server.ts) plus, when the indices are empty, the sample data set
 * (indexer/sample-data.ts; LOAD_SAMPLE_DATA=false skips it), with no OPENSEARCH_URL the
 * local OpenSearch node (ops/local/opensearch-node.ts), started or reused, and with no
 * REDIS_URL a redis-server for the match jobs alone (ops/local/redis-server.ts, its data beside
 * the jobs' files, in MATCH_JOBS_DIR/redis), run by a worker in the API's process. Kept outside src/ so the
 * server never depends on the indexer or on the local launchers.
 *
 *   npm start                     # local OpenSearch node, sample data, http://127.0.0.1:8080
 *   npm start -- --print-config   # the effective configuration, secrets masked
 */

import path from 'node:path';
import { loadSampleDataIfEmpty } from '../indexer/sample-data.js';
import { ensureDevOpenSearch } from '../ops/local/opensearch-node.js';
import { startLocalRedis } from '../ops/local/redis-server.js';
import { startServer } from '../src/server.js';

startServer({
  command: 'npm start',
  // no OPENSEARCH_URL: the dev node with OPENSEARCH_LOCAL_PORT, OPENSEARCH_HEAP and JAVA_HOME
  localEngine: (config, log) =>
    ensureDevOpenSearch(log, {
      heap: config.opensearchHeap,
      javaHome: config.javaHome,
      port: config.opensearchLocalPort,
    }),
  // no REDIS_URL: the match jobs' states and queue on a redis-server of their own, kept on disk
  // so a job survives a restart of npm start
  localJobsRedis: (config) =>
    startLocalRedis({ logDir: path.join(config.matchJobs.dir, 'redis'), appendOnly: true }),
  beforeServing: async ({ config, opensearch, logger }) => {
    if (config.loadSampleData) await loadSampleDataIfEmpty(opensearch, config.indexPrefix, logger);
  },
});
