/**
 * The one rule for "will this OpenSearch failure pass if we wait?", used by the API (503 with
 * Retry-After instead of 500: src/search/opensearch-errors.ts) and by the indexer (back off and
 * retry: `withRetry`, and single `_bulk` items: ops/engine/bulk.ts).
 *
 * Transient: no connection, a timeout, an aborted request, no living node; a status of 408
 * (timeout), 429 (rejected execution, circuit breaker) or any 5xx (overloaded, restarting, a
 * shard unavailable). Anything else (a 400 of a malformed query, a mapping conflict, a 404)
 * will not get better by waiting, and neither will a query the engine can never run: Lucene's
 * clause limit comes back as a 500 whose cause is `too_many_clauses` or
 * `too_many_nested_clauses` (`queryRejection`), which is permanent whatever its status.
 *
 * A write block (`index.blocks.write`, `FORBIDDEN/8/index write (api)`) is its own case: a
 * reindex sets it on the old indices for its last catch-up and lifts it for the writer by
 * moving the alias, so a blocked write is retried for up to `writeBlockWaitMs` and then lands
 * in the new index (docs/decisions/reindex.md).
 */
import { errors } from '@opensearch-project/opensearch';
import pRetry from 'p-retry';

export function isTransientStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

/**
 * A query the engine will refuse however often it is sent, told by the engine's error types
 * (the top-level type, its root causes and every shard's failure; never its text):
 *   'tooComplex'  more clauses than indices.query.bool.max_clause_count (any status: the
 *                 engine answers 500 all shards failed / too_many_nested_clauses)
 *   'invalid'     a 400 whose cause is a query the engine cannot parse or build
 *                 (query_shard_exception, parsing_exception, parse_exception, ...)
 */
export type QueryRejection = 'tooComplex' | 'invalid';

const tooComplexTypes = new Set(['too_many_clauses', 'too_many_nested_clauses']);
const invalidQueryTypes = new Set([
  'query_shard_exception',
  'parsing_exception',
  'parse_exception',
  'x_content_parse_exception',
  'illegal_argument_exception',
  'number_format_exception',
  'search_phase_execution_exception',
]);

interface EngineCause {
  type?: string;
  caused_by?: EngineCause;
  root_cause?: EngineCause[];
  failed_shards?: Array<{ reason?: EngineCause }>;
}

function causeTypes(cause: EngineCause | undefined, into: string[] = [], depth = 0): string[] {
  if (!cause || typeof cause !== 'object' || depth > 8) return into;
  if (typeof cause.type === 'string') into.push(cause.type);
  causeTypes(cause.caused_by, into, depth + 1);
  for (const root of cause.root_cause ?? []) causeTypes(root, into, depth + 1);
  for (const shard of cause.failed_shards ?? []) causeTypes(shard.reason, into, depth + 1);
  return into;
}

export function queryRejection(error: unknown): QueryRejection | undefined {
  if (!(error instanceof errors.ResponseError)) return undefined;
  const types = causeTypes((error.meta.body as { error?: EngineCause } | undefined)?.error);
  if (types.some((type) => tooComplexTypes.has(type))) return 'tooComplex';
  if (error.meta.statusCode === 400 && types.some((type) => invalidQueryTypes.has(type))) return 'invalid';
  return undefined;
}

export function isTransientError(error: unknown): boolean {
  if (queryRejection(error)) return false;
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

/** How long a writer keeps retrying a write that an index's write block refuses. */
export const writeBlockWaitMs = 300_000;

/** True for an answer (or an item's error text) saying the index refuses writes for now. */
export function isWriteBlocked(error: unknown): boolean {
  if (typeof error === 'string') return error.includes('index write (api)');
  if (error instanceof errors.ResponseError)
    return JSON.stringify(error.meta.body ?? '').includes('index write (api)');
  return false;
}

export interface RetryOptions {
  retries?: number;
  minTimeout?: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs `run`, retrying transient failures with exponential backoff (default 6 retries from
 * 200 ms), and a write refused by a write block every second for up to `writeBlockWaitMs`.
 */
export async function withRetry<T>(run: () => Promise<T>, options: RetryOptions = {}): Promise<T> {
  const started = Date.now();
  for (;;) {
    try {
      return await pRetry(run, {
        retries: options.retries ?? 6,
        minTimeout: options.minTimeout ?? 200,
        maxTimeout: 10_000,
        factor: 2,
        randomize: true,
        shouldRetry: ({ error }) => isTransientError(error),
      });
    } catch (error) {
      if (!isWriteBlocked(error) || Date.now() - started > writeBlockWaitMs) throw error;
      await sleep(1000);
    }
  }
}
