/**
 * The handlers of /saved-searches (their chains: src/http/route-table.ts; the store:
 * src/saved-searches/store.ts; docs/api.md, "Saved searches"):
 *
 *   POST   /saved-searches       {name, search: 'corporates' | 'jobs', body} -> 201 the saved search
 *   GET    /saved-searches       the caller's saved searches, newest first
 *   GET    /saved-searches/{id}  one of them
 *   DELETE /saved-searches/{id}  204
 *   GET    /saved-searches/{id}/changes?cursor=|since=&limit=  a page of its changes (charged as a search)
 *
 * `body` is checked exactly as the search it names checks its body (every filter, value,
 * master id and the clause limit), with each problem named under `body.`: a saved search
 * always runs. A company search is watched from when it is saved (src/saved-searches/start-watch.ts).
 * A saved search is its owner's: another user's id is a 404, as an unknown one. Free but the
 * changes, rate limited as a count.
 */
import type { Request, RequestHandler, Response } from 'express';
import { recordFieldNames } from '../../catalogue/record-fields.js';
import { corporateSearch, jobSearch } from '../../catalogue/searches.js';
import { ApiError, errors, type FieldError } from '../../errors/catalogue.js';
import { cursorPattern, type Membership } from '../../saved-searches/membership.js';
import {
  membershipOf,
  savedSearchRedis,
  startWatching,
  stopWatching,
} from '../../saved-searches/start-watch.js';
import { type SavedSearchKind, SavedSearchStore } from '../../saved-searches/store.js';
import { assertWithinClauseLimit } from '../../search/clause-count.js';
import { parseSearchRequest } from '../../search/parse-request.js';
import type { SearchPlan } from '../../search/plan.js';
import type { Services } from '../../services.js';
import { stillAnswering } from '../deadline.js';
import { currentUser } from '../locals.js';

function storeOf(services: Services): SavedSearchStore {
  // saved searches live in the shared store: without Redis there is none
  const redis = savedSearchRedis(services);
  if (!redis) throw errors.savedSearchesUnavailable();
  return new SavedSearchStore(redis, services.config.redisPrefix);
}

/** The search body checked as its search checks it, problems named under `body.`; its plan. */
function checkBody(
  search: SavedSearchKind,
  body: Record<string, unknown>,
  maxClauseCount: number,
): SearchPlan {
  try {
    const plan = parseSearchRequest(search === 'corporates' ? corporateSearch : jobSearch, body);
    assertWithinClauseLimit(plan, maxClauseCount);
    return plan;
  } catch (error) {
    if (!(error instanceof ApiError) || !error.errors) throw error;
    const under = (field: string) => (field === 'body' ? 'body' : `body.${field}`);
    throw error.withFields(error.errors.map((problem) => ({ ...problem, field: under(problem.field) })));
  }
}

/** What each kind of search may watch: its record's fields (a job's snippets depend on the search). */
const watchable: Record<SavedSearchKind, { fields: readonly string[]; record: string }> = {
  corporates: { fields: recordFieldNames.corporates, record: 'Corporate' },
  jobs: { fields: recordFieldNames.jobs.filter((field) => field !== 'descriptionSnippets'), record: 'Job' },
};

function watchProblem(field: string, allowed: readonly string[], record: string): string | undefined {
  if (field === 'descriptionSnippets')
    return 'cannot be watched: the snippets follow the search, not the posting';
  return allowed.includes(field) ? undefined : `is not a field of the ${record} record`;
}

/** Watched fields: fields of the search's record, each once. */
function checkWatchFields(search: SavedSearchKind, fields: string[]): void {
  const problems: FieldError[] = [];
  const { fields: allowed, record } = watchable[search];
  fields.forEach((field, i) => {
    const reason = watchProblem(field, allowed, record);
    if (reason) problems.push({ field: `watchFields[${i}]`, reason, value: field });
  });
  if (problems.length > 0) throw errors.validation(problems);
}

export function createSavedSearchHandler(services: Services): RequestHandler {
  return async (req: Request, res: Response) => {
    const store = storeOf(services);
    const userId = currentUser(res).id;
    const {
      name,
      search,
      body,
      watchFields = [],
    } = req.body as {
      name: string;
      search: SavedSearchKind;
      body: Record<string, unknown>;
      watchFields?: string[];
    };
    const plan = checkBody(search, body, services.config.maxClauseCount);
    checkWatchFields(search, watchFields);
    const cap = services.config.savedSearchesPerUser;
    const created = await store.create(
      userId,
      { name, search, body, watchFields: [...new Set(watchFields)] },
      cap,
    );
    if (!created) throw errors.savedSearchLimit(cap);
    let saved = created;
    try {
      saved = { ...created, ...(await startWatching(services, userId, created, plan)) };
      await store.update(userId, saved);
    } catch (error) {
      // not kept half-watched: the caller saves it again
      await stopWatching(services, created).catch(() => undefined);
      await store.delete(userId, created.id);
      throw error;
    }
    if (stillAnswering(res)) res.status(201).location(`/rest/v1/saved-searches/${saved.id}`).json(saved);
  };
}

export function listSavedSearchesHandler(services: Services): RequestHandler {
  return async (_req: Request, res: Response) => {
    const results = await storeOf(services).list(currentUser(res).id);
    if (stillAnswering(res)) res.json({ results });
  };
}

/** The path's saved search id: the chain is dispatched by operation (src/http/route-table.ts), its 3rd segment. */
function idOf(req: Request): string {
  return req.path.split('/')[2] ?? '';
}

export function getSavedSearchHandler(services: Services): RequestHandler {
  return async (req: Request, res: Response) => {
    const saved = await storeOf(services).get(currentUser(res).id, idOf(req));
    if (!saved) throw errors.notFound('The saved search');
    if (stillAnswering(res)) res.json(saved);
  };
}

export function deleteSavedSearchHandler(services: Services): RequestHandler {
  return async (req: Request, res: Response) => {
    const store = storeOf(services);
    const userId = currentUser(res).id;
    const saved = await store.get(userId, idOf(req));
    if (!saved || !(await store.delete(userId, saved.id))) throw errors.notFound('The saved search');
    await stopWatching(services, saved);
    if (stillAnswering(res)) res.status(204).end();
  };
}

/** `?cursor=` (a change's), else `?since=` (a date-time); `limit` 1-1,000 (100). The validator checked the types. */
function changesFrom(req: Request): { after?: string; since?: number; limit: number } {
  const cursor = typeof req.query.cursor === 'string' ? req.query.cursor : undefined;
  const since = typeof req.query.since === 'string' ? req.query.since : undefined;
  const limit = req.query.limit === undefined ? 100 : Number(req.query.limit);
  if (cursor !== undefined && since !== undefined)
    throw errors.validation([
      { field: 'since', reason: 'must not be sent with cursor: the cursor says where to go on' },
    ]);
  if (cursor !== undefined && !cursorPattern.test(cursor))
    throw errors.validation([
      { field: 'cursor', reason: 'must be a nextCursor or cursor this endpoint answered' },
    ]);
  const sinceMs = since === undefined ? undefined : Date.parse(since);
  if (sinceMs !== undefined && !Number.isFinite(sinceMs))
    throw errors.validation([{ field: 'since', reason: 'must be a date-time with an offset (RFC 3339)' }]);
  return {
    ...(cursor !== undefined ? { after: cursor } : {}),
    // a time before 1970 asks for everything kept: stream ids start at 0
    ...(sinceMs !== undefined ? { since: Math.max(0, sinceMs) } : {}),
    limit,
  };
}

/** GET /saved-searches/{id}/changes: a page of a watched search's changes, charged as a search page. */
export function savedSearchChangesHandler(services: Services): RequestHandler {
  return async (req: Request, res: Response) => {
    const saved = await storeOf(services).get(currentUser(res).id, idOf(req));
    if (!saved) throw errors.notFound('The saved search');
    if (!saved.watching)
      throw errors.validation([
        {
          field: 'savedSearchId',
          reason: `is not watched: ${saved.notWatchingReason ?? 'it was saved without it'}`,
        },
      ]);
    const page = await (membershipOf(services) as Membership).changes(saved.id, changesFrom(req));
    if (stillAnswering(res)) res.json(page);
  };
}
