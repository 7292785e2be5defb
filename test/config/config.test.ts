/**
 * The one configuration module (src/config.ts): defaults, a bad value refused as one line
 * naming the variable (no stack trace, exit 1), and `--print-config` with secrets masked.
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, describeConfig, loadConfig } from '../../src/config.js';

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '..', '..');

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
    [
      'REDIS_URL',
      'localhost:6379',
      'REDIS_URL must be a URL starting redis:// or rediss://, or redis-sentinel://host:port,.../<master name>',
    ],
    [
      'REDIS_URL',
      'redis-sentinel://127.0.0.1:26379',
      'REDIS_URL must be redis-sentinel://[user:password@]host:port[,host:port...]/<master name>',
    ],
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

describe('a secured OpenSearch: credentials and CA file', () => {
  const password = 'hunter2-S3cret!';
  let dir: string;
  let caFile: string;
  let passwordFile: string;

  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'config-engine-'));
    execFileSync('bash', [path.join(root, 'scripts', 'engine-certs.sh'), dir, 'os'], { stdio: 'ignore' });
    caFile = path.join(dir, 'root-ca.pem');
    passwordFile = path.join(dir, 'password');
    writeFileSync(passwordFile, `${password}\n`);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** The ConfigError's message, which must never hold the password. */
  function refusal(env: Record<string, string>): string {
    try {
      loadConfig(env);
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      const { message } = error as ConfigError;
      expect(message).not.toContain(password);
      expect(message).not.toContain('hunter2');
      return message;
    }
    throw new Error('accepted');
  }

  it('separate variables, or a password file (its trailing newline dropped)', () => {
    const base = {
      OPENSEARCH_URL: 'https://os:9200',
      OPENSEARCH_USERNAME: 'api',
      OPENSEARCH_CA_FILE: caFile,
    };
    expect(loadConfig({ ...base, OPENSEARCH_PASSWORD: password })).toMatchObject({
      opensearchUrl: 'https://os:9200',
      opensearchAccess: { auth: { username: 'api', password }, caFile },
    });
    expect(loadConfig({ ...base, OPENSEARCH_PASSWORD_FILE: passwordFile }).opensearchAccess.auth).toEqual({
      username: 'api',
      password,
    });
  });

  it('credentials in the URL move out of it, decoded, on every node', () => {
    const config = loadConfig({
      OPENSEARCH_URL: `https://api:${encodeURIComponent(password)}@os1:9200,https://api:${encodeURIComponent(password)}@os2:9200`,
    });
    expect(config.opensearchUrl).toBe('https://os1:9200,https://os2:9200');
    expect(config.opensearchAccess.auth).toEqual({ username: 'api', password });
  });

  it('nothing set: no credentials, no CA, the URL as given', () => {
    expect(loadConfig({ OPENSEARCH_URL: 'http://127.0.0.1:9201' })).toMatchObject({
      opensearchUrl: 'http://127.0.0.1:9201',
      opensearchAccess: { auth: undefined, caFile: undefined },
    });
  });

  it('refuses what would send a password in clear text, give it two ways, or half of it', () => {
    const url = 'https://os:9200';
    expect(refusal({ OPENSEARCH_URL: `http://api:${password}@os:9200` })).toMatch(
      /need https:\/\/.*clear text/,
    );
    expect(
      refusal({
        OPENSEARCH_URL: 'http://os:9200',
        OPENSEARCH_USERNAME: 'api',
        OPENSEARCH_PASSWORD: password,
      }),
    ).toMatch(/need https:\/\//);
    expect(
      refusal({
        OPENSEARCH_URL: `https://api:${password}@os:9200`,
        OPENSEARCH_USERNAME: 'api',
        OPENSEARCH_PASSWORD: password,
      }),
    ).toMatch(/one way/);
    expect(
      refusal({
        OPENSEARCH_URL: url,
        OPENSEARCH_USERNAME: 'api',
        OPENSEARCH_PASSWORD: password,
        OPENSEARCH_PASSWORD_FILE: passwordFile,
      }),
    ).toBe('OPENSEARCH_PASSWORD and OPENSEARCH_PASSWORD_FILE are both set: give one');
    expect(refusal({ OPENSEARCH_URL: url, OPENSEARCH_PASSWORD: password })).toBe(
      'OPENSEARCH_PASSWORD(_FILE) needs OPENSEARCH_USERNAME',
    );
    expect(refusal({ OPENSEARCH_URL: url, OPENSEARCH_USERNAME: 'api' })).toMatch(/needs OPENSEARCH_PASSWORD/);
    expect(refusal({ OPENSEARCH_URL: 'https://api@os:9200' })).toMatch(/both a user and a password/);
    expect(refusal({ OPENSEARCH_URL: 'https://api:hunter2%zz@os:9200' })).toMatch(
      /not valid percent-encoding/,
    );
    expect(refusal({ OPENSEARCH_URL: `https://api:${password}@os1:9200,https://os2:9200` })).toMatch(
      /every node/,
    );
    expect(refusal({ OPENSEARCH_USERNAME: 'api', OPENSEARCH_PASSWORD: password })).toMatch(
      /need OPENSEARCH_URL/,
    );
    expect(
      refusal({
        OPENSEARCH_URL: url,
        OPENSEARCH_USERNAME: 'api',
        OPENSEARCH_PASSWORD_FILE: path.join(dir, 'none'),
      }),
    ).toMatch(/^OPENSEARCH_PASSWORD_FILE cannot be read: ENOENT/);
  });

  it('refuses a CA file that is missing, not a certificate, or set for a plain-http engine', () => {
    expect(
      refusal({ OPENSEARCH_URL: 'https://os:9200', OPENSEARCH_CA_FILE: path.join(dir, 'none.pem') }),
    ).toMatch(/^OPENSEARCH_CA_FILE cannot be read: ENOENT/);
    expect(refusal({ OPENSEARCH_URL: 'https://os:9200', OPENSEARCH_CA_FILE: passwordFile })).toMatch(
      /^OPENSEARCH_CA_FILE must be a PEM certificate/,
    );
    expect(refusal({ OPENSEARCH_URL: 'http://os:9200', OPENSEARCH_CA_FILE: caFile })).toMatch(
      /no node .* is https/,
    );
  });

  it('describes the user and the CA file, never the password', () => {
    for (const env of [
      {
        OPENSEARCH_URL: 'https://os:9200',
        OPENSEARCH_USERNAME: 'api',
        OPENSEARCH_PASSWORD_FILE: passwordFile,
      },
      { OPENSEARCH_URL: `https://api:${encodeURIComponent(password)}@os:9200` },
    ]) {
      const text = describeConfig(loadConfig({ ...env, OPENSEARCH_CA_FILE: caFile }));
      expect(text).not.toContain('hunter2');
      expect(JSON.parse(text)).toMatchObject({
        opensearchUrl: 'https://os:9200',
        opensearchAccess: { auth: { username: 'api', password: '***' }, caFile },
      });
    }
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
