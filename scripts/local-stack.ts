/**
 * The production shape on one machine without Docker: a 3-node OpenSearch cluster (three
 * JVMs of the local runner on loopback, each with its own HTTP and transport port, one
 * replica per shard), a redis-server with the append-only file, N API processes and M BullMQ
 * workers. Used by `npm run cluster` and by the fault tests (scripts/fault-tests.ts), which
 * kill and restart its members one at a time.
 *
 * Every member runs under `setpriv --pdeathsig` (spawnManaged), so nothing outlives the
 * process that started the stack.
 */
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { freePort, type ManagedChild, sleep, spawnManaged } from '../ops/local/child-process.js';
import { type LocalOpenSearch, startLocalOpenSearch } from '../ops/local/opensearch-node.js';
import { type LocalRedisSentinel, startLocalRedisSentinel } from '../ops/local/redis-sentinel.js';
import { type LocalRedis, startLocalRedis } from '../ops/local/redis-server.js';
import { projectRoot } from '../src/project-root.js';

export interface StackOptions {
  /** Data, AOF and logs; kept between runs unless `ephemeral`. */
  baseDir: string;
  clusterName: string;
  nodes?: number;
  apis?: number;
  workers?: number;
  /** Per OpenSearch JVM (3 x 512m fits beside everything else on a small machine). */
  heap?: string;
  /** Extra environment of the API and worker processes (INDEX_PREFIX, RATE_LIMIT_*, ...). */
  env?: NodeJS.ProcessEnv;
  /** Run dist/ (after `npm run build`) instead of the TypeScript sources through tsx. */
  built?: boolean;
  ephemeral?: boolean;
  log?: (line: string) => void;
  /**
   * 'sentinel': a primary with a replica and three Sentinels (ops/local/redis-sentinel.ts),
   * REDIS_URL in its Sentinel form; 'single' (the default): one redis-server.
   */
  redis?: 'single' | 'sentinel';
  /** Sentinel mode: how long the primary must not answer before a failover (5,000 ms). */
  redisDownAfterMs?: number;
}

export interface StackNode {
  readonly index: number;
  /** Fixed once the node first started (a restart keeps it). */
  readonly url: string;
  readonly httpPort: number;
  readonly transportPort: number;
  pid(): number | undefined;
  /** SIGKILL, then waits for the exit. */
  kill9(): Promise<void>;
  /** Starts it again on the same ports and data folder; resolves once the cluster answers it. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

export interface StackProcess {
  readonly name: string;
  /** API: its base URL; worker: undefined. */
  readonly url: string | undefined;
  readonly metricsUrl: string;
  pid(): number;
  running(): boolean;
  /** Sends a signal; resolves with how long the process took to exit. */
  signal(signal: NodeJS.Signals): Promise<number>;
  restart(): Promise<void>;
  stop(): Promise<void>;
}

export interface StackRedis {
  readonly url: string;
  readonly dir: string;
  /** The (primary's) pid. */
  pid(): number;
  /** SIGTERM to the (primary) redis-server (it writes its AOF and exits), then the same port and folder again. */
  restart(pauseMs?: number): Promise<void>;
  /** Sentinel mode: the primary, its replica and the Sentinels. */
  readonly sentinel?: LocalRedisSentinel;
  stop(): Promise<void>;
}

export interface Stack {
  /** Comma-separated node URLs, the form OPENSEARCH_URL takes for a cluster. */
  opensearchUrl: string;
  nodes: StackNode[];
  redis: StackRedis;
  apis: StackProcess[];
  workers: StackProcess[];
  /** The environment the API and worker processes run with. */
  env: NodeJS.ProcessEnv;
  stop(): Promise<void>;
}

async function distinctFreePorts(count: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < count) ports.add(await freePort());
  return [...ports];
}

async function waitFor(check: () => Promise<boolean>, child: ManagedChild, what: string, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.child.exitCode !== null || child.child.signalCode !== null)
      throw new Error(`${what} exited during start-up:\n${child.tail()}`);
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline)
      throw new Error(`${what} was not ready within ${timeoutMs} ms:\n${child.tail()}`);
    await sleep(200);
  }
}

function startNode(
  opts: StackOptions,
  index: number,
  firstHttpPort: number,
  transportPort: number,
  members: number[],
): StackNode {
  let current: LocalOpenSearch | undefined;
  let httpPort = firstHttpPort;
  const baseDir = path.join(opts.baseDir, `node-${index}`);
  const start = async () => {
    current = await startLocalOpenSearch({
      baseDir,
      clusterName: opts.clusterName,
      heap: opts.heap ?? '512m',
      httpPort,
      transportPort,
      clusterTransportPorts: members,
      // three JVMs starting at once on a busy 2-core machine took 3 minutes here
      startTimeoutMs: 600_000,
      log: (line) => opts.log?.(`[node-${index}] ${line}`),
    });
    // the runner moves up to the next free port when the asked one was taken meanwhile; a
    // restart asks for the one it got, so the node's URL never changes
    httpPort = Number(new URL(current.url).port);
  };
  const node: StackNode & { start(): Promise<void> } = {
    index,
    get url() {
      return `http://127.0.0.1:${httpPort}`;
    },
    get httpPort() {
      return httpPort;
    },
    transportPort,
    pid: () => current?.pid,
    start,
    async kill9() {
      const pid = current?.pid;
      if (pid === undefined) return;
      process.kill(pid, 'SIGKILL');
      await current?.stop();
      current = undefined;
    },
    restart: start,
    async stop() {
      await current?.stop();
      current = undefined;
    },
  };
  return node;
}

/**
 * HTTP ports for the nodes, from the top of the runner's range (9201-9299) down and 8 apart:
 * other local nodes take the first free port from 9201 up, and the runner itself moves up
 * from the asked port when it is taken by the time the JVM binds it.
 */
async function clusterHttpPorts(count: number): Promise<number[]> {
  const ports: number[] = [];
  for (let port = 9299; port >= 9201 && ports.length < count; port--) {
    if (ports.some((taken) => Math.abs(taken - port) < 8)) continue;
    try {
      ports.push(await freePort(port));
    } catch {
      // taken
    }
  }
  if (ports.length < count) throw new Error('not enough free HTTP ports between 9201 and 9299');
  return ports.reverse();
}

function managedProcess(
  opts: StackOptions,
  name: string,
  script: string,
  env: NodeJS.ProcessEnv,
  ready: { url: string } | { metrics: true },
  metricsUrl: string,
): StackProcess & { start(): Promise<void> } {
  let child: ManagedChild | undefined;
  const logDir = path.join(opts.baseDir, 'logs');
  const args = opts.built
    ? [path.join(projectRoot, 'dist', script.replace(/\.ts$/, '.js'))]
    : ['--import', 'tsx', path.join(projectRoot, script)];
  const start = async () => {
    const spawned = spawnManaged(process.execPath, args, {
      cwd: projectRoot,
      logFile: path.join(logDir, `${name}.log`),
      env,
    });
    child = spawned;
    // an API is ready when /readyz says so; a worker opens its metrics listener last thing
    // before it takes jobs (whatever LOG_LEVEL hides)
    const check = async () =>
      (await fetch('url' in ready ? `${ready.url}/readyz` : metricsUrl)).status === 200;
    try {
      await waitFor(check, spawned, name, 120_000);
    } catch (error) {
      await spawned.stop(5_000);
      throw error;
    }
  };
  return {
    name,
    url: 'url' in ready ? ready.url : undefined,
    metricsUrl,
    start,
    pid: () => child?.pid ?? -1,
    running: () => !!child && child.child.exitCode === null && child.child.signalCode === null,
    async signal(signal) {
      const target = child;
      if (!target) return 0;
      const sent = Date.now();
      target.child.kill(signal);
      await target.exited;
      return Date.now() - sent;
    },
    restart: start,
    async stop() {
      await child?.stop(15_000);
    },
  };
}

type Stops = Array<() => Promise<void>>;

/** The OpenSearch nodes started together (each one's stop added to `stops` before any starts). */
async function startClusterNodes(opts: StackOptions, stops: Stops, log: (line: string) => void) {
  const nodeCount = opts.nodes ?? 3;
  const httpPorts = await clusterHttpPorts(nodeCount);
  const transportPorts = await distinctFreePorts(nodeCount);
  const nodes = httpPorts.map((http, i) =>
    startNode(opts, i + 1, http, transportPorts[i] as number, transportPorts),
  );
  for (const node of nodes) stops.push(() => node.stop());
  log(`starting ${nodeCount} OpenSearch nodes (heap ${opts.heap ?? '512m'} each)`);
  // together: the members bootstrap the cluster once a majority of them see each other
  await Promise.all(nodes.map((node) => (node as StackNode & { start(): Promise<void> }).start()));
  return nodes;
}

/** Redis with an append-only file, restarted on the same port and folder so its data survives. */
async function startStackRedis(opts: StackOptions, stops: Stops): Promise<StackRedis> {
  const redisDir = path.join(opts.baseDir, 'redis');
  if (opts.redis === 'sentinel') {
    const sentinel = await startLocalRedisSentinel({
      dir: redisDir,
      downAfterMs: opts.redisDownAfterMs ?? 5000,
      appendOnly: true,
    });
    stops.push(() => sentinel.stop());
    let primaryPid = (await sentinel.primary()).pid() ?? -1;
    return {
      url: sentinel.url,
      dir: redisDir,
      sentinel,
      pid: () => primaryPid,
      async restart(pauseMs = 0) {
        const primary = await sentinel.primary();
        await primary.stop();
        if (pauseMs > 0) await sleep(pauseMs);
        await primary.restart();
        primaryPid = (await sentinel.primary()).pid() ?? -1;
      },
      stop: () => sentinel.stop(),
    };
  }
  let redis: LocalRedis = await startLocalRedis({ logDir: redisDir, appendOnly: true });
  const redisPort = redis.port;
  const stackRedis: StackRedis = {
    url: redis.url,
    dir: redisDir,
    pid: () => redis.pid,
    async restart(pauseMs = 0) {
      await redis.stop();
      if (pauseMs > 0) await sleep(pauseMs);
      redis = await startLocalRedis({ logDir: redisDir, appendOnly: true, port: redisPort });
    },
    stop: () => redis.stop(),
  };
  stops.push(() => stackRedis.stop());
  return stackRedis;
}

/** The environment every API and worker of the stack runs with. */
function stackEnv(opts: StackOptions, opensearchUrl: string, redisUrl: string): NodeJS.ProcessEnv {
  return {
    ...process.env,
    OPENSEARCH_URL: opensearchUrl,
    // the stack's own nodes are plain http without users: a secured engine's settings from
    // the caller's shell would be refused with them
    OPENSEARCH_USERNAME: '',
    OPENSEARCH_PASSWORD: '',
    OPENSEARCH_PASSWORD_FILE: '',
    OPENSEARCH_CA_FILE: '',
    REDIS_URL: redisUrl,
    HOST: '127.0.0.1',
    METRICS_HOST: '127.0.0.1',
    INDEX_REPLICAS: '1',
    LOAD_SAMPLE_DATA: 'false',
    ...opts.env,
  };
}

/** The workers and APIs on free ports, not started yet (each one's stop added to `stops`). */
async function stackProcesses(opts: StackOptions, env: NodeJS.ProcessEnv, stops: Stops) {
  const apis: StackProcess[] = [];
  const workers: StackProcess[] = [];
  for (let i = 1; i <= (opts.workers ?? 2); i++) {
    const metricsPort = await freePort();
    const worker = managedProcess(
      opts,
      `worker-${i}`,
      'indexer/bin/worker.ts',
      { ...env, METRICS_PORT: String(metricsPort) },
      { metrics: true },
      `http://127.0.0.1:${metricsPort}/metrics`,
    );
    stops.push(() => worker.stop());
    workers.push(worker);
  }
  for (let i = 1; i <= (opts.apis ?? 2); i++) {
    const [port, metricsPort] = [await freePort(), await freePort()];
    const url = `http://127.0.0.1:${port}`;
    const api = managedProcess(
      opts,
      `api-${i}`,
      'src/main.ts',
      { ...env, PORT: String(port), METRICS_PORT: String(metricsPort) },
      { url },
      `http://127.0.0.1:${metricsPort}/metrics`,
    );
    stops.push(() => api.stop());
    apis.push(api);
  }
  return { apis, workers };
}

/** Starts the whole stack; on any failure stops what already started and rethrows. */
export async function startStack(opts: StackOptions): Promise<Stack> {
  const log = opts.log ?? (() => {});
  mkdirSync(path.join(opts.baseDir, 'logs'), { recursive: true });
  const stops: Stops = [];
  const stopAll = async () => {
    for (const stop of stops.splice(0).reverse()) {
      try {
        await stop();
      } catch (error) {
        log(`stop failed: ${(error as Error).message}`);
      }
    }
    if (opts.ephemeral) rmSync(opts.baseDir, { recursive: true, force: true });
  };
  try {
    const nodes = await startClusterNodes(opts, stops, log);
    const opensearchUrl = nodes.map((node) => node.url).join(',');
    const redis = await startStackRedis(opts, stops);
    const env = stackEnv(opts, opensearchUrl, redis.url);
    const { apis, workers } = await stackProcesses(opts, env, stops);
    // the first one creates the indices (two creating them at once would race); then the rest
    const all = [...workers, ...apis] as Array<StackProcess & { start(): Promise<void> }>;
    await all[0]?.start();
    await Promise.all(all.slice(1).map((member) => member.start()));
    return { opensearchUrl, nodes, redis, apis, workers, env, stop: stopAll };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

export function stackDataExists(baseDir: string): boolean {
  return existsSync(path.join(baseDir, 'node-1'));
}
