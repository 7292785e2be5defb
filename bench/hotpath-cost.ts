/**
 * What the request's own bookkeeping costs the API: the request log line, the metrics, the
 * validator's route lookup and the log's destination (docs/bench.md, "The request's own
 * bookkeeping"). In one process, on loopback, CPU time per request (user + system of the
 * process, client included: the client's share is the same for every setup), 8 requests at
 * a time, rounds interleaved, median of the rounds.
 *
 *   middleware  each piece alone behind the request id, before and after, on a trivial route
 *               (no engine, no Redis)
 *   search      company searches through the whole app on the engine and Redis of
 *               OPENSEARCH_URL / REDIS_URL (a small seeded sample under its own prefix,
 *               dropped at the end): as shipped, with the route lookup uncached, and with
 *               the log off (what the log line and its writes still cost in all)
 *
 *   npx tsx bench/hotpath-cost.ts [middleware|search|all] [requests per round, default 2000]
 *
 * Log lines go to a named pipe read by `cat` into /dev/null: in production stdout is a pipe
 * to a collector, and a pipe's writes cost what a file's or /dev/null's do not.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import express from 'express';
import pino, { type Logger } from 'pino';
import { pinoHttp } from 'pino-http';
import { loadSampleDataIfEmpty } from '../indexer/sample-data.js';
import { createApiKey, keyStoreFor } from '../src/auth/key-admin.js';
import { defaultConfig } from '../src/config.js';
import { createApp } from '../src/http/app.js';
import { processState } from '../src/http/readiness.js';
import { requestId } from '../src/http/request-id.js';
import { requestLog } from '../src/http/request-log.js';
import { requestMetrics } from '../src/http/request-metrics.js';
import { validateRequests } from '../src/http/validation.js';
import { createLogger } from '../src/logger.js';
import { metrics } from '../src/metrics.js';
import { bootstrapIndices, dropIndices } from '../src/opensearch/indices.js';
import { createServices } from '../src/services.js';

const mode = process.argv[2] ?? 'all';
const perRound = Number(process.argv[3] ?? 2000);
const rounds = 5;
const concurrency = 8;

/** A named pipe drained by `cat`, so log writes cost what a pipe to a collector does. */
function pipeSink(): { file: string; close: () => void } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'hotpath-'));
  const file = path.join(dir, 'log.fifo');
  execFileSync('mkfifo', [file]);
  const reader: ChildProcess = spawn('sh', ['-c', `cat "${file}" > /dev/null`], { stdio: 'ignore' });
  return {
    file,
    close: () => {
      reader.kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** pino's own stdout destination: asynchronous, each line written as it comes (minLength 0). */
function lineByLine(file: string): pino.DestinationStream {
  return pino.destination({ dest: file, sync: false });
}

/** Lines gathered up to 4 kB (or 250 ms) before a write. */
function batched(file: string): pino.DestinationStream {
  return pino.destination({ dest: file, sync: false, minLength: 4096, periodicFlush: 250 });
}

/** The request log as it was: pino-http, a child logger per request (the code before). */
function pinoHttpLog(logger: Logger) {
  const localsOf = (res: ServerResponse) =>
    ((res as express.Response).locals ?? {}) as { requestId?: string; user?: { id: string; keyId: string } };
  const outcome = (res: ServerResponse, fields: Record<string, unknown>) => {
    const { user } = localsOf(res);
    if (user) {
      fields.userId = user.id;
      fields.keyId = user.keyId;
    }
    return fields;
  };
  return pinoHttp({
    logger,
    genReqId: (_req: IncomingMessage, res: ServerResponse) => localsOf(res).requestId ?? 'unknown',
    wrapSerializers: false,
    serializers: {
      req: (req: IncomingMessage & { id: string; originalUrl?: string }) => ({
        id: req.id,
        method: req.method,
        path: (req.originalUrl ?? req.url ?? '').split('?')[0],
      }),
      res: (res: ServerResponse) => ({ statusCode: res.statusCode }),
      err: (error: Error) => ({ type: error.name, message: error.message }),
    },
    customSuccessObject: (_req, res, fields) => outcome(res, fields),
    customErrorObject: (_req, res, _error, fields) => outcome(res, fields),
    customLogLevel: (_req, res, error) => (error || res.statusCode >= 500 ? 'error' : 'info'),
  });
}

/** The metrics as they were: a closure and a labels object per request (the code before). */
function closureMetrics(): express.RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    res.once('finish', () => {
      const path = req.originalUrl.split('?')[0] ?? '';
      const template = (req.route?.path as string | undefined) ?? 'unmatched';
      const route = path.startsWith('/rest/v1/') ? `/rest/v1${template}` : template;
      const labels = { method: req.method, route, status: String(res.statusCode) };
      metrics.httpRequests.inc(labels);
      metrics.httpDuration.observe(labels, Number(process.hrtime.bigint() - started) / 1e9);
    });
    next();
  };
}

/** path-to-regexp as express-openapi-validator loads it, to switch its route cache per round. */
function validatorsPathToRegexp(): { pathToRegexp: unknown } {
  const require = createRequire(import.meta.url);
  return createRequire(require.resolve('express-openapi-validator'))('path-to-regexp');
}

/** The library's own compile, kept before the app's cache wraps it (validateRequests). */
const libraryCompile = validatorsPathToRegexp().pathToRegexp;

interface Setup {
  name: string;
  url: string;
  body?: string;
  /** run before each of this setup's rounds */
  before?: () => void;
  close: () => Promise<void>;
}

async function serve(name: string, app: express.Express, route: string, body?: string): Promise<Setup> {
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    name,
    url: `http://127.0.0.1:${port}${route}`,
    body,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A trivial route behind the request id and the middleware under test. */
function trivialApp(...middleware: express.RequestHandler[]): express.Express {
  const app = express();
  app.use(requestId(), ...middleware);
  app.get('/rest/v1/ping', (_req, res) => {
    res.status(200).json({ ok: true });
  });
  return app;
}

/** CPU time (user + system, all threads) of this process per request, `concurrency` at a time. */
async function round(setup: Setup, headers: Record<string, string>): Promise<number> {
  setup.before?.();
  const started = process.cpuUsage();
  let left = perRound;
  const worker = async () => {
    while (left-- > 0) {
      const res = await fetch(setup.url, {
        method: setup.body ? 'POST' : 'GET',
        headers: setup.body ? { 'content-type': 'application/json', ...headers } : headers,
        body: setup.body,
      });
      await res.arrayBuffer();
      if (res.status >= 300) throw new Error(`${setup.name}: status ${res.status}`);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const used = process.cpuUsage(started);
  return (used.user + used.system) / perRound;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

async function measure(setups: Setup[], headers: Record<string, string> = {}): Promise<void> {
  for (const setup of setups) await round(setup, headers); // warm up
  const times = new Map<string, number[]>(setups.map((setup) => [setup.name, []]));
  for (let r = 0; r < rounds; r++)
    for (const setup of setups) times.get(setup.name)?.push(await round(setup, headers));
  for (const setup of setups) await setup.close();
  const base = median(times.get(setups[0]?.name ?? '') ?? []);
  for (const setup of setups) {
    const value = median(times.get(setup.name) ?? []);
    const delta = setup === setups[0] ? '' : ` (${value - base >= 0 ? '+' : ''}${(value - base).toFixed(1)})`;
    console.log(`  ${setup.name.padEnd(56)} ${value.toFixed(1)} µs${delta}`);
  }
}

async function middlewareRounds(file: string): Promise<void> {
  const each = lineByLine(file);
  const gathered = batched(file);
  const library = validatorsPathToRegexp();
  const bodyText = JSON.stringify({ prefectureIdOr: [13], limit: 10 });
  const validator = () => {
    const app = express();
    const api = express.Router();
    api.use(validateRequests());
    api.post('/corporates/search', (_req, res) => {
      res.status(204).end();
    });
    app.use(requestId());
    app.use('/rest/v1', api);
    return app;
  };
  validateRequests();
  const cached = library.pathToRegexp;
  console.log(`CPU time per request (client + server), ${concurrency} at a time, median of ${rounds} rounds of ${perRound}:`);
  console.log('request log:');
  await measure([
    await serve('no log line', trivialApp(), '/rest/v1/ping'),
    await serve('pino-http, lines written one by one (before)', trivialApp(pinoHttpLog(createLogger('info', each))), '/rest/v1/ping'),
    await serve('own line, lines written one by one', trivialApp(requestLog(createLogger('info', each))), '/rest/v1/ping'),
    await serve('own line, lines gathered to 4 kB (after)', trivialApp(requestLog(createLogger('info', gathered))), '/rest/v1/ping'),
  ]);
  console.log('metrics:');
  await measure([
    await serve('no metrics', trivialApp(), '/rest/v1/ping'),
    await serve('a closure per request (before)', trivialApp(closureMetrics()), '/rest/v1/ping'),
    await serve('shared listener, labels kept (after)', trivialApp(requestMetrics()), '/rest/v1/ping'),
  ]);
  console.log('validator (a search body, seen as an object), route lookup:');
  const withCache = await serve('cached route templates (after)', validator(), '/rest/v1/corporates/search', bodyText);
  withCache.before = () => {
    library.pathToRegexp = cached;
  };
  const without = await serve('templates compiled per request (before)', validator(), '/rest/v1/corporates/search', bodyText);
  without.before = () => {
    library.pathToRegexp = libraryCompile;
  };
  await measure([withCache, without]);
  library.pathToRegexp = cached;
  each.end?.();
  gathered.end?.();
}


/** Company searches through the whole app, on the engine and Redis of the environment. */
async function searchRounds(file: string): Promise<void> {
  const opensearchUrl = process.env.OPENSEARCH_URL;
  const redisUrl = process.env.REDIS_URL;
  if (!opensearchUrl || !redisUrl) throw new Error('search: set OPENSEARCH_URL and REDIS_URL');
  const prefix = `bench-hotpath-${process.pid}-`;
  const user = 'bench-hotpath';
  const base = defaultConfig();
  const config = {
    ...base,
    opensearchUrl,
    redisUrl,
    indexPrefix: prefix,
    redisPrefix: prefix,
    logLevel: 'info' as const,
    index: { ...base.index, shards: 1, replicas: 0 },
    limits: { ...base.limits, rateLimitExemptUsers: new Set([user]) },
  };
  const destination = batched(file);
  const logged = createServices(config, createLogger('info', destination));
  const silent = { ...logged, logger: createLogger('silent') };
  try {
    await bootstrapIndices(logged.opensearch, prefix, config.index);
    const sampleDir = mkdtempSync(path.join(os.tmpdir(), 'hotpath-sample-'));
    await loadSampleDataIfEmpty(logged.opensearch, prefix, createLogger('warn'), {
      size: { companies: 300, jobs: 3000, seed: 7 },
      dir: sampleDir,
    });
    rmSync(sampleDir, { recursive: true, force: true });
    const { key } = await createApiKey(keyStoreFor(logged.redis, prefix), { userId: user });
    await logged.limits.ledger.grant(user, 1e9);
    processState.markValidatorsCompiled();
    const library = validatorsPathToRegexp();
    const body = JSON.stringify({ prefectureIdOr: [13, 14, 27], limit: 25 });
    const route = '/rest/v1/corporates/search';
    const shipped = await serve('as shipped', createApp(logged), route, body);
    const cached = library.pathToRegexp;
    const uncached = await serve('route templates compiled per request', createApp(logged), route, body);
    const noLog = await serve('log off (level silent)', createApp(silent), route, body);
    shipped.before = () => {
      library.pathToRegexp = cached;
    };
    noLog.before = shipped.before;
    uncached.before = () => {
      library.pathToRegexp = libraryCompile;
    };
    console.log(`company searches of 25 records (${opensearchUrl}), CPU of this process per search:`);
    await measure([shipped, uncached, noLog], { 'x-api-key': key });
    library.pathToRegexp = cached;
  } finally {
    await dropIndices(logged.opensearch, prefix).catch(() => undefined);
    const keys = await logged.redis?.keys(`${prefix}*`);
    if (keys && keys.length > 0) await logged.redis?.del(...keys);
    await logged.close();
    destination.end?.();
  }
}

const sink = pipeSink();
try {
  if (mode === 'middleware' || mode === 'all') await middlewareRounds(sink.file);
  if (mode === 'search' || mode === 'all') await searchRounds(sink.file);
} finally {
  sink.close();
}
