/**
 * The W3C Reconciliation Service API 0.2 under /rest/v1/reconcile (docs/reconciliation.md;
 * the chains: src/http/route-table.ts):
 *
 *   GET  /reconcile                  the manifest (free; no key needed, a key given is checked)
 *   POST /reconcile                  queries=<JSON batch> (form) -> result batch; charged as a
 *                                    match: per certain match, rate limited as a search
 *   GET  /reconcile/suggest/entity   ?prefix=&cursor= -> companies (free, the suggest's limit)
 *   GET  /reconcile/suggest/property ?prefix= -> the query properties (free, the suggest's limit)
 *   GET  /reconcile/preview          ?id=<corporate number> -> an HTML fragment (free, the suggest's limit)
 *
 * Every one of them takes the API key as `?apiKey=` (a reconciliation client sends no header
 * of its own) or as X-API-Key; `reconcileKey` moves the first into the second before auth,
 * and the request log never writes a query string (src/http/request-log.ts).
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { errors } from '../../errors/catalogue.js';
import { applyBudget, type MatchResult, runMatch } from '../../names/match.js';
import { suggestCorporates } from '../../names/suggest.js';
import { prefectureName } from '../../reconcile/prefectures.js';
import { parseBatch, type ReconcileBatch, resultOf } from '../../reconcile/queries.js';
import {
  apiKeyParameter,
  entitySuggestions,
  manifestOf,
  previewHtml,
  propertySuggestions,
  reconcilePath,
} from '../../reconcile/service.js';
import type { Services } from '../../services.js';
import { isValidCorporateNumber } from '../../text/corporate-number.js';
import { deadlineOf, stillAnswering } from '../deadline.js';
import { reservedCost, setFinalCost } from '../limits/credits.js';
import { locals } from '../locals.js';
import { apiBase } from '../operation-gate.js';

/** The key of `?apiKey=`, when the query string has exactly one. */
function queryKey(req: Request): string | undefined {
  const value = req.query[apiKeyParameter];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/**
 * First step of every reconciliation route: CORS for any origin (the spec asks it of every
 * endpoint; nothing here rides on a cookie, the key is in the URL or a header), and the
 * `apiKey` query parameter handed to auth as the X-API-Key header when that header is absent.
 */
export function reconcileKey(): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.setHeader('Access-Control-Expose-Headers', 'X-Request-Id, X-Credits-Remaining, X-Credits-Charged');
    // the answer may carry the key (the manifest's URLs): no cache keeps it
    res.setHeader('Cache-Control', 'no-store');
    const key = queryKey(req);
    if (key !== undefined && req.get('x-api-key') === undefined) req.headers['x-api-key'] = key;
    next();
  };
}

/** Auth only when a key was given: the manifest is free to read, a wrong key still a 401. */
export function optionalAuth(auth: RequestHandler): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    if (req.get('x-api-key') === undefined) return next();
    return auth(req, res, next);
  };
}

/**
 * Step "reconcile plan" (after validation, before credits): the `queries` form field checked
 * and turned into one match request; 400 naming each field at fault.
 */
export function reconcilePlan(): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    // the form has exactly one field, queries, a string (openapi.yaml, checked before)
    const { batch, problems } = parseBatch((req.body as { queries: string }).queries);
    if (!batch) return next(errors.validation(problems));
    locals(res).reconcile = batch;
    return next();
  };
}

/** `https://host/rest/v1/reconcile` as the client reached this host. */
function endpointOf(req: Request): string {
  // behind a proxy that ends TLS, the scheme the client used
  const forwarded = req.get('x-forwarded-proto')?.split(',')[0]?.trim();
  const scheme = forwarded === 'https' || forwarded === 'http' ? forwarded : req.protocol;
  // HTTP/1.1 requires Host (Node refuses a request without it)
  return `${scheme}://${req.get('host') as string}${apiBase}${reconcilePath}`;
}

export function manifestHandler(): RequestHandler {
  return (req: Request, res: Response) => {
    if (req.query.queries !== undefined)
      throw errors.validation([
        {
          field: 'queries',
          reason: 'send the batch in a POST body (application/x-www-form-urlencoded, queries=...)',
        },
      ]);
    // only the key the auth step accepted (a wrong one was a 401): the query's, when it was
    // the one checked (a valid X-API-Key beside it vouches for nothing in the query)
    const given = queryKey(req);
    const apiKey = locals(res).user && given === req.get('x-api-key') ? given : undefined;
    res.json(manifestOf({ endpoint: endpointOf(req), ...(apiKey ? { apiKey } : {}) }));
  };
}

export function reconcileHandler(services: Services): RequestHandler {
  return async (_req: Request, res: Response) => {
    // set by the chain's reconcile plan step, which comes first (test/http/route-table.test.ts)
    const batch = locals(res).reconcile as ReconcileBatch;
    const results = await runMatch({ ...services, deadline: deadlineOf(res) }, batch.match);
    // as a match: the certain matches past the reservation are withheld, the rest charged
    const price = services.limits.config.matchCost;
    const charged = applyBudget(results, price, price === 0 ? undefined : reservedCost(res));
    setFinalCost(res, charged);
    if (!stillAnswering(res)) return;
    res.setHeader('X-Credits-Charged', String(charged));
    res.json(
      Object.fromEntries(
        batch.queries.map((query, index) => {
          // runMatch answers one result per record, in order
          return [query.key, resultOf(query, results[index] as MatchResult, prefectureName)];
        }),
      ),
    );
  };
}

/** Suggestions a client may page through with `cursor` (the spec's): at most this far. */
export const maxSuggestCursor = 40;
const suggestPage = 10;

export function suggestEntityHandler(services: Services): RequestHandler {
  return async (req: Request, res: Response) => {
    const prefix = String(req.query.prefix);
    const cursor = req.query.cursor === undefined ? 0 : Number(req.query.cursor);
    // every page a slice of the one list of the furthest page: a list after a typo holds one
    // company per name key among the names read for it, so a shorter one is not always its start
    const suggestions = await suggestCorporates(
      { ...services, deadline: deadlineOf(res) },
      prefix,
      maxSuggestCursor + suggestPage,
    );
    if (stillAnswering(res)) res.json(entitySuggestions(suggestions.slice(cursor, cursor + suggestPage)));
  };
}

export function suggestPropertyHandler(): RequestHandler {
  return (req: Request, res: Response) => {
    res.json(propertySuggestions(String(req.query.prefix)));
  };
}

export function previewHandler(services: Services): RequestHandler {
  return async (req: Request, res: Response) => {
    // 13 digits (openapi.yaml); the check digit is checked here
    const id = String(req.query.id);
    if (!isValidCorporateNumber(id))
      throw errors.validation([
        { field: 'id', reason: 'must be a corporate number: 13 digits, check digit first' },
      ]);
    // the number alone decides a match (src/names/match.ts); the name says nothing here
    const [result] = await runMatch(
      { ...services, deadline: deadlineOf(res) },
      { records: [{ name: '', corporateNumber: id }], candidates: 1 },
    );
    if (!stillAnswering(res)) return;
    if (!result?.match) throw errors.notFound(`The company of corporate number ${id}`);
    // shown in the client's iframe: framing allowed, nothing loaded, no script, no referrer
    res.removeHeader('X-Frame-Options');
    res.setHeader(
      'Content-Security-Policy',
      "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'",
    );
    res.setHeader('Cross-Origin-Resource-Policy', 'cross-origin');
    res.type('html').send(previewHtml(result.match));
  };
}
