/**
 * Per-file access to the shared test servers. Each test file gets its own index prefix and
 * Redis key prefix, so files running in parallel never see each other's data.
 */
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { inject } from 'vitest';
import { type Config, defaultConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { createEngine } from '../../src/opensearch/engine.js';
import { bootstrapIndices, dropIndices } from '../../src/opensearch/indices.js';
import { createRedis } from '../../src/redis.js';
import { createServices, type Services } from '../../src/services.js';

export function uniquePrefix(label: string): string {
  return `t-${label}-${randomBytes(4).toString('hex')}-`;
}

export function testOpenSearch() {
  return createEngine(inject('opensearchUrl'));
}

export function testConfig(
  label: string,
  overrides: Partial<Config> = {},
): Config & { opensearchUrl: string } {
  const prefix = uniquePrefix(label);
  return {
    ...defaultConfig(),
    port: 0,
    host: '127.0.0.1',
    opensearchUrl: inject('opensearchUrl'),
    redisUrl: inject('redisUrl'),
    indexPrefix: prefix,
    redisPrefix: prefix,
    loadSampleData: false,
    logLevel: 'silent',
    // generous: the suite shares two cores with other suites and JVMs, where a cold first
    // request can take seconds; the deadline tests (test/http/deadline-*.test.ts) set their own
    requestDeadlineMs: 20_000,
    redisBudgetMs: 5_000,
    index: { shards: 1, replicas: undefined, refreshInterval: '1s' },
    metricsHost: '127.0.0.1',
    metricsPort: 0,
    ...overrides,
  };
}

/** Services on the shared servers under fresh prefixes, with the indices created. */
export async function setUpServices(
  label: string,
  overrides: Partial<Config> = {},
  options: Parameters<typeof createServices>[2] = {},
): Promise<Services> {
  const config = testConfig(label, overrides);
  const services = createServices(config, createLogger(config.logLevel), options);
  await bootstrapIndices(services.opensearch, config.indexPrefix, config.index);
  const close = services.close.bind(services);
  services.close = async () => {
    await dropIndices(services.opensearch, config.indexPrefix);
    if (services.redis) {
      const keys = await services.redis.keys(`${config.redisPrefix}*`);
      if (keys.length > 0) await services.redis.del(...keys);
    }
    await close();
  };
  return services;
}

/**
 * The product's Redis client on the shared redis-server, connected (it queues nothing
 * offline), for a file's stores under `prefix`; `close()` drops the file's keys and disconnects.
 */
export async function testRedis(prefix: string): Promise<{ redis: Redis; close(): Promise<void> }> {
  const redis = createRedis(inject('redisUrl'));
  if (redis.status !== 'ready') await new Promise((resolve) => redis.once('ready', resolve));
  return {
    redis,
    async close() {
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length > 0) await redis.del(...keys);
      redis.disconnect();
    },
  };
}
