/**
 * The request log line (src/http/request-log.ts), field by field: what a log collector's
 * queries rely on. Each request gets exactly one line, whichever of the response's finish,
 * close and error comes first; a 5xx is at error level with pino-http's "failed with status
 * code" error, a request whose client went away says "request aborted". No engine or Redis:
 * only the log middleware and a route are involved.
 */
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import express from 'express';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { locals } from '../../src/http/locals.js';
import { requestId } from '../../src/http/request-id.js';
import { requestLog } from '../../src/http/request-log.js';
import { createLogger } from '../../src/logger.js';

const lines: string[] = [];
let server: http.Server;
let base = '';
let abortedClosed: () => void = () => undefined;

beforeAll(async () => {
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  const app = express();
  app.use(requestId(), requestLog(createLogger('info', sink)));
  app.get('/ok', (_req, res) => {
    locals(res).user = { id: 'u-log', keyId: 'key_0123456789ab' };
    res.json({ ok: true });
  });
  app.get('/refused', (_req, res) => {
    locals(res).fieldErrors = [{ field: 'limit', reason: 'must be at most 1000' }];
    res.status(400).json({ message: 'no' });
  });
  app.get('/down', (_req, res) => {
    res.status(503).json({ message: 'away' });
  });
  app.get('/never', (_req, res) => {
    // answers nothing: the client gives up and closes the connection
    res.once('close', () => abortedClosed());
  });
  server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});
beforeEach(() => {
  lines.length = 0;
});

function parsed(): Array<Record<string, unknown>> {
  return lines.map((line) => JSON.parse(line) as Record<string, unknown>);
}

/**
 * Lines are written when the response finishes, which may be just after the client has it:
 * waits for `count` lines, then a moment more, in which a second line for the same request
 * (its close after its finish) would arrive.
 */
async function settle(count = 1): Promise<void> {
  await expect.poll(() => lines.length, { timeout: 10_000 }).toBeGreaterThanOrEqual(count);
  await new Promise((resolve) => setTimeout(resolve, 50));
}

it('a 200: request id, method, path without query, status, time, user and key id, "request completed"', async () => {
  await fetch(`${base}/ok?apiKey=secret-in-query`, { headers: { 'X-Request-Id': 'log-line-1' } });
  await settle();
  const [line, ...more] = parsed();
  expect(more).toEqual([]);
  expect(Object.keys(line ?? {})).toEqual([
    'level',
    'time',
    'pid',
    'hostname',
    'req',
    'res',
    'responseTime',
    'userId',
    'keyId',
    'msg',
  ]);
  expect(line).toMatchObject({
    level: 30,
    req: { id: 'log-line-1', method: 'GET', path: '/ok' },
    res: { statusCode: 200 },
    userId: 'u-log',
    keyId: 'key_0123456789ab',
    msg: 'request completed',
  });
  expect(line?.responseTime).toEqual(expect.any(Number));
  expect(lines.join('')).not.toContain('secret-in-query');
});

it("a 400: info level, the reasons' fields and wording", async () => {
  await fetch(`${base}/refused`);
  await settle();
  expect(parsed()).toEqual([
    expect.objectContaining({
      level: 30,
      res: { statusCode: 400 },
      errors: [{ field: 'limit', reason: 'must be at most 1000' }],
      msg: 'request completed',
    }),
  ]);
});

it('a 5xx: error level, with its status as the error and no stack', async () => {
  await fetch(`${base}/down`);
  await settle();
  const [line, ...more] = parsed();
  expect(more).toEqual([]);
  expect(line).toMatchObject({
    level: 50,
    res: { statusCode: 503 },
    err: { type: 'Error', message: 'failed with status code 503' },
    msg: 'request errored',
  });
  expect(Object.keys(line?.err as object)).toEqual(['type', 'message']);
});

it('a request whose client went away: one line, "request aborted"', async () => {
  const closed = new Promise<void>((resolve) => {
    abortedClosed = resolve;
  });
  const controller = new AbortController();
  const sent = fetch(`${base}/never`, { signal: controller.signal }).catch(() => undefined);
  await new Promise((resolve) => setTimeout(resolve, 100));
  controller.abort();
  await sent;
  await closed;
  await settle();
  expect(parsed()).toEqual([expect.objectContaining({ level: 30, msg: 'request aborted' })]);
});

it('many requests: one line each, none twice', async () => {
  await Promise.all(
    Array.from({ length: 20 }, (_, i) => fetch(`${base}/ok`, { headers: { 'X-Request-Id': `many-${i}` } })),
  );
  await settle(20);
  const ids = parsed().map((line) => (line.req as { id: string }).id);
  expect(ids.sort()).toEqual(Array.from({ length: 20 }, (_, i) => `many-${i}`).sort());
});
