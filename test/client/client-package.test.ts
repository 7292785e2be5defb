/**
 * The client as a package someone installs: `npm pack` of client/ (its prepack builds dist/)
 * holds the JavaScript, the declarations, the README and package.json and nothing else; the
 * tarball installs into an empty folder outside the repository with `npm install --offline`
 * (its dependencies from tarballs of the versions this repository has installed, so the
 * install needs no network and fails if the declared ranges do not take them); and the
 * example of client/README.md, compiled there against the installed declarations and run
 * with plain node, prints what the real API answers for data this test indexed.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, keyStoreFor } from '../../src/auth/key-admin.js';
import { createApp } from '../../src/http/app.js';
import { projectRoot } from '../../src/project-root.js';
import type { Services } from '../../src/services.js';
import { corporate, indexFixture } from '../fixtures/search/docs.js';
import { setUpServices } from '../support/env.js';

const clientDir = path.join(projectRoot, 'client');
const scratch = mkdtempSync(path.join(os.tmpdir(), 'client-package-'));
const appDir = path.join(scratch, 'app');
const tools = path.join(projectRoot, 'node_modules', '.bin');

// five companies in Tokyo or Kanagawa (names out of order), two in Osaka
const kanto = ['ミドリ運輸', 'アオバ物流', 'サクラ精機', 'カエデ商事', 'ツバキ工業'].map((name, i) =>
  corporate({ name: `${name}株式会社`, prefectureId: i % 2 === 0 ? 13 : 14 }),
);
const osaka = [corporate({ name: 'アサヒ製作所', prefectureId: 27 }), corporate({ prefectureId: 27 })];

let services: Services;
let server: Server;
let baseUrl = '';
let apiKey = '';

/** The environment of a child npm: this process's, without the npm_* variables of a parent npm run. */
function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)));
  return { ...env, NO_COLOR: '1', ...extra };
}

/** Runs a command without blocking this process, whose event loop serves the API the example calls. */
async function run(command: string, args: string[], cwd: string, env = childEnv()): Promise<string> {
  const { stdout } = await promisify(execFile)(command, args, { cwd, env, encoding: 'utf8' });
  return stdout;
}

/** The client's runtime dependencies and theirs, by name, as installed in this repository. */
function dependencyClosure(names: string[], found = new Set<string>()): Set<string> {
  for (const name of names) {
    if (found.has(name)) continue;
    found.add(name);
    const manifest = JSON.parse(
      readFileSync(path.join(projectRoot, 'node_modules', name, 'package.json'), 'utf8'),
    ) as { dependencies?: Record<string, string> };
    dependencyClosure(Object.keys(manifest.dependencies ?? {}), found);
  }
  return found;
}

/** The ```ts block under `## Example` of client/README.md. */
function readmeExample(): string {
  const readme = readFileSync(path.join(clientDir, 'README.md'), 'utf8');
  const section = readme.split(/^## /m).find((part) => part.startsWith('Example'));
  const block = section && /```ts\n([\s\S]*?)```/.exec(section)?.[1];
  if (!block) throw new Error('client/README.md has no ```ts block under "## Example"');
  return block;
}

let tarball = '';

beforeAll(async () => {
  services = await setUpServices('client-package');
  await indexFixture(services.opensearch, services.config.indexPrefix, { corporates: [...kanto, ...osaka] });
  const userId = 'package-reader';
  ({ key: apiKey } = await createApiKey(keyStoreFor(services.redis, services.config.redisPrefix), {
    userId,
  }));
  await services.limits.ledger.grant(userId, 1000);
  server = createApp(services).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 120_000);
afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  await services?.close();
  rmSync(scratch, { recursive: true, force: true });
});

// in steps: the tarball packed and installed, then the example run from that installation
describe('the client package', { shuffle: false }, () => {
  it('packs dist/ (JavaScript and declarations), the README and package.json, nothing else', async () => {
    const [packed] = JSON.parse(
      await run('npm', ['pack', '--json', '--pack-destination', scratch], clientDir),
    ) as { filename: string; files: { path: string }[] }[];
    if (!packed) throw new Error('npm pack printed no package');
    tarball = path.join(scratch, packed.filename);
    const files = packed.files.map((file) => file.path).sort();
    expect(files).toEqual(
      expect.arrayContaining([
        'README.md',
        'package.json',
        'dist/index.js',
        'dist/index.d.ts',
        'dist/generated/openapi.d.ts',
      ]),
    );
    expect(
      files.filter((file) => !file.startsWith('dist/') && file !== 'README.md' && file !== 'package.json'),
    ).toEqual([]);
    const manifest = JSON.parse(readFileSync(path.join(clientDir, 'package.json'), 'utf8'));
    expect(manifest.private).toBeUndefined();
    expect(Object.keys(manifest.dependencies)).toEqual(['openapi-fetch']);
  }, 180_000);

  it('installs offline into an empty folder outside the repository', async () => {
    expect(tarball, 'the pack test ran first').not.toBe('');
    expect(path.relative(projectRoot, appDir).startsWith('..')).toBe(true);
    const clientDeps = Object.keys(
      (JSON.parse(readFileSync(path.join(clientDir, 'package.json'), 'utf8')) as { dependencies: object })
        .dependencies,
    );
    const depTarballs: string[] = [];
    for (const name of dependencyClosure(clientDeps)) {
      const [packed] = JSON.parse(
        await run(
          'npm',
          ['pack', '--json', '--ignore-scripts', '--pack-destination', scratch],
          path.join(projectRoot, 'node_modules', name),
        ),
      ) as { filename: string }[];
      depTarballs.push(path.join(scratch, packed?.filename ?? ''));
    }
    mkdirSync(appDir);
    writeFileSync(
      path.join(appDir, 'package.json'),
      JSON.stringify({ name: 'app', private: true, type: 'module' }),
    );
    await run('npm', ['install', '--offline', '--no-audit', '--no-fund', tarball, ...depTarballs], appDir);
    const installed = JSON.parse(
      readFileSync(path.join(appDir, 'node_modules', '@corpsearch', 'client', 'package.json'), 'utf8'),
    );
    expect(installed.name).toBe('@corpsearch/client');
    // the client's own dependency range took the installed openapi-fetch (nothing nested)
    expect(
      JSON.parse(await run('npm', ['ls', '--json', '--all', '--offline'], appDir)).problems,
    ).toBeUndefined();
  }, 180_000);

  it("runs the README's example, compiled against the installed declarations, on the running API", async () => {
    expect(tarball, 'the install test ran first').not.toBe('');
    writeFileSync(path.join(appDir, 'example.ts'), readmeExample());
    writeFileSync(
      path.join(appDir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          skipLibCheck: true,
          typeRoots: [path.join(projectRoot, 'node_modules', '@types')],
          types: ['node'],
        },
        files: ['example.ts'],
      }),
    );
    await run(path.join(tools, 'tsc'), ['-p', appDir], appDir);
    const output = await run('node', ['example.js'], appDir, childEnv({ BASE: baseUrl, API_KEY: apiKey }));
    const names = kanto.map((company) => company.name as string).sort();
    const byName = new Map(kanto.map((company) => [company.name, company.corporateNumber]));
    expect(output.trimEnd().split('\n')).toEqual([
      'companies in Tokyo or Kanagawa: 5 (export: 1 credits)',
      ...names.slice(0, 3).map((name) => `${byName.get(name)} ${name}`),
      'credits left: 999',
    ]);
  }, 180_000);
});
