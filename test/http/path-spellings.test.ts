/**
 * No spelling of a path reaches a handler without its auth, rate limit and price (issue D1 of
 * the security round: `/REST/V1/corporates/search` answered 200 with no limit and no charge,
 * because the limits matched paths case-sensitively while Express routes any letter case).
 *
 * Every operation of openapi.yaml is sent spelled exactly and spelled otherwise (letter case,
 * trailing and doubled slashes, percent-encoding, `.` and `..` segments), on raw sockets so
 * that no client normalises the path. Each spelling is either refused (404 before any
 * handler: no engine query, no rate-limit count, no charge) or limited and charged exactly as
 * the exact spelling is. Real redis-server and OpenSearch.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operations } from '../../src/catalogue/operations.js';
import { openApiDocument } from '../../src/http/validation.js';
import { createLimits, type Limits } from '../../src/limits/limits.js';
import type { Services } from '../../src/services.js';
import { setUpServices } from '../support/env.js';
import {
  detailJobId,
  queryTotal,
  startLimitsTestApp,
  type TestApp,
  userHeaders,
} from '../support/limits-test-app.js';

let services: Services;
let limits: Limits;
let app: TestApp;
const searchCost = 2;
const detailCost = 1;

beforeAll(async () => {
  services = await setUpServices('path-spellings');
  limits = createLimits({
    redis: services.redis,
    keyPrefix: services.config.redisPrefix,
    config: { ratePerSecond: 1_000_000, searchCost, detailCost },
  });
  app = await startLimitsTestApp({
    limits,
    opensearch: services.opensearch,
    indexPrefix: services.config.indexPrefix,
  });
});
afterAll(async () => {
  await app?.close();
  await services?.close();
});

interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** One request with the path sent byte for byte as given (no URL parsing on the way). */
function raw(
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<RawAnswer> {
  const { port, hostname } = new URL(app.url);
  // a string is a form body (the reconciliation batch), anything else JSON
  const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
  const contentType = typeof body === 'string' ? 'application/x-www-form-urlencoded' : 'application/json';
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: hostname,
        port,
        method,
        path,
        headers: payload
          ? {
              ...headers,
              'content-type': contentType,
              'content-length': String(Buffer.byteLength(payload)),
            }
          : headers,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString(),
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

// a path parameter (a job id, a match job's or a saved search's id) is spelled as the detail's job id
const exactPath = (path: string) => `/rest/v1${path.replace(/\{[A-Za-z]+\}/, detailJobId)}`;

/** Other spellings of an exact path: each names the same operation to a lenient router. */
function otherSpellings(path: string): string[] {
  const upperFirst = path.replace(
    /\/([a-z])([a-z-]*)/g,
    (_all, first: string, rest: string) => `/${first.toUpperCase()}${rest}`,
  );
  const tail = path.slice('/rest/v1/'.length);
  const lastLetter = path.search(/[a-z](?=[^a-z]*$)/);
  return [
    path.toUpperCase().replace(detailJobId.toUpperCase(), detailJobId),
    upperFirst,
    path.replace('/rest/v1', '/REST/V1'),
    path.replace('/rest/v1', '/rest/V1'),
    `${path}/`,
    `${path}//`,
    path.replace('/rest/v1/', '/rest/v1//'),
    path.replace('/rest/v1/', '//rest/v1/'),
    `/rest/v1/${tail.replace('/', '//')}`,
    `/rest/v1/./${tail}`,
    `/rest/v1/master/../${tail}`,
    `/rest/v1/${tail.replace('/', '/./')}`,
    // a letter percent-encoded, and a slash percent-encoded
    `${path.slice(0, lastLetter)}%${path.charCodeAt(lastLetter).toString(16)}${path.slice(lastLetter + 1)}`,
    `/rest/v1/${tail.replace('/', '%2F')}`,
    path.replace('/rest/v1', '/rest%2Fv1'),
    // a path of one segment under /rest/v1 (/reconcile) has no inner slash to vary
  ].filter((spelling) => spelling !== path);
}

describe('the operations table is the API description', () => {
  it('names every operation of openapi.yaml, and no other', () => {
    const described = Object.entries(openApiDocument().paths ?? {}).flatMap(([path, item]) =>
      (['get', 'post', 'put', 'delete', 'patch'] as const)
        .filter((method) => item?.[method])
        .map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(operations.map((operation) => `${operation.method} ${operation.path}`).sort()).toEqual(
      described.sort(),
    );
  });
});

describe.each(operations.map((operation) => [`${operation.method} ${operation.path}`, operation] as const))(
  '%s, spelled every which way',
  (_name, operation) => {
    const path = exactPath(operation.path);
    const body =
      operation.method === 'POST'
        ? operation.path === '/reconcile'
          ? `queries=${encodeURIComponent(JSON.stringify({ q0: { query: 'どこにもない名前' } }))}`
          : operation.limit === 'export'
            ? { format: 'jsonl', maxCredits: 3 }
            : operation.limit === 'match'
              ? { records: [{ name: 'どこにもない名前' }] }
              : operation.limit === 'savedSearch'
                ? { name: 'x', search: 'corporates', body: {} }
                : operation.path === '/webhooks'
                  ? { savedSearchId: 'ss_00000000000000000000', url: 'https://hooks.example.jp/x' }
                  : operation.limit === 'webhook'
                    ? undefined
                    : { limit: 1 }
        : undefined;
    const cost = operation.limit === 'search' ? searchCost : operation.limit === 'detail' ? detailCost : 0;
    // an operation's required query, sent after every spelling of its path
    const query =
      {
        '/reconcile/suggest/entity': '?prefix=nova',
        '/reconcile/suggest/property': '?prefix=pre',
        // a valid corporate number no company of this file's index has: the preview's 404
        '/reconcile/preview': '?id=9000000999999',
      }[operation.path] ?? (operation.limit === 'suggest' ? '?q=nova' : '');
    const exactStatus = operation.path === '/reconcile/preview' ? 404 : 200;
    // the reconciliation manifest is free to read without a key (docs/reconciliation.md)
    const keyless = operation.method === 'GET' && operation.path === '/reconcile' ? 200 : 401;

    it('each other spelling is a 404 before any handler: no engine query, no rate count, no charge', async () => {
      const user = `spell-${operation.method}-${operation.path}`;
      await limits.ledger.grant(user, 100);
      const headers = await userHeaders(user);
      const exact = await raw(operation.method, `${path}${query}`, headers, body);
      // the limits test app runs without Redis: a match job's or a saved search's operation
      // reaches its handler, which answers that there are none here (503), after the rate limit
      const storeless = ['matchJob', 'savedSearch', 'changes', 'webhook'].includes(operation.limit ?? '');
      expect(exact.status).toBe(storeless ? 503 : exactStatus);
      if (operation.limit) expect(exact.headers['x-ratelimit-limit']).toBeDefined();
      else expect(exact.headers['x-ratelimit-limit']).toBeUndefined();
      if (operation.limit !== 'export') expect(await limits.ledger.balance(user)).toBe(100 - cost);

      for (const spelling of otherSpellings(path)) {
        const before = await limits.ledger.balance(user);
        const queriesBefore = await queryTotal(services.opensearch, services.config.indexPrefix);
        const answer = await raw(operation.method, `${spelling}${query}`, headers, body);
        expect({ spelling, status: answer.status }).toEqual({ spelling, status: 404 });
        expect(JSON.parse(answer.body).code).toBe('route_not_found');
        expect(answer.headers['x-ratelimit-limit']).toBeUndefined();
        expect(answer.headers['x-credits-remaining']).toBeUndefined();
        expect(await limits.ledger.balance(user)).toBe(before);
        expect(await queryTotal(services.opensearch, services.config.indexPrefix)).toBe(queriesBefore);
      }
    });

    it('a spelling that differs in case or slashes names the exact one in its 404', async () => {
      const answer = await raw(
        operation.method,
        path.replace('/rest/v1', '/REST/V1'),
        await userHeaders('hint'),
        body,
      );
      expect(answer.status).toBe(404);
      expect(JSON.parse(answer.body).message).toContain(`did you mean ${operation.method} ${path}?`);
    });

    it('without a key, no spelling answers anything but 401 or 404', async () => {
      expect((await raw(operation.method, `${path}${query}`, {}, body)).status).toBe(keyless);
      for (const spelling of otherSpellings(path)) {
        expect({ spelling, status: (await raw(operation.method, spelling, {}, body)).status }).toEqual({
          spelling,
          status: 404,
        });
      }
    });
  },
);

describe('spellings that name the exact operation are limited and charged as it is', () => {
  it('a zero balance gets 402 on every spelling of a search that reaches it, and no records', async () => {
    const headers = await userHeaders('broke');
    for (const search of ['corporates', 'jobs']) {
      for (const spelling of [`/rest/v1/${search}/search`, ...otherSpellings(`/rest/v1/${search}/search`)]) {
        const answer = await raw('POST', spelling, headers, { limit: 100 });
        expect([402, 404]).toContain(answer.status);
        expect(answer.body).not.toContain('corporateNumber');
      }
    }
  });

  it('a percent-encoded job id reaches the detail, rate limited and charged; HEAD is counted as a GET and refused', async () => {
    const user = 'detail-spellings';
    await limits.ledger.grant(user, 10);
    const headers = await userHeaders(user);
    const encoded = await raw(
      'GET',
      `/rest/v1/jobs/${encodeURIComponent(detailJobId).replace('-', '%2D')}/detail`,
      headers,
    );
    expect(encoded.status).toBe(200);
    expect(encoded.headers['x-ratelimit-limit']).toBeDefined();
    expect(await limits.ledger.balance(user)).toBe(10 - detailCost);
    // openapi.yaml has no HEAD for the detail: the validator's 405, after the rate limit
    const head = await raw('HEAD', exactPath('/jobs/{jobId}/detail'), headers);
    expect(head.status).toBe(405);
    expect(head.headers['x-ratelimit-limit']).toBeDefined();
    expect(await limits.ledger.balance(user)).toBe(10 - detailCost);
  });

  it('`.` and `..` as a job id are not a path: 404', async () => {
    const headers = await userHeaders('dots');
    for (const id of ['.', '..'])
      expect((await raw('GET', `/rest/v1/jobs/${id}/detail`, headers)).status).toBe(404);
  });
});
