/**
 * Child processes of the benchmark: the API (src/main.ts) and the bare Express baseline, each
 * in its own process so its resident memory is its own. Peak RSS is the kernel's high-water
 * mark (VmHWM in /proc/<pid>/status), read just before the process is stopped.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { freePort, type ManagedChild, sleep, spawnManaged } from '../ops/local/child-process.js';
import { projectRoot } from '../src/project-root.js';

export interface BenchProcess {
  url: string;
  pid: number;
  /** Peak resident set size so far, in MiB (Linux; null elsewhere). */
  peakRssMiB(): number | null;
  stop(): Promise<void>;
}

function readStatusKiB(pid: number, field: string): number | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
    return match ? Number(match[1]) : null;
  } catch {
    return null;
  }
}

async function waitForUrl(url: string, child: ManagedChild, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.child.exitCode !== null) throw new Error(`process exited during start-up:\n${child.tail()}`);
    try {
      const res = await fetch(url);
      if (res.status < 500) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline)
      throw new Error(`${url} did not answer within ${timeoutMs} ms:\n${child.tail()}`);
    await sleep(200);
  }
}

/** `node --import tsx <script>` on a free loopback port; resolves once `readyPath` answers. */
export async function startNodeProcess(options: {
  script: string;
  env: NodeJS.ProcessEnv;
  logFile: string;
  readyPath: string;
  /** Node flags before the script, e.g. `['--cpu-prof', '--cpu-prof-dir=/tmp/prof']`. */
  nodeArgs?: string[];
}): Promise<BenchProcess> {
  const port = await freePort();
  const child = spawnManaged(
    process.execPath,
    [...(options.nodeArgs ?? []), '--import', 'tsx', options.script],
    {
      cwd: projectRoot,
      logFile: options.logFile,
      env: { ...process.env, ...options.env, PORT: String(port), HOST: '127.0.0.1' },
    },
  );
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitForUrl(`${url}${options.readyPath}`, child, 60_000);
  } catch (error) {
    await child.stop();
    throw error;
  }
  return {
    url,
    pid: child.pid,
    peakRssMiB: () => {
      const kib = readStatusKiB(child.pid, 'VmHWM');
      return kib === null ? null : Math.round((kib / 1024) * 10) / 10;
    },
    stop: () => child.stop(5_000),
  };
}

export const benchScript = (name: string) => path.join(projectRoot, name);

/** Runs the stop functions in list order, once each; a failing one is logged and passed over. */
export async function stopAll(stops: Array<() => Promise<void>>, log: (line: string) => void): Promise<void> {
  for (const stop of stops.splice(0)) {
    try {
      await stop();
    } catch (error) {
      log(`stop failed: ${(error as Error).message}`);
    }
  }
}
