/**
 * What bench/registry-1m.ts and its API step share: options, where figures go, a child process
 * run with its peak memory sampled from /proc.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../src/project-root.js';

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

export function saveFigures(step: string, figures: unknown): void {
  mkdirSync(workDir, { recursive: true });
  writeFileSync(path.join(workDir, `figures-${step}.json`), `${JSON.stringify(figures, null, 2)}\n`);
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
