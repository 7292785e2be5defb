/**
 * `npm run worker` / `node dist/indexer/worker.js` (docker compose): consumes the indexer
 * queue and keeps the nightly roll-off scheduled. Needs OPENSEARCH_URL and REDIS_URL.
 */
import { loadConfigOrExit } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import { createBulkClient, createOpenSearchClient } from '../src/opensearch/client.js';
import { bootstrapIndices } from '../src/opensearch/indices.js';
import { createIndexerWorker } from './indexer-worker.js';
import { createIndexerQueue, createQueueConnection, scheduleRollOff } from './queue.js';

const config = loadConfigOrExit();
const logger = createLogger(config.logLevel);
if (!config.opensearchUrl || !config.redisUrl) {
  logger.error('the indexer worker needs OPENSEARCH_URL and REDIS_URL');
  process.exit(1);
}
const opensearch = createBulkClient(createOpenSearchClient(config.opensearchUrl));
await bootstrapIndices(opensearch, config.indexPrefix);
const connection = createQueueConnection(config.redisUrl);
const scheduler = createIndexerQueue(connection, config.redisPrefix);
await scheduleRollOff(scheduler);
await scheduler.close();
const worker = createIndexerWorker({
  opensearch,
  indexPrefix: config.indexPrefix,
  connection,
  redisPrefix: config.redisPrefix,
  logger,
});
logger.info('indexer worker running (nightly roll-off at 03:00 JST)');

async function stop(): Promise<void> {
  await worker.close();
  connection.disconnect();
  await opensearch.close();
  process.exit(0);
}
process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());
