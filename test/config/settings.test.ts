/**
 * The settings table (src/config/settings.ts) against everything derived from it, for every
 * setting it declares: the generated reference (docs/settings.md) and `.env.example` are
 * current; a bad value is refused with one line naming the variable, a secret never repeated;
 * the default the reference shows is the value taken when unset; a secret never shows in
 * `--print-config`. And the local engine's port (OPENSEARCH_LOCAL_PORT) reaches the node start.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { checkLocalPortFree, ensureDevOpenSearch } from '../../ops/local/opensearch-node.js';
import { generatedFiles, regenerateCommand } from '../../src/config/reference.js';
import { getIn, readSettings, type Setting } from '../../src/config/schema.js';
import { settings } from '../../src/config/settings.js';
import { ConfigError, describeConfig, loadConfig } from '../../src/config.js';
import { projectRoot } from '../../src/project-root.js';

const run = promisify(execFile);

/** `npm start`'s entry with `env` on top of a clean environment (no shared servers). */
async function start(args: string[], env: Record<string, string>) {
  const { OPENSEARCH_URL: _o, REDIS_URL: _r, LOG_LEVEL: _l, ...rest } = process.env;
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', 'scripts/start.ts', ...args], {
      cwd: projectRoot,
      env: { ...rest, ...env },
      timeout: 60_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

/** A value each kind refuses; null: the kind takes any text. A new kind needs an entry. */
const badValueByKind: Record<string, string | null> = {
  integer: '1.5',
  flag: 'yes',
  oneOf: 'loud',
  matching: 'plenty',
  urlList: 'os:9200',
  redisUrl: 'cache:6379',
  secretText: 'hunter2-short',
  cursorKeyList: '7:hunter2-short',
  text: null,
  verbatimText: null,
  idSet: null,
};

const cursorSecretA = 'hunter2-cursor-keys-0123456789abcdef';
const cursorSecretB = 'hunter2-cursor-secret-0123456789abcdef';

/**
 * For every setting that is or may hold a secret: an environment that sets it, and the secret
 * text. A new secret setting needs an entry.
 */
const secretSamples: Record<string, { env: Record<string, string>; secret: string }> = {
  OPENSEARCH_URL: { env: { OPENSEARCH_URL: 'https://api:hunter2-in-url@os:9200' }, secret: 'hunter2-in-url' },
  OPENSEARCH_PASSWORD: {
    env: { OPENSEARCH_URL: 'https://os:9200', OPENSEARCH_USERNAME: 'api', OPENSEARCH_PASSWORD: 'hunter2-pw' },
    secret: 'hunter2-pw',
  },
  REDIS_URL: { env: { REDIS_URL: 'redis://default:hunter2-redis@cache:6379' }, secret: 'hunter2-redis' },
  OPERATOR_TOKEN: { env: { OPERATOR_TOKEN: 'hunter2-operator' }, secret: 'hunter2-operator' },
  CURSOR_KEYS: { env: { CURSOR_KEYS: `3:${cursorSecretA}` }, secret: cursorSecretA },
  CURSOR_SECRET: { env: { CURSOR_SECRET: cursorSecretB }, secret: cursorSecretB },
};

const mayHoldSecret = (setting: Setting) => setting.secret || setting.kind.secretPart !== undefined;
const named = settings.map((setting) => ({ name: setting.name, setting }));

describe('the files generated from the settings table', () => {
  it.each(Object.entries(generatedFiles()))('%s is current', (file, generated) => {
    const committed = readFileSync(path.join(projectRoot, file), 'utf8');
    expect(
      committed,
      `${file} differs from what src/config/settings.ts generates: run \`${regenerateCommand}\` and commit it`,
    ).toBe(generated);
  });
});

describe('a bad value, for every setting', () => {
  it('every kind in the table has a bad value in this test', () => {
    for (const { name, setting } of named)
      expect(badValueByKind, `${name}: give kind "${setting.kind.id}" a bad value here`).toHaveProperty(
        setting.kind.id,
      );
  });

  it.each(named.filter(({ setting }) => badValueByKind[setting.kind.id]))(
    '$name: refused in one line naming it',
    ({ name, setting }) => {
      const bad = badValueByKind[setting.kind.id] as string;
      let message = '';
      try {
        loadConfig({ [name]: bad });
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigError);
        message = (error as ConfigError).message;
      }
      expect(message).toMatch(new RegExp(`^${name} \\S.*$`));
      expect(message).not.toContain('\n');
      if (mayHoldSecret(setting)) expect(message).not.toContain(bad);
    },
  );

  it.each(named.filter(({ setting }) => badValueByKind[setting.kind.id] === null))(
    '$name: takes any text',
    ({ name, setting }) => {
      expect(() => readSettings([setting], { [name]: ' any text: | ; "quoted" ' })).not.toThrow();
    },
  );
});

/** docs/settings.md's default column, by variable. */
function documentedDefaults(): Map<string, string> {
  const rows = readFileSync(path.join(projectRoot, 'docs', 'settings.md'), 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => line.split(' | '));
  return new Map(rows.map(([variable, cell]) => [(variable ?? '').slice(3, -1), cell ?? '']));
}

describe('the default the reference shows, for every setting', () => {
  const documented = documentedDefaults();

  it.each(named)('$name', ({ name, setting }) => {
    const cell = documented.get(name);
    expect(cell, `docs/settings.md has no row for ${name}`).toBeDefined();
    const literal = cell === '(empty)' ? '' : /^`([^`]*)`$/.exec(cell ?? '')?.[1];
    if (literal !== undefined) {
      // the documented text, set, gives what leaving the variable unset gives
      const text = literal.replace('<project>', projectRoot);
      expect(loadConfig({ [name]: text })).toEqual(loadConfig({}));
    } else {
      expect(cell).toMatch(/^\*unset\*: \S/);
      expect(readSettings([setting], {})).toEqual({ [name]: undefined });
      if (setting.key) expect(getIn(loadConfig({}), setting.key)).toBeUndefined();
    }
  });
});

describe('secrets in --print-config, for every setting that is or may hold one', () => {
  it('every such setting has a sample in this test', () => {
    const secretNames = settings.filter(mayHoldSecret).map((setting) => setting.name);
    expect(Object.keys(secretSamples).sort()).toEqual(secretNames.sort());
  });

  it.each(Object.entries(secretSamples))('%s: in the configuration, never described', (_name, sample) => {
    const config = loadConfig(sample.env);
    // the sample did reach the configuration, so its absence below is the masking's doing
    expect(JSON.stringify(config)).toContain(sample.secret);
    expect(describeConfig(config)).not.toContain(sample.secret);
  });

  it('the server entry prints none of them', async () => {
    // as few processes as the samples allow: each group's variables load together
    const groups: Array<Record<string, string>> = [];
    for (const { env } of Object.values(secretSamples)) {
      const fits = groups.find((group) => {
        try {
          return loadConfig({ ...group, ...env }) !== undefined;
        } catch {
          return false;
        }
      });
      if (fits) Object.assign(fits, env);
      else groups.push({ ...env });
    }
    const results = await Promise.all(groups.map((env) => start(['--print-config'], env)));
    for (const result of results) {
      expect(result.code, result.stderr).toBe(0);
      expect(JSON.parse(result.stdout)).toHaveProperty('opensearchAccess');
      for (const { secret } of Object.values(secretSamples)) {
        expect(result.stdout).not.toContain(secret);
        expect(result.stderr).not.toContain(secret);
      }
    }
  });
});

describe('OPENSEARCH_LOCAL_PORT, the local engine port', () => {
  let holder: net.Server;
  let taken: number;

  beforeAll(async () => {
    holder = net.createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', () => resolve()));
    taken = (holder.address() as net.AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => holder.close(() => resolve())));

  it('is a port the runner can serve on, unset by default', () => {
    expect(loadConfig({}).opensearchLocalPort).toBeUndefined();
    expect(loadConfig({ OPENSEARCH_LOCAL_PORT: '9250' }).opensearchLocalPort).toBe(9250);
    expect(() => loadConfig({ OPENSEARCH_LOCAL_PORT: '9300' })).toThrow(
      new ConfigError('OPENSEARCH_LOCAL_PORT must be a port from 1 to 9299, got "9300"'),
    );
    expect(() => loadConfig({ OPENSEARCH_LOCAL_PORT: '0' })).toThrow(/^OPENSEARCH_LOCAL_PORT must be a port/);
  });

  it('a port another process holds is refused before any node starts', async () => {
    await expect(checkLocalPortFree(taken)).rejects.toThrow(
      `OPENSEARCH_LOCAL_PORT ${taken} on 127.0.0.1 is already in use; stop that process or set another port`,
    );
    await expect(ensureDevOpenSearch(() => {}, { port: taken })).rejects.toThrow(/^OPENSEARCH_LOCAL_PORT /);
  });

  it('a node `npm run opensearch` keeps running is reused on its own port, refused on another', async () => {
    // the record that node leaves (.local/opensearch/dev/node.json), pointing at the test node
    // under this (alive) process; a developer's own record is put back afterwards
    const dir = path.join(projectRoot, '.local', 'opensearch', 'dev');
    const record = path.join(dir, 'node.json');
    const kept = `${record}.kept-by-settings-test`;
    const url = inject('opensearchUrl');
    const port = Number(new URL(url).port);
    mkdirSync(dir, { recursive: true });
    if (existsSync(record)) renameSync(record, kept);
    try {
      writeFileSync(record, JSON.stringify({ pid: process.pid, url }));
      const reused = await ensureDevOpenSearch(() => {}, { port });
      expect([reused.url, reused.startedHere]).toEqual([url, false]);
      await reused.stop(); // a reused node is left running
      expect((await fetch(`${url}/_cluster/health`)).ok).toBe(true);
      await expect(ensureDevOpenSearch(() => {}, { port: port + 1 })).rejects.toThrow(
        `OPENSEARCH_LOCAL_PORT is ${port + 1} but the local OpenSearch that \`npm run opensearch\` keeps running is at ${url}`,
      );
    } finally {
      rmSync(record, { force: true });
      if (existsSync(kept)) renameSync(kept, record);
    }
  });

  it('the server entry passes it to the node start: one line, exit 1', async () => {
    const held = net.createServer();
    const port = await listenInRange(held);
    try {
      const result = await start([], { PORT: '0', OPENSEARCH_LOCAL_PORT: String(port) });
      expect(result.code).toBe(1);
      const lines = result.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      // a dev node `npm run opensearch` keeps on another port is named instead, as a mismatch
      expect(lines[0]).toMatch(
        new RegExp(
          `^npm start: OPENSEARCH_LOCAL_PORT (${port} on 127\\.0\\.0\\.1 is already in use|is ${port} but)`,
        ),
      );
    } finally {
      held.close();
    }
  });
});

/** Listens on the first free port from 9201 to 9299 (the local engine's range). */
async function listenInRange(server: net.Server): Promise<number> {
  for (let port = 9201; port <= 9299; port++) {
    const ok = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => resolve(true));
    });
    if (ok) return port;
  }
  throw new Error('no free port from 9201 to 9299');
}
