/**
 * The one rule for "will this OpenSearch failure pass if we wait?", used by the API (503 with
 * Retry-After instead of 500: src/search/opensearch-errors.ts) and by the indexer (back off and
 * retry: `withRetry`, and single `_bulk` items: src/opensearch/bulk.ts).
 *
 * Transient: no connection, a timeout, an aborted request, no living node; a status of 408
 * (timeout), 429 (rejected execution, circuit breaker) or any 5xx (overloaded, restarting, a
 * shard unavailable). Anything else (a 400 of a malformed query, a mapping conflict, a 404)
 * will not get better by waiting.
 */
import { errors } from '@opensearch-project/opensearch';
import pRetry from 'p-retry';

export function isTransientStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

export function isTransientError(error: unknown): boolean {
  if (
    error instanceof errors.ConnectionError ||
    error instanceof errors.TimeoutError ||
    error instanceof errors.NoLivingConnectionsError ||
    error instanceof errors.RequestAbortedError
  )
    return true;
  if (error instanceof errors.ResponseError) return isTransientStatus(error.meta.statusCode ?? 0);
  return false;
}

export interface RetryOptions {
  retries?: number;
  minTimeout?: number;
}

/** Runs `run`, retrying transient failures with exponential backoff (default 6 retries from 200 ms). */
export function withRetry<T>(run: () => Promise<T>, options: RetryOptions = {}): Promise<T> {
  return pRetry(run, {
    retries: options.retries ?? 6,
    minTimeout: options.minTimeout ?? 200,
    maxTimeout: 10_000,
    factor: 2,
    randomize: true,
    shouldRetry: ({ error }) => isTransientError(error),
  });
}
