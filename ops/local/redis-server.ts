/**
 * A real `redis-server` (Debian package) on a free loopback port, tied to the parent's life
 * like the OpenSearch node. Test runs keep nothing on disk; the local cluster
 * (`npm run cluster`) turns on the append-only file, as production must.
 */
import { mkdirSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { commandExists, freePort, sleep, spawnManaged } from './child-process.js';

export interface LocalRedis {
  url: string;
  port: number;
  pid: number;
  stop(): Promise<void>;
}

function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.setTimeout(500);
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => {
      socket.destroy();
      resolve(data.toString().startsWith('+PONG'));
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

export interface LocalRedisOptions {
  /** Log file folder, and the data folder when `appendOnly`. */
  logDir: string;
  port?: number;
  /** appendonly yes, fsync every second, in `logDir`: keys and balances survive a restart. */
  appendOnly?: boolean;
  /** More arguments (`--replicaof 127.0.0.1 <port>` for a replica: ./redis-sentinel.ts). */
  extraArgs?: string[];
}

export async function startLocalRedis(opts: LocalRedisOptions): Promise<LocalRedis> {
  if (!commandExists('redis-server')) {
    throw new Error('redis-server is not installed (Debian: apt-get install redis-server), or set REDIS_URL');
  }
  mkdirSync(opts.logDir, { recursive: true });
  const port = opts.port ?? (await freePort());
  const server = spawnManaged(
    'redis-server',
    [
      '--bind',
      '127.0.0.1',
      '--port',
      String(port),
      '--save',
      '',
      '--appendonly',
      opts.appendOnly ? 'yes' : 'no',
      ...(opts.appendOnly ? ['--appendfsync', 'everysec'] : []),
      '--dir',
      opts.logDir,
      ...(opts.extraArgs ?? []),
    ],
    { logFile: path.join(opts.logDir, `redis-${port}.log`) },
  );
  const deadline = Date.now() + 15_000;
  while (!(await ping(port))) {
    if (server.child.exitCode !== null) throw new Error(`redis-server exited:\n${server.tail()}`);
    if (Date.now() > deadline) {
      await server.stop();
      throw new Error(`redis-server did not answer on port ${port}:\n${server.tail()}`);
    }
    await sleep(50);
  }
  return { url: `redis://127.0.0.1:${port}`, port, pid: server.pid, stop: () => server.stop(5_000) };
}
