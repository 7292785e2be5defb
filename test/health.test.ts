import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/http/app.js';
import type { Services } from '../src/services.js';
import { setUpServices } from './support/env.js';

let services: Services;

beforeAll(async () => {
  services = await setUpServices('health');
});
afterAll(async () => {
  await services.close();
});

describe('GET /health', () => {
  it('reports OpenSearch and Redis up', async () => {
    const res = await request(createApp(services)).get('/health').expect(200);
    expect(res.body.status).toBe('ok');
    expect(['green', 'yellow']).toContain(res.body.opensearch.status);
    expect(res.body.redis).toEqual({ status: 'up', mode: 'shared' });
  });

  it('reports single-process mode without Redis', async () => {
    const res = await request(createApp({ ...services, redis: undefined }))
      .get('/health')
      .expect(200);
    expect(res.body.redis.mode).toBe('single-process');
  });
});
