/**
 * CPU time spent, read before and after a load run: the API process's from /proc/<pid>/stat
 * (user + system), the engine's from the node stats (`process.cpu.total_in_millis`, summed
 * over the nodes). Their difference over a run divided by the requests answered is the CPU
 * each side spends per search.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { Engine } from '../src/opensearch/engine.js';

let ticksPerSecond: number | undefined;

export function processCpuMs(pid: number, threadId?: number): number {
  ticksPerSecond ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  // the command name (field 2) may hold spaces: count fields after its closing parenthesis
  const stat = readFileSync(
    threadId === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${threadId}/stat`,
    'utf8',
  );
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  return ((utime + stime) * 1000) / ticksPerSecond;
}

export async function engineCpuMs(client: Engine): Promise<number> {
  const stats = (await client.nodes.stats({ metric: ['process'] })).body as {
    nodes: Record<string, { process?: { cpu?: { total_in_millis?: number } } }>;
  };
  return Object.values(stats.nodes).reduce((sum, node) => sum + (node.process?.cpu?.total_in_millis ?? 0), 0);
}
