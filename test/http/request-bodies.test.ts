/**
 * Request bodies the JSON parser used to let through or turn into a 500, through the real app
 * on a real HTTP server (createHttpServer) with the real Redis and OpenSearch:
 *
 *   - Content-Encoding: a gzip body that does not gunzip is a 400, any coding but gzip and
 *     identity a 415, each naming what to send instead; a good gzip body still works;
 *   - bytes JSON.parse changes without a word: invalid UTF-8 (400 malformed_json), a lone
 *     surrogate escape and a duplicate key (400 invalid_request), each naming its field.
 *
 * None of them reaches a search or a charge.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, keyStoreFor } from '../../src/auth/key-admin.js';
import { createApp } from '../../src/http/app.js';
import { createHttpServer } from '../../src/http/server.js';
import { createLimits } from '../../src/limits/limits.js';
import type { Services } from '../../src/services.js';
import { setUpServices } from '../support/env.js';

let services: Services;
let server: Server;
let base: string;
let key: string;

beforeAll(async () => {
  services = await setUpServices('request-bodies');
  // many requests in a row: out of the rate limiter's way
  const limits = createLimits({
    redis: services.redis,
    keyPrefix: services.config.redisPrefix,
    config: { rateLimitExemptUsers: new Set(['bodies']) },
  });
  services = { ...services, limits };
  server = createHttpServer(createApp(services), {
    headersTimeoutMs: 5000,
    requestTimeoutMs: 10_000,
    keepAliveTimeoutMs: 5000,
  });
  server.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  key = (await createApiKey(keyStoreFor(services.redis, services.config.redisPrefix), { userId: 'bodies' }))
    .key;
  await services.limits.ledger.grant('bodies', 1_000);
});
afterAll(async () => {
  if (server) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  await services?.close();
});

const searchBody = '{"filters":{"corporateName":{"anyContains":["株式会社"]}},"limit":1}';

function post(body: Buffer | string, headers: Record<string, string> = {}, route = '/corporates/search') {
  return fetch(`${base}/rest/v1${route}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key, ...headers },
    body: Uint8Array.from(typeof body === 'string' ? Buffer.from(body) : body),
  });
}

/** Bytes: text pieces as UTF-8 and numbers as raw bytes. */
const bytes = (...parts: Array<string | number[]>) =>
  Buffer.concat(parts.map((part) => (typeof part === 'string' ? Buffer.from(part) : Buffer.from(part))));

async function expectRefused(res: Response, status: number, code: string) {
  const body = await res.json();
  expect({ status: res.status, code: body.code }).toEqual({ status, code });
  // refused before the credit reservation: nothing charged
  expect(res.headers.get('x-credits-remaining')).toBeNull();
  return body as { message: string; code: string; errors?: Array<{ field: string; reason: string }> };
}

describe('Content-Encoding', () => {
  it('a valid gzip body is searched as the same body sent plain', async () => {
    const plain = await post(searchBody);
    expect(plain.status).toBe(200);
    const gzipped = await post(gzipSync(searchBody), { 'content-encoding': 'gzip' });
    expect(gzipped.status).toBe(200);
    expect((await gzipped.json()).totalResults).toBe((await plain.json()).totalResults);
    expect((await post(gzipSync(searchBody), { 'content-encoding': 'GZIP' })).status).toBe(200);
  });

  it('identity is the body as it is', async () => {
    expect((await post(searchBody, { 'content-encoding': 'identity' })).status).toBe(200);
  });

  it.each([
    ['garbage bytes', Buffer.from('this is not gzip at all, just bytes')],
    ['plain JSON', Buffer.from(searchBody)],
    ['a gzip stream cut short', gzipSync(searchBody).subarray(0, 20)],
    ['a gzip stream without its trailer', gzipSync(searchBody).subarray(0, -8)],
    ['a gzip header and nothing else', gzipSync(searchBody).subarray(0, 10)],
  ])(
    'gzip that does not gunzip (%s): 400 malformed_compressed_body, saying what to send',
    async (_name, body) => {
      const res = await post(body, { 'content-encoding': 'gzip' });
      const answer = await expectRefused(res, 400, 'malformed_compressed_body');
      expect(answer.message).toMatch(/not a complete gzip stream/);
      expect(answer.message).toMatch(/uncompressed without Content-Encoding/);
      expect(answer.errors).toEqual([
        { field: 'body', reason: 'must be a complete gzip stream, as Content-Encoding: gzip says' },
      ]);
    },
  );

  it.each([
    ['br on plain JSON', 'br', Buffer.from(searchBody)],
    ['br on a valid brotli body', 'br', brotliCompressSync(searchBody)],
    ['deflate', 'deflate', deflateSync(searchBody)],
    ['zstd', 'zstd', Buffer.from(searchBody)],
    ['compress', 'compress', Buffer.from(searchBody)],
    ['x-gzip', 'x-gzip', gzipSync(searchBody)],
    ['two codings', 'gzip, gzip', gzipSync(gzipSync(searchBody))],
    ['a made-up coding', 'foo', Buffer.from(searchBody)],
  ])('%s: 415 unsupported_content_encoding, naming the accepted codings', async (_name, coding, body) => {
    const res = await post(body, { 'content-encoding': coding });
    const answer = await expectRefused(res, 415, 'unsupported_content_encoding');
    expect(answer.message).toMatch(/uncompressed .* or gzip-compressed \(Content-Encoding: gzip\)/);
    expect(answer.errors).toEqual([
      {
        field: 'Content-Encoding',
        reason: `must be gzip or identity (or left out), not ${JSON.stringify(coding)}`,
      },
    ]);
  });

  it('a gzip body over 100 kB once decompressed: 413, as a plain one', async () => {
    const big = JSON.stringify({ limit: 1, pad: 'x'.repeat(200_000) });
    const res = await post(gzipSync(big), { 'content-encoding': 'gzip' });
    await expectRefused(res, 413, 'payload_too_large');
  });
});

describe('invalid UTF-8', () => {
  it('in a string: 400 malformed_json naming the field', async () => {
    const res = await post(
      bytes('{"filters":{"corporateName":{"anyContains":["', [0xff, 0xfe], '"]}},"limit":1}'),
    );
    const answer = await expectRefused(res, 400, 'malformed_json');
    expect(answer.errors).toEqual([
      {
        field: 'filters.corporateName.anyContains[0]',
        reason: 'is not valid UTF-8: send the body as UTF-8 text',
      },
    ]);
  });

  it('a surrogate written in UTF-8 bytes (CESU-8): the same', async () => {
    const res = await post(
      bytes('{"filters":{"corporateName":{"anyContains":["a', [0xed, 0xa0, 0x80], '"]}}}'),
    );
    const answer = await expectRefused(res, 400, 'malformed_json');
    expect(answer.errors?.[0]?.field).toBe('filters.corporateName.anyContains[0]');
  });

  it('outside any string: 400 malformed_json naming body, saying UTF-8', async () => {
    const res = await post(bytes('{"limit":1}', [0xff]));
    const answer = await expectRefused(res, 400, 'malformed_json');
    expect(answer.errors).toEqual([
      { field: 'body', reason: 'must be valid JSON in UTF-8: it holds bytes that are not UTF-8' },
    ]);
  });

  it('inside a gzip body: found after decompression', async () => {
    const res = await post(gzipSync(bytes('{"sort":{"field":"na', [0xc3], '"}}')), {
      'content-encoding': 'gzip',
    });
    const answer = await expectRefused(res, 400, 'malformed_json');
    expect(answer.errors?.[0]?.field).toBe('sort.field');
  });

  it('U+FFFD sent as proper UTF-8 is a character like any other', async () => {
    expect((await post('{"filters":{"corporateName":{"anyContains":["\ufffd"]}},"limit":1}')).status).toBe(
      200,
    );
  });
});

describe('lone surrogates', () => {
  it('"\\ud800" in a string: 400 invalid_request naming the field as the API names fields', async () => {
    const res = await post('{"filters":{"corporateName":{"anyContains":["\\ud800"]}},"limit":1}');
    const answer = await expectRefused(res, 400, 'invalid_request');
    expect(answer.errors).toEqual([
      { field: 'filters.corporateName.anyContains[0]', reason: expect.stringContaining('lone surrogate') },
    ]);
  });

  it('a low surrogate alone, on a count and an export too', async () => {
    for (const route of ['/corporates/count', '/jobs/export']) {
      const res = await post('{"filters":{"corporateName":{"anyContains":["x\\udfff"]}}}', {}, route);
      const answer = await expectRefused(res, 400, 'invalid_request');
      expect(answer.errors?.[0]?.field, route).toBe('filters.corporateName.anyContains[0]');
    }
  });

  it('a valid pair ("\\ud83d\\ude00") is searched', async () => {
    expect(
      (await post('{"filters":{"corporateName":{"anyContains":["\\ud83d\\ude00"]}},"limit":1}')).status,
    ).toBe(200);
  });
});

describe('duplicate keys', () => {
  it('at the top: 400 invalid_request naming the key, not the last value silently', async () => {
    const res = await post('{"limit":1,"limit":500}');
    const answer = await expectRefused(res, 400, 'invalid_request');
    expect(answer.errors).toEqual([
      { field: 'limit', reason: 'is given more than once: send each field once' },
    ]);
  });

  it('nested: names its path', async () => {
    const res = await post('{"filters":{"corporateName":{"anyContains":["a"],"anyContains":["b"]}}}');
    const answer = await expectRefused(res, 400, 'invalid_request');
    expect(answer.errors).toEqual([
      { field: 'filters.corporateName.anyContains', reason: 'is given more than once: send each field once' },
    ]);
  });

  it('escaped quotes and nested objects with the same keys apart are fine', async () => {
    const res = await post(
      '{"filters":{"corporateName":{"anyContains":["say \\"hi\\""]}},"filterGroups":[{"prefectureId":{"any":[13]}},{"prefectureId":{"any":[27]}}],"limit":1}',
    );
    expect(res.status).toBe(200);
  });
});
