/**
 * `X-API-Key` on every /rest/v1 route (masters included). Sets `res.locals.user`.
 * Missing, unknown, expired and revoked keys get distinct 401 messages: each speaks only of
 * the key the caller sent, never of another user or key.
 */
import type { NextFunction, Request, Response } from 'express';
import { authenticateKey } from '../auth/api-keys.js';
import type { KeyStore } from '../auth/key-store.js';
import { errors } from './errors.js';
import { locals } from './locals.js';

const failures = {
  missing: errors.missingApiKey,
  unknown: errors.unknownApiKey,
  expired: errors.expiredApiKey,
  revoked: errors.revokedApiKey,
} as const;

export function authenticate(store: KeyStore) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    let result: Awaited<ReturnType<typeof authenticateKey>>;
    try {
      result = await authenticateKey(store, req.get('x-api-key'));
    } catch {
      // the store (Redis) is unreachable: fail closed, never let a request through unchecked
      throw errors.keyStoreUnavailable();
    }
    if (!result.ok) throw failures[result.reason]();
    locals(res).user = { id: result.record.userId, keyId: result.record.keyId };
    next();
  };
}
