/**
 * Helpers for the local servers (OpenSearch in a JVM, redis-server) that `npm start` and the
 * test run start on a machine without Docker. Every child is tied to its parent's life:
 * on Linux `setpriv --pdeathsig` makes the kernel send SIGTERM to the child when the parent
 * dies, so a crashed or killed parent leaves no JVM or redis-server behind.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createWriteStream, existsSync } from 'node:fs';
import net from 'node:net';

let setprivPath: string | null | undefined;

function findSetpriv(): string | null {
  if (setprivPath !== undefined) return setprivPath;
  setprivPath = null;
  if (process.platform !== 'linux') return setprivPath;
  for (const candidate of ['/usr/bin/setpriv', '/bin/setpriv']) {
    if (existsSync(candidate)) {
      setprivPath = candidate;
      break;
    }
  }
  return setprivPath;
}

export interface ManagedChild {
  readonly child: ChildProcess;
  readonly pid: number;
  /** The last lines the child printed, for error messages when it fails to start. */
  tail(): string;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once the process has exited. */
  stop(graceMs?: number): Promise<void>;
  readonly exited: Promise<number | null>;
}

/**
 * Spawns `command` tied to this process's life, teeing its output into `logFile` and keeping
 * the last lines in memory. `onLine` sees each output line (used to read a chosen port).
 */
export function spawnManaged(
  command: string,
  args: string[],
  opts: { logFile: string; env?: NodeJS.ProcessEnv; cwd?: string; onLine?: (line: string) => void },
): ManagedChild {
  const setpriv = findSetpriv();
  const [file, argv] = setpriv ? [setpriv, ['--pdeathsig', 'TERM', '--', command, ...args]] : [command, args];
  const child = spawn(file, argv, {
    cwd: opts.cwd,
    env: opts.env ?? process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const log = createWriteStream(opts.logFile, { flags: 'a' });
  const lines: string[] = [];
  let partial = '';
  const onData = (chunk: Buffer) => {
    log.write(chunk);
    const text = partial + chunk.toString('utf8');
    const parts = text.split('\n');
    partial = parts.pop() ?? '';
    for (const line of parts) {
      lines.push(line);
      if (lines.length > 40) lines.shift();
      opts.onLine?.(line);
    }
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  const exited = new Promise<number | null>((resolve) => {
    child.once('exit', (code) => {
      log.end();
      resolve(code);
    });
    child.once('error', () => resolve(null));
  });
  if (child.pid === undefined) throw new Error(`could not start ${command}`);
  const pid = child.pid;
  let stopping: Promise<void> | undefined;
  return {
    child,
    pid,
    exited,
    tail: () => lines.join('\n'),
    stop(graceMs = 30_000) {
      stopping ??= (async () => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
        await exited;
        clearTimeout(timer);
      })();
      return stopping;
    },
  };
}

/** A TCP port that was free on loopback a moment ago (any port when `port` is 0). */
export function freePort(port = 0): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** The first port in [from, to] that is free on loopback. */
export async function freePortBetween(from: number, to: number): Promise<number> {
  for (let port = from; port <= to; port++) {
    try {
      return await freePort(port);
    } catch {
      // taken; try the next one
    }
  }
  throw new Error(`no free port between ${from} and ${to}`);
}

export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export function commandExists(command: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
