/**
 * The API reference served by the app: /docs (Swagger UI, every asset from this server, no
 * CDN) and the raw description at /openapi.yaml, byte for byte the committed file. No key.
 */
import { readFileSync } from 'node:fs';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, keyStoreFor } from '../../src/auth/key-admin.js';
import { createApp } from '../../src/http/app.js';
import { openApiDocument, openApiFile } from '../../src/http/validation.js';
import type { Services } from '../../src/services.js';
import { setUpServices } from '../support/env.js';

let services: Services;
let app: ReturnType<typeof createApp>;

beforeAll(async () => {
  services = await setUpServices('openapi-docs');
  app = createApp(services);
});
afterAll(async () => {
  await services.close();
});

describe('GET /openapi.yaml', () => {
  it('serves the committed description without a key', async () => {
    const res = await request(app).get('/openapi.yaml').expect(200);
    expect(res.headers['content-type']).toMatch(/^application\/yaml/);
    expect(res.text).toBe(readFileSync(openApiFile, 'utf8'));
  });
});

describe('GET /docs', () => {
  it('serves the reference page, its scripts and styles from this server', async () => {
    const page = await request(app).get('/docs/').expect(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    const assets = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1] as string);
    expect(assets.length).toBeGreaterThan(2);
    for (const asset of assets) {
      expect(asset, 'no external asset').not.toMatch(/^(https?:)?\/\//);
      const res = await request(app).get(new URL(asset, 'http://local/docs/').pathname).expect(200);
      expect(res.body.length || res.text.length).toBeGreaterThan(0);
    }
    // the page's initialiser carries the document itself
    const init = await request(app).get('/docs/swagger-ui-init.js').expect(200);
    expect(init.text).toContain('searchCorporates');
    expect(init.text).toContain('"version": "2.0.0"');
  });
});

describe('named request examples', () => {
  type Operation = {
    operationId: string;
    requestBody?: {
      content: Record<string, { examples?: Record<string, { summary?: string; value: unknown }> }>;
    };
  };
  // the searches; count and export take the same filters and are described by the search's examples
  const searches = Object.entries(openApiDocument().paths ?? {}).flatMap(([path, item]) => {
    const post = (item as { post?: Operation }).post;
    return post && path.endsWith('/search') ? [{ path, post }] : [];
  });

  it('every search has at least three, each with a summary', () => {
    expect(searches.map((search) => search.path).sort()).toEqual(['/corporates/search', '/jobs/search']);
    for (const { post } of searches) {
      const examples = post.requestBody?.content['application/json']?.examples ?? {};
      expect(Object.keys(examples).length, post.operationId).toBeGreaterThanOrEqual(3);
      for (const [name, example] of Object.entries(examples)) expect(example.summary, name).toBeTruthy();
    }
  });

  it('every example is a valid request that the real search answers with 200', async () => {
    const userId = 'examples-user';
    const { key } = await createApiKey(keyStoreFor(services.redis, services.config.redisPrefix), { userId });
    await services.limits.ledger.grant(userId, 100);
    for (const { path, post } of searches) {
      for (const [name, example] of Object.entries(
        post.requestBody?.content['application/json']?.examples ?? {},
      )) {
        const res = await request(app)
          .post(`/rest/v1${path}`)
          .set('X-API-Key', key)
          .send(example.value as object);
        expect({ name, status: res.status, body: res.status === 200 ? undefined : res.body }).toEqual({
          name,
          status: 200,
          body: undefined,
        });
        expect(Array.isArray(res.body.results)).toBe(true);
        // stay under 5 searches per second per user
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    }
  });
});
