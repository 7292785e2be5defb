/**
 * The one reading of an engine failure. Whatever an engine call throws (./engine.ts: the
 * client's error classes), the rest of the project asks this module what it was, never the
 * client: the API maps the answer to its error catalogue (src/search/opensearch-errors.ts),
 * the indexer decides whether to retry (./retry.ts), the logs record its summary.
 *
 *   engineFailure(error)
 *   -> { kind: 'transient', status: 503, type: 'ResponseError' }         // wait and retry: a 503 with Retry-After
 *   -> { kind: 'access', access: 'credentials', status: 401, type: ... } // the engine turned this process away
 *   -> { kind: 'tooComplex' | 'invalid', status: 400, type: 'search_phase_execution_exception' }
 *   -> { kind: 'other', ... }                                            // anything else: our fault
 *
 * Only statuses and error types are read, never the engine's text (it may quote the request,
 * an index or a node).
 */
import { errors } from '@opensearch-project/opensearch';
import { type AccessFailure, accessFailure } from './access-failures.js';
import { isTransientError, queryRejection } from './retry.js';

type EngineFailureKind = 'access' | 'tooComplex' | 'invalid' | 'transient' | 'other';

export interface EngineFailure {
  kind: EngineFailureKind;
  /** The engine's HTTP status, when it answered. */
  status: number | undefined;
  /** The engine's top-level error type, else the error's class name. */
  type: string;
  /** For `access`: what was refused (./access-failures.ts). */
  access?: AccessFailure;
}

/** What `error`, thrown by an engine call, was. */
export function engineFailure(error: unknown): EngineFailure {
  const status = statusOf(error);
  const type =
    error instanceof errors.ResponseError
      ? ((error.meta.body as { error?: { type?: string } } | undefined)?.error?.type ?? error.name)
      : error instanceof Error
        ? error.name
        : typeof error;
  const access = accessFailure(error);
  if (access) return { kind: 'access', status, type, access };
  const rejection = queryRejection(error);
  if (rejection) return { kind: rejection, status, type };
  // an answer that is not JSON (cut short, or garbled on the way) passes as an outage does
  if (isTransientError(error) || error instanceof errors.DeserializationError)
    return { kind: 'transient', status, type };
  return { kind: 'other', status, type };
}

/** The engine's status for a failure it answered; undefined when it did not answer. */
function statusOf(error: unknown): number | undefined {
  return error instanceof errors.ResponseError ? (error.meta.statusCode ?? undefined) : undefined;
}

/** A failure of an engine call (the client's own error classes), as a log may name it. */
export function engineErrorSummary(
  error: unknown,
): { name: string; statusCode: number | undefined } | undefined {
  if (!(error instanceof errors.OpenSearchClientError)) return undefined;
  return { name: error.name, statusCode: (error as { meta?: { statusCode?: number } }).meta?.statusCode };
}

/** The engine no longer holds the point in time a search named (keep-alive passed, node restarted). */
export function isContextGone(error: unknown): boolean {
  if (!(error instanceof errors.ResponseError)) return false;
  const body = error.meta.body as { error?: { type?: string; root_cause?: Array<{ type?: string }> } };
  const types = [body?.error?.type, ...(body?.error?.root_cause ?? []).map((cause) => cause.type)];
  return error.meta.statusCode === 404 || types.includes('search_context_missing_exception');
}
