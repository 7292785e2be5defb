/**
 * `GET /rest/v1/master/<name>` for the seven master lists. Behind authentication, before the
 * rate limit and credits: a key is required, nothing is limited or charged.
 * `Cache-Control: private, max-age=86400` with `Vary: X-API-Key`, and a strong ETag; a
 * matching `If-None-Match` gets 304 with no body. Private: the answer depends on the key (a
 * request without one is a 401), so a shared cache must not hand it to a caller without a key.
 */
import { Router } from 'express';
import { type LoadedMaster, loadMasters } from '../../masters/masters.js';

export function mastersRouter(masters: Map<string, LoadedMaster> = loadMasters()): Router {
  const router = Router();
  for (const master of masters.values()) {
    router.get(`/master/${master.name}`, (req, res) => {
      res.setHeader('Cache-Control', 'private, max-age=86400');
      res.setHeader('Vary', 'X-API-Key');
      res.setHeader('ETag', master.etag);
      // req.fresh compares If-None-Match with the ETag just set (weak comparison, RFC 9110 §13.1.2)
      if (req.fresh) {
        res.status(304).end();
        return;
      }
      res.type('application/json').send(master.body);
    });
  }
  return router;
}
