/**
 * The request's context: what the steps of a route's chain (src/http/route-table.ts) leave
 * for the steps after them, kept in `res.locals` and read only through the typed accessors
 * here. `requestId` is set first (request-id.ts); `user` by authentication, so every route
 * under /rest/v1 can rely on it. Rate limits and credits key on `user.id` (the user, not the
 * key); the operation's `limit` says which budget and price apply (src/catalogue/operations.ts).
 */
import type { Response } from 'express';
import type { LimitKind, Operation } from '../catalogue/operations.js';
import type { SearchCatalogue } from '../catalogue/searches.js';
import type { Deadline } from '../deadline.js';
import type { ChargeTag } from '../limits/ledger-entry.js';
import type { ReconcileBatch } from '../reconcile/queries.js';
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
  /** A reconciliation batch parsed by the reconcile plan step (./routes/reconcile.ts). */
  reconcile?: ReconcileBatch;
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

/**
 * The limit of the operation the path names (src/catalogue/operations.ts), set by the first
 * step under /rest/v1 (src/http/operation-gate.ts); undefined for the masters and for any
 * request that names no operation (neither limited nor charged: no handler answers it).
 */
export function limitOf(res: Response): LimitKind | undefined {
  return locals(res).operation?.limit;
}

/**
 * What this request's charge is for, on its ledger entry (src/limits/ledger-entry.ts): the
 * operation as the catalogue writes it, the key's public id, the X-Request-Id.
 */
export function chargeTagOf(res: Response): ChargeTag {
  const { operation, user, requestId } = locals(res);
  return {
    operation: operation ? `${operation.method} ${operation.path}` : 'unknown',
    ...(user ? { keyId: user.keyId } : {}),
    requestId,
  };
}

/** The search or count body's plan, parsed by the chain's plan step (./search-plan.ts). */
export function searchPlanOf(res: Response): NonNullable<AppLocals['plan']> {
  const parsed = locals(res).plan;
  if (!parsed) throw new Error('search route reached without a parsed plan');
  return parsed;
}

/** The export body, parsed by the chain's export plan step (./search-plan.ts). */
export function exportRequestOf(res: Response): NonNullable<AppLocals['exportRequest']> {
  const parsed = locals(res).exportRequest;
  if (!parsed) throw new Error('export route reached without a parsed body');
  return parsed;
}
