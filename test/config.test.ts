/**
 * The one configuration module (src/config.ts): defaults, a bad value refused as one line
 * naming the variable (no stack trace, exit 1), and `--print-config` with secrets masked.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ConfigError, describeConfig, loadConfig } from '../src/config.js';

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '..');

/** `npm start`'s entry with `env` on top of a clean environment; never reaches OpenSearch. */
async function start(args: string[], env: Record<string, string>) {
  const { OPENSEARCH_URL: _o, REDIS_URL: _r, LOG_LEVEL: _l, ...rest } = process.env;
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', 'scripts/start.ts', ...args], {
      cwd: root,
      env: { ...rest, ...env },
      timeout: 60_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe('loadConfig', () => {
  it('deadline, Redis budget, HTTP timeouts, orphan sweep and operator token: defaults and overrides', () => {
    expect(loadConfig({})).toMatchObject({
      requestDeadlineMs: 3000,
      redisBudgetMs: 1000,
      http: { headersTimeoutMs: 10_000, requestTimeoutMs: 15_000, keepAliveTimeoutMs: 5_000 },
      operatorToken: undefined,
      limits: { reservationOrphanSeconds: 60, sweepIntervalSeconds: 10 },
    });
    expect(
      loadConfig({
        REQUEST_DEADLINE_MS: '5000',
        REDIS_BUDGET_MS: '500',
        HTTP_HEADERS_TIMEOUT_MS: '2000',
        HTTP_REQUEST_TIMEOUT_MS: '4000',
        HTTP_KEEP_ALIVE_TIMEOUT_MS: '1000',
        OPERATOR_TOKEN: 'ops',
        CREDIT_RESERVATION_TIMEOUT_SECONDS: '120',
        CREDIT_SWEEP_INTERVAL_SECONDS: '5',
      }),
    ).toMatchObject({
      requestDeadlineMs: 5000,
      redisBudgetMs: 500,
      http: { headersTimeoutMs: 2000, requestTimeoutMs: 4000, keepAliveTimeoutMs: 1000 },
      operatorToken: 'ops',
      limits: { reservationOrphanSeconds: 120, sweepIntervalSeconds: 5 },
    });
    expect(describeConfig(loadConfig({ OPERATOR_TOKEN: 'ops-secret' }))).not.toContain('ops-secret');
  });

  it('refuses an orphan timeout that a live search could outlast', () => {
    expect(() => loadConfig({ REQUEST_DEADLINE_MS: '60000' })).toThrow(
      /CREDIT_RESERVATION_TIMEOUT_SECONDS must be longer than REQUEST_DEADLINE_MS/,
    );
    expect(() => loadConfig({ REQUEST_DEADLINE_MS: '0' })).toThrow(ConfigError);
  });
  it('has a default for everything', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 8080,
      host: '127.0.0.1',
      opensearchUrl: undefined,
      redisUrl: undefined,
      indexPrefix: '',
      redisPrefix: 'cs:',
      loadSampleData: true,
      logLevel: 'info',
      opensearchHeap: '1g',
    });
    expect(config.keysFile).toMatch(/\.local\/api-keys\.json$/);
    expect(config.creditsFile).toMatch(/\.local\/credits\.json$/);
  });

  it.each([
    [
      'LOG_LEVEL',
      'verbose',
      'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "verbose"',
    ],
    ['PORT', '80.5', 'PORT must be a whole number of at least 0, got "80.5"'],
    ['LOAD_SAMPLE_DATA', 'no', 'LOAD_SAMPLE_DATA must be true or false, got "no"'],
    ['OPENSEARCH_HEAP', 'lots', 'OPENSEARCH_HEAP must be a JVM size such as 512m or 2g, got "lots"'],
    ['REDIS_URL', 'localhost:6379', 'REDIS_URL must be a URL starting redis: or rediss://'],
  ])('refuses %s=%s naming the variable', (name, value, message) => {
    expect(() => loadConfig({ [name]: value })).toThrow(new ConfigError(message));
  });

  it('names every bad variable in one line', () => {
    expect(() => loadConfig({ PORT: 'x', LOG_LEVEL: 'loud' })).toThrow(/^PORT .*; LOG_LEVEL .*$/);
  });

  it('never repeats a URL it refuses (it may hold a password)', () => {
    expect(() => loadConfig({ REDIS_URL: 'redis//user:hunter2@cache' })).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining('hunter2') }),
    );
  });

  it('masks the credentials of URLs when described', () => {
    const text = describeConfig(
      loadConfig({ REDIS_URL: 'redis://app:hunter2@cache:6379/0', OPENSEARCH_URL: 'https://os:9200' }),
    );
    expect(text).not.toContain('hunter2');
    expect(text).not.toContain('app:');
    expect(JSON.parse(text)).toMatchObject({
      redisUrl: 'redis://***:***@cache:6379/0',
      opensearchUrl: 'https://os:9200',
    });
  });
});

describe('the server entry', () => {
  it('LOG_LEVEL=verbose -> one line naming the variable on stderr, exit 1, no stack trace', async () => {
    const result = await start([], { LOG_LEVEL: 'verbose' });
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toEqual([
      'configuration: LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "verbose"',
    ]);
  });

  it('--print-config shows the effective configuration with secrets masked, and exits 0', async () => {
    const result = await start(['--print-config'], {
      REDIS_URL: 'redis://default:hunter2@127.0.0.1:6399',
      RATE_LIMIT_PER_SECOND: '7',
    });
    expect(result.code).toBe(0);
    expect(result.stdout).not.toContain('hunter2');
    expect(JSON.parse(result.stdout)).toMatchObject({
      redisUrl: 'redis://***:***@127.0.0.1:6399',
      opensearchUrl: null,
      limits: { ratePerSecond: 7 },
    });
  });
});
