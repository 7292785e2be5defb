/**
 * The same compiled search, read from a point in time with search_after instead of
 * from/size. Shared by deep offset pages, cursor pages and exports.
 *
 *   onPit({ index: 'p-jobs', body: { query, sort, from: 20000, size: 25, ... } }, 'pit-1', [1714…, 'job-9'], 25)
 *   -> { body: { query, sort, size: 25, pit: { id: 'pit-1', keep_alive: '600s' }, search_after: [1714…, 'job-9'], ... } }
 */
import { createHash } from 'node:crypto';
import stableStringify from 'safe-stable-stringify';
import { type Deadline, DeadlineExceeded } from '../../deadline.js';
import type { API } from '../../opensearch/engine.js';
import { isContextGone } from '../../opensearch/failures.js';
import type { Services } from '../../services.js';
import { assertComplete, engineTimeouts, toSearchError } from '../opensearch-errors.js';
import { type HitFields, sourceFetchFor } from '../records.js';
import type { SortValues } from './boundary-store.js';

export type SearchRequest = API.Search_Request;
export type SearchBody = API.Search_ResponseBody;

export interface EngineHit {
  _id?: string;
  _source?: Record<string, unknown>;
  fields?: HitFields;
  highlight?: Record<string, string[]>;
  sort?: SortValues;
}

/** Raised when the engine no longer holds the PIT: callers start over or answer 400. */
export class PitGone extends Error {
  constructor() {
    super('point in time expired');
    this.name = 'PitGone';
  }
}

/** Hash of what makes two searches the same list: index, query and sort (not paging). */
export function listKey(request: SearchRequest): string {
  const body = request.body as { query?: unknown; sort?: unknown };
  return createHash('sha256')
    .update(stableStringify({ index: request.index, query: body.query, sort: body.sort }) ?? '')
    .digest('base64url')
    .slice(0, 32);
}

export function onPit(
  request: SearchRequest,
  pit: { id: string; keepAliveSeconds: number },
  after: SortValues | undefined,
  size: number,
): SearchRequest {
  const { index: _index, ...rest } = request;
  const { from: _from, ...body } = request.body as Record<string, unknown>;
  return {
    ...rest,
    body: {
      ...body,
      size,
      pit: { id: pit.id, keep_alive: `${pit.keepAliveSeconds}s` },
      ...(after ? { search_after: after } : {}),
    } as SearchRequest['body'],
  };
}

/** Only the sort values of `size` results: a cheap step of a walk to a far offset. */
export function sortValuesOnly(request: SearchRequest): SearchRequest {
  const {
    highlight: _highlight,
    aggs: _aggs,
    docvalue_fields: _docvalues,
    ...body
  } = request.body as Record<string, unknown>;
  return {
    ...request,
    filter_path: ['hits.hits.sort', 'timed_out', '_shards', 'pit_id'],
    // `_none_`: not even `_id`, whose stored block holds the whole `_source`
    body: {
      ...body,
      _source: false,
      stored_fields: ['_none_'],
      track_total_hits: false,
    } as SearchRequest['body'],
  };
}

/**
 * A record without the sort value sorts with the engine's stand-in, Long.MIN_VALUE or
 * Long.MAX_VALUE, which JSON.parse rounds to ±9223372036854776000: sent back that way it is
 * out of range (a 400 on date fields). The stand-ins are the only sort values past 2^53 (yen
 * amounts are capped at Number.MAX_SAFE_INTEGER), so they are written back exactly.
 */
function withExactLongs(request: SearchRequest): SearchRequest {
  const after = (request.body as { search_after?: unknown[] } | undefined)?.search_after;
  if (!after?.some((value) => typeof value === 'number' && !Number.isSafeInteger(value))) return request;
  const marker = (value: number) =>
    `\u0000long:${value < 0 ? '-9223372036854775808' : '9223372036854775807'}`;
  const text = JSON.stringify(request.body, (_key, value: unknown) =>
    typeof value === 'number' && !Number.isSafeInteger(value) && Math.abs(value) >= 2 ** 63
      ? marker(value)
      : value,
  ).replace(/"\\u0000long:(-?\d+)"/g, '$1');
  return { ...request, body: text as unknown as SearchRequest['body'] };
}

/**
 * One engine search. Under a `deadline` (src/deadline.ts) it gets the time left, as the
 * engine's timeout and as the request's timeout (src/opensearch/deadline.ts), and ends when
 * the deadline's signal aborts (src/opensearch/search-transport.ts).
 */
export async function engineSearch(
  services: Pick<Services, 'opensearch' | 'logger'> & {
    deadline?: Deadline | undefined;
    /** The clause limit a 400 query_too_complex names (src/config.ts maxClauseCount). */
    config?: Pick<Services['config'], 'maxClauseCount'>;
  },
  request: SearchRequest,
): Promise<SearchBody> {
  const { deadline } = services;
  const timed = withExactLongs({ ...request, ...engineTimeouts(deadline) });
  let body: SearchBody;
  try {
    body = (await services.opensearch.search(timed, { deadline })).body;
  } catch (error) {
    if (error instanceof DeadlineExceeded) throw error;
    if (request.body && 'pit' in request.body && isContextGone(error)) throw new PitGone();
    throw toSearchError(error, services.logger, services.config?.maxClauseCount);
  }
  assertComplete(body);
  // a company without its compact copy yet (written before the field existed): the same page
  // again, from `_source`
  const fallback = sourceFetchFor(request.body as Record<string, unknown> | undefined, hitsOf(body));
  if (fallback) return engineSearch(services, { ...request, body: fallback as SearchRequest['body'] });
  return body;
}

/**
 * Several engine searches in one round trip (`_msearch`), under the deadline as one search.
 * Answers in order, or undefined when the engine refused any part: the caller then asks again
 * one search at a time, which maps the refusal as `engineSearch` does. An incomplete answer
 * (timed out, failed shards) is a 503, as a search's.
 */
export async function engineMsearch(
  services: Pick<Services, 'opensearch' | 'logger'> & { deadline?: Deadline | undefined },
  requests: SearchRequest[],
): Promise<SearchBody[] | undefined> {
  const { timeout, cancel_after_time_interval } = engineTimeouts(services.deadline);
  const lines = requests.flatMap(({ index, allow_partial_search_results, body }) => [
    { index, ...(allow_partial_search_results === undefined ? {} : { allow_partial_search_results }) },
    { ...(body as Record<string, unknown>), ...(timeout ? { timeout } : {}) },
  ]);
  let responses: Array<SearchBody & { error?: unknown }>;
  try {
    const { body } = await services.opensearch.msearch(
      {
        body: lines as API.Msearch_Request['body'],
        ...(cancel_after_time_interval ? { cancel_after_time_interval } : {}),
      },
      { deadline: services.deadline },
    );
    responses = (body as { responses: Array<SearchBody & { error?: unknown }> }).responses;
  } catch (error) {
    if (error instanceof DeadlineExceeded) throw error;
    throw toSearchError(error, services.logger);
  }
  if (responses.length !== requests.length || responses.some((response) => response.error)) return undefined;
  for (const response of responses) assertComplete(response);
  return responses;
}

export function hitsOf(body: SearchBody): EngineHit[] {
  return (body.hits?.hits ?? []) as EngineHit[];
}

export function totalOf(body: SearchBody): number {
  const total = body.hits?.total;
  return typeof total === 'number' ? total : (total?.value ?? 0);
}
