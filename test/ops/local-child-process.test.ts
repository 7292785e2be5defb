/**
 * The helpers behind the local servers (ops/local/child-process.ts), on real child processes
 * and real sockets: a managed child's last lines and log file, its stop (a child that ended
 * already, one that ignores SIGTERM and is killed after the grace), whether a pid is alive,
 * and the search for a free port when the first one is taken.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, freePortBetween, isProcessAlive, spawnManaged } from '../../ops/local/child-process.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'child-process-test-'));
const started: number[] = [];
afterAll(() => {
  // a child a failed test left behind (the one ignoring SIGTERM), by its pid
  for (const pid of started) if (isProcessAlive(pid)) process.kill(pid, 'SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

describe('spawnManaged', () => {
  it('keeps the last 40 lines in memory and every line in the log; stop after the exit returns at once', async () => {
    const logFile = path.join(dir, 'lines.log');
    const seen: string[] = [];
    const child = spawnManaged(
      process.execPath,
      ['-e', 'for (let i = 1; i <= 45; i++) console.log("line " + i); console.error("on stderr")'],
      { logFile, onLine: (line) => seen.push(line) },
    );
    expect(await child.exited).toBe(0);
    const tail = child.tail().split('\n');
    expect(tail).toHaveLength(40);
    expect(tail.at(-1)).toBe('on stderr');
    expect(tail[0]).toBe('line 7');
    expect(seen).toHaveLength(46);
    await child.stop(); // already ended: nothing to signal
    expect(isProcessAlive(child.pid)).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 50)); // the log stream's last write
    expect(readFileSync(logFile, 'utf8')).toContain('line 1\n');
  });

  it('a child that ignores SIGTERM is killed after the grace', async () => {
    const child = spawnManaged(
      process.execPath,
      [
        '-e',
        'process.on("SIGTERM", () => console.log("ignored")); console.log("ready"); setInterval(() => {}, 1000)',
      ],
      { logFile: path.join(dir, 'stubborn.log') },
    );
    started.push(child.pid);
    await expect.poll(() => child.tail()).toContain('ready');
    await child.stop(300);
    expect(child.child.signalCode).toBe('SIGKILL');
    expect(child.tail()).toContain('ignored');
  });
});

describe('ports', () => {
  it('freePortBetween skips a taken port, and says so when every port of the range is taken', async () => {
    const holder = net.createServer();
    const taken = await new Promise<number>((resolve) =>
      holder.listen(0, '127.0.0.1', () => resolve((holder.address() as net.AddressInfo).port)),
    );
    try {
      await expect(freePort(taken)).rejects.toMatchObject({ code: 'EADDRINUSE' });
      await expect(freePortBetween(taken, taken)).rejects.toThrow(
        `no free port between ${taken} and ${taken}`,
      );
      const next = await freePortBetween(taken, taken + 50);
      expect(next).toBeGreaterThan(taken);
    } finally {
      holder.close();
    }
  });
});
