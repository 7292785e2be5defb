/**
 * OpenSearch failures -> the error catalogue. Timeouts, rejections (429), an unreachable or
 * overloaded cluster and partial results are 503 with Retry-After (DESIGN §4); anything else
 * the engine refuses is our fault, a 500. Only the status and the error type are logged,
 * never the engine's text (it may quote the request).
 */
import { errors as clientErrors } from '@opensearch-project/opensearch';
import type { Logger } from 'pino';
import { ApiError, errors } from '../errors/catalogue.js';

const retryableStatuses = new Set([408, 429, 502, 503, 504]);

export function isSearchUnavailable(error: unknown): boolean {
  if (
    error instanceof clientErrors.ConnectionError ||
    error instanceof clientErrors.TimeoutError ||
    error instanceof clientErrors.NoLivingConnectionsError
  )
    return true;
  if (error instanceof clientErrors.ResponseError) {
    const status = error.meta.statusCode ?? 0;
    return retryableStatuses.has(status) || status >= 500;
  }
  return false;
}

export function toSearchError(error: unknown, logger: Logger): ApiError {
  if (error instanceof ApiError) return error;
  const status = error instanceof clientErrors.ResponseError ? error.meta.statusCode : undefined;
  const type =
    error instanceof clientErrors.ResponseError
      ? (error.meta.body as { error?: { type?: string } } | undefined)?.error?.type
      : error instanceof Error
        ? error.name
        : typeof error;
  if (isSearchUnavailable(error)) {
    logger.warn({ opensearch: { status, type } }, 'search engine unavailable');
    return errors.searchUnavailable();
  }
  logger.error({ opensearch: { status, type } }, 'search engine refused the query');
  return errors.internal();
}

/** A 200 that still is not a full answer: timed out or some shards failed. */
export function assertComplete(body: { timed_out?: boolean; _shards?: { failed?: number } }): void {
  if (body.timed_out || (body._shards?.failed ?? 0) > 0) throw errors.searchUnavailable();
}
