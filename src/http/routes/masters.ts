/**
 * `GET /rest/v1/master/<name>` for the master lists (src/masters/masters.ts `masterNames`). Behind authentication, before the
 * rate limit and credits: a key is required, nothing is limited or charged.
 * `Cache-Control: private, max-age=86400` with `Vary: X-API-Key`, and a strong ETag; a
 * matching `If-None-Match` gets 304 with no body. Private: the answer depends on the key (a
 * request without one is a 401), so a shared cache must not hand it to a caller without a key.
 *
 * The path is spelled exactly by the time it gets here (src/http/operation-gate.ts); each list
 * is a row of the route table (src/http/route-table.ts) with this one handler, which finds the
 * list by path. The body (serialised once, src/masters/masters.ts) is written as it is,
 * without res.send's per-request checks
 * (docs/decisions/api-cpu-cost.md).
 */
import type { NextFunction, Request, Response } from 'express';
import { type LoadedMaster, loadMasters } from '../../masters/masters.js';
import { locals } from '../locals.js';

/**
 * A list's headers, name then value: for every answer (`cache`) and for a 200's body (`body`).
 * The masters' fast path (src/http/masters-fast-path.ts) writes the same ones.
 */
export function masterHeaders(master: LoadedMaster): { cache: string[]; body: string[] } {
  return {
    cache: ['Cache-Control', 'private, max-age=86400', 'Vary', 'X-API-Key', 'ETag', master.etag],
    body: ['Content-Type', 'application/json; charset=utf-8', 'Content-Length', String(master.body.length)],
  };
}

function setHeaders(res: Response, headers: readonly string[]): void {
  for (let i = 0; i < headers.length; i += 2) res.setHeader(headers[i] as string, headers[i + 1] as string);
}

export function mastersRouter(masters: Map<string, LoadedMaster> = loadMasters()) {
  const byPath = new Map(
    [...masters.values()].map((master) => [
      `/master/${master.name}`,
      { master, headers: masterHeaders(master) },
    ]),
  );
  return (req: Request, res: Response, next: NextFunction): void => {
    const found = req.method === 'GET' || req.method === 'HEAD' ? byPath.get(req.path) : undefined;
    if (!found) {
      next();
      return;
    }
    const { master, headers } = found;
    locals(res).routeTemplate = `/master/${master.name}`;
    setHeaders(res, headers.cache);
    // req.fresh compares If-None-Match with the ETag just set (weak comparison, RFC 9110 §13.1.2)
    if (req.fresh) {
      res.status(304).end();
      return;
    }
    setHeaders(res, headers.body);
    // node leaves the body out of a HEAD response by itself
    res.end(master.body);
  };
}
