/**
 * The keys CLI as an operator runs it (`npm run -s keys -- ...`): `create` prints the key
 * alone on stdout, once, and the running app accepts it; list shows no key; revoke makes the
 * app answer 401; credits go to the limits engineer's ledger. Redis mode on the test Redis
 * under this file's prefix; file mode with a temporary API_KEYS_FILE shared with the app.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileKeyStore } from '../../src/auth/file-key-store.js';
import { createApp } from '../../src/http/app.js';
import type { Services } from '../../src/services.js';
import { setUpServices } from '../support/env.js';

const run = promisify(execFile);
const keyLine = /^csk_[A-Za-z0-9_-]{43}\n$/;

let services: Services;
let tempDir: string;

beforeAll(async () => {
  services = await setUpServices('keys-cli');
  tempDir = mkdtempSync(path.join(tmpdir(), 'keys-cli-'));
});
afterAll(async () => {
  await services.close();
  rmSync(tempDir, { recursive: true, force: true });
});

function keys(args: string[], env: Record<string, string | undefined>) {
  const { REDIS_URL: _url, REDIS_PREFIX: _prefix, API_KEYS_FILE: _file, ...rest } = process.env;
  return run('npm', ['run', '-s', 'keys', '--', ...args], {
    cwd: path.resolve(import.meta.dirname, '..', '..'),
    env: { ...rest, ...env } as NodeJS.ProcessEnv,
  });
}

describe('with Redis', () => {
  const env = () => ({ REDIS_URL: services.config.redisUrl, REDIS_PREFIX: services.config.redisPrefix });

  it('create -> the key alone on stdout; the app accepts it; list never shows it; revoke -> 401', async () => {
    const created = await keys(['create', 'cli-user', '--expires', '2099-12-31', '--credits', '7'], env());
    expect(created.stdout).toMatch(keyLine);
    const key = created.stdout.trim();
    expect(created.stderr).toContain('for user cli-user, expires 2099-12-31T23:59:59.999Z');
    expect(created.stderr).not.toContain(key);
    expect(await services.limits.ledger.balance('cli-user')).toBe(7);

    const app = createApp(services);
    await request(app).get('/rest/v1/master/markets').set('X-API-Key', key).expect(200);

    const listed = await keys(['list', 'cli-user'], env());
    expect(listed.stdout).toMatch(/^key_[0-9a-f]{12} {2}user=cli-user {2}state=active /);
    expect(listed.stdout).not.toContain(key);
    const keyId = listed.stdout.split(' ')[0] as string;

    await keys(['revoke', keyId], env());
    const res = await request(app).get('/rest/v1/master/markets').set('X-API-Key', key).expect(401);
    expect(res.body).toEqual({
      message: 'The API key has been revoked; ask for a new one.',
      code: 'api_key_revoked',
      requestId: res.headers['x-request-id'],
      docUrl: '/docs/errors#api_key_revoked',
    });
    expect((await keys(['list', 'cli-user'], env())).stdout).toContain('state=revoked');
  });

  it('export and import move every key record to another store, once; a bad line imports nothing', async () => {
    const created = await keys(['create', 'cli-moving', '--label', 'crm sync'], env());
    const key = created.stdout.trim();
    const exported = await keys(['export'], env());
    const lines = exported.stdout.trim().split('\n');
    expect(lines.length).toBeGreaterThanOrEqual(1);
    expect(exported.stdout).not.toContain(key);
    const file = path.join(tempDir, 'keys.jsonl');
    writeFileSync(file, exported.stdout);
    // the new store: another prefix on the same server
    const target = {
      REDIS_URL: services.config.redisUrl,
      REDIS_PREFIX: `${services.config.redisPrefix}moved:`,
    };
    expect((await keys(['import', file], target)).stderr).toContain(
      `imported ${lines.length} key records; 0 were there`,
    );
    expect((await keys(['import', file], target)).stderr).toContain(
      `imported 0 key records; ${lines.length} were there`,
    );
    const moved = (await keys(['list', 'cli-moving'], target)).stdout;
    expect(moved).toContain('label="crm sync"');
    expect(moved).toContain('state=active');
    const bad = path.join(tempDir, 'bad.jsonl');
    writeFileSync(bad, `${lines[0]}\n{"keyId": "key_1", "userId": "x"}\n`);
    const third = { ...target, REDIS_PREFIX: `${services.config.redisPrefix}third:` };
    await expect(keys(['import', bad], third)).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('line 2: not a key record of keys export'),
    });
    expect((await keys(['list'], third)).stdout).toBe('');
  });

  it('credits shows and grants a balance', async () => {
    expect((await keys(['credits', 'cli-credits'], env())).stdout).toBe('0\n');
    expect((await keys(['credits', 'cli-credits', '--grant', '25'], env())).stdout).toBe('25\n');
    expect(await services.limits.ledger.balance('cli-credits')).toBe(25);
  });

  it('refuses bad input with a reason and a non-zero exit', async () => {
    await expect(keys(['create', 'bad user'], env())).rejects.toMatchObject({
      code: 1,
      stdout: '',
      stderr: expect.stringContaining('a user id is 1-128 characters'),
    });
    await expect(keys(['create', 'u', '--expires', '2001-01-01'], env())).rejects.toMatchObject({
      stderr: expect.stringContaining('--expires is in the past'),
    });
    await expect(keys(['revoke', 'key_000000000000'], env())).rejects.toMatchObject({
      stderr: expect.stringContaining('no key key_000000000000'),
    });
  });
});

describe('without Redis (single-process mode)', () => {
  it('the CLI and the app share the key file; only hashes are in it', async () => {
    const file = path.join(tempDir, 'api-keys.json');
    const env = { API_KEYS_FILE: file };
    const app = createApp({ ...services, redis: undefined }, { keyStore: new FileKeyStore(file) });
    // the app starts before the key exists, as `npm start` would
    await request(app)
      .get('/rest/v1/master/media')
      .set('X-API-Key', `csk_${'B'.repeat(43)}`)
      .expect(401);

    const created = await keys(['create', 'local-user'], env);
    expect(created.stdout).toMatch(keyLine);
    const key = created.stdout.trim();
    await request(app).get('/rest/v1/master/media').set('X-API-Key', key).expect(200);
    expect(readFileSync(file, 'utf8')).not.toContain(key);

    const keyId = (await keys(['list'], env)).stdout.split(' ')[0] as string;
    await keys(['revoke', keyId], env);
    await request(app).get('/rest/v1/master/media').set('X-API-Key', key).expect(401);
  });
});
