/**
 * The validator's route lookup with its templates compiled once (src/http/route-matchers.ts):
 * however many requests, each template is compiled at most once per process, and the lookup
 * still finds the same operation and path parameters, and refuses what it refused.
 */
import type { AddressInfo } from 'node:net';
import express, { type NextFunction, type Request, type Response } from 'express';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { routeMatcherCompiles } from '../../src/http/route-matchers.js';
import { openApiDocument, validateRequests } from '../../src/http/validation.js';

let base = '';
let close: () => Promise<void> = async () => undefined;

beforeAll(async () => {
  const app = express();
  const api = express.Router();
  api.use(validateRequests());
  api.get('/jobs/:jobId/detail', (req: Request, res: Response) => {
    res.json({
      params: req.params,
      route: (req as Request & { openapi?: { openApiRoute: string } }).openapi?.openApiRoute,
    });
  });
  api.post('/corporates/search', (req: Request, res: Response) => {
    res.json({ route: (req as Request & { openapi?: { openApiRoute: string } }).openapi?.openApiRoute });
  });
  app.use('/rest/v1', api);
  app.use((error: { status?: number }, _req: Request, res: Response, _next: NextFunction) => {
    res.status(error.status ?? 500).json({ status: error.status });
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/rest/v1`;
  close = () => new Promise((resolve) => server.close(() => resolve()));
});
afterAll(() => close());

async function get(path: string): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${base}${path}`);
  const text = await res.text();
  return { status: res.status, body: text.startsWith('{') ? JSON.parse(text) : text };
}

it('finds the operation and its path parameters, request after request', async () => {
  for (const id of ['J000000001', 'J000000002', 'J123456789']) {
    expect(await get(`/jobs/${id}/detail`)).toEqual({
      status: 200,
      body: { params: { jobId: id }, route: '/rest/v1/jobs/{jobId}/detail' },
    });
  }
  const search = await fetch(`${base}/corporates/search`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });
  expect(await search.json()).toEqual({ route: '/rest/v1/corporates/search' });
  // what the lookup refused, it still refuses: a path no operation has, a method a path lacks
  expect((await get('/jobs/J000000001/nothing')).status).toBe(404);
  expect((await fetch(`${base}/jobs/search`)).status).toBe(405);
});

it('compiles each template at most once, however many requests', async () => {
  await get('/jobs/J000000001/detail');
  const compiled = routeMatcherCompiles();
  expect(compiled).toBeGreaterThan(0);
  // never more templates than the description has paths
  const paths = Object.keys(openApiDocument().paths ?? {}).length;
  expect(compiled).toBeLessThanOrEqual(paths);
  for (let i = 0; i < 40; i++) await get(`/jobs/J${String(i).padStart(9, '0')}/detail`);
  await get('/master/prefectures');
  expect(routeMatcherCompiles()).toBeLessThanOrEqual(paths);
  const afterAllRoutes = routeMatcherCompiles();
  for (let i = 0; i < 40; i++) await get(`/jobs/K${String(i).padStart(9, '0')}/detail`);
  expect(routeMatcherCompiles()).toBe(afterAllRoutes);
});
