/**
 * Starts the API: the engine is OPENSEARCH_URL, else the one the entry point provides
 * (`localEngine`: `npm start` passes the local node of ops/local/opensearch-node.ts; the
 * production entry passes none and stops with one line); creates the indices; runs the
 * caller's `beforeServing` step (the sample load of `npm start`, scripts/start.ts); serves on
 * PORT. Ctrl-C stops everything it started.
 *
 * The entry points: src/main.ts (production, `node dist/src/main.js`) and scripts/start.ts
 * (`npm start`). `--print-config` prints the effective configuration and exits.
 */
import type { Server } from 'node:http';
import net from 'node:net';
import type { Logger } from 'pino';
import { corporateSearch, jobSearch } from './catalogue/searches.js';
import { type Config, describeConfig, loadConfigOrExit } from './config.js';
import { createApp } from './http/app.js';
import { processState } from './http/readiness.js';
import { createHttpServer } from './http/server.js';
import { warmUpValidation } from './http/validation.js';
import { createLogger, endLogs } from './logger.js';
import { createInProcessMatchJobs } from './match-jobs/in-process.js';
import { startMetricsListener } from './metrics.js';
import { judgeTableOf } from './names/judge.js';
import { describeStartFailure } from './opensearch/access-failures.js';
import type { Engine } from './opensearch/engine.js';
import { bootstrapIndices } from './opensearch/indices.js';
import { compileRequestChecks } from './search/parse-request.js';
import { createServices } from './services.js';

export interface StartContext {
  config: Config;
  opensearch: Engine;
  logger: Logger;
}

/** An engine an entry point started (or reused), and how to let it go at shutdown. */
export interface ProvidedEngine {
  url: string;
  /** Stops the engine if the provider started it; a reused one is left running. */
  stop(): Promise<void>;
}

/**
 * Where the engine is when OPENSEARCH_URL is unset. The service never starts one itself:
 * starting a local node is operations' work (ops/local/), which src/ does not import.
 */
export type EngineProvider = (config: Config, log: (message: string) => void) => Promise<ProvidedEngine>;

export interface StartOptions {
  /** The engine to start or reuse when OPENSEARCH_URL is unset; none: the start stops with one line. */
  localEngine?: EngineProvider;
  /**
   * Single-process mode (no REDIS_URL): a Redis for the match jobs alone, which a worker in this
   * process runs; none, or one that fails to start: the match-job routes answer 503.
   */
  localJobsRedis?: (config: Config, log: (message: string) => void) => Promise<ProvidedEngine>;
  /** Runs after the indices exist and before the server listens. */
  beforeServing?: (context: StartContext) => Promise<void>;
  /** Names the command in the one line a failed start-up prints, e.g. `npm start`. */
  command?: string;
}

/** Fails before anything is started when another process holds the port. */
async function assertPortFree(host: string, port: number): Promise<void> {
  if (port === 0) return;
  const probe = net.createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', reject);
    probe.listen(port, host, () => resolve());
  }).catch((error: NodeJS.ErrnoException) => {
    throw portError(error, host, port);
  });
  await new Promise((resolve) => probe.close(resolve));
}

function portError(error: NodeJS.ErrnoException, host: string, port: number): Error {
  if (error.code === 'EADDRINUSE')
    return new Error(
      `port ${port} on ${host} is already in use (another \`npm start\`?); stop that process or set PORT`,
    );
  if (error.code === 'EACCES')
    return new Error(`no permission to listen on ${host}:${port}; set PORT above 1023`);
  return new Error(`cannot listen on ${host}:${port}: ${error.code ?? error.message}`);
}

/**
 * Single-process mode (no REDIS_URL), told in the log; the match jobs on the redis-server of
 * `options.localJobsRedis` (its stop added to `cleanups`), run by a worker in this process.
 * None, or one that fails to start: no jobs (the match-job calls answer 503).
 */
async function singleProcess(
  options: StartOptions,
  config: Config,
  logger: Logger,
  cleanups: Array<() => Promise<void>>,
): Promise<Parameters<typeof createServices>[2]> {
  logger.warn(
    `no REDIS_URL: rate limits and credits are kept in this process, API keys in ${config.keysFile} (shared with \`npm run keys\`); single-process mode only`,
  );
  if (!options.localJobsRedis) return {};
  try {
    const jobsRedis = await options.localJobsRedis(config, (message) => logger.info(message));
    cleanups.push(jobsRedis.stop);
    logger.info(`match jobs run in this process, their states in the redis-server at ${jobsRedis.url}`);
    return { matchJobs: (deps) => createInProcessMatchJobs(jobsRedis.url, deps) };
  } catch (error) {
    logger.warn(
      { err: { message: (error as Error).message } },
      'no local redis-server for the match jobs: POST /corporates/match-jobs answers 503',
    );
    return {};
  }
}

const noEngineMessage =
  'OPENSEARCH_URL is not set: set it to the OpenSearch cluster (`npm start` starts a local node, this entry does not)';

export function startServer(options: StartOptions = {}): void {
  const config = loadConfigOrExit();
  if (process.argv.includes('--print-config')) {
    process.stdout.write(`${describeConfig(config)}\n`);
    process.exit(0);
  }
  const logger = createLogger(config.logLevel, undefined, { gathered: true });
  const cleanups: Array<() => Promise<void>> = [];

  async function start(): Promise<void> {
    // a judge table that does not read is a bad setting: it fails the start before anything is
    // started, not the first match request
    judgeTableOf(config.matchJudgeFile);
    await assertPortFree(config.host, config.port);
    let opensearchUrl = config.opensearchUrl;
    if (!opensearchUrl) {
      if (!options.localEngine) throw new Error(noEngineMessage);
      const node = await options.localEngine(config, (message) => logger.info(message));
      cleanups.push(node.stop);
      opensearchUrl = node.url;
    }
    // single-process mode: said once, and the match jobs on a redis-server of their own
    const jobs = config.redisUrl ? {} : await singleProcess(options, config, logger, cleanups);
    if (!config.cursorKeys) {
      logger.warn(
        'no CURSOR_KEYS: cursors are encrypted with a random key of this process; they stop working when it restarts and are refused by other API processes',
      );
    }
    const services = createServices({ ...config, opensearchUrl }, logger, jobs);
    cleanups.unshift(() => services.close());
    const created = await bootstrapIndices(services.opensearch, config.indexPrefix, config.index);
    if (created.length > 0) logger.info({ indices: created }, 'created indices');
    await options.beforeServing?.({ config, opensearch: services.opensearch, logger });
    const app = createApp(services);
    // compile the request schemas before taking traffic: compiling on a first request blocks
    // the process long enough for other requests' Redis commands to time out
    await warmUpValidation();
    compileRequestChecks([corporateSearch, jobSearch]);
    processState.markValidatorsCompiled();
    const metricsServer = await startMetricsListener(config.metricsHost, config.metricsPort, 9464, logger);
    if (metricsServer) cleanups.push(metricsServer.close);
    // the port was free at start; another process may have taken it while OpenSearch started
    const server: Server = createHttpServer(app, config.http);
    await new Promise<void>((resolve, reject) => {
      server.once('error', (error: NodeJS.ErrnoException) =>
        reject(portError(error, config.host, config.port)),
      );
      server.listen(config.port, config.host, () => resolve());
    });
    // stop accepting at once, let in-flight requests finish, then close the rest
    cleanups.unshift(
      () =>
        new Promise((resolve) => {
          processState.markDraining();
          server.close(() => resolve());
          server.closeIdleConnections();
        }),
    );
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : config.port;
    logger.info(
      { port, opensearchNodes: opensearchUrl.split(',').length },
      `serving on http://${config.host}:${port}`,
    );
  }

  let stopping = false;
  /** `reason` undefined: a failed start, already told on stderr in one line; no stop lines. */
  async function shutdown(code: number, reason?: string): Promise<void> {
    if (stopping) return;
    stopping = true;
    const started = Date.now();
    if (reason) logger.info({ reason }, 'stopping');
    for (const cleanup of cleanups) {
      try {
        await cleanup();
      } catch (error) {
        logger.error({ err: { message: (error as Error).message } }, 'error during shutdown');
      }
    }
    if (reason) logger.info({ reason, ms: Date.now() - started, code }, 'stopped');
    await endLogs(logger);
    process.exit(code);
  }
  process.on('SIGINT', () => void shutdown(0, 'SIGINT'));
  process.on('SIGTERM', () => void shutdown(0, 'SIGTERM'));

  start().catch((error: Error) => {
    // one plain line for the person at the terminal, then everything started so far is stopped
    process.stderr.write(`${options.command ?? 'corpsearch-api'}: ${describeStartFailure(error)}\n`);
    void shutdown(1);
  });
}
