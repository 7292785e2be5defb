/**
 * A Redis stall must not turn into 429s for users under the limit. Five users send 4 searches
 * per second each (the limit is 5) through the real app, with the production deadline (3 s)
 * and Redis budget (1 s), on a redis-server of this file's own, frozen (SIGSTOP) for about
 * 7 s and thawed in a `finally`. During the stall every answer is a 503 with Retry-After (or a
 * 200); during it and for 2 s after, no 429; and each balance is exactly its grant minus the
 * user's 200s. Before the fix, the rate-limit commands of the requests that arrived in the
 * stall's last second ran at the thaw and were counted in the same window as the next
 * second's requests: 3 x 429 per user. The script's rules themselves (a window opens at the
 * request's arrival; a live window counts every command; exactly 5 of 20) are shown on the
 * same redis-server.
 */
import { mkdtempSync } from 'node:fs';
import type { Server } from 'node:http';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type LocalRedis, startLocalRedis } from '../../ops/local/redis-server.js';
import { createApiKey, keyStoreFor } from '../../src/auth/key-admin.js';
import { corporateSearch, jobSearch } from '../../src/catalogue/searches.js';
import { defaultConfig } from '../../src/config.js';
import { createApp } from '../../src/http/app.js';
import { createHttpServer } from '../../src/http/server.js';
import { warmUpValidation } from '../../src/http/validation.js';
import { createRateLimiter } from '../../src/limits/rate-limiter.js';
import { compileRequestChecks } from '../../src/search/parse-request.js';
import type { Services } from '../../src/services.js';
import { setUpServices } from '../support/env.js';

const users = ['s-a', 's-b', 's-c', 's-d', 's-e'];
const perSecond = 4;
const grant = 1000;
const stallMs = 7000;

let redisServer: LocalRedis;
let services: Services;
let server: Server;
let base: string;
const keys = new Map<string, string>();
// one socket per request in flight (at most ~25 here), none queued behind a slow one
const agent = new http.Agent({ keepAlive: true, maxSockets: 100 });

beforeAll(async () => {
  redisServer = await startLocalRedis({ logDir: mkdtempSync(path.join(os.tmpdir(), 'stall-rate-redis-')) });
  const defaults = defaultConfig();
  services = await setUpServices('stall-rate', {
    redisUrl: redisServer.url,
    // the production values: the stall is judged against them
    requestDeadlineMs: defaults.requestDeadlineMs,
    redisBudgetMs: defaults.redisBudgetMs,
  });
  services.redis?.on('error', () => {}); // expected: the server is frozen on purpose
  await warmUpValidation();
  compileRequestChecks([corporateSearch, jobSearch]);
  for (const user of users) {
    keys.set(
      user,
      (await createApiKey(keyStoreFor(services.redis, services.config.redisPrefix), { userId: user })).key,
    );
    await services.limits.ledger.grant(user, grant);
  }
  server = createHttpServer(createApp(services), defaults.http);
  server.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 60_000);

afterAll(async () => {
  agent.destroy();
  if (server) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  await services?.close();
  await redisServer?.stop();
});

interface Outcome {
  user: string;
  sentAt: number;
  status: number;
  retryAfter: string | undefined;
}

function searchAs(user: string): Promise<Outcome> {
  const sentAt = Date.now();
  const payload = '{"limit":1}';
  return new Promise((resolve) => {
    const req = http.request(
      `${base}/rest/v1/corporates/search`,
      {
        method: 'POST',
        agent,
        timeout: 15_000,
        headers: {
          'x-api-key': keys.get(user) as string,
          'content-type': 'application/json',
          'content-length': String(payload.length),
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => {
          const retryAfter = res.headers['retry-after'];
          resolve({ user, sentAt, status: res.statusCode ?? 0, retryAfter });
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error('no answer within 15 s')));
    req.on('error', () => resolve({ user, sentAt, status: 0, retryAfter: undefined }));
    req.end(payload);
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Each user at `perSecond`, never faster (a late timer spaces the next one out, no catch-up). */
function load(untilMs: number): Promise<Outcome[]> {
  return Promise.all(
    users.map(async (user, i) => {
      await sleep((i * 1000) / perSecond / users.length); // the users out of step with each other
      const sent: Array<Promise<Outcome>> = [];
      while (Date.now() < untilMs) {
        sent.push(searchAs(user));
        await sleep(1000 / perSecond);
      }
      return Promise.all(sent);
    }),
  ).then((perUser) => perUser.flat());
}

function count(outcomes: Outcome[], status: number): number {
  return outcomes.filter((o) => o.status === status).length;
}

it('a 7 s Redis stall: 503s with Retry-After during it, no 429 during it or after, exact credits', async () => {
  // every key verified once (the key memory answers auth during the stall), a 200 each
  for (const user of users) expect((await searchAs(user)).status).toBe(200);
  await sleep(1100);

  const pid = redisServer.pid;
  expect(pid).toBeGreaterThan(0);
  const startedAt = Date.now();
  const running = load(startedAt + 1500 + stallMs + 3000);
  let stoppedAt = 0;
  let resumedAt = 0;
  await sleep(1500);
  try {
    process.kill(pid, 'SIGSTOP');
    stoppedAt = Date.now();
    await sleep(stallMs);
  } finally {
    process.kill(pid, 'SIGCONT');
    resumedAt = Date.now();
  }
  const outcomes = await running;

  const during = outcomes.filter((o) => o.sentAt >= stoppedAt && o.sentAt < resumedAt);
  const after = outcomes.filter((o) => o.sentAt >= resumedAt);
  const summary = (list: Outcome[]) =>
    `${list.length} sent: ${count(list, 200)} x 200, ${count(list, 503)} x 503, ${count(list, 429)} x 429`;
  console.log(`stall ${resumedAt - stoppedAt} ms; during: ${summary(during)}; after: ${summary(after)}`);

  // the stall was met: every user sent into it and was told to retry (a request sent in its
  // first 6 s waits its 1 s Redis budget there), however late the machine's timers run
  for (const user of users)
    expect(
      count(
        during.filter((o) => o.user === user),
        503,
      ),
    ).toBeGreaterThanOrEqual(1);
  for (const o of during) {
    expect([200, 503]).toContain(o.status);
    if (o.status === 503) expect(o.retryAfter).toBe('1');
  }
  // users under the limit: never a 429, in the stall or in the 2 s after it (nor anywhere else)
  const afterStall = outcomes.filter((o) => o.sentAt >= stoppedAt && o.sentAt < resumedAt + 2000);
  expect(afterStall.filter((o) => o.status === 429)).toEqual([]);
  expect(outcomes.filter((o) => o.status === 429)).toEqual([]);
  // Redis is back: searches pass again
  expect(count(after, 200)).toBeGreaterThan(0);
  for (const o of outcomes) expect([200, 503]).toContain(o.status);

  // charged exactly the 200s (the warm-up search included), nothing for a 503
  for (const user of users) {
    const paid = 1 + outcomes.filter((o) => o.user === user && o.status === 200).length;
    expect(await services.limits.ledger.balance(user)).toBe(grant - paid);
  }
}, 60_000);

it('the rate-limit script: a window opens at the arrival; a live window counts every command, whatever its arrival', async () => {
  const redis = services.redis as NonNullable<Services['redis']>;
  // a 60 s window, so the arrivals the test sets are tens of seconds away from any edge: the
  // rules hold however late the commands run on a loaded machine
  const limiter = createRateLimiter({ redis, keyPrefix: 'script:', pointsPerSecond: 5, windowSeconds: 60 });
  const now = Date.now();
  // arrived 30 s ago: its window is [arrival, arrival + 60 s), whenever the command runs
  const arrival = now - 30_000;
  const opened = await limiter.consume('early', now + 30_000, arrival);
  expect(opened).toMatchObject({ allowed: true, remaining: 4 });
  // the window's end on Redis's clock (this host's: the server is local), to within the
  // limiter's clock estimate (its TIME round trip is at most 50 ms)
  const endsAt = Number(await redis.call('PEXPIRETIME', 'script:rate:early'));
  expect(Math.abs(endsAt - (arrival + 60_000))).toBeLessThanOrEqual(50);
  // its whole window is over when the command runs: counted in no live window
  expect(await limiter.consume('over', now + 30_000, now - 120_000)).toMatchObject({ allowed: true });
  expect(await redis.exists('script:rate:over')).toBe(0);
  // 20 commands in one live window, arrivals before and after the one that opened it: exactly 5 pass
  const t = Date.now();
  const decisions = await Promise.all(
    Array.from({ length: 20 }, (_, i) =>
      limiter.consume('burst', t + 30_000, t - 50 + (i % 2 === 0 ? -i : i)),
    ),
  );
  expect(decisions.filter((d) => d.allowed)).toHaveLength(5);
});
