/**
 * `npm run worker` / `node dist/indexer/bin/worker.js` (docker compose): consumes the indexer
 * queue and keeps the nightly roll-off scheduled. Needs REDIS_URL (the queue lives there);
 * OpenSearch is OPENSEARCH_URL, else the local node, like the other CLIs.
 */
import type { Logger } from 'pino';
import { cliProgram, runCli } from '../../ops/cli.js';
import { type Config, loadConfigOrExit } from '../../src/config.js';
import { ledgerIndex, startLedgerFiling } from '../../src/limits/ledger-filing.js';
import { createLimits } from '../../src/limits/limits.js';
import { createLogger, endLogs } from '../../src/logger.js';
import { MatchJobStore } from '../../src/match-jobs/job-store.js';
import { createMatchJobWorker } from '../../src/match-jobs/worker.js';
import { ledgerTailGauge, queueDepthGauge, startMetricsListener } from '../../src/metrics.js';
import { judgeTableOf } from '../../src/names/judge.js';
import { createRedis } from '../../src/redis.js';
import { startWebhookThread } from '../../src/webhooks/thread.js';
import { openCliServices } from '../cli-services.js';
import { createIndexerWorker } from '../indexer-worker.js';
import { createIndexerQueue, createQueueConnection, scheduleRollOff } from '../queue.js';

cliProgram(
  'worker',
  'Consume the indexer queue (batches queued by `ingest` with REDIS_URL), run the match jobs ' +
    '(POST /corporates/match-jobs), deliver the webhooks (POST /webhooks), file the credit ledger and schedule the nightly roll-off (03:00 JST). Needs REDIS_URL; OpenSearch: OPENSEARCH_URL, else the local node.',
).parse();

runCli('worker', async () => {
  const config = loadConfigOrExit();
  // a judge table that does not read fails the start, not the first match job
  judgeTableOf(config.matchJudgeFile);
  if (!config.redisUrl)
    throw new Error('the indexer queue lives in Redis: set REDIS_URL (e.g. redis://127.0.0.1:6379)');
  const logger = createLogger(config.logLevel);
  let stopping = false;
  const services = await openCliServices();
  const redisUrl = config.redisUrl;
  const connection = createQueueConnection(redisUrl);
  const scheduler = createIndexerQueue(connection, config.redisPrefix);
  await scheduleRollOff(scheduler);
  // kept open for the queue-depth gauge, read on each scrape
  queueDepthGauge(() => scheduler.getJobCounts('waiting', 'active', 'delayed', 'failed'));
  // a worker beside an API process on one host must not take the API's metrics port
  const metricsServer = await startMetricsListener(config.metricsHost, config.metricsPort, 9465, logger);
  const worker = createIndexerWorker({
    opensearch: services.opensearch,
    indexPrefix: services.indexPrefix,
    connection,
    redisPrefix: config.redisPrefix,
    logger,
  });
  // the match jobs (POST /corporates/match-jobs): their rows in MATCH_JOBS_DIR, shared with the API
  const matchRedis = createRedis(redisUrl);
  matchRedis.on('error', (error) =>
    logger.warn({ err: { message: error.message } }, 'redis connection error'),
  );
  const limits = createLimits({ redis: matchRedis, keyPrefix: config.redisPrefix, config: config.limits });
  const matchJobs = createMatchJobWorker({
    connection,
    redisPrefix: config.redisPrefix,
    services: { opensearch: services.opensearch, logger, config },
    ledger: limits.ledger,
    price: limits.config.matchCost,
    store: new MatchJobStore(matchRedis, config.redisPrefix),
    root: config.matchJobs.dir,
    logger,
    stallSeconds: config.matchJobs.stallSeconds,
    retentionHours: config.matchJobs.retentionHours,
    chunkRecords: config.matchJobs.chunkRecords,
  });
  // webhooks (POST /webhooks): the changes of watched saved searches, dispatched and delivered
  const webhooks = await startWebhooks(
    config,
    redisUrl,
    logger,
    () => void stop('webhook thread stopped', 1),
  );
  // the credit ledger's new entries, filed in the engine (src/limits/ledger-filing.ts)
  ledgerTailGauge(() => limits.ledger.tailLength());
  const filing = startLedgerFiling({
    ledger: limits.ledger,
    opensearch: services.opensearch,
    index: ledgerIndex(services.indexPrefix),
    intervalMs: limits.config.ledgerFilingIntervalMs,
    logger,
  });
  logger.info(
    { webhookThread: webhooks.priority },
    'indexer worker running (nightly roll-off at 03:00 JST), match jobs, webhooks and ledger filing too',
  );

  async function stop(reason: string, exitCode = 0): Promise<void> {
    if (stopping) return;
    stopping = true;
    const started = Date.now();
    logger.info({ reason }, 'stopping: finishing the jobs in hand');
    await worker.close();
    await matchJobs.close();
    await webhooks.close();
    // the last entries filed before the connection goes
    await filing.fileNow().catch(() => 0);
    await filing.stop();
    matchRedis.disconnect();
    await scheduler.close();
    await metricsServer?.close();
    connection.disconnect();
    await services.close();
    logger.info({ reason, ms: Date.now() - started }, 'stopped');
    await endLogs(logger);
    process.exit(exitCode);
  }
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
});

/**
 * The webhook deliveries on a thread of their own at WEBHOOK_NICE (src/webhooks/thread.ts). A
 * thread that does not start ends the process (the indexer and the match jobs already run: a
 * worker without its deliveries does not stay); one that ends later calls `stop` once this
 * start has finished (the thread may end as it reports ready).
 */
async function startWebhooks(config: Config, redisUrl: string, logger: Logger, stop: () => void) {
  return startWebhookThread(
    { redisUrl, redisPrefix: config.redisPrefix, config: config.webhooks, logLevel: config.logLevel },
    (error) => {
      logger.error({ err: { message: error.message } }, 'the webhook thread stopped');
      setImmediate(stop);
    },
  ).catch(async (error: Error) => {
    logger.error({ err: { message: error.message } }, 'the webhook thread did not start');
    await endLogs(logger);
    process.exit(1);
  });
}
