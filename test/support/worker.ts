/** The indexer worker inside a test process, on that test file's services and prefixes. */
import type { Redis } from 'ioredis';
import pino from 'pino';
import {
  createIndexerWorker,
  type IndexerWorker,
  type IndexerWorkerOptions,
} from '../../indexer/indexer-worker.js';
import type { Services } from '../../src/services.js';

export function startTestWorker(
  services: Services,
  connection: Redis,
  overrides: Partial<IndexerWorkerOptions> = {},
): IndexerWorker {
  return createIndexerWorker({
    opensearch: services.opensearch,
    indexPrefix: services.config.indexPrefix,
    connection,
    redisPrefix: services.config.redisPrefix,
    logger: pino({ level: 'silent' }),
    ...overrides,
  });
}
