/**
 * Backoff on transient OpenSearch trouble (429, 502-504, timeouts, lost connections), via
 * p-retry. Anything else (a mapping error, a 400) is not retried: it will not get better.
 */
import pRetry from 'p-retry';

const transientStatuses = new Set([429, 502, 503, 504]);

export function isTransient(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (
    ['TimeoutError', 'ConnectionError', 'NoLivingConnectionsError', 'RequestAbortedError'].includes(
      error.name,
    )
  )
    return true;
  const status = (error as { meta?: { statusCode?: number } }).meta?.statusCode;
  return status !== undefined && transientStatuses.has(status);
}

export interface RetryOptions {
  retries?: number;
  minTimeout?: number;
}

export function withRetry<T>(run: () => Promise<T>, options: RetryOptions = {}): Promise<T> {
  return pRetry(run, {
    retries: options.retries ?? 6,
    minTimeout: options.minTimeout ?? 200,
    maxTimeout: 10_000,
    factor: 2,
    randomize: true,
    shouldRetry: ({ error }) => isTransient(error),
  });
}

export function isTransientStatus(status: number): boolean {
  return transientStatuses.has(status);
}
