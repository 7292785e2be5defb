/**
 * The request deadline per operation (src/http/deadline.ts): a match request gets
 * MATCH_DEADLINE_MS where every other request gets REQUEST_DEADLINE_MS. The deadline
 * middleware on a bare router behind the operation gate, a handler that answers after 300 ms.
 */
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultConfig, loadConfig } from '../../src/config.js';
import { requestDeadline } from '../../src/http/deadline.js';
import { operationGate } from '../../src/http/operation-gate.js';
import { requestId } from '../../src/http/request-id.js';

let server: ReturnType<ReturnType<typeof express>['listen']>;
let base = '';

beforeAll(async () => {
  const app = express();
  app.use(requestId());
  const api = express.Router();
  api.use(operationGate());
  api.use(requestDeadline({ totalMs: 100, matchMs: 2000, redisMs: 100 }));
  const slow = (_req: express.Request, res: express.Response) => {
    setTimeout(() => {
      if (!res.headersSent) res.json({ answered: true });
    }, 300);
  };
  api.post('/corporates/search', slow);
  api.post('/corporates/match', slow);
  api.post('/reconcile', slow);
  app.use('/rest/v1', api);
  server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/rest/v1`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

describe('the deadline of a request', () => {
  it('is the match deadline for a match request, the request deadline for any other', async () => {
    const status = async (path: string) => (await fetch(`${base}${path}`, { method: 'POST' })).status;
    expect(await status('/corporates/search')).toBe(503);
    expect(await status('/corporates/match')).toBe(200);
    expect(await status('/reconcile')).toBe(200);
  });

  it('is 20 s for a match and 3 s for the rest unless set', () => {
    const config = defaultConfig();
    expect(config.matchDeadlineMs).toBe(20_000);
    expect(config.requestDeadlineMs).toBe(3_000);
  });

  it('unset, stays under a shortened reservation timeout; set, must be under it', () => {
    expect(loadConfig({ CREDIT_RESERVATION_TIMEOUT_SECONDS: '6' }).matchDeadlineMs).toBe(5_000);
    // never under the request deadline
    expect(
      loadConfig({ CREDIT_RESERVATION_TIMEOUT_SECONDS: '4', REQUEST_DEADLINE_MS: '3500' }).matchDeadlineMs,
    ).toBe(3_500);
    expect(loadConfig({ MATCH_DEADLINE_MS: '45000' }).matchDeadlineMs).toBe(45_000);
    expect(() => loadConfig({ MATCH_DEADLINE_MS: '60000' })).toThrow(
      /CREDIT_RESERVATION_TIMEOUT_SECONDS must be longer than MATCH_DEADLINE_MS, got 60 s and 60000 ms/,
    );
  });
});
