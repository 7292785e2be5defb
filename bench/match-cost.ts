/**
 * What matching costs in the process, without HTTP: `runMatch` (src/names/match.ts) over the
 * evaluation's labelled records (bench/names/generate.ts) in requests of 1,000, one at a time,
 * against a node holding the set the records were made from (bench/names-scale.ts node + load):
 *
 *   npx tsx bench/match-cost.ts [--companies 1000000] [--seed 1] [--rounds 3] [--per-class 100]
 *   node --cpu-prof --cpu-prof-dir .local/prof --import tsx bench/match-cost.ts --rounds 1
 *
 * Per round: the wall time, this process's CPU (`process.cpuUsage`) and the engine's (its ticks
 * in /proc: the node runs on this machine), records per second; and a SHA-256 of every answer
 * in input order, the same in every round, so that a change meant to cost less and answer the
 * same can be checked answer for answer against the code before it. The engine URL:
 * OPENSEARCH_URL, else the names-scale node's (.local/names-scale/node.json). Report:
 * bench-reports/match-cost-<time>.json.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Command } from 'commander';
import pino from 'pino';
import { loadConfig } from '../src/config.js';
import { type MatchRecord, runMatch } from '../src/names/match.js';
import { createEngine } from '../src/opensearch/engine.js';
import { projectRoot } from '../src/project-root.js';
import { processCpuMs } from './cpu.js';
import { benchDataSet } from './data-set.js';
import { maxBatch, readCompanies } from './name-eval.js';
import { makeEvaluationRecords } from './names/generate.js';

interface Options {
  companies: number;
  seed: number;
  rounds: number;
  perClass: number;
}

function engineUrl(): string {
  if (process.env.OPENSEARCH_URL) return process.env.OPENSEARCH_URL;
  const record = path.join(projectRoot, '.local', 'names-scale', 'node.json');
  if (!existsSync(record)) throw new Error('set OPENSEARCH_URL, or start bench/names-scale.ts node');
  return (JSON.parse(readFileSync(record, 'utf8')) as { url: string }).url;
}

async function enginePid(url: string): Promise<number> {
  const info = (await (await fetch(`${url}/_nodes/_local/process`)).json()) as {
    nodes: Record<string, { process: { id: number } }>;
  };
  const pid = Object.values(info.nodes)[0]?.process.id;
  if (!pid || !existsSync(`/proc/${pid}/stat`)) throw new Error('the engine must run on this machine');
  return pid;
}

/**
 * The evaluation's records over the set bench/names-scale.ts loads (its generator seed is 1;
 * --seed draws the records), kept beside the set after the first run: reading 1,000,000
 * companies to make them takes minutes.
 */
async function evaluationRecords(options: Options): Promise<MatchRecord[]> {
  const set = await benchDataSet(`c${options.companies}-j2000-s1-names`, {
    companies: options.companies,
    jobs: 2000,
    seed: 1,
    now: new Date('2026-11-29T00:00:00Z'),
  });
  const kept = path.join(set.dir, `evaluation-records-${options.seed}-${options.perClass}.json`);
  if (existsSync(kept)) return JSON.parse(readFileSync(kept, 'utf8')) as MatchRecord[];
  const companies = await readCompanies(set.files[0] as string);
  const records = makeEvaluationRecords(companies, { seed: options.seed, perClass: options.perClass }).map(
    (entry) => entry.record,
  );
  writeFileSync(kept, JSON.stringify(records));
  return records;
}

async function main(): Promise<void> {
  const options = new Command('match-cost')
    .option('--companies <n>', 'companies of the names-scale set loaded', Number, 1_000_000)
    .option('--seed <n>', 'the evaluation seed (the set is always seed 1)', Number, 1)
    .option('--rounds <n>', 'rounds over every record', Number, 3)
    .option('--per-class <n>', 'evaluation records per class of spelling', Number, 100)
    .parse()
    .opts<Options>();
  const records = await evaluationRecords(options);
  const url = engineUrl();
  const pid = await enginePid(url);
  const ctx = {
    opensearch: createEngine(url),
    logger: pino({ level: 'silent' }),
    config: { ...loadConfig({ ...process.env, OPENSEARCH_URL: url }), indexPrefix: '' },
  };
  const rounds: Array<Record<string, number | string>> = [];
  for (let round = 0; round < options.rounds; round++) {
    const engineBefore = processCpuMs(pid);
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    const results: unknown[] = [];
    for (let at = 0; at < records.length; at += maxBatch)
      results.push(...(await runMatch(ctx, { records: records.slice(at, at + maxBatch) })));
    const wallMs = performance.now() - started;
    const cpu = process.cpuUsage(cpuBefore);
    const figures = {
      round: round + 1,
      wallMs: Math.round(wallMs),
      processCpuMs: Math.round((cpu.user + cpu.system) / 1000),
      engineCpuMs: Math.round(processCpuMs(pid) - engineBefore),
      recordsPerSecond: Math.round((records.length * 1000) / wallMs),
      answers: createHash('sha256').update(JSON.stringify(results)).digest('hex').slice(0, 16),
    };
    rounds.push(figures);
    console.log(JSON.stringify(figures));
  }
  const dir = path.join(projectRoot, 'bench-reports');
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `match-cost-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, `${JSON.stringify({ ...options, records: records.length, rounds }, null, 2)}\n`);
  console.log(`wrote ${path.relative(projectRoot, file)}`);
}

await main();
