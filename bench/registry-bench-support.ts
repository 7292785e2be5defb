/**
 * What bench/registry-1m.ts and its API step share: options, where figures go, a child process
 * run with its peak memory sampled from /proc.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { type LocalOpenSearch, startLocalOpenSearch } from '../ops/local/opensearch-node.js';
import { startLocalRedis } from '../ops/local/redis-server.js';
import { projectRoot } from '../src/project-root.js';
import { type BenchProcess, benchScript, startNodeProcess } from './processes.js';

export const workDir = path.join(projectRoot, '.local', 'registry-bench');
export const dataDir = path.join(workDir, 'data');

export interface BenchOptions {
  companies: number;
  port: number;
  heap: string;
  seed: number;
  changes: number;
  seconds: number;
  /** names per match request */
  matchBatch: number;
  keepFiles: boolean;
}

export function saveFigures(step: string, figures: unknown, dir = workDir): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, `figures-${step}.json`), `${JSON.stringify(figures, null, 2)}\n`);
  console.log(JSON.stringify(figures, null, 2));
}

/** Peak and last RSS of a process from /proc (VmHWM, VmRSS), in MiB; undefined once it is gone. */
export function memoryOf(pid: number): { peakMiB: number; rssMiB: number } | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kib = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
    return { peakMiB: kib('VmHWM') / 1024, rssMiB: kib('VmRSS') / 1024 };
  } catch {
    return undefined;
  }
}

export interface ChildRun {
  code: number | null;
  seconds: number;
  peakMiB: number;
  output: string;
}

/** Runs `node --import tsx <script> args`, sampling its memory every 200 ms. */
export function runChild(script: string, args: string[], env: Record<string, string>): Promise<ChildRun> {
  const started = Date.now();
  const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
    cwd: projectRoot,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let peakMiB = 0;
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-20_000);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const sampler = setInterval(() => {
    const memory = child.pid ? memoryOf(child.pid) : undefined;
    if (memory) peakMiB = Math.max(peakMiB, memory.peakMiB);
  }, 200);
  return new Promise((resolve) => {
    child.on('exit', (code) => {
      clearInterval(sampler);
      resolve({ code, seconds: (Date.now() - started) / 1000, peakMiB, output });
    });
  });
}

/** The user the large-scale benches act as: out of the rate limits, a billion credits. */
export const benchUser = 'bench-user';

export interface BenchApi {
  api: BenchProcess;
  key: string;
  /** the environment the API runs with, for other processes of the same service (the worker) */
  env: Record<string, string>;
}

/**
 * A redis-server of its own (logs under `dir`), a key for `benchUser` and the API as a child
 * process over the engine at `engineUrl`; each stop goes to the front of `stops`.
 */
export async function startBenchApi(
  engineUrl: string,
  dir: string,
  stops: Array<() => Promise<void>>,
  extraEnv: Record<string, string> = {},
): Promise<BenchApi> {
  const redis = await startLocalRedis({ logDir: path.join(dir, 'redis') });
  stops.unshift(redis.stop);
  const env = {
    OPENSEARCH_URL: engineUrl,
    REDIS_URL: redis.url,
    REDIS_PREFIX: 'bench:',
    LOAD_SAMPLE_DATA: 'false',
    RATE_LIMIT_EXEMPT_USERS: benchUser,
    LOG_LEVEL: 'warn',
    METRICS_PORT: '0',
    ...extraEnv,
  };
  const key = createBenchKey(env, benchUser, 'bench');
  const api = await startNodeProcess({
    script: benchScript('src/main.ts'),
    env,
    logFile: path.join(dir, 'api.log'),
    readyPath: '/health',
  });
  stops.unshift(api.stop);
  return { api, key, env };
}

/** A key for `user` with a billion credits, made by the keys CLI under `env` (the API's store). */
export function createBenchKey(env: Record<string, string>, user: string, label: string): string {
  return execFileSync(
    process.execPath,
    ['--import', 'tsx', 'scripts/keys.ts', 'create', user, '--credits', '1000000000', '--label', label],
    {
      cwd: projectRoot,
      env: { ...process.env, ...env },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    },
  ).trim();
}

/** A bench's own OpenSearch node, its data under `dir`/opensearch (`ephemeral`: deleted at its stop). */
export function startBenchNode(
  dir: string,
  clusterName: string,
  options: { heap: string; port: number },
  ephemeral = false,
): Promise<LocalOpenSearch> {
  return startLocalOpenSearch({
    baseDir: path.join(dir, 'opensearch'),
    clusterName,
    heap: options.heap,
    httpPort: options.port,
    log: console.log,
    ...(ephemeral ? { ephemeral } : {}),
  });
}

/**
 * A bench's `node` step: the node started, its address written to `dir`/node.json for the other
 * steps, held until SIGINT or SIGTERM, then stopped.
 */
export async function holdBenchNode(
  dir: string,
  clusterName: string,
  options: { heap: string; port: number },
): Promise<void> {
  const node = await startBenchNode(dir, clusterName, options);
  writeFileSync(path.join(dir, 'node.json'), JSON.stringify({ url: node.url, pid: node.pid }));
  console.log(`OPENSEARCH_URL=${node.url} (pid ${node.pid}); SIGTERM stops it`);
  await new Promise<void>((resolve) => {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => resolve());
  });
  await node.stop();
}

/** The node a bench's other steps use: OPENSEARCH_URL, else the one its `node` step wrote to `dir`/node.json. */
export function benchNodeUrl(dir: string): string {
  if (process.env.OPENSEARCH_URL) return process.env.OPENSEARCH_URL;
  const record = path.join(dir, 'node.json');
  if (!existsSync(record)) throw new Error('no node: run the node step first, or set OPENSEARCH_URL');
  return (JSON.parse(readFileSync(record, 'utf8')) as { url: string }).url;
}
