/**
 * The pieces of the masters' fast path that need no server of ours beyond a loopback one
 * (src/http/masters-fast-path.ts, src/http/server.ts): the security headers captured from a
 * middleware, refused when it does not finish synchronously; a server made for an app without
 * a fast path serves it through Express alone.
 */
import type { AddressInfo } from 'node:net';
import express, { type RequestHandler } from 'express';
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config.js';
import { headersSetBy } from '../../src/http/masters-fast-path.js';
import { securityHeaders } from '../../src/http/security-headers.js';
import { createHttpServer } from '../../src/http/server.js';

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
