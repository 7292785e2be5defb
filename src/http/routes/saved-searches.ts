/**
 * The handlers of /saved-searches (their chains: src/http/route-table.ts; the store:
 * src/saved-searches/store.ts; docs/api.md, "Saved searches"):
 *
 *   POST   /saved-searches       {name, search: 'corporates' | 'jobs', body} -> 201 the saved search
 *   GET    /saved-searches       the caller's saved searches, newest first
 *   GET    /saved-searches/{id}  one of them
 *   DELETE /saved-searches/{id}  204
 *
 * `body` is checked exactly as the search it names checks its body (every filter, value,
 * master id and the clause limit), with each problem named under `body.`: a saved search
 * always runs. A saved search is its owner's: another user's id is a 404, as an unknown one.
 * Free, rate limited as a count.
 */
import type { Request, RequestHandler, Response } from 'express';
import { corporateSearch, jobSearch } from '../../catalogue/searches.js';
import { ApiError, errors } from '../../errors/catalogue.js';
import { type SavedSearchKind, SavedSearchStore } from '../../saved-searches/store.js';
import { assertWithinClauseLimit } from '../../search/clause-count.js';
import { parseSearchRequest } from '../../search/parse-request.js';
import type { Services } from '../../services.js';
import { stillAnswering } from '../deadline.js';
import { currentUser } from '../locals.js';

function storeOf(services: Services): SavedSearchStore {
  // saved searches live in the shared store: without Redis there is none
  if (!services.redis) throw errors.savedSearchesUnavailable();
  return new SavedSearchStore(services.redis, services.config.redisPrefix);
}

/** The search body checked as its search checks it, problems named under `body.`. */
function checkBody(search: SavedSearchKind, body: Record<string, unknown>, maxClauseCount: number): void {
  try {
    const plan = parseSearchRequest(search === 'corporates' ? corporateSearch : jobSearch, body);
    assertWithinClauseLimit(plan, maxClauseCount);
  } catch (error) {
    if (!(error instanceof ApiError) || !error.errors) throw error;
    const under = (field: string) => (field === 'body' ? 'body' : `body.${field}`);
    throw new ApiError(
      error.code,
      error.message,
      error.errors.map((problem) => ({ ...problem, field: under(problem.field) })),
      error.headers,
    );
  }
}

export function createSavedSearchHandler(services: Services): RequestHandler {
  return async (req: Request, res: Response) => {
    const store = storeOf(services);
    const { name, search, body } = req.body as {
      name: string;
      search: SavedSearchKind;
      body: Record<string, unknown>;
    };
    checkBody(search, body, services.config.maxClauseCount);
    const cap = services.config.savedSearchesPerUser;
    const saved = await store.create(currentUser(res).id, { name, search, body }, cap);
    if (!saved) throw errors.savedSearchLimit(cap);
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
    const deleted = await storeOf(services).delete(currentUser(res).id, idOf(req));
    if (!deleted) throw errors.notFound('The saved search');
    if (stillAnswering(res)) res.status(204).end();
  };
}
