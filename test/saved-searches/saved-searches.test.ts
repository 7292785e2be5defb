/**
 * Saved searches through the real app, with Redis (src/http/routes/saved-searches.ts): saved,
 * listed newest first, opened (its body runs as the search it names), deleted; each user sees
 * only their own; the body is checked as the search checks it, each problem under `body.`;
 * the per-user cap holds under concurrent saves; free of credits.
 */
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, keyStoreFor } from '../../src/auth/key-admin.js';
import { defaultConfig } from '../../src/config.js';
import { createApp } from '../../src/http/app.js';
import type { Services } from '../../src/services.js';
import { corporate, indexFixture } from '../fixtures/search/docs.js';
import { setUpServices } from '../support/env.js';

let services: Services;
let app: ReturnType<typeof createApp>;
const cap = 3;

async function newUser(credits = 10): Promise<{ key: string; userId: string }> {
  const userId = `u-${Math.random().toString(36).slice(2)}`;
  const { key } = await createApiKey(keyStoreFor(services.redis, services.config.redisPrefix), { userId });
  await services.limits.ledger.grant(userId, credits);
  return { key, userId };
}

const balanceOf = (userId: string) => services.limits.ledger.balance(userId);

const save = (key: string, body: unknown) =>
  request(app)
    .post('/rest/v1/saved-searches')
    .set('X-API-Key', key)
    .send(body as object);
const get = (key: string, path: string) => request(app).get(`/rest/v1${path}`).set('X-API-Key', key);

beforeAll(async () => {
  services = await setUpServices('saved-searches', {
    savedSearchesPerUser: cap,
    // the tests send bursts: the rate limit (tested elsewhere) is out of their way
    limits: { ...defaultConfig().limits, ratePerSecond: 10_000 },
  });
  app = createApp(services);
  await indexFixture(services.opensearch, services.config.indexPrefix, {
    corporates: [
      corporate({ corporateNumber: '7000000000001', name: '大阪テック', prefectureId: 27 }),
      corporate({ corporateNumber: '7000000000002', name: '東京テック', prefectureId: 13 }),
    ],
    jobs: [],
  });
});
afterAll(async () => {
  await services?.close();
});

describe('saved searches', () => {
  it('saves, lists newest first, opens and deletes, for free', async () => {
    const { key, userId } = await newUser();
    const first = await save(key, {
      name: '大阪',
      search: 'corporates',
      body: { prefectureIdOr: [27] },
    }).expect(201);
    expect(first.body).toMatchObject({ name: '大阪', search: 'corporates', body: { prefectureIdOr: [27] } });
    expect(first.body.id).toMatch(/^ss_[0-9a-f]{20}$/);
    expect(first.headers.location).toBe(`/rest/v1/saved-searches/${first.body.id}`);
    const second = await save(key, {
      name: '求人',
      search: 'jobs',
      body: { mediaIdOr: [1], limit: 5 },
    }).expect(201);
    const listed = await get(key, '/saved-searches').expect(200);
    // the same millisecond orders by id; otherwise the newer first
    expect(listed.body.results.map((saved: { id: string }) => saved.id).sort()).toEqual(
      [first.body.id, second.body.id].sort(),
    );
    if (first.body.createdAt !== second.body.createdAt)
      expect(listed.body.results[0].id).toBe(second.body.id);
    // opened: the body runs as the search it names
    const opened = await get(key, `/saved-searches/${first.body.id}`).expect(200);
    expect(opened.body).toEqual(first.body);
    const answer = await request(app)
      .post('/rest/v1/corporates/search')
      .set('X-API-Key', key)
      .send(opened.body.body)
      .expect(200);
    expect(answer.body.results.map((record: { name: string }) => record.name)).toEqual(['大阪テック']);
    await request(app).delete(`/rest/v1/saved-searches/${first.body.id}`).set('X-API-Key', key).expect(204);
    await get(key, `/saved-searches/${first.body.id}`).expect(404);
    await request(app).delete(`/rest/v1/saved-searches/${first.body.id}`).set('X-API-Key', key).expect(404);
    expect((await get(key, '/saved-searches').expect(200)).body.results).toHaveLength(1);
    // one search was charged; saving, listing, opening and deleting were free
    expect(await balanceOf(userId)).toBe(9);
  });

  it("keeps each user's apart: another user's id is a 404, as an unknown one", async () => {
    const owner = await newUser();
    const other = await newUser();
    const saved = await save(owner.key, { name: 'x', search: 'corporates', body: {} }).expect(201);
    const refused = await get(other.key, `/saved-searches/${saved.body.id}`).expect(404);
    expect(refused.body.code).toBe('not_found');
    await request(app)
      .delete(`/rest/v1/saved-searches/${saved.body.id}`)
      .set('X-API-Key', other.key)
      .expect(404);
    expect((await get(other.key, '/saved-searches').expect(200)).body.results).toEqual([]);
    await get(owner.key, `/saved-searches/${saved.body.id}`).expect(200);
    await get(owner.key, '/saved-searches/ss_not-an-id').expect(404);
  });

  it('checks the body as its search does, naming each problem under body.', async () => {
    const { key } = await newUser();
    const unknownFilter = await save(key, {
      name: 'x',
      search: 'jobs',
      body: { prefectureIdOr: [13] },
    }).expect(400);
    expect(unknownFilter.body.errors.map((problem: { field: string }) => problem.field)).toEqual([
      'body.prefectureIdOr',
    ]);
    const badMaster = await save(key, {
      name: 'x',
      search: 'corporates',
      body: { prefectureIdOr: [13, 48] },
    }).expect(400);
    expect(badMaster.body.errors).toEqual([
      expect.objectContaining({ field: 'body.prefectureIdOr[1]', value: 48 }),
    ]);
    const wrongKind = await save(key, { name: 'x', search: 'companies', body: {} }).expect(400);
    expect(wrongKind.body.errors.map((problem: { field: string }) => problem.field)).toContain('search');
    await save(key, { name: '', search: 'corporates', body: {} }).expect(400);
    await save(key, { name: 'x', search: 'corporates' }).expect(400);
    expect((await get(key, '/saved-searches').expect(200)).body.results).toEqual([]);
  });

  it('holds the per-user cap under concurrent saves', async () => {
    const { key } = await newUser();
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) => save(key, { name: `n${i}`, search: 'corporates', body: {} })),
    );
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses).toEqual([...Array(cap).fill(201), ...Array(8 - cap).fill(409)]);
    const refused = answers.find((answer) => answer.status === 409);
    expect(refused?.body.code).toBe('saved_search_limit');
    expect((await get(key, '/saved-searches').expect(200)).body.results).toHaveLength(cap);
  });
});
