/**
 * A Redis primary with one replica and three Sentinels on loopback, for the fault tests and
 * `npm run cluster`: the shape production runs so that losing the primary loses neither the
 * service for long nor an acknowledged grant (docs/credits.md). Processes use it through
 * REDIS_URL `redis-sentinel://127.0.0.1:<s1>,127.0.0.1:<s2>,127.0.0.1:<s3>/<name>` (src/redis.ts).
 *
 *   const set = await startLocalRedisSentinel({ dir, downAfterMs: 1000 });
 *   set.url;                           // the REDIS_URL
 *   const old = await set.primary();   // the member the Sentinels name now
 *   await old.kill9();                 // the Sentinels promote the replica after downAfterMs
 *   await old.restart();               // back on its port and data; the Sentinels make it a replica
 *
 * Every process runs under `setpriv --pdeathsig` (spawnManaged): none outlives its starter.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Redis } from 'ioredis';
import { freePort, sleep, spawnManaged } from './child-process.js';
import { type LocalRedis, startLocalRedis } from './redis-server.js';

export interface RedisMember {
  readonly port: number;
  pid(): number | undefined;
  /** SIGKILL, no AOF rewrite, no goodbye. */
  kill9(): Promise<void>;
  /** Starts it again on the same port and folder (its AOF). */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

export interface LocalRedisSentinel {
  /** REDIS_URL for the processes. */
  url: string;
  name: string;
  members: RedisMember[];
  sentinelPorts: number[];
  /** The member the Sentinels name as primary now. */
  primary(): Promise<RedisMember>;
  /** Until a quorum of Sentinels names another primary than `port`; its port. */
  waitForFailover(port: number, timeoutMs: number): Promise<number>;
  stop(): Promise<void>;
}

export interface RedisSentinelOptions {
  dir: string;
  /** The master name. */
  name?: string;
  /** How long the primary must not answer before the Sentinels call it down. */
  downAfterMs?: number;
  failoverTimeoutMs?: number;
  appendOnly?: boolean;
}

async function ask<T>(port: number, work: (redis: Redis) => Promise<T>): Promise<T> {
  const redis = new Redis({
    host: '127.0.0.1',
    port,
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  redis.on('error', () => {});
  try {
    await redis.connect();
    return await work(redis);
  } finally {
    redis.disconnect();
  }
}

function member(
  dir: string,
  port: number,
  first: LocalRedis | undefined,
  extraArgs: () => string[],
  appendOnly: boolean,
): RedisMember & { start(): Promise<void> } {
  let current = first;
  const start = async () => {
    current = await startLocalRedis({ logDir: dir, port, appendOnly, extraArgs: extraArgs() });
  };
  return {
    port,
    pid: () => current?.pid,
    start,
    async kill9() {
      if (current?.pid !== undefined) process.kill(current.pid, 'SIGKILL');
      await current?.stop();
      current = undefined;
    },
    restart: start,
    async stop() {
      await current?.stop();
      current = undefined;
    },
  };
}

async function waitUntil(check: () => Promise<boolean>, what: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`${what} not within ${timeoutMs} ms`);
    await sleep(100);
  }
}

/** Three Sentinels watching the primary on `primaryPort`, once they know the replica and each other. */
async function startSentinels(
  opts: RedisSentinelOptions,
  name: string,
  primaryPort: number,
  stops: Array<() => Promise<void>>,
): Promise<number[]> {
  const sentinelPorts = [await freePort(), await freePort(), await freePort()];
  for (const [i, port] of sentinelPorts.entries()) {
    const sentinelDir = path.join(opts.dir, `sentinel-${i + 1}`);
    mkdirSync(sentinelDir, { recursive: true });
    const conf = path.join(sentinelDir, 'sentinel.conf');
    // the Sentinel rewrites this file as it learns the set: it must be its own, writable
    writeFileSync(
      conf,
      [
        `port ${port}`,
        'bind 127.0.0.1',
        `dir ${sentinelDir}`,
        `sentinel monitor ${name} 127.0.0.1 ${primaryPort} 2`,
        `sentinel down-after-milliseconds ${name} ${opts.downAfterMs ?? 5000}`,
        `sentinel failover-timeout ${name} ${opts.failoverTimeoutMs ?? 10_000}`,
        `sentinel parallel-syncs ${name} 1`,
        '',
      ].join('\n'),
    );
    const sentinel = spawnManaged('redis-server', [conf, '--sentinel'], {
      logFile: path.join(sentinelDir, 'sentinel.log'),
    });
    stops.push(() => sentinel.stop(5_000));
    await waitUntil(() => ask(port, async (r) => (await r.ping()) === 'PONG'), `sentinel ${i + 1}`, 15_000);
  }
  // a failover needs the Sentinels to know the replica and each other (hello every 2 s)
  await waitUntil(
    async () => {
      for (const port of sentinelPorts) {
        const known = await ask(port, async (r) => {
          const replicas = (await r.call('SENTINEL', 'REPLICAS', name)) as unknown[];
          const others = (await r.call('SENTINEL', 'SENTINELS', name)) as unknown[];
          return replicas.length >= 1 && others.length >= 2;
        });
        if (!known) return false;
      }
      return true;
    },
    'the Sentinels knowing the replica and each other',
    60_000,
  );
  return sentinelPorts;
}

export async function startLocalRedisSentinel(opts: RedisSentinelOptions): Promise<LocalRedisSentinel> {
  const name = opts.name ?? 'corpsearch';
  const appendOnly = opts.appendOnly ?? true;
  const stops: Array<() => Promise<void>> = [];
  const stopAll = async () => {
    for (const stop of stops.splice(0).reverse()) await stop().catch(() => {});
  };
  try {
    // kept data: the member that was primary when the set last stopped starts as primary again,
    // so a replica never resyncs from a member a failover left behind
    const roleFile = path.join(opts.dir, 'primary');
    const last = existsSync(roleFile) ? readFileSync(roleFile, 'utf8').trim() : 'redis-1';
    const primaryDir = path.join(opts.dir, last === 'redis-2' ? 'redis-2' : 'redis-1');
    const first = await startLocalRedis({ logDir: primaryDir, appendOnly });
    const primary = member(primaryDir, first.port, first, () => [], appendOnly);
    stops.push(() => primary.stop());
    const replicaDir = path.join(opts.dir, last === 'redis-2' ? 'redis-1' : 'redis-2');
    const replicaPort = await freePort();
    const replicaOf = ['--replicaof', '127.0.0.1', String(first.port)];
    const replica = member(replicaDir, replicaPort, undefined, () => replicaOf, appendOnly);
    stops.push(() => replica.stop());
    await replica.start();
    await waitUntil(
      () => ask(replicaPort, async (r) => (await r.info('replication')).includes('master_link_status:up')),
      'the replica in sync',
      30_000,
    );
    const sentinelPorts = await startSentinels(opts, name, first.port, stops);
    const members = [primary, replica];
    const primaryPort = async () => {
      for (const port of sentinelPorts) {
        const address = await ask(port, (r) => r.call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', name)).catch(
          () => null,
        );
        if (Array.isArray(address)) return Number(address[1]);
      }
      throw new Error('no Sentinel answered');
    };
    return {
      url: `redis-sentinel://${sentinelPorts.map((port) => `127.0.0.1:${port}`).join(',')}/${name}`,
      name,
      members,
      sentinelPorts,
      async primary() {
        const port = await primaryPort();
        const found = members.find((m) => m.port === port);
        if (!found) throw new Error(`the Sentinels name port ${port}, not a member`);
        return found;
      },
      async waitForFailover(port, timeoutMs) {
        let now = port;
        await waitUntil(
          async () => {
            now = await primaryPort();
            return now !== port;
          },
          'a failover',
          timeoutMs,
        );
        return now;
      },
      async stop() {
        const now = await primaryPort().catch(() => undefined);
        if (now !== undefined)
          writeFileSync(roleFile, `${path.basename(now === primary.port ? primaryDir : replicaDir)}\n`);
        await stopAll();
      },
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}
