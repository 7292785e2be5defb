/**
 * The project's programs as child processes of a test: run one to its end, or start the API
 * and wait until it serves. Loopback only; each test stops what it started, by its handle.
 */
import { type ChildProcess, type SpawnSyncReturns, spawn, spawnSync } from 'node:child_process';
import { projectRoot } from '../../ops/local/opensearch-node.js';

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Collects a started program's output until it ends (killed after 3 minutes: a bound for a loaded machine). */
export function runToEnd(child: ChildProcess): Promise<Run> {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    stderr += chunk;
  });
  const killer = setTimeout(() => child.kill('SIGKILL'), 180_000);
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(killer);
      resolve({ code, stdout, stderr });
    });
  });
}

/**
 * The base URL an API logged as it started ("serving on http://127.0.0.1:43127"): with PORT=0
 * the system picks the port as the API binds it, so no other process can take it in between
 * (a port probed free and bound later can be).
 */
export function servingUrl(output: string): string | undefined {
  return /serving on (http:\/\/127\.0\.0\.1:[1-9]\d*)/.exec(output)?.[1];
}

/**
 * Starts the API (src/main.ts) with exactly `env` (PORT=0 unless set) and resolves once it logs
 * "serving on" (LOG_LEVEL info or lower), with `url` the address it bound; rejects with its
 * output if it exits first or takes 2 minutes. The child goes into `children` before the
 * wait, so the caller's afterAll stops it either way.
 */
export async function startApiProcess(
  env: NodeJS.ProcessEnv,
  children: ChildProcess[],
): Promise<ChildProcess & { url: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: projectRoot,
    env: { PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`API did not start:\n${output}`)), 120_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const serving = servingUrl(output);
      if (serving) {
        clearTimeout(timer);
        resolve(serving);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', () => {
      clearTimeout(timer);
      reject(new Error(`API exited:\n${output}`));
    });
  });
  return Object.assign(child, { url });
}

/**
 * One of the project's commands (`indexer/bin/import-registry.ts`, ...) run to its end as an
 * operator runs it, on the test's engine and an index prefix of its own; REDIS_URL empty unless
 * given. `input`: what it reads on standard input.
 */
export function runCommand(
  script: string,
  args: string[],
  target: { opensearchUrl: string | undefined; indexPrefix: string; redisUrl?: string; input?: Buffer },
): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, ['--import', 'tsx', script, ...args], {
    cwd: projectRoot,
    encoding: 'utf8',
    timeout: 120_000,
    ...(target.input ? { input: target.input } : {}),
    env: {
      ...process.env,
      OPENSEARCH_URL: target.opensearchUrl ?? '',
      INDEX_PREFIX: target.indexPrefix,
      REDIS_URL: target.redisUrl ?? '',
    },
  });
}
