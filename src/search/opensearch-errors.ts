/**
 * OpenSearch failures, as src/opensearch/failures.ts reads them -> the error catalogue. A
 * query the engine will never run (told by its error types) is a 400 without
 * Retry-After: past the clause limit `query_too_complex`, otherwise `query_rejected`. What
 * retry.ts calls transient (timeouts, rejections, an unreachable or overloaded cluster), an
 * answer that is not JSON and partial results are 503 with Retry-After, and so is an engine that turns this process away
 * (credentials refused or revoked, a missing right, a certificate that fails verification);
 * anything else the engine refuses is our fault, a 500. Only the status and the error types
 * are logged, never the engine's text (it may quote the request, the index or the node).
 */
import type { Logger } from 'pino';
import { defaultMaxClauseCount } from '../config.js';
import type { Deadline } from '../deadline.js';
import { ApiError, errors } from '../errors/catalogue.js';
import { engineFailure } from '../opensearch/failures.js';

/** `clauseLimit`: the engine's clause limit as configured (OPENSEARCH_MAX_CLAUSE_COUNT), for the 400's message. */
export function toSearchError(error: unknown, logger: Logger, clauseLimit = defaultMaxClauseCount): ApiError {
  if (error instanceof ApiError) return error;
  const { kind, status, type, access } = engineFailure(error);
  switch (kind) {
    case 'access':
      // the engine turned this process away (credentials, rights, certificate): no fault of the
      // caller, and the search can succeed once an operator fixes it, so 503 as for an outage
      logger.error({ opensearch: { status, access } }, 'search engine refused this process');
      return errors.searchUnavailable();
    case 'tooComplex':
    case 'invalid':
      // the caller's request as compiled; validation should have refused what it can foresee
      logger.warn({ opensearch: { status, type, rejection: kind } }, 'search engine rejected the query');
      return kind === 'tooComplex' ? errors.queryTooComplex({ limit: clauseLimit }) : errors.queryRejected();
    case 'transient':
      // an outage, an overload, an answer cut short: a retry can succeed (test/opensearch/engine-faults.test.ts)
      logger.warn({ opensearch: { status, type } }, 'search engine unavailable');
      return errors.searchUnavailable();
    default:
      logger.error({ opensearch: { status, type } }, 'search engine refused the query');
      return errors.internal();
  }
}

/** A 200 that still is not a full answer: timed out or some shards failed. */
export function assertComplete(body: { timed_out?: boolean; _shards?: { failed?: number } }): void {
  if (body.timed_out || (body._shards?.failed ?? 0) > 0) throw errors.searchUnavailable();
}

/** The engine-side limits for a search that must end by the deadline (search `timeout`, task cancellation). */
export function engineTimeouts(deadline: Deadline | undefined): {
  timeout?: string;
  cancel_after_time_interval?: string;
} {
  if (!deadline) return {};
  const remaining = deadline.remainingMs();
  // the engine stops collecting a little before the deadline, so its (partial, hence 503)
  // answer can still travel back; the task is cancelled at the deadline at the latest
  return {
    timeout: `${Math.max(1, remaining - 200)}ms`,
    cancel_after_time_interval: `${Math.max(1, remaining)}ms`,
  };
}
