/**
 * The master lists answered before Express (src/http/masters-fast-path.ts), through the server
 * the service runs (src/http/server.ts) on the real redis-server: a key the memory holds fresh
 * gets the very answer the Express path gives (status, headers but the request id and date,
 * body), for 200, 304 and HEAD, with its log line and its metrics; anything else the fast path
 * does not know (a revoked key, no key, another spelling, a query string) is Express's.
 */
import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createApiKey, keyStoreFor } from '../../src/auth/key-admin.js';
import { createApp } from '../../src/http/app.js';
import type { FastPath } from '../../src/http/masters-fast-path.js';
import { createHttpServer } from '../../src/http/server.js';
import { createLogger } from '../../src/logger.js';
import { registry } from '../../src/metrics.js';
import type { Services } from '../../src/services.js';
import { setUpServices } from '../support/env.js';

let services: Services;
let server: Server;
let base = '';
let answered = 0;
const lines: string[] = [];

beforeAll(async () => {
  services = await setUpServices('masters-fast-path');
  if (!services.keyChanges) throw new Error('this file needs Redis with the key memory');
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  const app = createApp({ ...services, logger: createLogger('info', sink) });
  const fastPath = app.locals.fastPath as FastPath;
  // counts the requests the fast path answered, so each test knows which path answered
  app.locals.fastPath = ((req, res) => {
    const done = fastPath(req, res);
    if (done) answered++;
    return done;
  }) satisfies FastPath;
  server = createHttpServer(app, services.config.http);
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  await until(() => services.keyChanges?.live === true);
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await services.close();
});
beforeEach(() => {
  lines.length = 0;
});

async function until(condition: () => boolean): Promise<void> {
  const giveUpAt = Date.now() + 10_000;
  while (!condition()) {
    if (Date.now() > giveUpAt) throw new Error('gave up waiting');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function newKey(userId: string) {
  return createApiKey(keyStoreFor(services.redis, services.config.redisPrefix), { userId });
}

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
  fast: boolean;
}

/** node:http, not fetch: fetch adds `Cache-Control: no-cache` to a request with If-None-Match. */
async function call(
  path: string,
  init: { method?: string; key?: string; headers?: Record<string, string> } = {},
) {
  const before = answered;
  const { status, headers, body } = await new Promise<Omit<Answer, 'fast'>>((resolve, reject) => {
    const req = http.request(
      `${base}${path}`,
      {
        method: init.method ?? 'GET',
        headers: { ...(init.key ? { 'X-API-Key': init.key } : {}), ...init.headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers as Record<string, string>,
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
  return { status, headers, body, fast: answered > before } satisfies Answer;
}

/** The headers that differ between two answers by nature: the request's id and the date. */
function comparable(answer: Answer) {
  const { 'x-request-id': id, date, ...headers } = answer.headers;
  expect(id).toMatch(/^[0-9a-f-]{36}$/);
  expect(date).toBeTruthy();
  return { status: answer.status, headers, body: answer.body };
}

describe('a key the memory holds: the answer the Express path gives', () => {
  it.each(['prefectures', 'media', 'markets'])('GET, HEAD and 304 of %s', async (name) => {
    const { key } = await newKey(`u-fast-${name}`);
    const path = `/rest/v1/master/${name}`;
    // the key's first request is checked against Redis on the Express path; it is then fresh
    const viaExpress = await call(path, { key });
    expect(viaExpress.fast).toBe(false);
    expect(viaExpress.status).toBe(200);
    const viaFastPath = await call(path, { key });
    expect(viaFastPath.fast).toBe(true);
    expect(comparable(viaFastPath)).toEqual(comparable(viaExpress));
    expect(JSON.parse(viaFastPath.body)).toBeInstanceOf(Array);

    const etag = viaExpress.headers.etag as string;
    const notModified = await call(path, { key, headers: { 'If-None-Match': `W/${etag}, "other"` } });
    expect(notModified.fast).toBe(true);
    expect(notModified.status).toBe(304);
    expect(notModified.body).toBe('');
    const stale = await call(path, { key, headers: { 'If-None-Match': '"stale"' } });
    expect(stale.fast).toBe(true);
    expect(comparable(stale)).toEqual(comparable(viaExpress));

    const head = await call(path, { key, method: 'HEAD' });
    expect(head.fast).toBe(true);
    expect(head.body).toBe('');
    expect(comparable(head).headers).toEqual(comparable(viaExpress).headers);
  });

  it('a 304 carries the headers of the Express path’s 304', async () => {
    const { key } = await newKey('u-fast-304');
    const path = '/rest/v1/master/industries';
    const first = await call(path, { key });
    // a client id that is not a UUID is not kept either way: compare the two 304s' headers
    const ifNoneMatch = { 'If-None-Match': first.headers.etag as string };
    const { key: other } = await newKey('u-fast-304-other');
    const viaExpress = await call(path, { key: other, headers: ifNoneMatch });
    expect(viaExpress.fast).toBe(false);
    const viaFastPath = await call(path, { key, headers: ifNoneMatch });
    expect(viaFastPath.fast).toBe(true);
    expect(viaExpress.status).toBe(304);
    expect(comparable(viaFastPath)).toEqual(comparable(viaExpress));
  });

  it('keeps a sane X-Request-Id of the caller', async () => {
    const { key } = await newKey('u-fast-id');
    await call('/rest/v1/master/prefectures', { key });
    const res = await call('/rest/v1/master/prefectures', {
      key,
      headers: { 'X-Request-Id': 'crm-sync.42' },
    });
    expect(res.fast).toBe(true);
    expect(res.headers['x-request-id']).toBe('crm-sync.42');
  });

  it('writes the request log line and counts the metrics under the route', async () => {
    const { key, record } = await newKey('u-fast-log');
    const route = '/rest/v1/master/employment-types';
    const series = `corpsearch_http_requests_total{method="GET",route="${route}",status="200"}`;
    const countOf = async () => {
      const line = (await registry.metrics()).split('\n').find((l) => l.startsWith(`${series} `));
      return line ? Number(line.split(' ').pop()) : 0;
    };
    await call(route, { key });
    await until(() => lines.length >= 1);
    const before = await countOf();
    lines.length = 0;
    const res = await call(route, { key, headers: { 'X-Request-Id': 'fast-log-1' } });
    expect(res.fast).toBe(true);
    await until(() => lines.length >= 1);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(lines).toHaveLength(1);
    const line = JSON.parse(lines[0] as string) as Record<string, unknown>;
    expect(line).toMatchObject({
      level: 30,
      req: { id: 'fast-log-1', method: 'GET', path: route },
      res: { statusCode: 200 },
      userId: 'u-fast-log',
      keyId: record.keyId,
      msg: 'request completed',
    });
    expect(lines[0]).not.toContain(key);
    expect(await countOf()).toBe(before + 1);
  });
});

describe('a connection recycled after its n-th answer', () => {
  it('the fast path’s n-th answer carries Connection: close', async () => {
    const app = createApp(services);
    const fastPath = app.locals.fastPath as FastPath;
    let fast = 0;
    app.locals.fastPath = ((req, res) => {
      const done = fastPath(req, res);
      if (done) fast++;
      return done;
    }) satisfies FastPath;
    const recycling = createHttpServer(app, services.config.http, 2);
    recycling.listen(0, '127.0.0.1');
    await new Promise((resolve) => recycling.once('listening', resolve));
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const { key } = await newKey('u-fast-recycled');
      const url = `http://127.0.0.1:${(recycling.address() as AddressInfo).port}/rest/v1/master/prefectures`;
      const get = () =>
        new Promise<http.IncomingMessage>((resolve, reject) => {
          const req = http.get(url, { agent, headers: { 'X-API-Key': key } }, (res) => {
            res.resume();
            res.on('end', () => resolve(res));
          });
          req.on('error', reject);
        });
      // the first through Express (the key is then in memory), the next two by the fast path
      const first = await get();
      const second = await get();
      const third = await get();
      expect([first.statusCode, second.statusCode, third.statusCode]).toEqual([200, 200, 200]);
      expect(first.headers.connection).toBe('keep-alive');
      expect(second.headers.connection).toBe('close');
      expect(third.headers.connection).toBe('keep-alive');
      expect(second.headers.etag).toBe(first.headers.etag);
      expect(fast).toBe(2);
    } finally {
      agent.destroy();
      recycling.closeAllConnections();
      await new Promise((resolve) => recycling.close(resolve));
    }
  });
});

describe('everything else goes on to Express', () => {
  it('a revoked key: 401 as soon as the revocation is announced', async () => {
    const store = keyStoreFor(services.redis, services.config.redisPrefix);
    const { key, record } = await newKey('u-fast-revoked');
    await call('/rest/v1/master/prefectures', { key });
    expect((await call('/rest/v1/master/prefectures', { key })).fast).toBe(true);
    await store.revoke(record.keyId, new Date());
    // the announcement arrives by pub/sub: within a moment the memory no longer answers
    let answer = await call('/rest/v1/master/prefectures', { key });
    const giveUpAt = Date.now() + 5_000;
    while (answer.status === 200 && Date.now() < giveUpAt) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      answer = await call('/rest/v1/master/prefectures', { key });
    }
    expect(answer.fast).toBe(false);
    expect(answer.status).toBe(401);
  });

  it.each([
    ['no key', '/rest/v1/master/prefectures', undefined, 401],
    ['another spelling', '/rest/v1/master/prefectures/', 'key', 404],
    ['a list that is not one', '/rest/v1/master/unknown', 'key', 404],
    ['a query string', '/rest/v1/master/prefectures?x=1', 'key', 200],
  ] as const)('%s', async (_what, path, withKey, status) => {
    const { key } = await newKey(`u-fast-other-${status}-${path.length}`);
    await call('/rest/v1/master/prefectures', { key });
    const answer = await call(path, { key: withKey ? key : undefined });
    expect(answer.fast).toBe(false);
    expect(answer.status).toBe(status);
  });

  it('another method', async () => {
    const { key } = await newKey('u-fast-post');
    await call('/rest/v1/master/prefectures', { key });
    const answer = await call('/rest/v1/master/prefectures', { key, method: 'POST' });
    expect(answer.fast).toBe(false);
    expect(answer.status).toBe(405);
  });
});
