/**
 * The master lists' common answer, before Express: `GET|HEAD /rest/v1/master/<name>`, spelled
 * exactly (no query string), with a key the memory answers for (src/auth/key-checker.ts
 * `rememberedNow`). Such a request takes no step of the route table but authentication
 * (src/http/route-table.ts: masters are free and unlimited), so it is answered here with what
 * the Express path would write, byte for byte but the request id and the date:
 *
 *   X-Request-Id, the security headers (captured once from the same helmet middleware,
 *   src/http/security-headers.ts), Cache-Control, Vary, ETag, and for a 200 Content-Type and
 *   Content-Length; 304 with no body when If-None-Match matches (the `fresh` package, as
 *   Express's `req.fresh`); the request log line and the metrics of the same middleware.
 *
 * Everything else (no key, a key the memory does not hold fresh, another spelling, another
 * method, a query string) goes on to Express untouched: nothing is written or set on the
 * response before the request is known to be one of these. The HTTP server calls it before
 * the app (src/http/server.ts), and the app runs it as its first middleware too (for a server
 * made another way), so both paths answer from this one function.
 *
 * Why: a master list is the API's cheapest answer, and the router's levels, the operation gate,
 * the deadline's timer and the per-header calls cost more than the answer itself
 * (docs/decisions/api-cpu-cost.md, "The master lists before the router").
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import fresh from 'fresh';
import type { KeyChecker } from '../auth/key-checker.js';
import type { LoadedMaster } from '../masters/masters.js';
import type { AppLocals } from './locals.js';
import { apiBase } from './operation-gate.js';
import { requestIdFor } from './request-id.js';
import { masterHeaders } from './routes/masters.js';

/** True when it answered the request; false when the request is Express's. */
export type FastPath = (req: IncomingMessage, res: ServerResponse) => boolean;

interface PreparedMaster {
  etag: string;
  body: Buffer;
  routeTemplate: string;
  /** Name, value, ... for a 200 and for a 304, the request id left to add. */
  ok: string[];
  notModified: string[];
}

function noop(): void {}

/** The headers a middleware sets on a response, in order (it must set them synchronously). */
export function headersSetBy(middleware: RequestHandler): string[] {
  const headers: string[] = [];
  const recorder = {
    setHeader(name: string, value: string | number | readonly string[]) {
      headers.push(name, String(value));
      return recorder;
    },
    removeHeader: noop,
    getHeader: () => undefined,
  };
  let nextCalled = false;
  middleware(
    { headers: {}, method: 'GET', url: '/' } as Request,
    recorder as unknown as Response,
    (error?: unknown) => {
      if (error) throw error;
      nextCalled = true;
    },
  );
  if (!nextCalled) throw new Error('the security headers middleware did not finish synchronously');
  return headers;
}

export function mastersFastPath(options: {
  masters: Map<string, LoadedMaster>;
  checker: KeyChecker;
  /** The app's request log and metrics middleware (src/http/request-log.ts, request-metrics.ts). */
  log: RequestHandler;
  metrics: RequestHandler;
  securityHeaders: RequestHandler;
}): FastPath {
  const security = headersSetBy(options.securityHeaders);
  const byUrl = new Map<string, PreparedMaster>();
  for (const master of options.masters.values()) {
    const routeTemplate = `${apiBase}/master/${master.name}`;
    const { cache, body } = masterHeaders(master);
    byUrl.set(routeTemplate, {
      etag: master.etag,
      body: master.body,
      routeTemplate,
      ok: [...security, ...cache, ...body],
      notModified: [...security, ...cache],
    });
  }
  const { checker, log, metrics } = options;
  return (req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return false;
    const master = byUrl.get(req.url ?? '');
    if (!master) return false;
    const presented = req.headers['x-api-key'];
    const record = checker.rememberedNow(typeof presented === 'string' ? presented : undefined);
    if (!record) return false;
    const requestId = requestIdFor(req);
    const locals: AppLocals = {
      requestId,
      receivedAt: Date.now(),
      user: { id: record.userId, keyId: record.keyId },
      routeTemplate: master.routeTemplate,
    };
    (res as ServerResponse & { locals: AppLocals }).locals = locals;
    log(req as Request, res as Response, noop as NextFunction);
    metrics(req as Request, res as Response, noop as NextFunction);
    try {
      if (fresh(req.headers, { etag: master.etag })) {
        res.writeHead(304, [...master.notModified, 'X-Request-Id', requestId]);
        res.end();
      } else {
        res.writeHead(200, [...master.ok, 'X-Request-Id', requestId]);
        // node leaves the body out of a HEAD response by itself
        res.end(master.body);
      }
    } catch {
      // never expected (every header but the checked request id is fixed at start); the HTTP
      // server calls this outside Express, where a throw would end the process: the
      // connection is closed instead, and the request log writes its line for it
      res.destroy();
    }
    return true;
  };
}

/** A request the HTTP server already offered the fast path (the app's middleware skips it). */
const offered = Symbol('mastersFastPathOffered');
type Offered = IncomingMessage & { [offered]?: true };

/** The HTTP server's call, before the app: true when answered. */
export function offerFastPath(fastPath: FastPath, req: IncomingMessage, res: ServerResponse): boolean {
  (req as Offered)[offered] = true;
  return fastPath(req, res);
}

/** The fast path as the app's first middleware, for a request the server did not offer it. */
export function fastPathMiddleware(fastPath: FastPath): RequestHandler {
  return (req, res, next) => {
    if ((req as Offered)[offered] || !fastPath(req, res)) next();
  };
}
