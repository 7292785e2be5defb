/**
 * A real OpenSearch node with the real security plugin, for tests of the engine users' rights
 * (test/opensearch/engine-roles.test.ts). One node on loopback, its data under `.local/`, removed at stop.
 *
 * The engine is the local runner (ops/local/opensearch-node.ts) at 3.4.0 with the plugin
 * `org.opensearch.plugin:opensearch-security:3.4.0.0`, both resolved by Maven through
 * `opensearch-local/secured/pom.xml` (a plugin runs only on the engine version it was built
 * for; 3.4.0.0 is the plugin release nearest the project's 3.3.2 on Maven Central). The plugin's
 * jars go on the runner's classpath and the runner loads its class (`-pluginTypes`).
 *
 * Configured as the production profile is (docker-compose.yml, opensearch-prod): TLS on HTTP
 * and transport from a private CA made by scripts/engine-certs.sh, the admin certificate as the
 * only super admin, the security index made at first start from the plugin's default files
 * with the project's `deploy/opensearch-security/roles.yml` and `roles_mapping.yml` over them,
 * and `internal_users.yml` holding the given users, their passwords hashed by the plugin's own
 * tool (what `hash.sh` runs).
 *
 *   const node = await startSecuredNode({ users: { corpsearch_api: 'pw1', corpsearch_indexer: 'pw2' } });
 *   node.url (https), node.caFile, node.adminCert, await node.stop()
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import {
  freePort,
  freePortBetween,
  type ManagedChild,
  sleep,
  spawnManaged,
} from '../../ops/local/child-process.js';
import {
  ExitedDuringStartup,
  pickJavaHome,
  resolveClasspath,
  runnerArgs,
  startAgainIfExited,
} from '../../ops/local/opensearch-node.js';
import { projectRoot } from '../../src/project-root.js';

export interface SecuredNode {
  /** https://127.0.0.1:<port> */
  url: string;
  /** The CA the node's certificate chains to (OPENSEARCH_CA_FILE). */
  caFile: string;
  /** The admin certificate and key (PEM): the super admin, for setting up and looking only. */
  adminCert: { cert: string; key: string };
  pid: number;
  /** The node's log so far (runner.log), for a failing test's message. */
  log(): string;
  stop(): Promise<void>;
}

export interface SecuredNodeOptions {
  /** Internal users: name -> password. Their roles come from roles_mapping.yml. */
  users: Record<string, string>;
  heap?: string;
  startTimeoutMs?: number;
  log?: (message: string) => void;
}

const pom = path.join(projectRoot, 'opensearch-local', 'secured', 'pom.xml');
const stateDir = path.join(projectRoot, '.local', 'opensearch-secured');
const projectSecurity = path.join(projectRoot, 'deploy', 'opensearch-security');
const nodeDn = 'CN=corpsearch-node,O=corpsearch';
/** `corpsearch-test-`: .ci/run's check for JVMs left behind after the tests looks for it. */
const clusterName = `corpsearch-test-secured-${process.pid}`;
const adminDn = 'CN=corpsearch-admin,O=corpsearch';

/**
 * The runner's jars (from the pom) and the plugin's unpacked folder, both cached under .local/
 * (scripts/setup.sh calls it, so a test run does not wait for the downloads).
 */
export function resolvePlugin(): { classpath: string; pluginDir: string } {
  const entries = resolveClasspath(stateDir, pom).split(path.delimiter);
  const zip = entries.find((entry) => /opensearch-security-[\d.]+\.zip$/.test(entry));
  if (!zip) throw new Error(`the security plugin's zip is not among ${pom}'s dependencies`);
  const pluginDir = path.join(stateDir, 'plugin');
  const marker = path.join(pluginDir, '.unpacked-from');
  if (!existsSync(marker) || readFileSync(marker, 'utf8') !== zip) {
    rmSync(pluginDir, { recursive: true, force: true });
    mkdirSync(pluginDir, { recursive: true });
    // Maven's own unpacking: no unzip tool needed on the machine
    const result = spawnSync(
      'mvn',
      [
        '-q',
        '-B',
        '-f',
        pom,
        'dependency:unpack-dependencies',
        '-DincludeTypes=zip',
        `-DoutputDirectory=${pluginDir}`,
        // its "already unpacked" markers go with the folder (by default: a target/ by the pom)
        `-DmarkersDirectory=${path.join(pluginDir, '.markers')}`,
      ],
      { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
    );
    if (result.status !== 0)
      throw new Error(`mvn could not unpack ${zip}:\n${result.stdout}\n${result.stderr}`);
    writeFileSync(marker, zip);
  }
  const jars = entries.filter((entry) => entry.endsWith('.jar'));
  // the runner's jars first: where both carry a library, the engine's own version wins
  return { classpath: [...jars, path.join(pluginDir, '*')].join(path.delimiter), pluginDir };
}

/** A bcrypt hash made by the plugin's hasher; the password passes through the environment. */
function hashPassword(java: string, classpath: string, password: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(java, ['-cp', classpath, 'org.opensearch.security.tools.Hasher', '-env', 'PW'], {
      env: { ...process.env, PW: password },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
    });
    child.stderr.on('data', (chunk) => {
      err += chunk;
    });
    child.once('error', reject);
    child.once('close', (code) => {
      const hash = out.trim().split('\n').pop() ?? '';
      if (code === 0 && /^\$2[aby]\$/.test(hash)) resolve(hash);
      else reject(new Error(`the plugin's hasher failed (exit ${code}):\n${err}`));
    });
  });
}

/** The security config folder: the plugin's defaults, the project's roles, the given users. */
function writeSecurityConfig(dir: string, pluginDir: string, hashes: Record<string, string>): void {
  mkdirSync(dir, { recursive: true });
  const defaults = path.join(pluginDir, 'config');
  for (const file of readdirSync(defaults).filter((name) => name.endsWith('.yml')))
    copyFileSync(path.join(defaults, file), path.join(dir, file));
  for (const file of ['roles.yml', 'roles_mapping.yml'])
    copyFileSync(path.join(projectSecurity, file), path.join(dir, file));
  const users = Object.entries(hashes).map(([name, hash]) => `${name}:\n  hash: "${hash}"\n`);
  writeFileSync(
    path.join(dir, 'internal_users.yml'),
    ['_meta:\n  type: "internalusers"\n  config_version: 2\n', ...users].join('\n'),
  );
}

/** opensearch.yml: a lone node on loopback (as ops/local/opensearch-node.ts), secured as in production. */
function nodeSettings(transportPort: number): string {
  const seed = `"127.0.0.1:${transportPort}"`;
  return [
    `cluster.name: ${clusterName}`,
    'network.host: 127.0.0.1',
    `transport.port: ${transportPort}`,
    `discovery.seed_hosts: [${seed}]`,
    `cluster.initial_cluster_manager_nodes: [${seed}]`,
    'cluster.routing.allocation.disk.threshold_enabled: false',
    'action.destructive_requires_name: true',
    'plugins.security.ssl.http.enabled: true',
    'plugins.security.ssl.http.pemcert_filepath: node.pem',
    'plugins.security.ssl.http.pemkey_filepath: node-key.pem',
    'plugins.security.ssl.http.pemtrustedcas_filepath: root-ca.pem',
    'plugins.security.ssl.transport.pemcert_filepath: node.pem',
    'plugins.security.ssl.transport.pemkey_filepath: node-key.pem',
    'plugins.security.ssl.transport.pemtrustedcas_filepath: root-ca.pem',
    `plugins.security.nodes_dn: ["${nodeDn}"]`,
    `plugins.security.authcz.admin_dn: ["${adminDn}"]`,
    'plugins.security.allow_default_init_securityindex: true',
    '',
  ].join('\n');
}

/** The config folder owner-only, as the plugin asks (it warns about anything wider). */
function restrict(dir: string): void {
  chmodSync(dir, 0o700);
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) restrict(full);
    else chmodSync(full, 0o600);
  }
}

/** GET as the admin certificate; the status, or 0 when the node does not answer yet. */
function adminStatus(
  url: string,
  caFile: string,
  adminCert: SecuredNode['adminCert'],
  route: string,
): Promise<number> {
  return new Promise((resolve) => {
    const req = https.get(
      `${url}${route}`,
      { ca: readFileSync(caFile), cert: adminCert.cert, key: adminCert.key, timeout: 5000 },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.once('error', () => resolve(0));
    req.once('timeout', () => req.destroy());
  });
}

/**
 * Starts the node, again on fresh ports and a fresh folder when the runner closed it before its
 * HTTP port opened (a port taken between its probe and its bind, seen once in CI), as the local
 * node does (ops/local/opensearch-node.ts `startAgainIfExited`).
 */
export async function startSecuredNode(opts: SecuredNodeOptions): Promise<SecuredNode> {
  return startAgainIfExited(() => startSecuredNodeOnce(opts), opts.log);
}

async function startSecuredNodeOnce(opts: SecuredNodeOptions): Promise<SecuredNode> {
  const log = opts.log ?? (() => {});
  const started = Date.now();
  const javaHome = pickJavaHome();
  const java = path.join(javaHome, 'bin', 'java');
  const { classpath, pluginDir } = resolvePlugin();
  mkdirSync(path.join(projectRoot, '.local'), { recursive: true });
  const baseDir = mkdtempSync(path.join(projectRoot, '.local', 'secured-node-'));
  try {
    const certs = path.join(baseDir, 'certs');
    execFileSync(
      'bash',
      [path.join(projectRoot, 'scripts', 'engine-certs.sh'), certs, 'localhost', '127.0.0.1'],
      {
        stdio: 'ignore',
      },
    );
    const configDir = path.join(baseDir, 'node_1', 'config');
    mkdirSync(configDir, { recursive: true });
    for (const file of ['root-ca.pem', 'node.pem', 'node-key.pem'])
      copyFileSync(path.join(certs, file), path.join(configDir, file));
    const names = Object.keys(opts.users);
    const hashes = await Promise.all(
      names.map((name) => hashPassword(java, classpath, opts.users[name] as string)),
    );
    writeSecurityConfig(
      path.join(configDir, 'opensearch-security'),
      pluginDir,
      Object.fromEntries(names.map((name, i) => [name, hashes[i] as string])),
    );
    const transportPort = await freePort();
    writeFileSync(path.join(configDir, 'opensearch.yml'), nodeSettings(transportPort));
    restrict(configDir);
    const adminCert = {
      cert: readFileSync(path.join(certs, 'admin.pem'), 'utf8'),
      key: readFileSync(path.join(certs, 'admin-key.pem'), 'utf8'),
    };
    const caFile = path.join(certs, 'root-ca.pem');
    const node = await launch(java, javaHome, classpath, baseDir, opts, log);
    const stop = async () => {
      await node.child.stop();
      rmSync(baseDir, { recursive: true, force: true });
    };
    try {
      await waitForSecurity(node.url, caFile, adminCert, node.child, opts.startTimeoutMs ?? 180_000);
    } catch (error) {
      await stop();
      throw error;
    }
    log(`the secured OpenSearch is up at ${node.url} after ${((Date.now() - started) / 1000).toFixed(1)} s`);
    return {
      url: node.url,
      caFile,
      adminCert,
      pid: node.child.pid,
      log: () => readFileSync(path.join(baseDir, 'runner.log'), 'utf8'),
      stop,
    };
  } catch (error) {
    // the error carries the node's last log lines; nothing is left under .local/
    rmSync(baseDir, { recursive: true, force: true });
    throw error;
  }
}

/** Starts the JVM and waits for its HTTP port (read back from its log). */
async function launch(
  java: string,
  javaHome: string,
  classpath: string,
  baseDir: string,
  opts: SecuredNodeOptions,
  log: (message: string) => void,
): Promise<{ url: string; child: ManagedChild }> {
  const heap = opts.heap ?? '512m';
  // the runner serves node 1 on the first free port above the base, up to 9299
  const baseHttpPort = (await freePortBetween(9201, 9299)) - 1;
  let boundPort: number | undefined;
  const args = runnerArgs({
    heap,
    javaHome,
    classpath,
    baseDir,
    baseHttpPort,
    clusterName,
    extra: ['-pluginTypes', 'org.opensearch.security.OpenSearchSecurityPlugin'],
  });
  log(`starting a secured OpenSearch (security plugin) in ${baseDir}`);
  const child = spawnManaged(java, args, {
    logFile: path.join(baseDir, 'runner.log'),
    env: { ...process.env, JAVA_HOME: javaHome },
    onLine: (line) => {
      const match = /HttpServerTransport.*publish_address \{[^}]*:(\d+)\}/.exec(line);
      if (match) boundPort = Number(match[1]);
    },
  });
  const deadline = Date.now() + (opts.startTimeoutMs ?? 180_000);
  while (boundPort === undefined) {
    if (child.child.exitCode !== null || Date.now() > deadline) {
      const exited = child.child.exitCode !== null;
      await child.stop();
      const message = `the secured OpenSearch did not open its HTTP port:\n${child.tail()}`;
      throw exited ? new ExitedDuringStartup(message) : new Error(message);
    }
    await sleep(100);
  }
  return { url: `https://127.0.0.1:${boundPort}`, child };
}

/**
 * Until the security index is loaded the plugin answers 503 to everyone; the admin
 * certificate's health call answering 200 means the users and roles are in force.
 */
async function waitForSecurity(
  url: string,
  caFile: string,
  adminCert: SecuredNode['adminCert'],
  child: ManagedChild,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.child.exitCode !== null) throw new Error(`the secured OpenSearch exited:\n${child.tail()}`);
    const health = await adminStatus(
      url,
      caFile,
      adminCert,
      '/_cluster/health?wait_for_status=green&timeout=2s',
    );
    const security = await adminStatus(url, caFile, adminCert, '/_plugins/_security/api/internalusers');
    if (health === 200 && security === 200) return;
    await sleep(250);
  }
  throw new Error(`the secured OpenSearch was not ready within ${timeoutMs} ms:\n${child.tail()}`);
}
