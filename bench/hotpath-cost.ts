/**
 * What the request's own bookkeeping costs the API: the request log line, the metrics, the
 * validator's route lookup and the log's destination (docs/bench.md, "The request's own
 * bookkeeping"). The setups are served by a server process of their own, which answers its
 * CPU time (user + system, all threads, so the log's writes on libuv's pool count) before and
 * after each round; the load comes from this process over loopback, 8 requests at a time;
 * rounds interleaved, median of the rounds.
 *
 *   middleware  each piece alone behind the request id, before and after, on a trivial route
 *               (no engine, no Redis)
 *   search      company searches through the whole app on the engine and Redis of
 *               OPENSEARCH_URL / REDIS_URL (a small seeded sample under its own prefix,
 *               dropped at the end): as shipped, with the route lookup uncached, and with
 *               the log off (what the log line and its writes still cost in all)
 *
 *   npx tsx bench/hotpath-cost.ts [middleware|search|all] [requests per round, default 2000] [rounds, default 5]
 *   HOTPATH_CONNECTIONS=1 (requests at a time, default 8), HOTPATH_GROUP=log (only the groups
 *   whose name holds it), HOTPATH_BEFORE_DIR=<a checkout> (search: also that checkout's app, in
 *   this process: the code before a change, in the same run)
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
import { fileURLToPath, pathToFileURL } from 'node:url';
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

let mode = process.argv[2] ?? 'all';
const perRound = Number(process.argv[3] ?? 2000);
const rounds = Number(process.argv[4] ?? 5);
/** HOTPATH_CONNECTIONS: requests at a time (8); HOTPATH_GROUP: only the groups whose name holds it. */
const concurrency = Number(process.env.HOTPATH_CONNECTIONS ?? 8);
const onlyGroup = process.env.HOTPATH_GROUP ?? '';

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

type Destination = ReturnType<typeof pino.destination>;

/** pino's own stdout destination: asynchronous, each line written as it comes (minLength 0). */
function lineByLine(file: string): Destination {
  return pino.destination({ dest: file, sync: false });
}

/** Lines gathered up to 4 kB (or 250 ms) before a write. */
function batched(file: string): Destination {
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
  const requireHere = createRequire(import.meta.url);
  return createRequire(requireHere.resolve('express-openapi-validator'))('path-to-regexp');
}

/** The library's own compile, kept before the app's cache wraps it (validateRequests). */
const libraryCompile = validatorsPathToRegexp().pathToRegexp;

interface Setup {
  group: string;
  name: string;
  url: string;
  body?: string;
  /** run in the server process before each of this setup's rounds */
  before?: () => void;
}

/** What the server process tells the driver: its setups and the headers to send. */
interface Served {
  control: string;
  headers: Record<string, string>;
  setups: Array<Omit<Setup, 'before'>>;
}

async function listen(app: express.Express): Promise<number> {
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return (server.address() as AddressInfo).port;
}

async function serve(group: string, name: string, app: express.Express, route: string, body?: string) {
  const port = await listen(app);
  return { group, name, url: `http://127.0.0.1:${port}${route}`, body } as Setup;
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

function searchValidatorApp(): express.Express {
  const app = express();
  const api = express.Router();
  api.use(validateRequests());
  api.post('/corporates/search', (_req, res) => {
    res.status(204).end();
  });
  app.use(requestId());
  app.use('/rest/v1', api);
  return app;
}

async function middlewareSetups(file: string): Promise<Setup[]> {
  const each = lineByLine(file);
  const gathered = batched(file);
  const library = validatorsPathToRegexp();
  validateRequests();
  const cached = library.pathToRegexp;
  const ping = '/rest/v1/ping';
  const log = 'request log';
  const metric = 'metrics';
  const lookup = 'validator (a search body, seen as an object), route lookup';
  const body = JSON.stringify({ prefectureIdOr: [13], limit: 10 });
  return [
    await serve(log, 'no log line', trivialApp(), ping),
    await serve(
      log,
      'pino-http, lines written one by one (before)',
      trivialApp(pinoHttpLog(createLogger('info', each))),
      ping,
    ),
    await serve(
      log,
      'own line, lines written one by one',
      trivialApp(requestLog(createLogger('info', each))),
      ping,
    ),
    await serve(
      log,
      'own line, lines gathered to 4 kB (after)',
      trivialApp(requestLog(createLogger('info', gathered))),
      ping,
    ),
    await serve(metric, 'no metrics', trivialApp(), ping),
    await serve(metric, 'a closure per request (before)', trivialApp(closureMetrics()), ping),
    await serve(metric, 'shared listener, labels kept (after)', trivialApp(requestMetrics()), ping),
    {
      ...(await serve(
        lookup,
        'cached route templates (after)',
        searchValidatorApp(),
        '/rest/v1/corporates/search',
        body,
      )),
      before: () => {
        library.pathToRegexp = cached;
      },
    },
    {
      ...(await serve(
        lookup,
        'templates compiled per request (before)',
        searchValidatorApp(),
        '/rest/v1/corporates/search',
        body,
      )),
      before: () => {
        library.pathToRegexp = libraryCompile;
      },
    },
  ];
}

/** Company searches through the whole app, on the engine and Redis of the environment. */
async function searchSetups(
  file: string,
): Promise<{ setups: Setup[]; headers: Record<string, string>; close: () => Promise<void> }> {
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
    // generous: the machine may be loaded; a refusal stops the run rather than pass for a search
    requestDeadlineMs: 20_000,
    redisBudgetMs: 5_000,
    index: { ...base.index, shards: 1 },
    limits: { ...base.limits, rateLimitExemptUsers: new Set([user]) },
  };
  const logged = createServices(config, createLogger('info', batched(file)));
  const silent = { ...logged, logger: createLogger('silent') };
  const close = async () => {
    await dropIndices(logged.opensearch, prefix).catch(() => undefined);
    const keys = await logged.redis?.keys(`${prefix}*`);
    if (keys && keys.length > 0) await logged.redis?.del(...keys);
    await logged.close();
  };
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
  const group = 'company searches of 25 records';
  const shipped = await serve(group, 'as shipped', createApp(logged), route, body);
  const cached = library.pathToRegexp;
  const useCache = () => {
    library.pathToRegexp = cached;
  };
  shipped.before = useCache;
  const uncached = await serve(group, 'route templates compiled per request', createApp(logged), route, body);
  uncached.before = () => {
    library.pathToRegexp = libraryCompile;
  };
  const noLog = await serve(group, 'log off (level silent)', createApp(silent), route, body);
  noLog.before = useCache;
  const setups = [shipped, uncached, noLog];
  const beforeDir = process.env.HOTPATH_BEFORE_DIR;
  if (beforeDir) {
    const before = await beforeApp(beforeDir, config, file);
    const old = await serve(group, `the code of ${beforeDir}`, before.app, route, body);
    old.before = () => {
      library.pathToRegexp = libraryCompile;
    };
    setups.push(old);
  }
  return { setups, headers: { 'x-api-key': key }, close };
}

/**
 * The app of another checkout (HOTPATH_BEFORE_DIR: the code before a change), in this same
 * process, on the same engine, Redis, prefixes and key: a before/after in one run.
 */
async function beforeApp(dir: string, config: Parameters<typeof createServices>[0], file: string) {
  const from = (module: string) => import(pathToFileURL(path.resolve(dir, module)).href);
  const services = await from('src/services.ts');
  const app = await from('src/http/app.ts');
  const logger = await from('src/logger.ts');
  const beforeServices = services.createServices(config, logger.createLogger('info', batched(file)));
  return { app: app.createApp(beforeServices) as express.Express };
}

/**
 * The server process: the setups on ports of their own, and a control port that runs a
 * setup's `before` and answers this process's CPU time (µs, all threads).
 */
async function runServer(): Promise<void> {
  const sink = pipeSink();
  const setups: Setup[] = [];
  let headers: Record<string, string> = {};
  let closeSearch: () => Promise<void> = async () => undefined;
  if (mode === 'middleware' || mode === 'all') setups.push(...(await middlewareSetups(sink.file)));
  if (mode === 'search' || mode === 'all') {
    const search = await searchSetups(sink.file);
    setups.push(...search.setups);
    headers = search.headers;
    closeSearch = search.close;
  }
  const control = express();
  control.get('/cpu', (req, res) => {
    setups.find((setup) => setup.name === req.query.before)?.before?.();
    const { user, system } = process.cpuUsage();
    res.json({ micros: user + system });
  });
  control.post('/stop', (_req, res) => {
    res.end();
    void closeSearch().finally(() => {
      sink.close();
      process.exit(0);
    });
  });
  const port = await listen(control);
  const served: Served = {
    control: `http://127.0.0.1:${port}`,
    headers,
    setups: setups.map(({ before: _before, ...setup }) => setup),
  };
  process.stdout.write(`${JSON.stringify(served)}\n`);
}

async function cpuMicros(served: Served, before?: string): Promise<number> {
  const query = before ? `?before=${encodeURIComponent(before)}` : '';
  const res = await fetch(`${served.control}/cpu${query}`);
  return ((await res.json()) as { micros: number }).micros;
}

/** The server process's CPU time per request, `concurrency` requests at a time. */
async function round(served: Served, setup: Served['setups'][number]): Promise<number> {
  const started = await cpuMicros(served, setup.name);
  let left = perRound;
  const worker = async () => {
    while (left-- > 0) {
      const res = await fetch(setup.url, {
        method: setup.body ? 'POST' : 'GET',
        headers: setup.body ? { 'content-type': 'application/json', ...served.headers } : served.headers,
        body: setup.body,
      });
      const answer = await res.text();
      if (res.status >= 300) throw new Error(`${setup.name}: status ${res.status} ${answer.slice(0, 300)}`);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return ((await cpuMicros(served)) - started) / perRound;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

async function measure(served: Served, setups: Served['setups']): Promise<void> {
  for (const setup of setups) await round(served, setup); // warm up
  const times = new Map<string, number[]>(setups.map((setup) => [setup.name, []]));
  for (let r = 0; r < rounds; r++)
    for (const setup of setups) times.get(setup.name)?.push(await round(served, setup));
  const base = median(times.get(setups[0]?.name ?? '') ?? []);
  for (const setup of setups) {
    const value = median(times.get(setup.name) ?? []);
    const delta = setup === setups[0] ? '' : ` (${value - base >= 0 ? '+' : ''}${(value - base).toFixed(1)})`;
    console.log(`  ${setup.name.padEnd(56)} ${value.toFixed(1)} µs${delta}`);
  }
}

/** The driver: starts the server process, runs each group's rounds interleaved, prints. */
async function drive(): Promise<void> {
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), 'serve', mode], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: process.env,
  });
  const served = await new Promise<Served>((resolve, reject) => {
    let text = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      const line = text.split('\n').find((candidate) => candidate.startsWith('{"control"'));
      if (line) resolve(JSON.parse(line) as Served);
    });
    child.once('exit', (code) => reject(new Error(`the server process exited (${code})`)));
  });
  try {
    console.log(
      `CPU time of the server process per request, ${concurrency} at a time, median of ${rounds} rounds of ${perRound}:`,
    );
    const groups = [...new Set(served.setups.map((setup) => setup.group))];
    for (const group of groups.filter((name) => name.includes(onlyGroup))) {
      console.log(`${group}:`);
      await measure(
        served,
        served.setups.filter((setup) => setup.group === group),
      );
    }
  } finally {
    await fetch(`${served.control}/stop`, { method: 'POST' }).catch(() => undefined);
  }
}

if (process.argv[2] === 'serve') {
  mode = process.argv[3] ?? 'all';
  await runServer();
} else {
  await drive();
}
