/**
 * The API's Redis connection batches its commands only while several charged requests are in
 * flight (src/redis.ts `batchWhileBusy`): read on the real redis-server, by the writes the
 * connection makes to its socket for two commands sent in one turn of the event loop; and the
 * app's charged routes counted in and out (src/http/limits/credits.ts), through the real app.
 */
import type { AddressInfo } from 'node:net';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, keyStoreFor } from '../../src/auth/key-admin.js';
import { corporateSearch, jobSearch } from '../../src/catalogue/searches.js';
import { createApp } from '../../src/http/app.js';
import { warmUpValidation } from '../../src/http/validation.js';
import { batchWhileBusy } from '../../src/redis.js';
import { compileRequestChecks } from '../../src/search/parse-request.js';
import type { Services } from '../../src/services.js';
import { postJson } from '../support/bounded-http.js';
import { setUpServices } from '../support/env.js';

let services: Services;
let redis: Redis;
let url: string;
let close: () => void;
const entered: Array<{ left: boolean }> = [];

beforeAll(async () => {
  services = await setUpServices('batching');
  redis = services.redis as Redis;
  // the app's count is this connection's (one per connection): each entry and leave seen
  const busy = batchWhileBusy(redis);
  const enter = busy.enter;
  busy.enter = () => {
    const leave = enter();
    const seen = { left: false };
    entered.push(seen);
    return () => {
      seen.left = true;
      leave();
    };
  };
  await warmUpValidation();
  compileRequestChecks([corporateSearch, jobSearch]);
  const server = createApp(services).listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  close = () => {
    server.closeAllConnections();
    server.close();
  };
  await redis.set(`${services.config.redisPrefix}a`, '1');
  await redis.set(`${services.config.redisPrefix}b`, '2');
});

afterAll(async () => {
  close?.();
  await services?.close();
});

/** Two GETs sent in one turn: their answers, and the socket writes they took. */
async function twoReads(): Promise<{ answers: Array<string | null>; writes: number }> {
  const stream = redis.stream as unknown as { write: (...args: unknown[]) => boolean };
  const write = stream.write;
  let writes = 0;
  stream.write = function counted(this: unknown, ...args: unknown[]) {
    writes += 1;
    return write.apply(this, args);
  };
  try {
    const prefix = services.config.redisPrefix;
    const answers = await Promise.all([redis.get(`${prefix}a`), redis.get(`${prefix}b`)]);
    return { answers, writes };
  } finally {
    stream.write = write;
  }
}

describe('the API connection batches its commands while busy', () => {
  it('one request in flight: each command written at once; two: one write for both', async () => {
    const busy = batchWhileBusy(redis);
    expect(batchWhileBusy(redis)).toBe(busy);
    const seen = entered.length;
    expect(await twoReads()).toEqual({ answers: ['1', '2'], writes: 2 });
    const first = busy.enter();
    expect(await twoReads()).toEqual({ answers: ['1', '2'], writes: 2 });
    const second = busy.enter();
    expect(await twoReads()).toEqual({ answers: ['1', '2'], writes: 1 });
    second();
    expect(await twoReads()).toEqual({ answers: ['1', '2'], writes: 2 });
    // leaving twice counts once
    second();
    const third = busy.enter();
    expect(await twoReads()).toEqual({ answers: ['1', '2'], writes: 1 });
    first();
    third();
    expect(await twoReads()).toEqual({ answers: ['1', '2'], writes: 2 });
    entered.splice(seen);
  });

  it('a charged search counts from its admission to its close; a free count does not', async () => {
    const userId = 'batching-user';
    const { key } = await createApiKey(keyStoreFor(redis, services.config.redisPrefix), { userId });
    await services.limits.ledger.grant(userId, 10);
    const before = entered.length;
    const counted = await postJson(`${url}/rest/v1/corporates/count`, { 'x-api-key': key }, {});
    expect(counted.status).toBe(200);
    expect(entered.length).toBe(before);
    const searched = await postJson(`${url}/rest/v1/corporates/search`, { 'x-api-key': key }, { limit: 1 });
    expect(searched.status).toBe(200);
    await searched.arrayBuffer();
    expect(entered.length).toBe(before + 1);
    for (let waited = 0; waited < 2000 && !entered[before]?.left; waited += 10)
      await new Promise((resolve) => setTimeout(resolve, 10));
    expect(entered[before]?.left).toBe(true);
  });
});
