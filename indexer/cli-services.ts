/**
 * What the indexer's command-line tools connect to: OPENSEARCH_URL, else the local dev node
 * (reused when `npm run opensearch` or `npm start` keeps one running); REDIS_URL when set.
 */
import { ensureDevOpenSearch } from '../ops/local/opensearch-node.js';
import { type IndexShape, loadConfigOrExit } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import { describeStartFailure } from '../src/opensearch/access-failures.js';
import { createEngine, type Engine } from '../src/opensearch/engine.js';
import { bootstrapIndices } from '../src/opensearch/indices.js';

export interface CliServices {
  opensearch: Engine;
  indexPrefix: string;
  redisUrl: string | undefined;
  redisPrefix: string;
  /** Shards, replicas and refresh for indices a tool creates (INDEX_SHARDS, ...). */
  index: IndexShape;
  close(): Promise<void>;
}

export async function openCliServices(): Promise<CliServices> {
  const config = loadConfigOrExit();
  const logger = createLogger(config.logLevel);
  let url = config.opensearchUrl;
  let stopNode = async () => {};
  if (!url) {
    const node = await ensureDevOpenSearch((message) => logger.info(message), {
      heap: config.opensearchHeap,
      javaHome: config.javaHome,
      port: config.opensearchLocalPort,
    });
    url = node.url;
    stopNode = node.stop;
  }
  const opensearch = createEngine(url, config.opensearchAccess);
  const bulkClient = opensearch.writer();
  try {
    await bootstrapIndices(opensearch, config.indexPrefix, config.index, { addNewFields: true });
  } catch (error) {
    await opensearch.close();
    await stopNode();
    throw new Error(describeStartFailure(error));
  }
  return {
    opensearch: bulkClient,
    indexPrefix: config.indexPrefix,
    redisUrl: config.redisUrl,
    redisPrefix: config.redisPrefix,
    index: config.index,
    async close() {
      await opensearch.close();
      await stopNode();
    },
  };
}
