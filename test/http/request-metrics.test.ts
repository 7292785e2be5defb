/**
 * The route label of the requests the limits refuse (401, 402, 429), read from `/metrics` as
 * Prometheus scrapes it, on the real redis-server and engine: every answer of an operation is
 * counted under the one route template of that operation, the same as its 200s, never under
 * `unmatched` nor under a second spelling of the template.
 */
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, keyStoreFor } from '../../src/auth/key-admin.js';
import { defaultConfig } from '../../src/config.js';
import { createApp } from '../../src/http/app.js';
import { createLogger } from '../../src/logger.js';
import { type MetricsServer, startMetricsServer } from '../../src/metrics.js';
import type { Services } from '../../src/services.js';
import { setUpServices } from '../support/env.js';

let services: Services;
let metricsServer: MetricsServer;
let app: ReturnType<typeof createApp>;

beforeAll(async () => {
  // one request per user per minute, so the second one is a 429 however slow the machine
  const limits = { ...defaultConfig().limits, ratePerSecond: 1, rateWindowSeconds: 60, detailCost: 1 };
  services = await setUpServices('request-metrics', { limits });
  app = createApp(services);
  metricsServer = await startMetricsServer('127.0.0.1', 0, createLogger('silent'));
});
afterAll(async () => {
  await metricsServer.close();
  await services.close();
});

async function scrape(): Promise<string> {
  const res = await fetch(metricsServer.url);
  expect(res.status).toBe(200);
  return res.text();
}

/** The count of `corpsearch_http_requests_total` for these labels, 0 when the series is not there. */
function count(text: string, method: string, route: string, status: number): number {
  const line = text
    .split('\n')
    .find((l) =>
      l.startsWith(`corpsearch_http_requests_total{method="${method}",route="${route}",status="${status}"} `),
    );
  return line ? Number(line.split(' ').pop()) : 0;
}

describe('refusals are counted under their operation', () => {
  it('401, 402 and 429 of the search and of the job detail carry the route template', async () => {
    const store = keyStoreFor(services.redis, services.config.redisPrefix);
    const { key: poor } = await createApiKey(store, { userId: 'u-metrics-poor' });
    const { key: detail } = await createApiKey(store, { userId: 'u-metrics-detail' });
    const body = { limit: 1 };
    const search = (key?: string) => {
      const call = request(app).post('/rest/v1/corporates/search').send(body);
      return key ? call.set('X-API-Key', key) : call;
    };
    const job = (key?: string) => {
      const call = request(app).get('/rest/v1/jobs/J000000001/detail');
      return key ? call.set('X-API-Key', key) : call;
    };
    await search().expect(401);
    await search(poor).expect(402);
    await search(poor).expect(429);
    await job().expect(401);
    await job(detail).expect(402);
    await job(detail).expect(429);

    const text = await scrape();
    for (const status of [401, 402, 429]) {
      expect(count(text, 'POST', '/rest/v1/corporates/search', status), `search ${status}`).toBe(1);
      expect(count(text, 'GET', '/rest/v1/jobs/:jobId/detail', status), `detail ${status}`).toBe(1);
      expect(count(text, 'GET', 'unmatched', status)).toBe(0);
      expect(count(text, 'POST', 'unmatched', status)).toBe(0);
    }
    // one spelling of a template: the label a 200 of the detail gets (its Express route)
    expect(text).not.toContain('{jobId}');
    expect(text).not.toContain('J000000001');
    expect(text).toMatch(/corpsearch_requests_rejected_total\{reason="rate_limited"\} [1-9]/);
  });
});
