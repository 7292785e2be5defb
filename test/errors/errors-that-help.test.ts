/**
 * Errors that help: a misspelt field gets the closest name the schema allows at that place
 * ("did you mean ...?"), and each 400's `{field, reason}` list is in the request log line at
 * info level, without the values the caller sent.
 */
import { Writable } from 'node:stream';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, keyStoreFor } from '../../src/auth/key-admin.js';
import { suggestName } from '../../src/errors/suggest.js';
import { createApp } from '../../src/http/app.js';
import { createLogger } from '../../src/logger.js';
import type { Services } from '../../src/services.js';
import { setUpServices } from '../support/env.js';

let services: Services;
let app: ReturnType<typeof createApp>;
let key = '';
const lines: string[] = [];

beforeAll(async () => {
  services = await setUpServices('errors-help');
  const sink = new Writable({
    write(chunk, _encoding, callback) {
      lines.push(String(chunk));
      callback();
    },
  });
  const userId = 'helpful-errors';
  ({ key } = await createApiKey(keyStoreFor(services.redis, services.config.redisPrefix), { userId }));
  await services.limits.ledger.grant(userId, 100);
  // built after the Redis commands above: building the app holds the event loop for a moment,
  // long enough on a busy machine for an in-flight command to hit its 2 s timeout
  app = createApp({ ...services, logger: createLogger('info', sink) });
});
afterAll(async () => {
  await services?.close();
});

async function fieldErrors(path: string, body: object): Promise<unknown> {
  const res = await request(app).post(`/rest/v1${path}`).set('X-API-Key', key).send(body).expect(400);
  // stay under 5 searches per second per user
  await new Promise((resolve) => setTimeout(resolve, 220));
  return res.body.errors;
}

describe('did you mean ...?', () => {
  it.each([
    [
      '/corporates/search',
      { filters: { prefectureID: { any: [13] } } },
      'filters.prefectureID',
      'prefectureId',
    ],
    ['/corporates/search', { prefectureIdOrr: [13] }, 'prefectureIdOrr', 'prefectureIdOr'],
    ['/corporates/search', { limt: 5 }, 'limt', 'limit'],
    ['/corporates/search', { filters: { employeeCount: { mni: 5 } } }, 'filters.employeeCount.mni', 'min'],
    ['/corporates/search', { sort: { field: 'name', ordr: 'asc' } }, 'sort.ordr', 'order'],
    [
      '/corporates/search',
      { filterGroups: [{ jobMediaID: { any: [3] } }] },
      'filterGroups[0].jobMediaID',
      'jobMediaId',
    ],
    ['/jobs/search', { filters: { salry: { min: 200000 } } }, 'filters.salry', 'salary'],
  ])('%s %j -> %s: did you mean "%s"?', async (path, body, field, suggestion) => {
    const errors = (await fieldErrors(path, body)) as Array<{ field: string; reason: string }>;
    expect(errors.find((error) => error.field === field)?.reason).toMatch(
      new RegExp(`^is not a (field of this request|condition of [A-Za-z]+); did you mean "${suggestion}"\\?`),
    );
  });

  it('suggests nothing for a name that is not close to any', async () => {
    expect(await fieldErrors('/corporates/search', { filters: { shoeSize: { any: [1] } } })).toEqual([
      { field: 'filters.shoeSize', reason: 'is not a field of this request' },
    ]);
    expect(suggestName('foo', ['limit', 'offset', 'sort'])).toBeUndefined();
    expect(suggestName('PREFECTUREID', ['prefectureId'])).toBe('prefectureId');
  });
});

describe('400 reasons in the request log', () => {
  it('logs field and reason at info level, never the values sent', async () => {
    lines.length = 0;
    const secretish = 'taro.yamada@example.com';
    await request(app)
      .post('/rest/v1/corporates/search')
      .set('X-API-Key', key)
      .send({ limit: 5000, filters: { cityName: { anyContains: [secretish, ''] } } })
      .expect(400);
    const line = lines.map((text) => JSON.parse(text)).find((entry) => entry.res?.statusCode === 400);
    expect(line).toBeDefined();
    expect(line.level).toBe(30); // info
    expect(line.errors).toEqual([
      { field: 'limit', reason: 'must be at most 1000' },
      { field: 'filters.cityName.anyContains[1]', reason: 'must not be empty' },
    ]);
    const text = lines.join('');
    expect(text).not.toContain(secretish);
    expect(text).not.toContain(key);
  });

  it("logs a master value's field and reason, not the value the body names", async () => {
    lines.length = 0;
    const res = await request(app)
      .post('/rest/v1/corporates/search')
      .set('X-API-Key', key)
      .send({ prefectureIdOr: [13, 987654] })
      .expect(400);
    const reason =
      'is not an id of the prefectures master; the valid ones are listed at GET /rest/v1/master/prefectures';
    expect(res.body.errors).toEqual([{ field: 'prefectureIdOr[1]', reason, value: 987654 }]);
    const line = lines.map((text) => JSON.parse(text)).find((entry) => entry.res?.statusCode === 400);
    expect(line.errors).toEqual([{ field: 'prefectureIdOr[1]', reason }]);
    expect(lines.join('')).not.toContain('987654');
  });
});
