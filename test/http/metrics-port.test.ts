/**
 * The metrics listener's port (src/metrics.ts, startMetricsListener): two API processes on
 * one host with the default settings both start and both serve their metrics (the second, or
 * both when another program holds 9464, on a free port that it logs); a METRICS_PORT that is
 * set and taken stops the start with one line; 0 turns the listener off.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { freePort } from '../../ops/local/child-process.js';
import { createLogger } from '../../src/logger.js';
import { startMetricsListener } from '../../src/metrics.js';
import { createEngine } from '../../src/opensearch/engine.js';
import { dropIndices } from '../../src/opensearch/indices.js';
import { projectRoot } from '../../src/project-root.js';
import { type Run, runToEnd } from '../support/child-runs.js';
import { uniquePrefix } from '../support/env.js';

const children: ChildProcess[] = [];
const prefix = uniquePrefix('metrics-port');
const logger = createLogger('silent');

afterAll(async () => {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  const opensearch = createEngine(inject('opensearchUrl'));
  await dropIndices(opensearch, prefix);
  await opensearch.close();
  const redis = new Redis(inject('redisUrl'));
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
});

/** The default settings of an API process: no METRICS_PORT, no METRICS_HOST. */
function apiEnv(port: number): NodeJS.ProcessEnv {
  const { METRICS_PORT: _m, METRICS_HOST: _h, PORT: _p, ...rest } = process.env;
  return {
    ...rest,
    OPENSEARCH_URL: inject('opensearchUrl'),
    REDIS_URL: inject('redisUrl'),
    INDEX_PREFIX: prefix,
    REDIS_PREFIX: prefix,
    PORT: String(port),
    LOG_LEVEL: 'info',
    LOAD_SAMPLE_DATA: 'false',
  };
}

/** Starts src/main.ts and resolves with its metrics URL once it serves; its output kept in `log`. */
function startApi(
  env: NodeJS.ProcessEnv,
): Promise<{ child: ChildProcess; metricsUrl: string; log: () => string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: projectRoot,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`API did not start:\n${output}`)), 120_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const metrics = /metrics on (http:\/\/[^"\s]+\/metrics)/.exec(output);
      if (output.includes('serving on') && metrics?.[1]) {
        clearTimeout(timer);
        resolve({ child, metricsUrl: metrics[1], log: () => output });
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', () => {
      clearTimeout(timer);
      reject(new Error(`API exited:\n${output}`));
    });
  });
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('close', () => resolve()));
}

/** A port held by a plain TCP listener, as another program would hold it. */
async function holdPort(): Promise<{ port: number; server: Server }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return { port: typeof address === 'object' && address ? address.port : 0, server };
}

describe('two API processes on one host, default settings', () => {
  it('both start and both serve their own metrics', async () => {
    const first = await startApi(apiEnv(await freePort()));
    const second = await startApi(apiEnv(await freePort()));
    expect(first.metricsUrl).not.toBe(second.metricsUrl);
    for (const api of [first, second]) {
      const res = await fetch(api.metricsUrl);
      expect(res.status).toBe(200);
      expect(await res.text()).toContain('# TYPE corpsearch_http_requests_total counter');
    }
    // whichever did not get 9464 says so, and where its metrics are
    const movers = [first, second].filter((api) => !api.metricsUrl.endsWith(':9464/metrics'));
    expect(movers.length).toBeGreaterThanOrEqual(1);
    for (const api of movers) expect(api.log()).toContain('metrics port 9464 on 127.0.0.1 is taken');
    for (const api of [first, second]) api.child.kill('SIGTERM');
    await Promise.all([exited(first.child), exited(second.child)]);
  });
});

describe('the metrics listener', () => {
  it('unset and the default port taken: a free port instead', async () => {
    const held = await holdPort();
    try {
      const server = await startMetricsListener('127.0.0.1', undefined, held.port, logger);
      expect(server?.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
      expect(server?.url).not.toContain(`:${held.port}/`);
      expect((await fetch(server?.url ?? '')).status).toBe(200);
      await server?.close();
    } finally {
      held.server.close();
    }
  });

  it('METRICS_PORT set and taken: an error naming the port and the setting', async () => {
    const held = await holdPort();
    try {
      await expect(startMetricsListener('127.0.0.1', held.port, 9464, logger)).rejects.toThrow(
        `metrics port ${held.port} on 127.0.0.1 is already in use: set METRICS_PORT to a free port, or 0 to turn metrics off`,
      );
    } finally {
      held.server.close();
    }
  });

  it('serves GET /metrics only: another path or method is a 404 with no body', async () => {
    const server = await startMetricsListener('127.0.0.1', undefined, 0, logger);
    try {
      const url = server?.url ?? '';
      const metrics = await fetch(`${url}?name=x`);
      expect([metrics.status, metrics.headers.get('content-type')]).toEqual([
        200,
        expect.stringMatching(/^text\/plain/),
      ]);
      expect(await metrics.text()).toContain('# TYPE ');
      for (const [target, method] of [
        [url.replace(/\/metrics$/, '/'), 'GET'],
        [url.replace(/\/metrics$/, '/metricsx'), 'GET'],
        [url, 'POST'],
      ] as const) {
        const answer = await fetch(target, { method });
        expect([target, method, answer.status, await answer.text()]).toEqual([target, method, 404, '']);
      }
    } finally {
      await server?.close();
    }
  });

  it('a failure other than a taken port is thrown as it is (no fallback to a free port)', async () => {
    await expect(startMetricsListener('127.0.0.1', 70_000, 9464, logger)).rejects.toMatchObject({
      code: 'ERR_SOCKET_BAD_PORT',
    });
    await expect(startMetricsListener('127.0.0.1', undefined, 70_000, logger)).rejects.toMatchObject({
      code: 'ERR_SOCKET_BAD_PORT',
    });
  });

  it('METRICS_PORT=0: no listener', async () => {
    expect(await startMetricsListener('127.0.0.1', 0, 9464, logger)).toBeUndefined();
  });

  it('an API process whose METRICS_PORT is taken stops with that one line', async () => {
    const held = await holdPort();
    try {
      const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
        cwd: projectRoot,
        env: { ...apiEnv(await freePort()), METRICS_PORT: String(held.port), LOG_LEVEL: 'silent' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      children.push(child);
      const run: Run = await runToEnd(child);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(`metrics port ${held.port} on 127.0.0.1 is already in use`);
      expect(run.stderr).not.toMatch(/^\s+at /m);
    } finally {
      held.server.close();
    }
  });
});
