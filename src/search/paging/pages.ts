/**
 * Deep offset pages (from `walkFrom`, or past the engine's result window), and cursor pages.
 *
 * Deep offset (offset >= walkFrom, or offset + limit > index.max_result_window): the list is
 * read from a point in time kept per user and search (src/search/paging/boundary-store.ts).
 * Within the window, a page with no remembered place in the back half of the way is from/size
 * on that point in time, which remembers the boundary at its offset. Otherwise the page continues
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

/** The PIT of the list; undefined when the engine would not open one and `optional`. */
async function pitFor(
  services: PagingContext,
  key: string,
  index: string,
  optional: boolean,
): Promise<string | undefined> {
  const known = await stored(services, () => services.paging.boundaries.pit(key));
  if (known) return known;
  let fresh: string;
  try {
    fresh = await openPit(services.opensearch, index, paging.deepPagingTtlSeconds, services.deadline);
  } catch (error) {
    if (error instanceof DeadlineExceeded) throw error;
    if (optional) {
      // e.g. the node's limit of open points in time (search.max_open_pit_context) reached
      services.logger.warn('point in time not opened: page within the window served by from/size');
      return undefined;
    }
    throw toSearchError(error, services.logger);
  }
  const inForce = await stored(services, () => services.paging.boundaries.setPitIfAbsent(key, fresh));
  if (inForce !== fresh) void closePit(services.opensearch, fresh);
  return inForce;
}

/**
 * A page from offset `walkFrom` (src/catalogue/paging.ts) or past the result window. Within
 * the window the point in time only makes the page cheaper, so a page whose snapshot cannot
 * be opened is served by from/size on the live index, as a shallower page is.
 */
export async function deepPage(
  services: PagingContext,
  request: SearchRequest,
  opts: { key: string; offset: number; limit: number },
): Promise<Page> {
  const inWindow = opts.offset + opts.limit <= services.paging.resultWindow;
  for (let attempt = 0; ; attempt += 1) {
    const pit = await pitFor(services, opts.key, String(request.index), inWindow);
    if (!pit) {
      const body = await engineSearch(services, request);
      return { body, hits: hitsOf(body) };
    }
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
  if (fromTopIsCheaper(start.position, offset, limit, stride))
    return topPage(services, request, pit, { key, offset, limit });
  if (offset - start.position > maxWalk) await refuseFarJump(services, request, pit, offset, start.position);
  let position = start.position;
  let after: SortValues | undefined = start.position > 0 ? start.after : undefined;
  const learnt: Boundary[] = [];
  while (position < offset) {
    const step = Math.min(offset - position, stride - (position % stride));
    const reached = await walkStep(services, request, pit, { position, after, step });
    if (!reached) break; // the list ends before `offset`: the page below is empty
    ({ position, after } = reached);
    learnt.push(reached);
  }
  const size = position < offset ? 0 : limit;
  const body = await engineSearch(services, onPit(request, pit, after, size));
  const hits = hitsOf(body);
  learnt.push(...pageBoundaries(hits, position, stride));
  await stored(services, () => boundaries.record(key, learnt, stride));
  return { body, hits };
}

/**
 * Within the result window with no remembered place in the back half of the way, counting
 * from the top costs no more than walking from that place (the engine collects the same
 * number of sort values either way, and from/size sends one page back instead of a step's
 * sort values and a page).
 */
function fromTopIsCheaper(known: number, offset: number, limit: number, window: number): boolean {
  return offset + limit <= window && (offset - known) * 2 > offset;
}

/**
 * The page by from/size on the point in time, starting one record early: that record's sort
 * values are the boundary at `offset`, remembered with the page's end, so the next page (or
 * the same page again) is one search_after page.
 */
async function topPage(
  services: PagingContext,
  request: SearchRequest,
  pit: { id: string; keepAliveSeconds: number },
  { key, offset, limit }: { key: string; offset: number; limit: number },
): Promise<Page> {
  const { boundaries, resultWindow: stride } = services.paging;
  const lead = offset > 0 ? 1 : 0;
  const paged = onPit(request, pit, undefined, limit + lead);
  const body = await engineSearch(services, {
    ...paged,
    body: { ...paged.body, from: offset - lead } as SearchRequest['body'],
  });
  const all = hitsOf(body);
  const hits = all.slice(lead);
  const learnt = pageBoundaries(hits, offset, stride);
  const before = all[0]?.sort;
  if (lead && before && all.length > hits.length) learnt.unshift({ position: offset, after: before });
  await stored(services, () => boundaries.record(key, learnt, stride));
  return { body, hits };
}

/**
 * One step of a walk: the sort values of the record `step` places further. From the top that
 * is one record by from/size (within the window: a step is at most one window); from a
 * boundary it is `step` records' sort values after it (search_after takes no `from`).
 * Undefined when the list ends first.
 */
async function walkStep(
  services: PagingContext,
  request: SearchRequest,
  pit: { id: string; keepAliveSeconds: number },
  { position, after, step }: { position: number; after: SortValues | undefined; step: number },
): Promise<Boundary | undefined> {
  if (!after) {
    const one = sortValuesOnly(onPit(request, pit, undefined, 1));
    const hits = hitsOf(
      await engineSearch(services, {
        ...one,
        body: { ...one.body, from: step - 1 } as SearchRequest['body'],
      }),
    );
    const sort = hits[0]?.sort;
    return sort ? { position: position + step, after: sort } : undefined;
  }
  const hits = hitsOf(await engineSearch(services, sortValuesOnly(onPit(request, pit, after, step))));
  const last = hits.at(-1)?.sort;
  return last && hits.length === step ? { position: position + step, after: last } : undefined;
}

/** The boundaries a page of `hits` starting at `position` shows: window multiples and its end. */
function pageBoundaries(hits: EngineHit[], position: number, stride: number): Boundary[] {
  const learnt: Boundary[] = [];
  hits.forEach((hit, i) => {
    const end = position + i + 1;
    if (hit.sort && (end % stride === 0 || i === hits.length - 1))
      learnt.push({ position: end, after: hit.sort });
  });
  return learnt;
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
