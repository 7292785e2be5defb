/**
 * Mapping of OpenSearch failures (the client's own error classes) onto the error catalogue:
 * a query the engine will never run is a 400 without Retry-After, everything transient is 503
 * with Retry-After, anything else a 500; none carries nor logs the engine's text. Real engine
 * refusals are mapped in test/search/query-limits.test.ts. The unreachable-engine case runs end to end in test/search/search-routes.test.ts.
 */
import { errors as clientErrors } from '@opensearch-project/opensearch';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { assertComplete, toSearchError } from '../../src/search/opensearch-errors.js';

const secret = 'index [t-secret-corporates] query_shard_exception: failed to parse [SELECT]';

function responseError(statusCode: number, type: string) {
  return new clientErrors.ResponseError({
    body: { error: { type, reason: secret } },
    statusCode,
    headers: {},
    meta: {} as never,
    warnings: null,
  });
}

function capture() {
  const lines: string[] = [];
  const logger = createLogger('info', { write: (line: string) => lines.push(line) });
  return { logger, lines };
}

describe('toSearchError', () => {
  it.each([
    ['429 rejected execution', responseError(429, 'es_rejected_execution_exception')],
    ['503 no shards', responseError(503, 'search_phase_execution_exception')],
    ['504 gateway', responseError(504, 'timeout')],
    ['500 engine fault', responseError(500, 'search_phase_execution_exception')],
    ['client timeout', new clientErrors.TimeoutError(secret, {} as never)],
    ['connection refused', new clientErrors.ConnectionError(secret)],
  ])('%s -> 503 with Retry-After, no engine text', (_label, error) => {
    const { logger, lines } = capture();
    const mapped = toSearchError(error, logger);
    expect(mapped.status).toBe(503);
    expect(mapped.headers['Retry-After']).toMatch(/^\d+$/);
    expect(JSON.stringify(mapped.toBody())).not.toContain('t-secret');
    expect(lines.join('')).not.toContain('t-secret');
    expect(lines).toHaveLength(1);
  });

  it.each([
    ['a query the engine cannot build (400)', responseError(400, 'query_shard_exception'), 'query_rejected'],
    [
      'past the clause limit (500, cause too_many_nested_clauses)',
      new clientErrors.ResponseError({
        body: {
          error: {
            type: 'search_phase_execution_exception',
            reason: secret,
            root_cause: [{ type: 'too_many_nested_clauses', reason: secret }],
          },
        },
        statusCode: 500,
        headers: {},
        meta: {} as never,
        warnings: null,
      }),
      'query_too_complex',
    ],
  ])('%s: a 400 without Retry-After, type logged, text not', (_label, error, code) => {
    const { logger, lines } = capture();
    const mapped = toSearchError(error, logger);
    expect(mapped.status).toBe(400);
    expect(mapped.code).toBe(code);
    expect(mapped.headers['Retry-After']).toBeUndefined();
    expect(JSON.stringify(mapped.toBody())).not.toContain('t-secret');
    expect(lines.join('')).toContain('"rejection"');
    expect(lines.join('')).not.toContain('t-secret');
  });

  it('any other refusal (a 404 of a missing index) is our fault: 500, text not logged', () => {
    const { logger, lines } = capture();
    const mapped = toSearchError(responseError(404, 'index_not_found_exception'), logger);
    expect(mapped.status).toBe(500);
    expect(JSON.stringify(mapped.toBody())).not.toContain('t-secret');
    expect(lines.join('')).toContain('index_not_found_exception');
    expect(lines.join('')).not.toContain('t-secret');
  });
});

describe('assertComplete', () => {
  it('treats a timed-out or partial answer as unavailable', () => {
    expect(() => assertComplete({ timed_out: true, _shards: { failed: 0 } })).toThrow(
      expect.objectContaining({ status: 503 }),
    );
    expect(() => assertComplete({ timed_out: false, _shards: { failed: 1 } })).toThrow(
      expect.objectContaining({ status: 503 }),
    );
    expect(() => assertComplete({ timed_out: false, _shards: { failed: 0 } })).not.toThrow();
  });
});
