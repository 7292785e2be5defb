/**
 * The credit ledger on a Redis primary with a replica and three Sentinels (ops/local/
 * redis-sentinel.ts), through REDIS_URL's Sentinel form: the primary killed with -9, the
 * Sentinels promote the replica, the API's connection (src/redis.ts) finds the new primary by
 * itself, and a grant acknowledged with REDIS_WAIT_REPLICAS=1 is still there. With no replica
 * left, a grant is made but not acknowledged (GrantNotReplicated); once the old primary is
 * back as a replica, grants are acknowledged again.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sleep } from '../../ops/local/child-process.js';
import { type LocalRedisSentinel, startLocalRedisSentinel } from '../../ops/local/redis-sentinel.js';
import type { CreditLedger } from '../../src/limits/credit-ledger.js';
import { createCreditLedger } from '../../src/limits/open-credit-ledger.js';
import { GrantNotReplicated } from '../../src/limits/redis-credit-ledger.js';
import { metrics } from '../../src/metrics.js';
import { createRedis } from '../../src/redis.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'sentinel-'));
let set: LocalRedisSentinel;
let redis: Redis;
let ledger: CreditLedger;

beforeAll(async () => {
  set = await startLocalRedisSentinel({ dir, downAfterMs: 1000, failoverTimeoutMs: 5000 });
  redis = createRedis(set.url);
  redis.on('error', () => {});
  await new Promise((resolve) => redis.once('ready', resolve));
  ledger = createCreditLedger({ redis, keyPrefix: 'sentinel-test:', waitReplicas: 1 });
}, 120_000);
afterAll(async () => {
  redis?.disconnect();
  await set?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('a Redis primary lost under the credit ledger', () => {
  it('fails over to the replica: the connection follows, acknowledged grants survive', async () => {
    for (let i = 0; i < 20; i += 1) await ledger.grant('sentinel-user', 5);
    expect(await ledger.balance('sentinel-user')).toBe(100);
    const old = await set.primary();
    expect(old.pid()).toBeGreaterThan(0);
    const killedAt = Date.now();
    await old.kill9();
    // the API's view: commands fail (fail fast, no queue) until the new primary answers
    let failures = 0;
    let backAt = 0;
    while (Date.now() - killedAt < 60_000) {
      try {
        expect(await ledger.balance('sentinel-user')).toBe(100);
        backAt = Date.now();
        if (failures > 0) break;
      } catch {
        failures += 1;
      }
      await sleep(100);
    }
    const promoted = await set.waitForFailover(old.port, 30_000);
    console.log(
      `primary killed; the balance read again ${((backAt - killedAt) / 1000).toFixed(1)} s later, from port ${promoted}; ${failures} reads failed meanwhile`,
    );
    expect(failures).toBeGreaterThan(0);
    expect(backAt).toBeGreaterThan(killedAt);
    expect(promoted).not.toBe(old.port);
    // every grant acknowledged before the kill is on the new primary
    expect(await ledger.balance('sentinel-user')).toBe(100);
    // the process counted the move to another primary
    expect((await metrics.redisPrimaryChanges.get()).values[0]?.value).toBe(1);

    // no replica now: the grant is made, but not acknowledged
    const refused = await ledger.grant('sentinel-user', 7).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(GrantNotReplicated);
    expect(refused).toMatchObject({ balance: 107, acked: 0, wanted: 1 });
    expect(await ledger.balance('sentinel-user')).toBe(107);

    // the old primary back on its data: the Sentinels make it a replica of the new one
    await old.restart();
    let acknowledged = false;
    for (let tries = 0; tries < 100 && !acknowledged; tries += 1) {
      acknowledged = await ledger.grant('sentinel-user', 1).then(
        () => true,
        () => false,
      );
      if (!acknowledged) await sleep(300);
    }
    expect(acknowledged).toBe(true);
    expect(await set.primary()).not.toBe(old);
  }, 120_000);
});
