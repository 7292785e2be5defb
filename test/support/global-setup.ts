/**
 * Starts one real OpenSearch node and one real redis-server for the whole test run, unless
 * OPENSEARCH_URL / REDIS_URL name existing ones: in containers (testcontainers) when a Docker
 * engine answers, else the local node from Maven Central and Debian's redis-server.
 * Test files reach them through `inject('opensearchUrl')` / `inject('redisUrl')` (./env.ts).
 */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { projectRoot, startLocalOpenSearch } from '../../ops/local/opensearch-node.js';
import { startLocalRedis } from '../../ops/local/redis-server.js';
import { dockerEngineAnswers, startOpenSearchContainer, startRedisContainer } from './containers.js';
import { runSeed } from './fc-seed.js';

declare module 'vitest' {
  export interface ProvidedContext {
    opensearchUrl: string;
    redisUrl: string;
    /** The fast-check seed of this run (./fc-seed.ts, ./fast-check.ts). */
    fcSeed: number;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // first, so a bad FC_SEED stops the run before any server starts
  const fcSeed = runSeed(process.env.FC_SEED);
  const stops: Array<() => Promise<void>> = [];
  const log = (message: string) => console.log(`[test servers] ${message}`);
  let opensearchUrl = process.env.OPENSEARCH_URL;
  let redisUrl = process.env.REDIS_URL;
  const containers = (!opensearchUrl || !redisUrl) && dockerEngineAnswers();
  try {
    if (!opensearchUrl && containers) {
      const node = await startOpenSearchContainer();
      stops.push(node.stop);
      opensearchUrl = node.url;
      log(`OpenSearch container is up at ${node.url}`);
    }
    if (!redisUrl && containers) {
      const redis = await startRedisContainer();
      stops.push(redis.stop);
      redisUrl = redis.url;
      log(`Redis container is up at ${redis.url}`);
    }
    if (!opensearchUrl) {
      const baseDir = mkdtempSync(path.join(projectRoot, '.local', 'test-opensearch-'));
      const node = await startLocalOpenSearch({
        baseDir,
        clusterName: `corpsearch-test-${process.pid}`,
        ephemeral: true,
        log,
      });
      stops.push(node.stop);
      opensearchUrl = node.url;
    }
    if (!redisUrl) {
      const redis = await startLocalRedis({
        logDir: mkdtempSync(path.join(os.tmpdir(), 'corpsearch-redis-')),
      });
      stops.push(redis.stop);
      redisUrl = redis.url;
      log(`redis-server is up at ${redis.url}`);
    }
  } catch (error) {
    await Promise.all(stops.map((stop) => stop()));
    throw error;
  }
  project.provide('opensearchUrl', opensearchUrl);
  project.provide('redisUrl', redisUrl);
  project.provide('fcSeed', fcSeed);
  console.log(`[fast-check] seed ${fcSeed} for this run (replay: FC_SEED=${fcSeed})`);
  return async () => {
    await Promise.all(stops.map((stop) => stop()));
  };
}
