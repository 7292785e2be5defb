/**
 * docker-compose.yml's production profile, checked for the mistakes no schema catches (there
 * is no Docker engine here; scripts/check-compose.sh validates the file's shape): the default
 * profile stays as it was; the API and the worker get settings src/config.ts accepts (https,
 * a user, a password file, a CA file, each a file mounted into the container); the engine's
 * admin and node names are the ones scripts/engine-certs.sh writes into the certificates; the
 * users and the index prefix are the ones deploy/opensearch-security names.
 */
import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { sentinelTarget } from '../../src/config/redis-url.js';
import { loadConfig } from '../../src/config.js';

const root = path.resolve(import.meta.dirname, '..', '..');

interface Service {
  profiles?: string[];
  environment?: Record<string, string>;
  volumes?: string[];
  depends_on?: Record<string, unknown>;
}
const compose = parse(readFileSync(path.join(root, 'docker-compose.yml'), 'utf8')) as {
  services: Record<string, Service>;
};
const services = compose.services;
const security = (file: string) =>
  parse(readFileSync(path.join(root, 'deploy', 'opensearch-security', file), 'utf8')) as Record<
    string,
    Record<string, unknown>
  >;

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'compose-production-'));
  execFileSync(
    'bash',
    [path.join(root, 'scripts', 'engine-certs.sh'), path.join(dir, 'certs'), 'opensearch-prod'],
    {
      stdio: 'ignore',
    },
  );
  mkdirSync(path.join(dir, 'secrets'));
  for (const name of ['opensearch-api-password', 'opensearch-indexer-password'])
    writeFileSync(path.join(dir, 'secrets', name), 'a-password\n');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A service's environment with each container path of a mounted file turned into a file here. */
function hostEnvironment(service: Service): Record<string, string> {
  const mounts = new Map(
    (service.volumes ?? []).map((volume) => {
      const [source, target] = volume.split(':');
      return [target as string, source as string];
    }),
  );
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(service.environment ?? {})) {
    if (!name.endsWith('_FILE')) {
      env[name] = value;
      continue;
    }
    const source = mounts.get(value);
    expect(source, `${name}=${value} is a file mounted into the container`).toBeDefined();
    env[name] = path.join(dir, path.relative('./deploy', source as string));
  }
  return env;
}

describe('docker-compose.yml', () => {
  it('the default profile is unchanged: no profile, plain http, security off', () => {
    for (const name of ['opensearch', 'redis', 'api', 'indexer'])
      expect(services[name]?.profiles).toBeUndefined();
    expect(services.opensearch?.environment?.DISABLE_SECURITY_PLUGIN).toBe('true');
    expect(services.api?.environment?.OPENSEARCH_URL).toBe('http://opensearch:9200');
    expect(services.indexer?.environment?.OPENSEARCH_URL).toBe('http://opensearch:9200');
  });

  it('production: the API and the worker reach the engine over verified TLS with their own users', () => {
    const users = new Set<string>();
    for (const name of ['api-prod', 'indexer-prod']) {
      const service = services[name] as Service;
      expect(service.profiles).toEqual(['production']);
      const config = loadConfig(hostEnvironment(service));
      expect(config.opensearchUrl).toBe('https://opensearch-prod:9200');
      expect(config.opensearchAccess.auth?.password).toBe('a-password');
      expect(config.opensearchAccess.caFile).toBe(path.join(dir, 'certs', 'root-ca.pem'));
      expect(config.indexPrefix).toBe('corpsearch-');
      users.add(config.opensearchAccess.auth?.username as string);
      expect(service.depends_on?.['opensearch-prod']).toEqual({ condition: 'service_healthy' });
    }
    expect(users).toEqual(new Set(['corpsearch_api', 'corpsearch_indexer']));
  });

  it('production Redis: a primary, its replica, three Sentinels watching it; the programs name them', () => {
    const command = (name: string) =>
      ((services[name] as Service & { command?: string[] }).command ?? []).join(' ');
    expect(command('redis-replica-prod')).toContain('--replicaof redis-prod 6379');
    const sentinels = ['redis-sentinel-1', 'redis-sentinel-2', 'redis-sentinel-3'];
    for (const name of sentinels) {
      expect(services[name]?.profiles).toEqual(['production']);
      expect(command(name)).toContain('sentinel monitor corpsearch redis-prod 6379 2');
      expect(command(name)).toContain('port 26379');
    }
    for (const name of ['api-prod', 'indexer-prod']) {
      const config = loadConfig(hostEnvironment(services[name] as Service));
      const target = sentinelTarget(config.redisUrl as string);
      expect(target?.name).toBe('corpsearch');
      expect(target?.sentinels).toEqual(sentinels.map((host) => ({ host, port: 26379 })));
      // a grant is acknowledged once the replica has it
      expect(config.limits.waitReplicas).toBe(1);
    }
  });

  it('production engine: security on, no demo configuration, names matching the certificates', () => {
    const engine = services['opensearch-prod'] as Service;
    const env = engine.environment ?? {};
    expect(engine.profiles).toEqual(['production']);
    expect(env.DISABLE_SECURITY_PLUGIN).toBeUndefined();
    expect(env.DISABLE_INSTALL_DEMO_CONFIG).toBe('true');
    expect(env['plugins.security.ssl.http.enabled']).toBe('true');
    const subject = (file: string) =>
      new X509Certificate(readFileSync(path.join(dir, 'certs', file))).subject
        .split('\n')
        .reverse()
        .join(',');
    expect(env['plugins.security.authcz.admin_dn']).toBe(subject('admin.pem'));
    expect(env['plugins.security.nodes_dn']).toBe(subject('node.pem'));
    const node = new X509Certificate(readFileSync(path.join(dir, 'certs', 'node.pem')));
    expect(node.checkHost('opensearch-prod')).toBe('opensearch-prod');
    expect(
      node.verify(new X509Certificate(readFileSync(path.join(dir, 'certs', 'root-ca.pem'))).publicKey),
    ).toBe(true);
    // every file it mounts is one the operator makes (certs, users) or one committed here
    for (const volume of engine.volumes ?? []) {
      const source = volume.split(':')[0] as string;
      if (!source.startsWith('./')) continue;
      if (source.startsWith('./deploy/certs/'))
        expect(existsSync(path.join(dir, path.relative('./deploy', source)))).toBe(true);
      else if (source.endsWith('internal_users.yml'))
        expect(
          existsSync(path.join(root, 'deploy', 'opensearch-security', 'internal_users.example.yml')),
        ).toBe(true);
      else expect(existsSync(path.join(root, source)), source).toBe(true);
    }
  });

  it('deploy/opensearch-security: each program user has its role, on the prefix the services use', () => {
    const roles = security('roles.yml');
    const mapping = security('roles_mapping.yml');
    const users = security('internal_users.example.yml');
    for (const [user, role] of [
      ['corpsearch_api', 'corpsearch_api'],
      ['corpsearch_indexer', 'corpsearch_indexer'],
    ] as const) {
      expect(users[user]).toBeDefined();
      expect(mapping[role]?.users).toEqual([user]);
      const patterns = (
        (roles[role]?.index_permissions ?? []) as Array<{ index_patterns: string[] }>
      ).flatMap((permission) => permission.index_patterns);
      expect(patterns).toEqual(['corpsearch-*']);
    }
    expect(Object.keys(users).filter((name) => name !== '_meta')).toEqual([
      'corpsearch_api',
      'corpsearch_indexer',
    ]);
    // the API only reads
    const apiActions = (
      (roles.corpsearch_api?.index_permissions ?? []) as Array<{ allowed_actions: string[] }>
    ).flatMap((permission) => permission.allowed_actions);
    expect(apiActions).toContain('read');
    expect(apiActions.some((action) => /write|all|create|delete|manage|crud/.test(action))).toBe(false);
  });
});
