/**
 * What the middleware chain leaves in `res.locals` for later middleware and routes.
 * `requestId` is set first (request-id.ts); `user` by authentication, so every route under
 * /rest/v1 can rely on it. Rate limits and credits key on `user.id` (the user, not the key).
 */
import type { Response } from 'express';
import type { Operation } from '../catalogue/operations.js';
import type { SearchCatalogue } from '../catalogue/searches.js';
import type { Deadline } from '../deadline.js';
import type { ExportRequest } from '../search/export.js';
import type { SearchPlan } from '../search/plan.js';

export interface AuthenticatedUser {
  /** The user the API key belongs to. */
  id: string;
  /** The key's public id (never the key itself), e.g. for logs. */
  keyId: string;
}

export interface AppLocals {
  requestId: string;
  /** Epoch ms when the first middleware saw the request: the deadline counts from here. */
  receivedAt?: number;
  /** Set under /rest/v1 (src/http/deadline.ts): the time this request may still take. */
  deadline?: Deadline;
  user?: AuthenticatedUser;
  /** A search or count body parsed at the validation step (./search-plan.ts). */
  plan?: { search: SearchCatalogue; plan: SearchPlan };
  /** A 4xx's `{field, reason}` list, for the request log line (names and reasons only). */
  fieldErrors?: ReadonlyArray<{ field: string; reason: string }>;
  /** An export body parsed at the validation step (./search-plan.ts). */
  exportRequest?: { search: SearchCatalogue; request: ExportRequest };
  /** The operation the path names, spelled exactly (src/http/operation-gate.ts): its limit and price. */
  operation?: Operation;
  /** The route template for the metrics, set by a handler that is not an Express route (masters). */
  routeTemplate?: string;
}

export function locals(res: Response): AppLocals {
  return res.locals as AppLocals;
}

/** The authenticated user; only call this behind the auth middleware. */
export function currentUser(res: Response): AuthenticatedUser {
  const user = locals(res).user;
  if (!user) throw new Error('currentUser() called on a route without authentication');
  return user;
}
