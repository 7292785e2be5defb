/**
 * Hostile or careless clients, through the real app on a real HTTP server (createHttpServer)
 * with the real Redis and OpenSearch: charsets other than UTF-8, malformed and oversized path
 * parameters, security headers (API and the /docs page), masters cacheable by the caller only,
 * WWW-Authenticate on 401, X-Request-Id accepted only when safe, and slow clients cut off by
 * the server's header and request timeouts.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, keyStoreFor } from '../../src/auth/key-admin.js';
import { createApp } from '../../src/http/app.js';
import { createHttpServer } from '../../src/http/server.js';
import { createLimits } from '../../src/limits/limits.js';
import type { Services } from '../../src/services.js';
import { setUpServices } from '../support/env.js';

let services: Services;
let server: Server;
let base: string;
let port: number;
let key: string;
/** Short, so the slow-client cases end in seconds; production values are in src/http/server.ts. */
const headersTimeoutMs = 1500;
const requestTimeoutMs = 3000;

beforeAll(async () => {
  services = await setUpServices('http-hardening');
  // the user here sends many requests in a row: out of the rate limiter's way
  const limits = createLimits({
    redis: services.redis,
    keyPrefix: services.config.redisPrefix,
    config: { rateLimitExemptUsers: new Set(['hardy']) },
  });
  services = { ...services, limits };
  server = createHttpServer(createApp(services), {
    headersTimeoutMs,
    requestTimeoutMs,
    keepAliveTimeoutMs: 5000,
  });
  server.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
  key = (await createApiKey(keyStoreFor(services.redis, services.config.redisPrefix), { userId: 'hardy' }))
    .key;
  await services.limits.ledger.grant('hardy', 100);
});
afterAll(async () => {
  if (server) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  await services?.close();
});

function search(contentType: string, body = '{"limit":1}') {
  return fetch(`${base}/rest/v1/corporates/search`, {
    method: 'POST',
    headers: { 'content-type': contentType, 'x-api-key': key },
    body,
  });
}

describe('charset', () => {
  it.each([
    'application/json; charset=latin1',
    'application/json; charset=utf8',
    'application/json; charset=us-ascii',
    'application/json; charset=foo',
    'application/json; charset="iso-8859-1"',
    'application/json;charset=UTF-16',
  ])('%s -> 415 in the error shape, naming Content-Type', async (contentType) => {
    const res = await search(contentType);
    expect(res.status).toBe(415);
    const body = await res.json();
    expect(body.message).toBe('Send the request body as application/json in UTF-8.');
    expect(body.code).toBe('unsupported_charset');
    expect(body.errors).toHaveLength(1);
    expect(body.errors[0].field).toBe('Content-Type');
    expect(body.errors[0].reason).toMatch(/^charset must be utf-8 \(or left out\), not "/);
    // refused before the credit reservation: nothing charged
    expect(res.headers.get('x-credits-remaining')).toBeNull();
  });

  it.each([
    'application/json',
    'application/json; charset=utf-8',
    'application/json; charset=UTF-8',
    'application/json; charset="utf-8"',
  ])('%s is accepted', async (contentType) => {
    expect((await search(contentType)).status).toBe(200);
  });
});

describe('path parameters', () => {
  const detail = (jobId: string) =>
    fetch(`${base}/rest/v1/jobs/${jobId}/detail`, { headers: { 'x-api-key': key } });

  it('a 201-character jobId: 400 naming jobId with the limit, never "undefined"', async () => {
    const res = await detail('j'.repeat(201));
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body.errors).toEqual([{ field: 'jobId', reason: 'must be at most 200 characters long' }]);
  });

  it('a jobId that is not UTF-8 when decoded (%ff%fe): 400 naming jobId', async () => {
    const res = await detail('%ff%fe');
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body.errors).toEqual([{ field: 'jobId', reason: 'must be valid percent-encoded UTF-8' }]);
  });

  it('no reason in a batch of malformed bodies contains "undefined"', async () => {
    const bodies = [
      { limit: 'x' },
      { limit: 100000 },
      { offset: -1 },
      { filters: { prefectureId: { any: [] } } },
      { filters: { name: { contains: 'x'.repeat(10_000) } } },
      { filters: { corporateNumber: { any: ['1'] } } },
      { sort: { field: 'nope', order: 'sideways' } },
      { nope: 1 },
    ];
    let reasons = 0;
    for (const body of bodies) {
      const res = await search('application/json', JSON.stringify(body));
      expect(res.status).toBe(400);
      const { errors } = (await res.json()) as { errors: Array<{ field: string; reason: string }> };
      for (const error of errors) {
        expect(error.reason).not.toMatch(/undefined/);
        expect(error.field).not.toMatch(/undefined/);
        reasons += 1;
      }
    }
    expect(reasons).toBeGreaterThanOrEqual(bodies.length);
  });
});

describe('headers', () => {
  it('security headers on API responses, errors included', async () => {
    for (const res of [
      await fetch(`${base}/rest/v1/master/prefectures`, { headers: { 'x-api-key': key } }),
      await fetch(`${base}/rest/v1/master/prefectures`),
      await fetch(`${base}/nope`),
      await fetch(`${base}/health`),
    ]) {
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('x-frame-options')).toBe('DENY');
      expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
      expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      expect(res.headers.get('referrer-policy')).toBe('no-referrer');
      expect(res.headers.get('x-powered-by')).toBeNull();
    }
  });

  it('/docs works under its CSP: every script is a file from this origin, no inline script', async () => {
    const page = await fetch(`${base}/docs/`);
    expect(page.status).toBe(200);
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain("'unsafe-eval'");
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    const html = await page.text();
    const scripts = [...html.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.length).toBeGreaterThan(0);
    for (const [, attributes, content] of scripts) {
      const src = /src=["']([^"']+)["']/.exec(attributes ?? '')?.[1];
      expect(src, `inline script: ${content?.slice(0, 80)}`).toBeDefined();
      expect(src).not.toMatch(/^(https?:)?\/\//); // same origin
      const asset = await fetch(new URL(src as string, `${base}/docs/`));
      expect(asset.status).toBe(200);
      expect(asset.headers.get('content-type')).toMatch(/javascript/);
    }
    for (const [, href] of html.matchAll(/<link[^>]*href=["']([^"']+)["']/g)) {
      expect(href).not.toMatch(/^(https?:)?\/\//);
      expect((await fetch(new URL(href as string, `${base}/docs/`))).status).toBe(200);
    }
  });

  it('401 carries WWW-Authenticate naming the X-API-Key header', async () => {
    for (const headers of [{}, { 'x-api-key': 'csk_nope' }] as Record<string, string>[]) {
      const res = await fetch(`${base}/rest/v1/master/prefectures`, { headers });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('ApiKey realm="corpsearch-api", header="X-API-Key"');
    }
  });

  it('masters: Cache-Control private with Vary: X-API-Key', async () => {
    const res = await fetch(`${base}/rest/v1/master/prefectures`, { headers: { 'x-api-key': key } });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('private, max-age=86400');
    expect(res.headers.get('vary')).toBe('X-API-Key');
  });

  it('X-Request-Id: a safe id is kept; an API key, an underscore, spaces or 65+ characters are replaced', async () => {
    const idOf = async (value: string) =>
      (await fetch(`${base}/nope`, { headers: { 'x-request-id': value } })).headers.get('x-request-id');
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
    for (const safe of ['client-abc.123', '01J9Z7Q4X3', 'a'.repeat(64), 'trace:42'])
      expect(await idOf(safe)).toBe(safe);
    for (const unsafe of [key, 'has_underscore', 'a b', 'a'.repeat(65), '-leading-dash', 'x<y']) {
      const id = await idOf(unsafe);
      expect(id).not.toBe(unsafe);
      expect(id).toMatch(uuid);
    }
  });
});

describe('slow clients', () => {
  /** Opens a raw connection; resolves with what the server sent and when it closed. */
  function rawClient(
    write: (socket: net.Socket) => void,
  ): Promise<{ response: string; closedAfterMs: number }> {
    return new Promise((resolve, reject) => {
      const started = Date.now();
      const socket = net.connect({ host: '127.0.0.1', port }, () => write(socket));
      let response = '';
      socket.on('data', (chunk) => {
        response += chunk.toString('latin1');
      });
      socket.on('error', () => {}); // a reset after the server gave up is expected
      socket.on('close', () => resolve({ response, closedAfterMs: Date.now() - started }));
      // the test's own bound, far beyond the server's: if it fires, the server did not cut
      setTimeout(() => {
        socket.destroy();
        reject(new Error('the server kept the connection open'));
      }, 20_000).unref();
    });
  }

  it('headers sent one byte at a time are cut off with 408 (headersTimeout)', async () => {
    const request = `GET /rest/v1/master/prefectures HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\n\r\n`;
    let timer: NodeJS.Timeout | undefined;
    let sent = 0;
    const { response, closedAfterMs } = await rawClient((socket) => {
      timer = setInterval(() => {
        if (socket.destroyed || sent >= request.length) return clearInterval(timer);
        socket.write(request[sent++] ?? '');
      }, 400);
    });
    clearInterval(timer);
    console.log(
      `slow headers: closed after ${closedAfterMs} ms (headersTimeout ${headersTimeoutMs} ms), ${sent} of ${request.length} bytes sent`,
    );
    expect(sent).toBeLessThan(request.length);
    expect(response).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('a Content-Length larger than the body sent is cut off with 408 (requestTimeout)', async () => {
    const { response, closedAfterMs } = await rawClient((socket) => {
      socket.write(
        `POST /rest/v1/corporates/search HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\n` +
          'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"limit":',
      );
    });
    console.log(`short body: closed after ${closedAfterMs} ms (requestTimeout ${requestTimeoutMs} ms)`);
    expect(response).toMatch(/^HTTP\/1\.1 408 /);
  });
});

describe('connection recycling', () => {
  /** A second server on the same app that recycles a connection after 3 requests. */
  async function recyclingServer(): Promise<{ server: Server; port: number }> {
    const recycling = createHttpServer(
      createApp(services),
      {
        headersTimeoutMs,
        requestTimeoutMs,
        keepAliveTimeoutMs: 5000,
      },
      3,
    );
    recycling.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => recycling.once('listening', resolve));
    return { server: recycling, port: (recycling.address() as AddressInfo).port };
  }

  it('a client sending past the per-connection count gets normal answers, the last with Connection: close, then the close; never a 503', async () => {
    const { server: recycling, port: recyclingPort } = await recyclingServer();
    try {
      // five requests written at once on one connection, as a client that ignores
      // `Connection: close` (or pipelines) would send them
      const request = `GET /rest/v1/master/prefectures HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\n\r\n`;
      const response = await new Promise<string>((resolve, reject) => {
        const socket = net.connect({ host: '127.0.0.1', port: recyclingPort }, () =>
          socket.write(request.repeat(5)),
        );
        let text = '';
        socket.on('data', (chunk) => {
          text += chunk.toString('latin1');
        });
        socket.on('error', () => {}); // a reset of the unanswered requests is a close too
        socket.on('close', () => resolve(text));
        setTimeout(() => {
          socket.destroy();
          reject(new Error('the server kept the recycled connection open'));
        }, 10_000).unref();
      });
      const statuses = [...response.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => m[1]);
      // (a response follows the previous body directly, so neither is anchored to a line start)
      const closes = [...response.matchAll(/\r\nconnection: close\r\n/gi)].length;
      expect(statuses).toEqual(['200', '200', '200']);
      expect(closes).toBe(1);
    } finally {
      recycling.closeAllConnections();
      await new Promise((resolve) => recycling.close(resolve));
    }
  });
});
