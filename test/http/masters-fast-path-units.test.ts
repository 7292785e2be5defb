/**
 * The pieces of the masters' fast path that need no server of ours beyond a loopback one
 * (src/http/masters-fast-path.ts, src/http/server.ts): the security headers captured from a
 * middleware, refused when it does not finish synchronously; a server made for an app without
 * a fast path serves it through Express alone; an answer it cannot write closes the connection
 * (logged) instead of ending the process.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import express, { type RequestHandler } from 'express';
import { describe, expect, it } from 'vitest';
import type { KeyChecker } from '../../src/auth/key-checker.js';
import type { ApiKeyRecord } from '../../src/auth/key-store.js';
import { defaultConfig } from '../../src/config.js';
import { headersSetBy, mastersFastPath } from '../../src/http/masters-fast-path.js';
import { requestLog } from '../../src/http/request-log.js';
import { requestMetrics } from '../../src/http/request-metrics.js';
import { securityHeaders } from '../../src/http/security-headers.js';
import { createHttpServer } from '../../src/http/server.js';
import { createLogger } from '../../src/logger.js';
import { loadMasters } from '../../src/masters/masters.js';

describe('headersSetBy', () => {
  it('the headers helmet sets, in order, as name and value', () => {
    const headers = headersSetBy(securityHeaders());
    const byName = new Map<string, string>();
    for (let i = 0; i < headers.length; i += 2) byName.set(headers[i] as string, headers[i + 1] as string);
    expect(headers.length).toBe(byName.size * 2);
    expect(byName.get('Content-Security-Policy')).toContain("default-src 'none'");
    expect(byName.get('X-Frame-Options')).toBe('DENY');
    expect(byName.get('X-Content-Type-Options')).toBe('nosniff');
    expect(byName.get('Referrer-Policy')).toBe('no-referrer');
  });

  it('refuses a middleware that fails or does not finish at once', () => {
    const failing: RequestHandler = (_req, _res, next) => next(new Error('no headers today'));
    expect(() => headersSetBy(failing)).toThrow('no headers today');
    const later: RequestHandler = (_req, _res, next) => {
      setTimeout(next, 1);
    };
    expect(() => headersSetBy(later)).toThrow(/did not finish synchronously/);
  });
});

describe('createHttpServer', () => {
  it('serves an app without a fast path through Express', async () => {
    const app = express();
    app.get('/plain', (_req, res) => {
      res.json({ ok: true });
    });
    const server = createHttpServer(app, defaultConfig().http);
    server.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/plain`);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ ok: true });
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('an answer the fast path cannot write', () => {
  it('closes the connection and logs the request; the server stays up', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const record = { userId: 'u-bad-header', keyId: 'key_0123456789ab' } as ApiKeyRecord;
    const fastPath = mastersFastPath({
      masters: loadMasters(),
      checker: { rememberedNow: () => record } as unknown as KeyChecker,
      log: requestLog(createLogger('info', sink)),
      metrics: requestMetrics(),
      // a header no response may carry: writing the answer throws
      securityHeaders: (_req, res, next) => {
        res.setHeader('X-Broken', 'ok');
        next();
      },
    });
    const server = http.createServer((req, res) => {
      if (req.url === '/alive') {
        res.end('yes');
        return;
      }
      // the broken header is put in after the capture, as a stand-in for any failing write
      const writeHead = res.writeHead.bind(res);
      res.writeHead = ((status: number) => writeHead(status, { 'X-Broken': 'a\nb' })) as typeof res.writeHead;
      if (!fastPath(req, res)) res.end('not answered');
    });
    server.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      await expect(
        fetch(`${base}/rest/v1/master/prefectures`, { headers: { 'X-API-Key': 'csk_anything' } }),
      ).rejects.toThrow();
      expect(await (await fetch(`${base}/alive`)).text()).toBe('yes');
      await expect.poll(() => lines.length).toBe(1);
      expect(JSON.parse(lines[0] as string)).toMatchObject({
        req: { method: 'GET', path: '/rest/v1/master/prefectures' },
        userId: 'u-bad-header',
      });
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
