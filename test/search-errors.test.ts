/**
 * Mapping of OpenSearch failures (the client's own error classes) onto the error catalogue:
 * everything transient is 503 with Retry-After, anything else a 500; neither carries nor logs
 * the engine's text. The unreachable-engine case runs end to end in test/search-routes.test.ts.
 */
import { errors as clientErrors } from '@opensearch-project/opensearch';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../src/logger.js';
import { assertComplete, toSearchError } from '../src/search/opensearch-errors.js';

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

  it('a query the engine refuses (400) is our fault: 500, text not logged', () => {
    const { logger, lines } = capture();
    const mapped = toSearchError(responseError(400, 'query_shard_exception'), logger);
    expect(mapped.status).toBe(500);
    expect(JSON.stringify(mapped.toBody())).not.toContain('t-secret');
    expect(lines.join('')).toContain('query_shard_exception');
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
