/**
 * The real worker (indexer/bin/worker.ts) as a child process of a test, on that test's engine,
 * Redis and prefixes, with its log lines (JSON) collected; `ready` resolves when it says it
 * runs. The test stops it by its pid (`stopChild`), whatever happened.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import type { Config } from '../../src/config.js';
import { projectRoot } from '../../src/project-root.js';

export interface WorkerChild<Log> {
  child: ChildProcess;
  logs: Log[];
  ready: Promise<void>;
}

export function startWorkerChild<Log extends { msg?: string }>(
  config: Pick<Config, 'opensearchUrl' | 'redisUrl' | 'indexPrefix' | 'redisPrefix'>,
  env: Record<string, string>,
): WorkerChild<Log> {
  const {
    OPENSEARCH_URL: _o,
    REDIS_URL: _r,
    INDEX_PREFIX: _i,
    REDIS_PREFIX: _p,
    LOG_LEVEL: _l,
    ...rest
  } = process.env;
  const child = spawn(process.execPath, ['--import', 'tsx', 'indexer/bin/worker.ts'], {
    cwd: projectRoot,
    env: {
      ...rest,
      OPENSEARCH_URL: config.opensearchUrl as string,
      REDIS_URL: config.redisUrl as string,
      INDEX_PREFIX: config.indexPrefix,
      REDIS_PREFIX: config.redisPrefix,
      METRICS_PORT: '0',
      LOG_LEVEL: 'info',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: Log[] = [];
  let buffered = '';
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) {
        try {
          const entry = JSON.parse(line) as Log;
          logs.push(entry);
          if (entry.msg?.includes('indexer worker running')) resolve();
        } catch {
          // not a log line
        }
      }
    });
    child.once('exit', (code) => reject(new Error(`worker exited (${code})`)));
  });
  return { child, logs, ready };
}

/** SIGKILL to a child of the test that still runs, by its pid. */
export function stopChild(child: ChildProcess): void {
  if (child.exitCode === null && child.signalCode === null && child.pid) process.kill(child.pid, 'SIGKILL');
}
