/**
 * The one error middleware on its own: an unexpected error becomes a generic 500 in the error
 * shape, its text and stack stay in our log, never in the response.
 */
import { Writable } from 'node:stream';
import { errors as opensearchErrors } from '@opensearch-project/opensearch';
import express from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { errors } from '../../src/errors/catalogue.js';
import { errorMiddleware, notFound } from '../../src/http/error-middleware.js';
import { requestId } from '../../src/http/request-id.js';
import { createLogger } from '../../src/logger.js';

function appThrowing(error: unknown, lines: string[]) {
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  const app = express();
  app.use(requestId());
  app.get('/boom', () => {
    throw error;
  });
  app.use(notFound());
  app.use(errorMiddleware(createLogger('info', sink)));
  return app;
}

describe('error middleware', () => {
  it('an unexpected error -> 500, generic message, cause logged with the request id only', async () => {
    const lines: string[] = [];
    const secret = 'search_phase_execution_exception at org.opensearch.Foo';
    const res = await request(appThrowing(new Error(secret), lines))
      .get('/boom')
      .set('X-Request-Id', 'boom-1')
      .expect(500);
    expect(res.body).toEqual({
      message: 'Internal server error.',
      code: 'internal_error',
      requestId: res.headers['x-request-id'],
      docUrl: '/docs/errors#internal_error',
    });
    expect(res.text).not.toContain('opensearch');
    expect(res.text).not.toContain('at ');
    const logged = JSON.parse(lines.join(''));
    expect(res.body.requestId).toBe('boom-1');
    expect(logged).toMatchObject({
      requestId: 'boom-1',
      msg: 'unexpected error',
      error: { name: 'Error', message: secret },
    });
    expect(logged.error.stack).toBeUndefined();
    expect(lines.join('')).not.toContain('at file:');
  });

  it('an OpenSearch client error -> 500, its text neither in the response nor in the log', async () => {
    const lines: string[] = [];
    const engineText = 'index_not_found_exception: no such index [secret-index]';
    const error = new opensearchErrors.ResponseError({
      body: { error: { type: 'index_not_found_exception', reason: engineText } },
      statusCode: 404,
      headers: {},
      warnings: null,
      meta: {} as never,
    });
    const res = await request(appThrowing(error, lines)).get('/boom').expect(500);
    expect(res.body).toEqual({
      message: 'Internal server error.',
      code: 'internal_error',
      requestId: res.headers['x-request-id'],
      docUrl: '/docs/errors#internal_error',
    });
    const logged = lines.join('');
    expect(logged).not.toContain('secret-index');
    expect(logged).not.toContain('index_not_found_exception');
    expect(JSON.parse(logged).error).toEqual({ name: 'ResponseError', statusCode: 404 });
  });

  it('something thrown that is not an Error -> the same 500', async () => {
    const res = await request(appThrowing('a string', [])).get('/boom').expect(500);
    expect(res.body).toEqual({
      message: 'Internal server error.',
      code: 'internal_error',
      requestId: res.headers['x-request-id'],
      docUrl: '/docs/errors#internal_error',
    });
  });

  it('a catalogue error keeps its status, body and headers', async () => {
    const res = await request(
      appThrowing(errors.rateLimited({ retryAfterSeconds: 3, perSecond: 5, windowSeconds: 1 }), []),
    )
      .get('/boom')
      .expect(429);
    expect(res.body).toEqual({
      message: 'Rate limit exceeded: at most 5 requests per second per user.',
      code: 'rate_limited',
      requestId: res.headers['x-request-id'],
      docUrl: '/docs/errors#rate_limited',
    });
    expect(res.headers['retry-after']).toBe('3');
  });
});
