/**
 * A direct `npm run ingest` (no REDIS_URL) counts its records in the worker's metric
 * families: in the process's own counters, and with `--metrics-file` in a Prometheus text
 * file that sums the runs (for the node exporter's textfile collector), on the real engine.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { MemoryDeadLetter } from '../../indexer/dead-letter.js';
import { ingestFiles } from '../../indexer/ingest.js';
import { metrics } from '../../src/metrics.js';
import { createEngine } from '../../src/opensearch/engine.js';
import { dropIndices } from '../../src/opensearch/indices.js';
import { projectRoot } from '../../src/project-root.js';
import type { Services } from '../../src/services.js';
import { type Run, runToEnd } from '../support/child-runs.js';
import { setUpServices, uniquePrefix } from '../support/env.js';

// 2 companies, 3 postings and a delete indexed; 2 postings refused (test/indexer/indexer.test.ts)
const fixture = path.join(import.meta.dirname, '..', 'fixtures', 'indexer', 'small.ndjson');
let services: Services;
let dir: string;
const cliPrefix = uniquePrefix('ingest-metrics-cli');

beforeAll(async () => {
  services = await setUpServices('ingest-metrics', { redisUrl: undefined });
  dir = mkdtempSync(path.join(os.tmpdir(), 'ingest-metrics-'));
});
afterAll(async () => {
  await services.close();
  const opensearch = createEngine(inject('opensearchUrl'));
  await dropIndices(opensearch, cliPrefix);
  await opensearch.close();
  rmSync(dir, { recursive: true, force: true });
});

async function counter(which: 'indexed' | 'rejected' | 'deadLettered'): Promise<number> {
  const values =
    which === 'deadLettered'
      ? (await metrics.indexerDeadLettered.get()).values
      : (await metrics.indexerRecords.get()).values.filter((value) => value.labels.outcome === which);
  return values.reduce((sum, value) => sum + value.value, 0);
}

function ingest(args: string[]): Promise<Run> {
  const { REDIS_URL: _r, OPENSEARCH_URL: _o, INDEX_PREFIX: _i, ...rest } = process.env;
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'indexer/bin/ingest.ts', ...args], {
    cwd: projectRoot,
    env: { ...rest, OPENSEARCH_URL: inject('opensearchUrl'), INDEX_PREFIX: cliPrefix, LOG_LEVEL: 'silent' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return runToEnd(child);
}

function sample(text: string, series: string): number {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return Number(line?.split(' ').pop());
}

describe('a direct ingest is counted like the worker', () => {
  it("adds its indexed and rejected records to this process's counters", async () => {
    const before = { indexed: await counter('indexed'), rejected: await counter('rejected') };
    const deadBefore = await counter('deadLettered');
    await ingestFiles([fixture], {
      client: services.opensearch,
      indexPrefix: services.config.indexPrefix,
      deadLetter: new MemoryDeadLetter(),
    });
    expect((await counter('indexed')) - before.indexed).toBe(6);
    expect((await counter('rejected')) - before.rejected).toBe(2);
    expect((await counter('deadLettered')) - deadBefore).toBe(2);
  });

  it('npm run ingest --metrics-file: the counts of every run, summed, in the same families', async () => {
    const file = path.join(dir, 'textfile', 'corpsearch_ingest.prom');
    const deadLetter = path.join(dir, 'dl.ndjson');
    const first = await ingest([fixture, '--metrics-file', file, '--dead-letter', deadLetter]);
    expect(first.code, first.stderr).toBe(2);
    expect(first.stdout).toContain(`counts added to ${file}`);
    const once = readFileSync(file, 'utf8');
    expect(once).toContain('# TYPE corpsearch_indexer_records_total counter');
    expect(sample(once, 'corpsearch_indexer_records_total{outcome="indexed"}')).toBe(6);
    expect(sample(once, 'corpsearch_indexer_records_total{outcome="rejected"}')).toBe(2);
    expect(sample(once, 'corpsearch_indexer_dead_lettered_total')).toBe(2);

    const second = await ingest([fixture, '--metrics-file', file, '--dead-letter', deadLetter]);
    expect(second.code, second.stderr).toBe(2);
    const twice = readFileSync(file, 'utf8');
    expect(sample(twice, 'corpsearch_indexer_records_total{outcome="rejected"}')).toBe(4);
    expect(sample(twice, 'corpsearch_indexer_dead_lettered_total')).toBe(4);
    expect(sample(twice, 'corpsearch_indexer_records_total{outcome="indexed"}')).toBeGreaterThan(6);
  });

  it('refuses --metrics-file with REDIS_URL (the worker counts queued records), before any work', async () => {
    const { OPENSEARCH_URL: _o, ...rest } = process.env;
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'indexer/bin/ingest.ts', fixture, '--metrics-file', path.join(dir, 'x.prom')],
      {
        cwd: projectRoot,
        env: {
          ...rest,
          REDIS_URL: inject('redisUrl'),
          OPENSEARCH_URL: 'http://127.0.0.1:1',
          INDEX_PREFIX: cliPrefix,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const run = await runToEnd(child);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('--metrics-file is for an ingest without REDIS_URL');
  });
});
