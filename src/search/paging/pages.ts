/**
 * Pages past the engine's result window, and cursor pages.
 *
 * Deep offset (offset + limit > index.max_result_window): the list is read from a point in
 * time kept per user and search (src/search/paging/boundary-store.ts). The page continues
 * with search_after from the nearest remembered boundary at or below `offset`; when that is
 * short of `offset`, it first walks there in steps of up to one result window that fetch
 * sort values only, remembering a boundary at every multiple of the window. So a sequential
 * walk costs one search per page at any depth, and a jump costs one cheap step per window.
 * Work per request is bounded by `maxWalk`; past it the answer is a 400 pointing at the cursor.
 *
 * Cursor: the first page (`cursor: "*"`) opens a point in time; every page's `nextCursor`
 * carries it and the sort values of its last record (src/search/paging/cursor.ts).
 */
import { paging } from '../../catalogue/paging.js';
import { type Deadline, DeadlineExceeded } from '../../deadline.js';
import { errors } from '../../errors/catalogue.js';
import { inRedisBudget } from '../../limits/store-unavailable.js';
import type { Services } from '../../services.js';
import { toSearchError } from '../opensearch-errors.js';
import type { Boundary, SortValues } from './boundary-store.js';
import { decodeCursor, encodeCursor, firstCursor } from './cursor.js';
import { closePit, openPit } from './pit.js';
import {
  type EngineHit,
  engineSearch,
  hitsOf,
  onPit,
  PitGone,
  type SearchBody,
  type SearchRequest,
  sortValuesOnly,
  totalOf,
} from './pit-search.js';

/** `deadline`: the request's; the engine and the paging store get the time it leaves. */
type PagingContext = Pick<Services, 'opensearch' | 'logger' | 'paging'> & { deadline?: Deadline | undefined };

export interface Page {
  body: SearchBody;
  hits: EngineHit[];
}

function storeFailed(services: PagingContext, error: unknown): never {
  services.logger.warn({ err: { message: (error as Error).message } }, 'paging store unavailable');
  throw errors.limitsUnavailable();
}

/** A paging-store call (remembered places are plain SETs: run late, they change nothing that matters). */
async function stored<T>(services: PagingContext, call: () => Promise<T>): Promise<T> {
  try {
    return await inRedisBudget(services.deadline, 'paging store', call);
  } catch (error) {
    return storeFailed(services, error);
  }
}

async function pitFor(services: PagingContext, key: string, index: string): Promise<string> {
  const known = await stored(services, () => services.paging.boundaries.pit(key));
  if (known) return known;
  let fresh: string;
  try {
    fresh = await openPit(services.opensearch, index, paging.deepPagingTtlSeconds, services.deadline);
  } catch (error) {
    if (error instanceof DeadlineExceeded) throw error;
    throw toSearchError(error, services.logger);
  }
  const inForce = await stored(services, () => services.paging.boundaries.setPitIfAbsent(key, fresh));
  if (inForce !== fresh) void closePit(services.opensearch, fresh);
  return inForce;
}

export async function deepPage(
  services: PagingContext,
  request: SearchRequest,
  opts: { key: string; offset: number; limit: number },
): Promise<Page> {
  for (let attempt = 0; ; attempt += 1) {
    const pit = await pitFor(services, opts.key, String(request.index));
    try {
      return await walkAndPage(services, request, pit, opts);
    } catch (error) {
      if (!(error instanceof PitGone) || attempt > 0) throw error;
      // the snapshot expired in the engine: forget its boundaries, start again on a new one
      await stored(services, () => services.paging.boundaries.drop(opts.key));
    }
  }
}

async function walkAndPage(
  services: PagingContext,
  request: SearchRequest,
  pitId: string,
  { key, offset, limit }: { key: string; offset: number; limit: number },
): Promise<Page> {
  const { boundaries, resultWindow: stride, maxWalk } = services.paging;
  const pit = { id: pitId, keepAliveSeconds: paging.deepPagingTtlSeconds };
  const start = (await stored(services, () => boundaries.nearest(key, offset))) ?? { position: 0, after: [] };
  if (offset - start.position > maxWalk) await refuseFarJump(services, request, pit, offset, start.position);
  let position = start.position;
  let after: SortValues | undefined = start.position > 0 ? start.after : undefined;
  const learnt: Boundary[] = [];
  while (position < offset) {
    const step = Math.min(offset - position, stride - (position % stride));
    const hits = hitsOf(await engineSearch(services, sortValuesOnly(onPit(request, pit, after, step))));
    const last = hits.at(-1);
    if (last?.sort) {
      position += hits.length;
      after = last.sort;
      learnt.push({ position, after });
    }
    if (hits.length < step) break; // the list ends before `offset`: the page below is empty
  }
  const size = position < offset ? 0 : limit;
  const body = await engineSearch(services, onPit(request, pit, after, size));
  const hits = hitsOf(body);
  hits.forEach((hit, i) => {
    const end = position + i + 1;
    if (hit.sort && (end % stride === 0 || i === hits.length - 1))
      learnt.push({ position: end, after: hit.sort });
  });
  await stored(services, () => boundaries.record(key, learnt, stride));
  return { body, hits };
}

/** Past maxWalk: an offset beyond the end is simply an empty page; otherwise a 400. */
async function refuseFarJump(
  services: PagingContext,
  request: SearchRequest,
  pit: { id: string; keepAliveSeconds: number },
  offset: number,
  from: number,
): Promise<void> {
  const counted = onPit(request, pit, undefined, 0);
  const total = totalOf(
    await engineSearch(services, { ...counted, body: { ...counted.body, track_total_hits: true } }),
  );
  if (offset >= total) return;
  const { maxWalk } = services.paging;
  throw errors.validation([
    {
      field: 'offset',
      reason: `is ${offset - from} results past the furthest page this search has reached (at most ${maxWalk} per request); page there in steps (each page remembers its place for ${paging.deepPagingTtlSeconds / 60} minutes) or read the list with cursor paging (cursor: "${firstCursor}")`,
    },
  ]);
}

export interface CursorPage extends Page {
  nextCursor: string | null;
}

export async function cursorPage(
  services: PagingContext,
  request: SearchRequest,
  opts: { cursor: string; user: string; key: string; limit: number; counted: boolean },
): Promise<CursorPage> {
  const { cursorKeys } = services.paging;
  const now = Math.floor(Date.now() / 1000);
  const state =
    opts.cursor === firstCursor
      ? undefined
      : decodeCursor(cursorKeys, opts.cursor, { user: opts.user, query: opts.key, nowSeconds: now });
  let pitId = state?.p;
  if (!pitId) {
    try {
      pitId = await openPit(
        services.opensearch,
        String(request.index),
        paging.cursorTtlSeconds,
        services.deadline,
      );
    } catch (error) {
      if (error instanceof DeadlineExceeded) throw error;
      throw toSearchError(error, services.logger);
    }
  }
  const pit = { id: pitId, keepAliveSeconds: paging.cursorTtlSeconds };
  let body: SearchBody;
  try {
    body = await engineSearch(services, onPit(request, pit, state?.a, opts.limit));
  } catch (error) {
    if (error instanceof PitGone)
      throw errors.validation([
        { field: 'cursor', reason: `has expired; start again with cursor: "${firstCursor}"` },
      ]);
    throw error;
  }
  const hits = hitsOf(body);
  const sent = (state?.n ?? 0) + hits.length;
  const last = hits.at(-1);
  const more =
    hits.length === opts.limit && last?.sort !== undefined && (!opts.counted || sent < totalOf(body));
  const latestPit = (body as { pit_id?: string }).pit_id ?? pitId;
  if (!more) void closePit(services.opensearch, latestPit);
  return {
    body,
    hits,
    nextCursor: more
      ? encodeCursor(cursorKeys, {
          u: opts.user,
          q: opts.key,
          p: latestPit,
          a: last?.sort ?? [],
          n: sent,
          e: now + paging.cursorTtlSeconds,
        })
      : null,
  };
}
