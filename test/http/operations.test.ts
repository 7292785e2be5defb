/**
 * Liveness, readiness and the Prometheus metrics, against the real OpenSearch node and
 * redis-server of the test run.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import pino from 'pino';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { sleep, spawnManaged } from '../../ops/local/child-process.js';
import { indexSettingsFrom, loadConfig } from '../../src/config.js';
import { createApp } from '../../src/http/app.js';
import { processState } from '../../src/http/readiness.js';
import { createLogger, endLogs, gatheredLines, gatherMs } from '../../src/logger.js';
import { registry, startMetricsServer } from '../../src/metrics.js';
import { dropIndices } from '../../src/opensearch/indices.js';
import { projectRoot } from '../../src/project-root.js';
import type { Services } from '../../src/services.js';
import { servingUrl } from '../support/child-runs.js';
import { setUpServices, uniquePrefix } from '../support/env.js';

let services: Services;
const operatorToken = 'operator-token-for-the-operations-test';
const asOperator = { Authorization: `Bearer ${operatorToken}` };

beforeAll(async () => {
  services = await setUpServices('operations', { operatorToken });
});
afterAll(async () => {
  await services.close();
});

describe('GET /livez and GET /readyz', () => {
  it('livez is 200 whatever the dependencies say', async () => {
    const down = {
      ...services,
      redis: new Redis('redis://127.0.0.1:1', { lazyConnect: true, enableOfflineQueue: false }),
    };
    await request(createApp(down)).get('/livez').expect(200, { status: 'ok' });
    down.redis.disconnect();
  });

  it('readyz is 503 naming "validators" until the request validators are compiled, then 200', async () => {
    const app = createApp(services);
    if (!processState.validatorsCompiled) {
      const res = await request(app).get('/readyz').set(asOperator).expect(503);
      expect(res.body.failing).toEqual(['validators']);
      expect(res.headers['retry-after']).toBe('1');
    }
    processState.markValidatorsCompiled();
    await request(app).get('/readyz').set(asOperator).expect(200, { status: 'ready', failing: [] });
    await request(app).get('/readyz').expect(200, { status: 'ready' });
  });

  it('readyz is 503 naming "redis" when Redis does not answer', async () => {
    processState.markValidatorsCompiled();
    const redis = new Redis('redis://127.0.0.1:1', {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
    });
    const res = await request(createApp({ ...services, redis }))
      .get('/readyz')
      .set(asOperator)
      .expect(503);
    expect(res.body.failing).toEqual(['redis']);
    // without the token: the status and nothing that names a dependency
    const anonymous = await request(createApp({ ...services, redis }))
      .get('/readyz')
      .expect(503);
    expect(anonymous.body).toEqual({ status: 'not-ready' });
    expect(anonymous.headers['retry-after']).toBe('1');
    redis.disconnect();
  });

  it('readyz is 503 naming "indices" when the aliases are missing', async () => {
    processState.markValidatorsCompiled();
    const config = { ...services.config, indexPrefix: `${services.config.indexPrefix}missing-` };
    await dropIndices(services.opensearch, config.indexPrefix);
    const res = await request(createApp({ ...services, config }))
      .get('/readyz')
      .set(asOperator)
      .expect(503);
    expect(res.body.failing).toEqual(['indices']);
  });

  it('readyz is 503 naming "opensearch" (and so "indices") when the engine does not answer', async () => {
    processState.markValidatorsCompiled();
    const { createEngine } = await import('../../src/opensearch/engine.js');
    const opensearch = createEngine('http://127.0.0.1:1');
    const res = await request(createApp({ ...services, opensearch }))
      .get('/readyz')
      .set(asOperator)
      .expect(503);
    expect(res.body.failing).toEqual(['opensearch', 'indices']);
    await opensearch.close();
  });
});

describe('the production entry (src/main.ts)', () => {
  it('creates the indices, turns ready, and on SIGTERM writes out every line, then stopping and stopped, and exits 0', async () => {
    const prefix = uniquePrefix('entry');
    const logDir = mkdtempSync(path.join(os.tmpdir(), 'corpsearch-entry-'));
    const logFile = path.join(logDir, 'api.log');
    const api = spawnManaged(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      cwd: projectRoot,
      logFile,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        OPENSEARCH_URL: inject('opensearchUrl'),
        REDIS_URL: inject('redisUrl'),
        INDEX_PREFIX: prefix,
        REDIS_PREFIX: prefix,
        HOST: '127.0.0.1',
        PORT: '0', // the system picks the port as the API binds it; the log names it
        METRICS_PORT: '0',
        LOG_LEVEL: 'info',
      },
    });
    try {
      // a bound on waiting, not a speed check: start-up on a loaded machine takes seconds
      let ready: { status: number; body: unknown } = { status: 0, body: null };
      let base: string | undefined;
      for (let attempt = 0; attempt < 240 && ready.status !== 200; attempt++) {
        if (api.child.exitCode !== null) throw new Error(`the API exited during start-up:\n${api.tail()}`);
        base ??= existsSync(logFile) ? servingUrl(readFileSync(logFile, 'utf8')) : undefined;
        if (!base) {
          await sleep(500);
          continue;
        }
        ready = await fetch(`${base}/readyz`).then(
          async (res) => ({ status: res.status, body: await res.json() }),
          () => ({ status: 0, body: null }),
        );
        if (ready.status !== 200) await sleep(500);
      }
      expect(ready).toEqual({ status: 200, body: { status: 'ready' } });
      // answered just before the signal: its line is still held by the log's gathering
      // (src/logger.ts, gatheredLines) and must be written out by the stop
      await fetch(`${base}/livez`, { headers: { 'X-Request-Id': 'last-before-sigterm' } });
      await api.stop(10_000);
      expect(await api.exited).toBe(0);
      const lines = readFileSync(logFile, 'utf8')
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as { msg: string; req?: { id?: string } });
      const messages = lines.map((line) => line.msg);
      expect(messages).toContain(`serving on ${base}`);
      const last = lines.findIndex((line) => line.req?.id === 'last-before-sigterm');
      expect(last, 'the line of the last request before SIGTERM').toBeGreaterThan(-1);
      expect(messages.slice(last + 1)).toEqual(['stopping', 'stopped']);
    } finally {
      await api.stop(10_000);
      await dropIndices(services.opensearch, prefix);
      rmSync(logDir, { recursive: true, force: true });
    }
  });
});

describe('gathered log lines', () => {
  it("an idle process's line is written within the gathering time, without more lines or a stop", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'corpsearch-gathered-'));
    try {
      const file = path.join(dir, 'out.log');
      const destination = gatheredLines(file);
      const logger = createLogger('info', destination);
      logger.info('alone');
      const written = () => (existsSync(file) ? readFileSync(file, 'utf8') : '');
      // a bound on waiting for the timer on a loaded machine, not a speed check
      await expect
        .poll(written, { timeout: 20 * gatherMs, interval: gatherMs / 5 })
        .toContain('"msg":"alone"');
      await endLogs(logger);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('endLogs', () => {
  it('writes out every line still held by an asynchronous destination, in order, then closes it', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'corpsearch-endlogs-'));
    try {
      const file = path.join(dir, 'out.log');
      const destination = pino.destination({ dest: file, sync: false, mkdir: true });
      const logger = createLogger('info', destination);
      for (let line = 0; line < 200; line++) logger.info({ line }, 'working');
      logger.info('stopping');
      logger.info('stopped');
      await endLogs(logger);
      const messages = readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .map((line) => (JSON.parse(line) as { msg: string }).msg);
      expect(messages).toHaveLength(202);
      expect(messages.slice(-2)).toEqual(['stopping', 'stopped']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
  it('returns at once for an output it cannot end: one without end(), or one already closed', async () => {
    const lines: string[] = [];
    const plain = createLogger('info', { write: (line: string) => lines.push(line) });
    plain.info('kept');
    // the bound is a minute: only the early return settles within the five seconds waited here
    const settled = (logger: typeof plain) =>
      Promise.race([
        endLogs(logger, 60_000).then(() => 'returned'),
        sleep(5_000).then(() => 'still waiting'),
      ]);
    expect(await settled(plain)).toBe('returned');
    expect(lines.map((line) => (JSON.parse(line) as { msg: string }).msg)).toEqual(['kept']);
    const dir = mkdtempSync(path.join(os.tmpdir(), 'corpsearch-endlogs-'));
    try {
      const destination = pino.destination({ dest: path.join(dir, 'out.log'), sync: true, mkdir: true });
      const closed = createLogger('info', destination);
      destination.destroy();
      expect(await settled(closed)).toBe('returned');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('metrics', () => {
  it('counts requests by route template and status, never by the id in the path', async () => {
    const app = createApp(services);
    await request(app).get('/rest/v1/jobs/J000000001/detail').set('X-API-Key', 'cs_live_nope');
    await request(app).get('/livez').expect(200);
    const text = await registry.metrics();
    expect(text).toMatch(/corpsearch_http_requests_total\{method="GET",route="\/livez",status="200"\} \d+/);
    expect(text).toMatch(
      /corpsearch_http_request_duration_seconds_bucket\{le="0\.005",method="GET",route="\/livez",status="200"\}/,
    );
    expect(text).not.toContain('J000000001');
  });

  it('are served on their own listener, not by the API app', async () => {
    const server = await startMetricsServer('127.0.0.1', 0, createLogger('silent'));
    try {
      const res = await fetch(server.url);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toContain('text/plain');
      const text = await res.text();
      for (const name of [
        'corpsearch_http_requests_total',
        'corpsearch_opensearch_duration_seconds',
        'corpsearch_requests_rejected_total',
        'corpsearch_credits_charged_total',
        'corpsearch_credits_refunded_total',
        'corpsearch_indexer_records_total',
        'corpsearch_indexer_dead_lettered_total',
        'corpsearch_process_resident_memory_bytes',
      ])
        expect(text).toContain(`# TYPE ${name}`);
      expect((await fetch(server.url.replace('/metrics', '/other'))).status).toBe(404);
    } finally {
      await server.close();
    }
    await request(createApp(services)).get('/metrics').expect(404);
  });
});

describe('index shape from configuration', () => {
  it('defaults to 1 shard, one replica once a second node exists, refresh 1s', () => {
    expect(indexSettingsFrom(loadConfig({}).index)).toEqual({
      number_of_shards: 1,
      auto_expand_replicas: '0-1',
      refresh_interval: '1s',
    });
  });

  it('takes INDEX_SHARDS, INDEX_REPLICAS and INDEX_REFRESH_INTERVAL', () => {
    const config = loadConfig({ INDEX_SHARDS: '3', INDEX_REPLICAS: '2', INDEX_REFRESH_INTERVAL: '30s' });
    expect(indexSettingsFrom(config.index)).toEqual({
      number_of_shards: 3,
      number_of_replicas: 2,
      auto_expand_replicas: false,
      refresh_interval: '30s',
    });
  });

  it('refuses a refresh interval OpenSearch would not take, naming the variable', () => {
    expect(() => loadConfig({ INDEX_REFRESH_INTERVAL: 'soon' })).toThrow(/INDEX_REFRESH_INTERVAL/);
  });
});
