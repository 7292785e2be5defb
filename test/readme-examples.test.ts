/**
 * The README's consumer guide runs: every `search corporates|jobs '<body>'` example in it is
 * sent through the real app and must be answered 200, except the one showing an error, which
 * must be the 400 it describes.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, keyStoreFor } from '../src/auth/key-admin.js';
import { createApp } from '../src/http/app.js';
import { projectRoot } from '../src/project-root.js';
import type { Services } from '../src/services.js';
import { setUpServices } from './support/env.js';

const readme = readFileSync(path.join(projectRoot, 'README.md'), 'utf8');
const examples = [...readme.matchAll(/^search (corporates|jobs) '(.+)'$/gm)].map((match) => ({
  search: match[1] as string,
  body: JSON.parse(match[2] as string) as Record<string, unknown>,
}));

/** `match '<json body>'` and `suggest '<text>'` lines: the match and suggest examples. */
const matchExamples = [...readme.matchAll(/^match '(.+)'$/gm)].map(
  (match) => JSON.parse(match[1] as string) as Record<string, unknown>,
);
const suggestExamples = [...readme.matchAll(/^suggest '(.+)'$/gm)].map((match) => match[1] as string);

let services: Services;
let app: ReturnType<typeof createApp>;
let key = '';

beforeAll(async () => {
  services = await setUpServices('readme');
  const userId = 'readme-reader';
  ({ key } = await createApiKey(keyStoreFor(services.redis, services.config.redisPrefix), { userId }));
  await services.limits.ledger.grant(userId, 100);
  app = createApp(services);
});
afterAll(async () => {
  await services?.close();
});

describe('README search examples', () => {
  it('has examples for both searches', () => {
    expect(examples.length).toBeGreaterThanOrEqual(8);
    expect(new Set(examples.map((example) => example.search))).toEqual(new Set(['corporates', 'jobs']));
  });

  it('each is answered as the README says', async () => {
    for (const { search, body } of examples) {
      const res = await request(app).post(`/rest/v1/${search}/search`).set('X-API-Key', key).send(body);
      if (JSON.stringify(body).includes('prefectureID')) {
        expect(res.status).toBe(400);
        expect(res.body.errors).toContainEqual({
          field: 'filters.prefectureID',
          reason: 'is not a field of this request; did you mean "prefectureId"?',
        });
      } else {
        expect({ body, status: res.status, errors: res.body.errors }).toEqual({
          body,
          status: 200,
          errors: undefined,
        });
      }
      // stay under 5 searches per second per user
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  });
});

describe('README match and suggest examples', () => {
  it('are answered 200 with their shapes', async () => {
    expect(matchExamples.length).toBeGreaterThanOrEqual(1);
    expect(suggestExamples.length).toBeGreaterThanOrEqual(1);
    for (const body of matchExamples) {
      const res = await request(app).post('/rest/v1/corporates/match').set('X-API-Key', key).send(body);
      expect({ body, status: res.status, errors: res.body.errors }).toEqual({
        body,
        status: 200,
        errors: undefined,
      });
      expect(res.body.results).toHaveLength((body.records as unknown[]).length);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    for (const q of suggestExamples) {
      const res = await request(app)
        .get('/rest/v1/corporates/suggest')
        .query({ q, limit: 5 })
        .set('X-API-Key', key);
      expect({ q, status: res.status }).toEqual({ q, status: 200 });
      expect(Array.isArray(res.body.suggestions)).toBe(true);
    }
  });
});
