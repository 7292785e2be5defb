/**
 * The probes cost the engine and Redis nothing per call: /readyz and /health answer from a
 * state one background check per process refreshes about once a second.
 *
 * The app runs behind createHttpServer (as src/server.ts serves it), on a redis-server of this
 * file's own (its PING count is the app's alone) and with a counting HTTP proxy in front of
 * the shared OpenSearch node: every engine request the app makes passes through the proxy and
 * is counted there. The proxy can send the app to a dead endpoint (test/support/dead-endpoint.ts)
 * and back: the engine going away and coming back.
 */
import { mkdtempSync } from 'node:fs';
import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type LocalRedis, startLocalRedis } from '../../ops/local/redis-server.js';
import { defaultConfig } from '../../src/config.js';
import { createApp } from '../../src/http/app.js';
import { type DependencyHealth, HealthMonitor, processState } from '../../src/http/readiness.js';
import { createHttpServer } from '../../src/http/server.js';
import type { Services } from '../../src/services.js';
import { type DeadEndpoint, startDeadEndpoint } from '../support/dead-endpoint.js';
import { setUpServices } from '../support/env.js';

const operatorToken = 'operator-token-for-the-probes-test';
const asOperator = { authorization: `Bearer ${operatorToken}` };

/** Forwards every request to `target`, counting them; an unreachable target drops the caller. */
class CountingProxy {
  requests = 0;
  private readonly server: Server;
  private readonly agent = new http.Agent({ keepAlive: true });
  url = '';

  constructor(public target: string) {
    this.server = http.createServer((req, res) => {
      this.requests++;
      const upstream = http.request(
        `${this.target}${req.url}`,
        { method: req.method, headers: req.headers, agent: this.agent },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      upstream.on('error', () => res.socket?.destroy());
      req.pipe(upstream);
    });
  }

  async start(): Promise<void> {
    this.server.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => this.server.once('listening', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  close(): Promise<void> {
    this.agent.destroy();
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

let redisServer: LocalRedis;
let control: Redis;
let proxy: CountingProxy;
let dead: DeadEndpoint;
let services: Services;
let server: Server;
let monitor: HealthMonitor;
let base: string;
const agent = new http.Agent({ keepAlive: true, maxSockets: 200 });

beforeAll(async () => {
  redisServer = await startLocalRedis({ logDir: mkdtempSync(path.join(os.tmpdir(), 'probes-redis-')) });
  control = new Redis(redisServer.url);
  proxy = new CountingProxy(inject('opensearchUrl'));
  await proxy.start();
  dead = await startDeadEndpoint();
  services = await setUpServices('probes', {
    redisUrl: redisServer.url,
    opensearchUrl: proxy.url,
    operatorToken,
    // no revocation subscriber: its heartbeat PINGs would be counted with the probes'
    apiKeyCacheSeconds: 0,
  });
  processState.markValidatorsCompiled(); // as src/server.ts does before serving
  const app = createApp(services);
  monitor = app.locals.healthMonitor as HealthMonitor;
  server = createHttpServer(app, defaultConfig().http);
  server.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 60_000);

afterAll(async () => {
  agent.destroy();
  if (server?.listening) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  if (proxy) proxy.target = inject('opensearchUrl'); // the indices are dropped through it
  await services?.close();
  await proxy?.close();
  await dead?.close();
  control?.disconnect();
  await redisServer?.stop();
});

interface Answer {
  status: number;
  body: unknown;
  cacheControl: string | undefined;
}

function probe(route: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${base}${route}`, { agent, headers, timeout: 15_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          body: JSON.parse(Buffer.concat(chunks).toString('utf8')),
          cacheControl: res.headers['cache-control'],
        }),
      );
    });
    req.on('timeout', () => req.destroy(new Error(`${route}: no answer within 15 s`)));
    req.on('error', reject);
  });
}

async function pings(): Promise<number> {
  const stats = await control.info('commandstats');
  return Number(/cmdstat_ping:calls=(\d+)/.exec(stats)?.[1] ?? 0);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls /readyz until it answers `status`; the milliseconds it took (a bound, not a speed claim). */
async function readyzBecomes(status: number, timeoutMs: number): Promise<number> {
  const started = Date.now();
  for (;;) {
    if ((await probe('/readyz')).status === status) return Date.now() - started;
    if (Date.now() - started > timeoutMs) throw new Error(`/readyz not ${status} within ${timeoutMs} ms`);
    await sleep(100);
  }
}

// the last test closes the server the others probe: the order is kept when the suite runs
// shuffled (--sequence.shuffle)
describe('/readyz and /health under a flood of probes', { shuffle: false }, () => {
  it('200 + 200 concurrent calls, again and again for 3 s: about one engine request and one Redis PING a second', async () => {
    await readyzBecomes(200, 20_000);
    proxy.requests = 0;
    const pingsBefore = await pings();
    const started = Date.now();
    const answers: Answer[] = [];
    const routes: string[] = [];
    while (Date.now() - started < 3000) {
      const wave = [...Array(200).fill('/readyz'), ...Array(200).fill('/health')] as string[];
      answers.push(...(await Promise.all(wave.map((route) => probe(route)))));
      routes.push(...wave);
    }
    const seconds = (Date.now() - started) / 1000;
    const engineRequests = proxy.requests;
    const redisPings = (await pings()) - pingsBefore;
    console.log(
      `${answers.length} probe calls in ${seconds.toFixed(1)} s: ${engineRequests} engine requests, ${redisPings} Redis PINGs`,
    );
    expect(answers.length).toBeGreaterThanOrEqual(400);
    // one check a second (one engine request and one PING each), plus the one under way
    expect(engineRequests).toBeLessThanOrEqual(Math.ceil(seconds) + 2);
    expect(redisPings).toBeLessThanOrEqual(Math.ceil(seconds) + 2);
    // and the state is refreshed at all, in the background
    expect(engineRequests).toBeGreaterThanOrEqual(1);
    for (const [i, answer] of answers.entries()) {
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual(routes[i] === '/readyz' ? { status: 'ready' } : { status: 'ok' });
      expect(answer.cacheControl).toBe('no-store');
    }
    // the operator's details keep their shape
    const health = await probe('/health', asOperator);
    expect(health.body).toMatchObject({
      status: 'ok',
      opensearch: { status: expect.stringMatching(/^(green|yellow)$/), cluster: expect.any(String) },
      redis: { status: 'up', mode: 'shared' },
    });
    expect((await probe('/readyz', asOperator)).body).toEqual({ status: 'ready', failing: [] });
  }, 60_000);

  it('turns not-ready within a bounded time when the engine goes away, and ready again when it is back', async () => {
    await readyzBecomes(200, 20_000);
    proxy.target = dead.url;
    let downMs: number;
    try {
      downMs = await readyzBecomes(503, 10_000);
      const ready = await probe('/readyz', asOperator);
      expect(ready.body).toEqual({ status: 'not-ready', failing: ['opensearch', 'indices'] });
      expect(await probe('/readyz')).toMatchObject({ status: 503, body: { status: 'not-ready' } });
      const health = await probe('/health', asOperator);
      expect(health.status).toBe(503);
      expect(health.body).toMatchObject({ status: 'degraded', opensearch: { status: 'down' } });
      expect((await probe('/livez')).status).toBe(200);
    } finally {
      proxy.target = inject('opensearchUrl');
    }
    const upMs = await readyzBecomes(200, 10_000);
    console.log(`engine away: not ready after ${downMs} ms; back: ready after ${upMs} ms`);
  }, 60_000);

  it('the refresher stops when the server closes: no more engine requests', async () => {
    expect(monitor.running).toBe(true);
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    expect(monitor.running).toBe(false);
    await sleep(200); // a check already under way may finish
    const after = proxy.requests;
    await sleep(2500);
    expect(proxy.requests).toBe(after);
  }, 30_000);
});

describe('HealthMonitor', () => {
  const healthy: DependencyHealth = {
    opensearch: { status: 'green', cluster: 'c' },
    indices: true,
    redis: { status: 'up', mode: 'shared' },
  };

  it('a check that hangs: never a second one in flight, and the state turns stale (not ready)', async () => {
    let calls = 0;
    const hung = new HealthMonitor(
      () => {
        calls++;
        return calls === 1 ? Promise.resolve(healthy) : new Promise<DependencyHealth>(() => {});
      },
      { intervalMs: 50, staleAfterMs: 600 },
    );
    hung.start();
    try {
      expect(await hung.read()).toMatchObject({ stale: false, indices: true });
      await sleep(1200);
      expect(calls).toBe(2);
      expect((await hung.read()).stale).toBe(true);
      // stopped, reads check on demand: still never a second check beside the hung one
      hung.stop();
      for (let i = 0; i < 3; i++) {
        await Promise.race([hung.read(), sleep(100)]);
        await sleep(60);
      }
      expect(calls).toBe(2);
    } finally {
      hung.stop();
    }
  });

  it('never started (served by another listener): 200 concurrent reads make one check', async () => {
    let calls = 0;
    const lazy = new HealthMonitor(async () => {
      calls++;
      await sleep(20);
      return healthy;
    });
    const readings = await Promise.all(Array.from({ length: 200 }, () => lazy.read()));
    expect(calls).toBe(1);
    expect(readings.every((r) => !r.stale && r.indices)).toBe(true);
    await Promise.all(Array.from({ length: 200 }, () => lazy.read())); // within the interval
    expect(calls).toBe(1);
  });
});
