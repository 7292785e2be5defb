/**
 * Exports through the real app on a real port, the real engine and Redis: filters and fields
 * honoured, CSV in Shift_JIS round-trips Japanese text, the credit cap and the balance are
 * checked before the first byte, at most N exports per user, and a connection broken
 * mid-file is charged only for what was sent. An export that outlives the orphan timeout
 * keeps its reservation (the sweep never refunds a live export); an API process killed
 * mid-export leaves a reservation the sweep refunds. With Redis stopped while an export
 * streams (a redis-server of this file's own, with its append-only file, started again on its
 * port): a failed heartbeat does not stop the beats that follow, and a settlement that fails is
 * retried until Redis answers again.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import iconv from 'iconv-lite';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type LocalRedis, startLocalRedis } from '../../ops/local/redis-server.js';
import { createApiKey, keyStoreFor } from '../../src/auth/key-admin.js';
import { defaultConfig } from '../../src/config.js';
import { createApp } from '../../src/http/app.js';
import { createHttpServer } from '../../src/http/server.js';
import { createLimits, type Limits } from '../../src/limits/limits.js';
import { openCreditLedger } from '../../src/limits/open-credit-ledger.js';
import { createLogger } from '../../src/logger.js';
import { createRedis } from '../../src/redis.js';
import type { Services } from '../../src/services.js';
import { corporate, type Doc, indexFixture, job } from '../fixtures/search/docs.js';
import { startApiProcess } from '../support/child-runs.js';
import { setUpServices } from '../support/env.js';

let services: Services;
let server: http.Server;
let base = '';
/**
 * Short, so that a test can outlast it: a live export must keep its reservation past it. The
 * request deadline is the production default (3 s), so that same export also outlives it.
 */
const orphanSeconds = 4;
const requestDeadlineMs = 3000;

const companies: Doc[] = Array.from({ length: 40 }, (_, i) =>
  corporate({
    corporateNumber: `4${String(i).padStart(12, '0')}`,
    name: i % 2 === 0 ? `株式会社髙橋①製作所${i}` : `ｶﾌﾞｼｷｶﾞｲｼｬ"引用",${i}`,
    prefectureId: i % 2 === 0 ? 13 : 27,
  }),
);
// 8 KB per record (an unindexed url), so the file is far larger than the socket buffers
const padding = `https://example.jp/${'x'.repeat(8_000)}`;
const jobs: Doc[] = Array.from({ length: 2_000 }, (_, i) =>
  job({
    id: `exp-${String(i).padStart(5, '0')}`,
    corporateNumber: companies[i % 40]?.corporateNumber,
    mediaId: 1 + (i % 2),
    title: '倉庫スタッフ（週３日〜）',
    url: padding,
  }),
);

async function newUser(credits: number): Promise<{ user: string; key: string }> {
  const user = `u-${Math.random().toString(36).slice(2)}`;
  const { key } = await createApiKey(keyStoreFor(services.redis, services.config.redisPrefix), {
    userId: user,
  });
  const { ledger, close } = openCreditLedger(services.config);
  await ledger.grant(user, credits);
  await close();
  return { user, key };
}

async function balanceOf(user: string): Promise<number> {
  const { ledger, close } = openCreditLedger(services.config);
  try {
    return await ledger.balance(user);
  } finally {
    await close();
  }
}

function call(path: string, key: string, body: unknown, at = base) {
  return fetch(`${at}/rest/v1${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify(body),
  });
}

/** A JSONL export of every posting whose reading is paused after its first chunk (backpressure holds it). */
function pausedExport(
  key: string,
  at = base,
): Promise<{ res: http.IncomingMessage; req: http.ClientRequest }> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${at}/rest/v1/jobs/export`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
    });
    req.on('response', (res) => {
      res.pause();
      resolve({ res, req });
    });
    req.on('error', reject);
    req.end(JSON.stringify({ format: 'jsonl' }));
  });
}

async function untilTrue(check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const giveUp = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > giveUp) throw new Error(`not true within ${timeoutMs} ms`);
    await sleep(200);
  }
}

beforeAll(async () => {
  services = await setUpServices('export', {
    limits: { ...defaultConfig().limits, reservationOrphanSeconds: orphanSeconds },
    requestDeadlineMs,
  });
  // 10 records per credit: a whole export of the 2,000 postings costs 200
  (services.limits.config as { exportRecordsPerCredit: number }).exportRecordsPerCredit = 10;
  await indexFixture(services.opensearch, services.config.indexPrefix, { corporates: companies });
  for (let i = 0; i < jobs.length; i += 500)
    await indexFixture(services.opensearch, services.config.indexPrefix, { jobs: jobs.slice(i, i + 500) });
  // the production server, with its slow-client timeouts far below the long export's length
  server = createHttpServer(createApp(services), {
    headersTimeoutMs: 2000,
    requestTimeoutMs: 3000,
    keepAliveTimeoutMs: 2000,
  }).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  await services?.close();
});

describe('export', () => {
  it('CSV in Shift_JIS decodes and round-trips Japanese text, quotes and half-width kana', async () => {
    const { key } = await newUser(10);
    const res = await call('/corporates/export', key, {
      encoding: 'shift_jis',
      fields: ['corporateNumber', 'name'],
      sort: { field: 'name', order: 'asc' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=Shift_JIS; header=present');
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(bytes.subarray(0, 3).equals(Buffer.from([0xef, 0xbb, 0xbf]))).toBe(false);
    expect(bytes.includes(Buffer.from('株式会社', 'utf8'))).toBe(false); // not UTF-8
    const text = iconv.decode(bytes, 'cp932');
    const lines = text.split('\r\n').filter((line) => line !== '');
    expect(lines[0]).toBe('corporateNumber,name');
    const rows = lines.slice(1).map((line) => {
      const comma = line.indexOf(',');
      const raw = line.slice(comma + 1);
      return [line.slice(0, comma), raw.startsWith('"') ? raw.slice(1, -1).replaceAll('""', '"') : raw];
    });
    const want = [...companies]
      .sort((a, b) => (String(a.name) < String(b.name) ? -1 : 1))
      .map((c) => [c.corporateNumber, c.name]);
    expect(rows).toEqual(want);
  });

  it('UTF-8 CSV starts with a byte order mark; JSONL honours filters and fields', async () => {
    const { key } = await newUser(500);
    const chosen = companies.slice(0, 5).map((c) => c.corporateNumber);
    const csv = Buffer.from(
      await (await call('/corporates/export', key, { fields: ['name'], prefectureIdOr: [13] })).arrayBuffer(),
    );
    expect([...csv.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(csv.toString('utf8').slice(1).split('\r\n')[1]).toMatch(/^株式会社髙橋①製作所/);
    const res = await call('/jobs/export', key, {
      format: 'jsonl',
      fields: ['id', 'mediaId'],
      mediaIdOr: [2],
      corporateNumberOr: chosen,
    });
    expect(res.headers.get('content-type')).toBe('application/x-ndjson; charset=utf-8');
    const records = (await res.text())
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as Doc);
    const searched = await call('/jobs/count', key, { mediaIdOr: [2], corporateNumberOr: chosen });
    expect(records).toHaveLength((await searched.json()).totalResults);
    expect(records.length).toBeGreaterThan(0);
    for (const record of records) {
      expect(Object.keys(record)).toEqual(['id', 'mediaId']);
      expect(record.mediaId).toBe(2);
    }
    expect(res.headers.get('x-export-records')).toBe(String(records.length));
  });

  it('refuses before the first byte: maxCredits below the cost (400), a short balance (402); nothing charged', async () => {
    const { user, key } = await newUser(150);
    const capped = await call('/jobs/export', key, { format: 'jsonl', maxCredits: 199 });
    expect(capped.status).toBe(400);
    expect((await capped.json()).errors).toEqual([
      { field: 'maxCredits', reason: expect.stringContaining('export of 2000 records costs 200 credits') },
    ]);
    const short = await call('/jobs/export', key, { format: 'jsonl', maxCredits: 200 });
    expect(short.status).toBe(402);
    expect(await balanceOf(user)).toBe(150);
  });

  it('charges a whole export its full cost, and a broken one only what was sent', async () => {
    const { user, key } = await newUser(1_000);
    const whole = await call('/jobs/export', key, { format: 'jsonl' });
    expect(whole.headers.get('x-export-credits')).toBe('200');
    expect((await whole.text()).split('\n').filter((line) => line !== '')).toHaveLength(2_000);
    await expect.poll(() => balanceOf(user)).toBe(800);

    // read about 100 records, then hang up
    const received = await new Promise<number>((resolve, reject) => {
      const req = http.request(`${base}/rest/v1/jobs/export`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key },
      });
      req.on('response', (res) => {
        let lines = 0;
        res.on('data', (chunk: Buffer) => {
          lines += chunk.toString('latin1').split('\n').length - 1;
          if (lines >= 100) {
            res.destroy();
            resolve(lines);
          }
        });
      });
      req.on('error', reject);
      req.end(JSON.stringify({ format: 'jsonl' }));
    });
    await expect.poll(() => balanceOf(user), { timeout: 10_000 }).toBeGreaterThan(600);
    const charged = 800 - (await balanceOf(user));
    expect(charged).toBeGreaterThanOrEqual(Math.ceil(received / 10));
    expect(charged).toBeLessThan(200);
  });

  it('runs at most 2 exports per user at once', async () => {
    const { key } = await newUser(1_000);
    const open: http.ClientRequest[] = [];
    const started = () =>
      new Promise<number>((resolve, reject) => {
        const req = http.request(`${base}/rest/v1/jobs/export`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': key },
        });
        // never read the body: the export stays open, held by backpressure
        req.on('response', (res) => {
          res.pause();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', reject);
        req.end(JSON.stringify({ format: 'jsonl' }));
        open.push(req);
      });
    try {
      expect(await started()).toBe(200);
      expect(await started()).toBe(200);
      const third = await call('/jobs/export', key, { format: 'jsonl' });
      expect(third.status).toBe(429);
      expect((await third.json()).message).toContain('At most 2 exports');
    } finally {
      for (const req of open) req.destroy();
    }
  });
});

describe('an export and the orphan sweep', () => {
  const children: ChildProcess[] = [];
  afterAll(() => {
    for (const child of children)
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  });

  it('a live export that outlasts the orphan timeout keeps its reservation, and is charged in full', async () => {
    const { user, key } = await newUser(1_000);
    const { res, req } = await pausedExport(key);
    try {
      expect(res.statusCode).toBe(200);
      // three orphan timeouts (four request deadlines, four server request timeouts) with the
      // caller not reading, sweeping all the while as every API process does: without the
      // export's heartbeat the reservation would be refunded, and a deadline or timeout on the
      // stream would have cut it
      for (let waited = 0; waited < 3 * orphanSeconds; waited += 1) {
        await sleep(1000);
        await services.limits.ledger.sweepOrphans();
      }
      const account = await services.limits.ledger.account(user);
      expect(account.open).toEqual({ reservations: 1, credits: 200 });
      expect(account.autoRefunded.reservations).toBe(0);
      expect(account.balance).toBe(800);
      let lines = 0;
      res.on('data', (chunk: Buffer) => {
        lines += chunk.toString('latin1').split('\n').length - 1;
      });
      res.resume();
      await new Promise((resolve) => res.once('end', resolve));
      expect(lines).toBe(2_000);
    } finally {
      req.destroy();
    }
    await expect
      .poll(() => services.limits.ledger.account(user), { timeout: 10_000 })
      .toMatchObject({
        balance: 800,
        open: { reservations: 0, credits: 0 },
        autoRefunded: { reservations: 0, credits: 0 },
      });
  }, 60_000);

  it('an API process killed mid-export leaves a reservation the sweep refunds in full', async () => {
    const child = await startApiProcess(
      {
        ...process.env,
        PORT: '0', // the port the API binds, read back from its log (no probe-then-bind race)
        HOST: '127.0.0.1',
        OPENSEARCH_URL: inject('opensearchUrl'),
        REDIS_URL: inject('redisUrl'),
        INDEX_PREFIX: services.config.indexPrefix,
        REDIS_PREFIX: services.config.redisPrefix,
        LOAD_SAMPLE_DATA: 'false',
        LOG_LEVEL: 'info', // "serving on ..." is an info line
        REQUEST_DEADLINE_MS: '4000',
        CREDIT_RESERVATION_TIMEOUT_SECONDS: String(orphanSeconds + 2),
        EXPORT_RECORDS_PER_CREDIT: '10',
        METRICS_PORT: '0', // not the default 9464, which another process on the machine may hold
      },
      children,
    );
    const { user, key } = await newUser(1_000);
    const { res, req } = await pausedExport(key, child.url);
    try {
      expect(res.statusCode).toBe(200);
      expect(await services.limits.ledger.account(user)).toMatchObject({
        balance: 800,
        open: { reservations: 1, credits: 200 },
      });
      child.kill('SIGKILL');
      await new Promise((resolve) => child.once('exit', resolve));
    } finally {
      req.destroy();
    }
    // this test's process stands in for the surviving API processes that sweep
    await untilTrue(async () => {
      await services.limits.ledger.sweepOrphans();
      return (await services.limits.ledger.balance(user)) === 1_000;
    }, 60_000);
    expect(await services.limits.ledger.account(user)).toMatchObject({
      balance: 1_000,
      open: { reservations: 0, credits: 0 },
      autoRefunded: { reservations: 1, credits: 200 },
    });
  }, 180_000);
});

describe('an export while Redis is away', () => {
  /** Heartbeats every 2 s (a third of it). */
  const awayOrphanSeconds = 6;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'export-redis-away-'));
  const messages: string[] = [];
  let local: LocalRedis;
  let redis: Redis;
  let limits: Limits;
  let prefix = '';
  let awayServer: http.Server;
  let awayBase = '';

  /** Stops this file's redis-server (its append-only file flushed); `back()` starts it again on its port. */
  async function stopRedis(): Promise<{ back: () => Promise<void> }> {
    const port = local.port;
    await local.stop();
    let started = false;
    return {
      back: async () => {
        if (started) return;
        started = true;
        local = await startLocalRedis({ logDir: dir, port, appendOnly: true });
        await untilTrue(async () => (await redis.ping().catch(() => '')) === 'PONG', 15_000);
      },
    };
  }

  async function awayUser(credits: number): Promise<{ user: string; key: string }> {
    const user = `away-${Math.random().toString(36).slice(2)}`;
    const { key } = await createApiKey(keyStoreFor(redis, prefix), { userId: user });
    await limits.ledger.grant(user, credits);
    return { user, key };
  }

  /** The orphan time of the one open reservation (what a heartbeat pushes ahead). */
  async function orphanTime(): Promise<number> {
    const open = await redis.zrange(`${prefix}credits:open`, '0', '-1', 'WITHSCORES');
    expect(open).toHaveLength(2);
    return Number(open[1]);
  }

  async function readToEnd(res: http.IncomingMessage): Promise<number> {
    let lines = 0;
    res.on('data', (chunk: Buffer) => {
      lines += chunk.toString('latin1').split('\n').length - 1;
    });
    res.resume();
    await new Promise((resolve) => res.once('end', resolve));
    return lines;
  }

  beforeAll(async () => {
    local = await startLocalRedis({ logDir: dir, appendOnly: true });
    redis = createRedis(local.url);
    redis.on('error', () => {}); // expected here: the server goes away on purpose
    await untilTrue(async () => (await redis.ping().catch(() => '')) === 'PONG', 15_000);
    prefix = `${services.config.redisPrefix}away:`;
    limits = createLimits({
      redis,
      keyPrefix: prefix,
      config: { reservationOrphanSeconds: awayOrphanSeconds, exportRecordsPerCredit: 10 },
    });
    const logger = createLogger('info', {
      write: (line: string) => {
        messages.push(String((JSON.parse(line) as { msg?: unknown }).msg));
      },
    });
    // the real app on the file's index, with its limits on this redis-server
    const app = createApp({
      ...services,
      redis,
      limits,
      logger,
      keyChanges: undefined,
      config: { ...services.config, redisPrefix: prefix },
    });
    awayServer = createHttpServer(app, {
      headersTimeoutMs: 2000,
      requestTimeoutMs: 3000,
      keepAliveTimeoutMs: 2000,
    }).listen(0, '127.0.0.1');
    await new Promise((resolve) => awayServer.once('listening', resolve));
    awayBase = `http://127.0.0.1:${(awayServer.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    awayServer?.closeAllConnections();
    await new Promise((resolve) => awayServer?.close(resolve));
    redis?.disconnect();
    await local?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a heartbeat that fails does not stop the next ones: the sweep leaves the export alone, and it is charged in full', async () => {
    const { user, key } = await awayUser(1_000);
    const { res, req } = await pausedExport(key, awayBase);
    try {
      expect(res.statusCode).toBe(200);
      const failedBefore = messages.filter((msg) => msg === 'export heartbeat failed').length;
      const stopped = await stopRedis();
      try {
        await untilTrue(
          async () => messages.filter((msg) => msg === 'export heartbeat failed').length > failedBefore,
          10_000,
        );
      } finally {
        await stopped.back();
      }
      // a beat after Redis came back pushes the orphan time ahead again
      const before = await orphanTime();
      await untilTrue(async () => (await orphanTime()) > before, 3 * 2_000);
      // one orphan timeout and more, sweeping every second as every API process does
      for (let waited = 0; waited < awayOrphanSeconds + 2; waited += 1) {
        await sleep(1000);
        await limits.ledger.sweepOrphans();
      }
      expect(await limits.ledger.account(user)).toMatchObject({
        balance: 800,
        open: { reservations: 1, credits: 200 },
        autoRefunded: { reservations: 0, credits: 0 },
      });
      expect(await readToEnd(res)).toBe(2_000);
    } finally {
      req.destroy();
    }
    await expect
      .poll(() => limits.ledger.account(user), { timeout: 10_000 })
      .toMatchObject({
        balance: 800,
        open: { reservations: 0, credits: 0 },
        autoRefunded: { reservations: 0 },
      });
  }, 90_000);

  it('a settlement that fails while Redis is stopped is retried, and charges the file once Redis is back', async () => {
    const { user, key } = await awayUser(1_000);
    const { res, req } = await pausedExport(key, awayBase);
    try {
      expect(res.statusCode).toBe(200);
      const stopped = await stopRedis();
      try {
        // the file ends with Redis stopped: the slot release and the first settlements fail
        expect(await readToEnd(res)).toBe(2_000);
        await sleep(1_000);
      } finally {
        await stopped.back();
      }
    } finally {
      req.destroy();
    }
    // reserved 200 (all 2,000 records sent): the settlement closes it at 200, nothing swept
    await expect
      .poll(() => limits.ledger.account(user), { timeout: 30_000 })
      .toMatchObject({
        balance: 800,
        open: { reservations: 0, credits: 0 },
        autoRefunded: { reservations: 0 },
      });
    expect(messages).not.toContain('export charge not settled');
  }, 90_000);
});
