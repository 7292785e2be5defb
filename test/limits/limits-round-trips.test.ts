/**
 * Redis round trips per search, read from the real redis-server: a MONITOR connection sees
 * every command a client sends (and, marked `lua`, those a script runs, left out here). Only
 * commands naming this file's key prefix are kept, so the other files sharing the server do
 * not count. Through the REAL app (Redis key store with its in-process cache, rate limit,
 * validation, credits, the search route) against the real OpenSearch.
 *
 * What a search may send (decision "A search's admission in one Redis round trip"): ONE command before the engine
 * is asked (the admission: rate count + Idempotency-Key claim + reservation), then, once the
 * answer is out, the commit (and, with an Idempotency-Key, the stored answer). A verified key
 * is answered from memory: no key lookup.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createApiKey, keyStoreFor } from '../../src/auth/key-admin.js';
import { corporateSearch, jobSearch } from '../../src/catalogue/searches.js';
import { defaultConfig } from '../../src/config.js';
import { createApp } from '../../src/http/app.js';
import { warmUpValidation } from '../../src/http/validation.js';
import type { AdmitRequest } from '../../src/limits/credit-ledger.js';
import { createLimits } from '../../src/limits/limits.js';
import { createRedis } from '../../src/redis.js';
import { compileRequestChecks } from '../../src/search/parse-request.js';
import type { Services } from '../../src/services.js';
import { postJson } from '../support/bounded-http.js';
import { setUpServices } from '../support/env.js';

let services: Services;
let url: string;
let close: () => void;
let monitorConnection: Redis;
const seen: string[][] = [];

beforeAll(async () => {
  services = await setUpServices('round-trips', {
    // 100 per minute: the rate is counted, and a slow machine cannot make a search a 429;
    // the orphan sweep (which names the prefix too) runs at start only
    limits: {
      ...defaultConfig().limits,
      ratePerSecond: 100,
      rateWindowSeconds: 60,
      sweepIntervalSeconds: 3600,
    },
  });
  await warmUpValidation();
  compileRequestChecks([corporateSearch, jobSearch]);
  const server = createApp(services).listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  close = () => {
    server.closeAllConnections();
    server.close();
  };
  monitorConnection = services.redis?.duplicate() as Redis;
  const monitor = await monitorConnection.monitor();
  monitor.on('monitor', (_time: string, args: string[], source: string) => {
    if (source !== 'lua' && args.some((arg) => arg.includes(services.config.redisPrefix))) seen.push(args);
  });
});
afterAll(async () => {
  close?.();
  monitorConnection?.disconnect();
  await services?.close();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function keyFor(userId: string, credits: number): Promise<string> {
  const { key } = await createApiKey(keyStoreFor(services.redis, services.config.redisPrefix), { userId });
  if (credits > 0) await services.limits.ledger.grant(userId, credits);
  return key;
}

function search(key: string, headers: Record<string, string> = {}) {
  return postJson(`${url}/rest/v1/corporates/search`, { 'x-api-key': key, ...headers }, { limit: 1 });
}

/** What a command is, by the keys it names (`user`'s keys, this file's prefix). */
function describeCommand(args: string[], user: string): string {
  const prefix = services.config.redisPrefix;
  const names = (part: string) => args.some((arg) => arg.includes(`${prefix}${part}`));
  const rate = names(`rate:${user}`);
  const balance = names(`credits:balance:${user}`);
  const claim = names(`idempotency:${user}:`);
  if (rate && balance) return claim ? 'admission (rate, claim, reserve)' : 'admission (rate, reserve)';
  if (rate) return 'rate count';
  if (balance) return claim ? 'claim + reserve' : 'reserve or balance';
  if (claim) return 'idempotency claim, complete or release';
  if (names('apikey')) return 'key lookup';
  // a refund names the reservation and the open set; a commit the ledger's stream too
  if (names('credits:reservation:') && (args[2] === '2' || args[2] === '3')) return 'commit or refund';
  return (args[0] ?? '').toLowerCase();
}

/**
 * The commands `send` caused, once the last of them (`until`, the settling step) came in: the
 * answer is out before the commit is sent, so the trace waits for it, then a little longer for
 * any stray command.
 */
async function trace(
  user: string,
  send: () => Promise<Response>,
  until: string,
): Promise<{ status: number; commands: string[] }> {
  const from = seen.length;
  const res = await send();
  await res.arrayBuffer();
  const commands = () => seen.slice(from).map((args) => describeCommand(args, user));
  for (let waited = 0; waited < 5000 && !commands().includes(until); waited += 20) await sleep(20);
  await sleep(200);
  return { status: res.status, commands: commands() };
}

/**
 * First search of a key: the key is looked up (then remembered), the scripts loaded; waits
 * for its commit, so the trace of the next search holds that search's commands only.
 */
async function warmUp(user: string, key: string): Promise<void> {
  expect((await trace(user, () => search(key), 'commit or refund')).status).toBe(200);
  for (let waited = 0; waited < 5000 && !services.keyChanges?.live; waited += 20) await sleep(20);
}

describe('Redis round trips per search (MONITOR on the shared redis-server, this file prefix only)', () => {
  it('a charged search: one command before the engine (rate + reservation), the commit after; no key lookup', async () => {
    const key = await keyFor('searcher', 10);
    await warmUp('searcher', key);
    const { status, commands } = await trace('searcher', () => search(key), 'commit or refund');
    expect(status).toBe(200);
    expect(commands).toEqual(['admission (rate, reserve)', 'commit or refund']);
  });

  it('with an Idempotency-Key: the claim rides in the same command; the stored answer and the commit follow', async () => {
    const key = await keyFor('retrier', 10);
    await warmUp('retrier', key);
    const { status, commands } = await trace(
      'retrier',
      () => search(key, { 'idempotency-key': 'round-trips-1' }),
      'commit or refund',
    );
    expect(status).toBe(200);
    expect(commands).toEqual([
      'admission (rate, claim, reserve)',
      'idempotency claim, complete or release',
      'commit or refund',
    ]);
  });

  it('out of credits: the one command answers the 402, nothing else is sent', async () => {
    const key = await keyFor('broke', 1);
    await warmUp('broke', key); // spends the one credit
    const { status, commands } = await trace('broke', () => search(key), 'admission (rate, reserve)');
    expect(status).toBe(402);
    expect(commands).toEqual(['admission (rate, reserve)']);
  });
});

describe('the count made with the reservation is still the count of every request', () => {
  let limitedUrl: string;
  let closeLimited: () => void;
  const prefix = () => `${services.config.redisPrefix}few:`;
  beforeAll(async () => {
    // 2 per minute: a budget a test spends on purpose
    const limits = createLimits({
      redis: services.redis,
      keyPrefix: prefix(),
      config: { ratePerSecond: 2, rateWindowSeconds: 60 },
    });
    const server = createApp({ ...services, limits }).listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => server.once('listening', resolve));
    limitedUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    closeLimited = () => {
      server.closeAllConnections();
      server.close();
    };
    for (const user of ['spender', 'header', 'leaver']) await limits.ledger.grant(user, 10);
  });
  afterAll(() => closeLimited?.());

  const post = (key: string, body: unknown, headers: Record<string, string> = {}) =>
    postJson(`${limitedUrl}/rest/v1/corporates/search`, { 'x-api-key': key, ...headers }, body);

  it('an invalid body past the budget is a 429, as when the count came before validation', async () => {
    const key = await keyFor('spender', 0);
    expect((await post(key, { limit: 'many' })).status).toBe(400);
    expect((await post(key, { limit: 1 })).status).toBe(200);
    const third = await post(key, { limit: 'many' });
    expect(third.status).toBe(429);
    expect(third.headers.get('retry-after')).not.toBeNull();
    expect(third.headers.get('x-ratelimit-remaining')).toBe('0');
  });

  it('a bad Idempotency-Key header is counted before its 400', async () => {
    const key = await keyFor('header', 0);
    const bad = await post(key, { limit: 1 }, { 'idempotency-key': 'not visible ascii' });
    expect(bad.status).toBe(400);
    expect(bad.headers.get('x-ratelimit-remaining')).toBe('1');
    expect((await post(key, { limit: 1 })).headers.get('x-ratelimit-remaining')).toBe('0');
  });

  it('a caller that hangs up before its body is read is counted (its parse error is)', async () => {
    const key = await keyFor('leaver', 0);
    const req = partialSearch(limitedUrl, key);
    await sleep(300);
    req.destroy();
    expect(await counterOf('leaver')).toBe('1');
  });

  it('a request the deadline answers before its body is read is counted when the 503 goes out', async () => {
    const limits = createLimits({
      redis: services.redis,
      keyPrefix: prefix(),
      config: { ratePerSecond: 2, rateWindowSeconds: 60 },
    });
    const config = { ...services.config, requestDeadlineMs: 300 };
    const server = createApp({ ...services, config, limits }).listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => server.once('listening', resolve));
    const key = await keyFor('waiter', 0);
    const req = partialSearch(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, key);
    const status = await new Promise<number>((resolve) =>
      req.on('response', (res) => resolve(res.statusCode ?? 0)),
    );
    try {
      expect(status).toBe(503);
      // the caller is still there, its body still unread: only the response's close counts it
      expect(await counterOf('waiter')).toBe('1');
    } finally {
      req.destroy();
      server.closeAllConnections();
      server.close();
    }
  });

  /** A search whose body never ends: the server waits in the JSON parser. */
  function partialSearch(base: string, key: string): http.ClientRequest {
    const req = http.request(`${base}/rest/v1/corporates/search`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json', 'content-length': '100' },
    });
    req.on('error', () => {});
    req.write('{"limit":');
    return req;
  }

  /** The user's rate counter once it exists (null after 5 s). */
  async function counterOf(user: string): Promise<string | null> {
    for (let waited = 0; waited < 5000; waited += 50) {
      const counted = (await services.redis?.get(`${prefix()}rate:${user}`)) ?? null;
      if (counted !== null) return counted;
      await sleep(50);
    }
    return null;
  }
});

describe('the admission when the request cannot wait for it', () => {
  let url2: string;
  let close2: () => void;
  let admitted: () => void = () => {};
  let release: () => void = () => {};
  let cutUrl: string;
  let closeCut: () => void;
  const cutRedis = createRedis(inject('redisUrl'));
  beforeAll(async () => {
    // the real ledger, whose admissions wait for the test once Redis has answered them
    const real = services.limits.ledger;
    const ledger = Object.assign(Object.create(real) as typeof real, {
      async admit(request: AdmitRequest) {
        const admission = await real.admit(request);
        admitted();
        await new Promise<void>((resolve) => {
          release = resolve;
        });
        return admission;
      },
    });
    [url2, close2] = await listen(createApp({ ...services, limits: { ...services.limits, ledger } }));
    // limits whose Redis connection is closed: every command fails at once
    cutRedis.disconnect();
    const cut = createLimits({ redis: cutRedis, keyPrefix: `${services.config.redisPrefix}cut:` });
    [cutUrl, closeCut] = await listen(createApp({ ...services, limits: cut }));
  });
  afterAll(() => {
    close2?.();
    closeCut?.();
  });

  async function listen(app: ReturnType<typeof createApp>): Promise<[string, () => void]> {
    const server = app.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => server.once('listening', resolve));
    return [
      `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      () => {
        server.closeAllConnections();
        server.close();
      },
    ];
  }

  it('a caller that hangs up while its admission runs gets its credit back and its Idempotency-Key freed', async () => {
    const key = await keyFor('quitter', 5);
    const ran = new Promise<void>((resolve) => {
      admitted = resolve;
    });
    const req = http.request(`${url2}/rest/v1/corporates/search`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json', 'idempotency-key': 'quit-1' },
    });
    req.on('error', () => {});
    req.end(JSON.stringify({ limit: 1 }));
    await ran; // reserved and claimed in Redis
    expect(await services.limits.ledger.balance('quitter')).toBe(4);
    req.destroy();
    await sleep(200);
    release();
    let balance = 4;
    for (let waited = 0; waited < 5000 && balance !== 5; waited += 50) {
      await sleep(50);
      balance = await services.limits.ledger.balance('quitter');
    }
    expect(balance).toBe(5);
    // the key is free: the retry runs (through the app whose admissions do not wait)
    const retry = await postJson(
      `${url}/rest/v1/corporates/search`,
      { 'x-api-key': key, 'idempotency-key': 'quit-1' },
      { limit: 1 },
    );
    expect(retry.status).toBe(200);
  });

  it('Redis unreachable: 503 for a count (counted in the rate-limit slot), an invalid search and a search', async () => {
    const key = await keyFor('cut', 0);
    const headers = { 'x-api-key': key };
    for (const [path, body] of [
      ['/rest/v1/jobs/count', { limit: 1 }],
      ['/rest/v1/corporates/search', { limit: 'many' }],
      ['/rest/v1/corporates/search', { limit: 1 }],
    ] as const) {
      const res = await postJson(`${cutUrl}${path}`, headers, body);
      expect([path, res.status]).toEqual([path, 503]);
      expect(((await res.json()) as { code: string }).code).toBe('limits_unavailable');
    }
  });
});
