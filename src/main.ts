/**
 * `npm start`: with no OPENSEARCH_URL, starts (or reuses) the local OpenSearch node; creates
 * the indices; serves on PORT (default 8080). Ctrl-C stops everything it started.
 */
import type { Server } from 'node:http';
import { loadSampleDataIfEmpty } from '../indexer/sample-data.js';
import { corporateSearch, jobSearch } from './catalogue/searches.js';
import { describeConfig, loadConfigOrExit } from './config.js';
import { createApp } from './http/app.js';
import { warmUpValidation } from './http/validation.js';
import { ensureDevOpenSearch } from './local/opensearch-node.js';
import { createLogger } from './logger.js';
import { bootstrapIndices } from './opensearch/indices.js';
import { compileRequestChecks } from './search/parse-request.js';
import { createServices } from './services.js';

const config = loadConfigOrExit();
if (process.argv.includes('--print-config')) {
  process.stdout.write(`${describeConfig(config)}\n`);
  process.exit(0);
}
const logger = createLogger(config.logLevel);
const cleanups: Array<() => Promise<void>> = [];

async function main(): Promise<void> {
  let opensearchUrl = config.opensearchUrl;
  if (!opensearchUrl) {
    const node = await ensureDevOpenSearch((message) => logger.info(message), {
      heap: config.opensearchHeap,
      javaHome: config.javaHome,
    });
    cleanups.push(node.stop);
    opensearchUrl = node.url;
  }
  if (!config.redisUrl) {
    logger.warn(
      'no REDIS_URL: rate limits and credits are kept in this process, API keys in .local/api-keys.json (shared with `npm run keys`); single-process mode only',
    );
  }
  const services = createServices({ ...config, opensearchUrl }, logger);
  cleanups.unshift(() => services.close());
  const created = await bootstrapIndices(services.opensearch, config.indexPrefix);
  if (created.length > 0) logger.info({ indices: created }, 'created indices');
  if (config.loadSampleData) await loadSampleDataIfEmpty(services.opensearch, config.indexPrefix, logger);
  const app = createApp(services);
  // compile the request schemas before taking traffic: compiling on a first request blocks
  // the process long enough for other requests' Redis commands to time out
  await warmUpValidation();
  compileRequestChecks([corporateSearch, jobSearch]);
  const server: Server = app.listen(config.port, config.host, () => {
    logger.info(`serving on http://${config.host}:${config.port} (OpenSearch ${opensearchUrl})`);
  });
  cleanups.unshift(() => new Promise((resolve) => server.close(() => resolve())));
}

let stopping = false;
async function shutdown(code: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  for (const cleanup of cleanups) {
    try {
      await cleanup();
    } catch (error) {
      logger.error({ err: { message: (error as Error).message } }, 'error during shutdown');
    }
  }
  process.exit(code);
}
process.on('SIGINT', () => void shutdown(0));
process.on('SIGTERM', () => void shutdown(0));

main().catch((error: Error) => {
  logger.error({ err: { message: error.message } }, 'start-up failed');
  void shutdown(1);
});
