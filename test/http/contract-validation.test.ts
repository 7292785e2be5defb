/**
 * The 400 bodies of docs/api.md, "Errors", through the real app: `field` is the request path
 * as written, `reason` says what to change. Plus 413, 415, 404 and 405 in the same shape.
 */
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, keyStoreFor } from '../../src/auth/key-admin.js';
import { createApp } from '../../src/http/app.js';
import type { Services } from '../../src/services.js';
import { setUpServices } from '../support/env.js';

let services: Services;
let app: ReturnType<typeof createApp>;
let store: ReturnType<typeof keyStoreFor>;
let users = 0;

/** A key of a new user per request: these tests send far more than 5 requests a second. */
async function freshKey(): Promise<string> {
  users += 1;
  return (await createApiKey(store, { userId: `u-validation-${users}` })).key;
}

beforeAll(async () => {
  services = await setUpServices('contract-validation');
  store = keyStoreFor(services.redis, services.config.redisPrefix);
  app = createApp(services);
});
afterAll(async () => {
  await services.close();
});

async function post(path: string, body: unknown) {
  return request(app)
    .post(path)
    .set('X-API-Key', await freshKey())
    .send(body as object);
}

const invalid = 'The request is invalid; correct the fields listed in errors.';

describe.each([
  ['/rest/v1/corporates/search', 'name'],
  ['/rest/v1/jobs/search', 'jobCreatedAt'],
])('POST %s', (path, sortField) => {
  it.each([
    ['an unknown top-level field', { foo: 1 }, [{ field: 'foo', reason: 'is not a field of this request' }]],
    [
      'an unknown field inside filters',
      { filters: { foo: { any: [1] } } },
      [{ field: 'filters.foo', reason: 'is not a field of this request' }],
    ],
    ['limit 0', { limit: 0 }, [{ field: 'limit', reason: 'must be at least 1' }]],
    ['limit 1001', { limit: 1001 }, [{ field: 'limit', reason: 'must be at most 1000' }]],
    ['a negative offset', { offset: -1 }, [{ field: 'offset', reason: 'must be at least 0' }]],
    ['a wrong type', { limit: '10' }, [{ field: 'limit', reason: 'must be an integer' }]],
    [
      'a sort without order',
      { sort: { field: sortField } },
      [{ field: 'sort.order', reason: 'is required' }],
    ],
    [
      'a bad sort order',
      { sort: { field: sortField, order: 'up' } },
      [{ field: 'sort.order', reason: 'must be one of: asc, desc' }],
    ],
    [
      'a wrong type deep in an array',
      { filters: { corporatePrefectureId: { any: [13, 14, 'x'] } } },
      [{ field: 'filters.corporatePrefectureId.any[2]', reason: 'must be an integer' }],
    ],
    [
      'a bad date',
      { jobCreatedAtFrom: '2024/01/01' },
      [{ field: 'jobCreatedAtFrom', reason: 'must be a date YYYY-MM-DD' }],
    ],
    [
      'an impossible date',
      { filters: { jobCreatedAt: { from: '2024-02-30' } } },
      [{ field: 'filters.jobCreatedAt.from', reason: 'must be a date YYYY-MM-DD' }],
    ],
    [
      'a 12-digit corporate number',
      { corporateNumberOr: ['123456789012'] },
      [{ field: 'corporateNumberOr[0]', reason: 'must be a 13-digit corporate number' }],
    ],
    [
      'an unknown field in a filter group',
      { filterGroups: [{ jobTitle: { anyContains: ['営業'], bogus: 1 } }] },
      [
        {
          field: 'filterGroups[0].jobTitle.bogus',
          reason: expect.stringMatching(
            /^is not a condition of jobTitle; jobTitle takes: (.+, )?anyContains, /,
          ),
        },
      ],
    ],
  ])('%s -> 400 naming the field', async (_label, body, expected) => {
    const res = await post(path, body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      message: invalid,
      code: 'invalid_request',
      errors: expected,
      requestId: res.headers['x-request-id'],
      docUrl: '/docs/errors#invalid_request',
    });
  });

  it('a value outside an enumeration -> 400 listing the allowed values', async () => {
    const field = path.includes('corporates') ? 'corporateTypeOr' : 'corporateCorporateTypeOr';
    const res = await post(path, { [field]: ['kabushiki_gaisha', 'kk'] });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([
      {
        field: `${field}[1]`,
        reason: expect.stringMatching(/^must be one of: kabushiki_gaisha, yugen_gaisha, .*other$/),
      },
    ]);
  });

  it('an unknown sort field -> 400 listing the allowed ones', async () => {
    const res = await post(path, { sort: { field: 'nope', order: 'asc' } });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe(invalid);
    expect(res.body.errors).toHaveLength(1);
    expect(res.body.errors[0].field).toBe('sort.field');
    expect(res.body.errors[0].reason).toMatch(new RegExp(`^must be one of: .*\\b${sortField}\\b`));
  });

  it('reports every problem at once', async () => {
    const res = await post(path, { limit: 0, offset: -5, foo: true });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual(
      expect.arrayContaining([
        { field: 'limit', reason: 'must be at least 1' },
        { field: 'offset', reason: 'must be at least 0' },
        { field: 'foo', reason: 'is not a field of this request' },
      ]),
    );
    expect(res.body.errors).toHaveLength(3);
  });

  it('a body that is not an object -> 400 on the body', async () => {
    const res = await post(path, [1, 2]);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      message: invalid,
      code: 'invalid_request',
      errors: [{ field: 'body', reason: 'must be an object' }],
      requestId: res.headers['x-request-id'],
      docUrl: '/docs/errors#invalid_request',
    });
  });
});

describe('bodies that cannot be read', () => {
  it('malformed JSON -> 400', async () => {
    const res = await request(app)
      .post('/rest/v1/corporates/search')
      .set('X-API-Key', await freshKey())
      .set('Content-Type', 'application/json')
      .send('{"limit": 10,')
      .expect(400);
    expect(res.body).toEqual({
      message: 'The request body is not valid JSON.',
      code: 'malformed_json',
      errors: [{ field: 'body', reason: 'must be valid JSON' }],
      requestId: res.headers['x-request-id'],
      docUrl: '/docs/errors#malformed_json',
    });
  });

  it('a wrong content type -> 415', async () => {
    const res = await request(app)
      .post('/rest/v1/jobs/search')
      .set('X-API-Key', await freshKey())
      .set('Content-Type', 'text/plain')
      .send('limit=10')
      .expect(415);
    expect(res.body).toEqual({
      message: 'Send the request body as application/json.',
      code: 'unsupported_media_type',
      requestId: res.headers['x-request-id'],
      docUrl: '/docs/errors#unsupported_media_type',
    });
  });

  it('a body over 100 kB -> 413', async () => {
    const res = await post('/rest/v1/corporates/search', {
      corporateNameOr: Array.from({ length: 900 }, (_, i) => `${'株'.repeat(40)}${i}`),
    });
    expect(res.status).toBe(413);
    expect(res.body).toEqual({
      message: 'The request body is larger than 100kb.',
      code: 'payload_too_large',
      requestId: res.headers['x-request-id'],
      docUrl: '/docs/errors#payload_too_large',
    });
  });
});

describe('routes', () => {
  it('an unknown route under /rest/v1 -> 404 in the error shape', async () => {
    const res = await request(app)
      .get('/rest/v1/nothing-here')
      .set('X-API-Key', await freshKey())
      .expect(404);
    expect(res.body).toEqual({
      message: 'There is no endpoint GET /rest/v1/nothing-here; see /docs for the API reference.',
      code: 'route_not_found',
      requestId: res.headers['x-request-id'],
      docUrl: '/docs/errors#route_not_found',
    });
  });

  it('an unknown route outside /rest/v1 -> 404 in the error shape, no key needed', async () => {
    const res = await request(app).get('/nope?x=1').expect(404);
    expect(res.body).toEqual({
      message: 'There is no endpoint GET /nope; see /docs for the API reference.',
      code: 'route_not_found',
      requestId: res.headers['x-request-id'],
      docUrl: '/docs/errors#route_not_found',
    });
  });

  it('a wrong method -> 405 in the error shape', async () => {
    const res = await request(app)
      .get('/rest/v1/corporates/search')
      .set('X-API-Key', await freshKey())
      .expect(405);
    expect(res.body.message).toMatch(/does not accept GET/);
  });

  it('every response carries X-Request-Id', async () => {
    const res = await request(app).get('/nope');
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const own = await request(app).get('/nope').set('X-Request-Id', 'client-abc.123');
    expect(own.headers['x-request-id']).toBe('client-abc.123');
    const insane = await request(app).get('/nope').set('X-Request-Id', 'a b<script>');
    expect(insane.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });
});
