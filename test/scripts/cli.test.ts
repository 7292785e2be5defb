/**
 * The command-line tools as a user runs them: subprocesses (tsx), exit codes and output.
 * `--help` runs nothing: every CLI gets servers that do not exist (port 9, discard), so any
 * work would fail or hang instead of exiting 0 with its usage. The misbehaviours of old each
 * have a case: rolloff --help ran the roll-off, `keys create --credits -5` stored a key and
 * then failed, `npm start` on a busy port said "serving on", LOG_LEVEL=verbose crashed with a
 * stack trace, and the worker demanded OPENSEARCH_URL.
 */
import { spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { InvalidArgumentError } from 'commander';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { positiveWholeNumber, wholeNumber } from '../../ops/cli.js';
import { keyStoreFor } from '../../src/auth/key-admin.js';
import { openCreditLedger } from '../../src/limits/open-credit-ledger.js';
import { projectRoot } from '../../src/project-root.js';
import { testConfig, uniquePrefix } from '../support/env.js';

const tsx = path.join(projectRoot, 'node_modules', '.bin', 'tsx');
const nowhere = { OPENSEARCH_URL: 'http://127.0.0.1:9', REDIS_URL: 'redis://127.0.0.1:9' };

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a script of this repository with tsx; kills it (by its pid) after `timeoutMs`. */
function run(script: string, args: string[], env: Record<string, string | undefined>, timeoutMs = 45_000) {
  return new Promise<Run>((resolve) => {
    const child = spawn(tsx, [script, ...args], {
      cwd: projectRoot,
      env: { ...process.env, OPENSEARCH_URL: undefined, REDIS_URL: undefined, LOG_LEVEL: undefined, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

const clis: Array<[string, string, string[]]> = [
  ['keys', 'scripts/keys.ts', ['--help']],
  ['keys create', 'scripts/keys.ts', ['create', '--help']],
  ['ledger', 'scripts/ledger.ts', ['--help']],
  ['ledger rebuild', 'scripts/ledger.ts', ['rebuild', '--help']],
  ['ingest', 'indexer/bin/ingest.ts', ['--help']],
  ['dead-letters', 'indexer/bin/dead-letters.ts', ['--help']],
  ['dead-letters replay', 'indexer/bin/dead-letters.ts', ['replay', '--help']],
  ['import:registry', 'indexer/bin/import-registry.ts', ['--help']],
  ['generate', 'sample-data/cli.ts', ['--help']],
  ['rolloff', 'indexer/bin/rolloff.ts', ['--help']],
  ['backfill', 'ops/backfill-cli.ts', ['--help']],
  ['reindex', 'scripts/reindex.ts', ['--help']],
  ['worker', 'indexer/bin/worker.ts', ['--help']],
  ['opensearch', 'scripts/opensearch.ts', ['--help']],
  ['bench', 'bench/run.ts', ['--help']],
  ['bench:names', 'bench/name-eval.ts', ['--help']],
  ['match', 'scripts/match.ts', ['--help']],
  ['webhooks', 'scripts/webhooks.ts', ['--help']],
  ['webhooks replay', 'scripts/webhooks.ts', ['replay', '--help']],
  ['mcp', 'mcp/main.ts', ['--help']],
];

describe('--help runs nothing', () => {
  it.each(clis)('%s --help: usage and exit codes, exit 0, nothing done', async (_name, script, args) => {
    const result = await run(script, args, { ...nowhere, INDEX_PREFIX: uniquePrefix('help') });
    const output = result.stdout + result.stderr;
    expect(result.code, output).toBe(0);
    expect(output).toMatch(/^Usage: /m);
    expect(output).toContain('Exit codes: 0 done; 1 failed');
    // nothing reached for a server, nothing written
    expect(output).not.toMatch(
      /ECONNREFUSED|rolled off|starting OpenSearch|reusing the local|worker running|^wrote |^created /m,
    );
  });

  it('rolloff without --help does try to work (so the case above is meaningful)', async () => {
    const result = await run('indexer/bin/rolloff.ts', [], {
      ...nowhere,
      INDEX_PREFIX: uniquePrefix('help'),
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^rolloff: /m);
    expect(result.stderr).not.toMatch(/^\s+at /m);
  });
});

describe('count options: one parser for every CLI', () => {
  it.each([
    ['1', 1],
    ['1000', 1000],
  ])('positiveWholeNumber(%j) is %d', (value, parsed) => {
    expect(positiveWholeNumber(value)).toBe(parsed);
  });

  it.each(['0', '-3', '1.5', 'many', ''])('positiveWholeNumber(%j) is refused', (value) => {
    expect(() => positiveWholeNumber(value)).toThrow(InvalidArgumentError);
    expect(() => positiveWholeNumber(value)).toThrow('must be a positive whole number');
  });

  it.each([
    ['0', 0],
    ['42', 42],
  ])('wholeNumber(%j) is %d', (value, parsed) => {
    expect(wholeNumber(value)).toBe(parsed);
  });

  it.each(['-1', '2.5', 'many'])('wholeNumber(%j) is refused', (value) => {
    expect(() => wholeNumber(value)).toThrow(InvalidArgumentError);
    expect(() => wholeNumber(value)).toThrow(/^must be a whole number$/);
  });

  // refused while the arguments are read, so no server is started or reached
  it.each([
    ['bench/run.ts', ['--seconds', '0'], /--seconds.*must be a positive whole number/],
    ['scripts/cluster.ts', ['--apis', '1.5'], /--apis.*must be a positive whole number/],
    ['sample-data/cli.ts', ['--seed', '-1'], /--seed.*must be a whole number/],
  ])('%s %j: exit 1 with the option and the reason', async (script, args, message) => {
    const result = await run(script, args, nowhere);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).not.toMatch(/^\s+at /m);
  });
});

describe('keys create validates everything before storing anything', () => {
  let redis: Redis;
  const prefix = uniquePrefix('keys-cli');
  const env = { REDIS_URL: inject('redisUrl'), REDIS_PREFIX: prefix };
  beforeAll(() => {
    redis = new Redis(inject('redisUrl'));
  });
  afterAll(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  });

  it.each([
    [['--credits', '-5'], /--credits.*0 or more/],
    [['--credits', 'many'], /--credits.*whole number/],
    [['--expires', '2020-01-01'], /--expires.*in the past/],
    [['--expires', 'someday'], /--expires.*YYYY-MM-DD/],
    [['--label', 'x'.repeat(201)], /--label.*at most 200/],
  ])('create bob %j: exit 1, nothing stored, no key printed', async (args, message) => {
    const result = await run('scripts/keys.ts', ['create', 'bob', ...args], env);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(message);
    expect(result.stdout).toBe('');
    expect(await keyStoreFor(redis, prefix).list('bob')).toEqual([]);
    const { ledger, close } = openCreditLedger(testConfig('keys-cli', { redisPrefix: prefix }));
    expect(await ledger.balance('bob')).toBe(0);
    await close();
  });

  it('create bob --credits 5 stores one key and grants 5 (the same arguments, valid)', async () => {
    const result = await run(
      'scripts/keys.ts',
      ['create', 'carol', '--credits', '5', '--expires', '2099-01-01'],
      env,
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim()).toMatch(/^\S+$/);
    expect(await keyStoreFor(redis, prefix).list('carol')).toHaveLength(1);
    const { ledger, close } = openCreditLedger(testConfig('keys-cli', { redisPrefix: prefix }));
    expect(await ledger.balance('carol')).toBe(5);
    await close();
  });
});

describe('start-up failures are one clear line', () => {
  it('npm start on a busy port exits 1 with one line, before starting anything', async () => {
    const holder = net.createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', () => resolve()));
    const port = (holder.address() as net.AddressInfo).port;
    try {
      // no OPENSEARCH_URL: a start that ignored the busy port would start a local node first
      const result = await run('scripts/start.ts', [], {
        PORT: String(port),
        HOST: '127.0.0.1',
        LOAD_SAMPLE_DATA: 'false',
      });
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr.trim().split('\n')).toEqual([
        `npm start: port ${port} on 127.0.0.1 is already in use (another \`npm start\`?); stop that process or set PORT`,
      ]);
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
  });

  it('LOG_LEVEL=verbose: one line naming the allowed levels, no stack trace', async () => {
    const line =
      'configuration: LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "verbose"';
    const start = await run('scripts/start.ts', [], { LOG_LEVEL: 'verbose', PORT: '0' });
    expect(start.code).toBe(1);
    expect(start.stderr.trim().split('\n')).toEqual([line]);
    const rolloff = await run('indexer/bin/rolloff.ts', [], { ...nowhere, LOG_LEVEL: 'verbose' });
    expect(rolloff.code).toBe(1);
    expect(rolloff.stderr.trim().split('\n')).toEqual([line]);
  });

  it('the worker asks for REDIS_URL only: OpenSearch falls back to the local node like the other CLIs', async () => {
    const result = await run('indexer/bin/worker.ts', [], {});
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toBe(
      'worker: the indexer queue lives in Redis: set REDIS_URL (e.g. redis://127.0.0.1:6379)',
    );
    expect(result.stderr).not.toContain('OPENSEARCH_URL');
  });
});
