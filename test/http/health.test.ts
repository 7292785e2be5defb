/**
 * /health: up/down for anyone, the details (cluster, Redis mode) only with the operator token.
 */
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/http/app.js';
import type { Services } from '../../src/services.js';
import { setUpServices } from '../support/env.js';

let services: Services;
const token = 'operator-token-for-this-test';

beforeAll(async () => {
  services = await setUpServices('health', { operatorToken: token });
});
afterAll(async () => {
  await services.close();
});

describe('GET /health', () => {
  it('reports OpenSearch and Redis up to the operator', async () => {
    const res = await request(createApp(services))
      .get('/health')
      .set('Authorization', `Bearer ${token}`)
      .expect(200);
    expect(res.body.status).toBe('ok');
    expect(['green', 'yellow']).toContain(res.body.opensearch.status);
    expect(typeof res.body.opensearch.cluster).toBe('string');
    expect(res.body.redis).toEqual({ status: 'up', mode: 'shared' });
  });

  it('tells anyone else up or down and nothing more', async () => {
    const app = createApp(services);
    for (const authorization of [undefined, 'Bearer wrong-token', `Basic ${token}`, `Bearer ${token}x`]) {
      const req = request(app).get('/health');
      const res = await (authorization ? req.set('Authorization', authorization) : req).expect(200);
      expect(res.body).toEqual({ status: 'ok' });
      expect(res.headers['cache-control']).toBe('no-store');
    }
  });

  it('without OPERATOR_TOKEN set, nobody gets the details', async () => {
    const app = createApp({ ...services, config: { ...services.config, operatorToken: undefined } });
    const res = await request(app).get('/health').set('Authorization', 'Bearer ').expect(200);
    expect(res.body).toEqual({ status: 'ok' });
  });

  it('reports single-process mode without Redis', async () => {
    const res = await request(createApp({ ...services, redis: undefined }))
      .get('/health')
      .set('Authorization', `Bearer ${token}`)
      .expect(200);
    expect(res.body.redis.mode).toBe('single-process');
  });
});
