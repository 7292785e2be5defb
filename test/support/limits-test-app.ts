/**
 * For the limits tests (test/rate-limit*, credits*, idempotency*, redis-outage*): a minimal
 * app with the real rate-limit and credit middleware in their slots and a stand-in search
 * route that queries the REAL OpenSearch (size-0 search on the file's corporates index).
 * The user comes from an `x-test-user` header, so the limiter can be tested apart from the
 * API-key store; tests through the real app (createApp) cover the wiring.
 */
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import express, { type NextFunction, type Request, type Response } from 'express';
import { ApiError, errors } from '../../src/errors/catalogue.js';
import { creditsMiddleware, refundOnErrorMiddleware } from '../../src/limits/credits-middleware.js';
import type { Limits } from '../../src/limits/limits.js';
import { rateLimitMiddleware } from '../../src/limits/rate-limit-middleware.js';
import type { OpenSearchClient } from '../../src/opensearch/client.js';
import { indexName } from '../../src/opensearch/indices.js';

export interface TestApp {
  url: string;
  /** Requests that reached the stand-in search route (and so OpenSearch). */
  searchCalls(): number;
  close(): Promise<void>;
}

export async function startLimitsTestApp(opts: {
  limits: Limits;
  opensearch: OpenSearchClient;
  indexPrefix: string;
}): Promise<TestApp> {
  let calls = 0;
  const app = express();
  app.use((req, res, next) => {
    res.locals.requestId = randomUUID();
    const user = req.get('x-test-user');
    if (user) res.locals.user = { id: user, keyId: `key-of-${user}` };
    next();
  });
  app.get('/rest/v1/master/prefectures', (_req, res) => {
    res.json([{ id: 13, name: '東京都' }]);
  });
  app.use(rateLimitMiddleware(opts.limits));
  app.use(express.json());
  app.use(creditsMiddleware(opts.limits));
  const search = async (_req: Request, res: Response) => {
    calls += 1;
    try {
      const { body } = await opts.opensearch.search({
        index: indexName(opts.indexPrefix, 'corporates'),
        body: { size: 0, track_total_hits: true },
      });
      const total = body.hits.total;
      res.json({ totalResults: typeof total === 'number' ? total : (total?.value ?? null), results: [] });
    } catch {
      throw errors.searchUnavailable();
    }
  };
  app.post('/rest/v1/corporates/search', search);
  app.post('/rest/v1/jobs/search', search);
  app.get('/rest/v1/jobs/:jobId/detail', search);
  app.use(refundOnErrorMiddleware(opts.limits));
  app.use((error: unknown, _req: Request, res: Response, _next: NextFunction) => {
    const apiError = error instanceof ApiError ? error : errors.internal();
    res.status(apiError.status).set(apiError.headers).json(apiError.toBody());
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    searchCalls: () => calls,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The engine's own count of queries run on the file's corporates index. */
export async function queryTotal(opensearch: OpenSearchClient, indexPrefix: string): Promise<number> {
  const index = indexName(indexPrefix, 'corporates');
  const { body } = await opensearch.indices.stats({ index, metric: 'search' });
  return Number(body._all?.primaries?.search?.query_total ?? Number.NaN);
}

export function search(
  baseUrl: string,
  user: string,
  opts: { body?: unknown; headers?: Record<string, string>; path?: string } = {},
): Promise<globalThis.Response> {
  return fetch(`${baseUrl}${opts.path ?? '/rest/v1/corporates/search'}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-test-user': user, ...opts.headers },
    body: JSON.stringify(opts.body ?? { limit: 1 }),
  });
}
