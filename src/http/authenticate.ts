/**
 * `X-API-Key` on every /rest/v1 route (masters included). Sets `res.locals.user`.
 * Missing, unknown, expired and revoked keys get distinct 401 messages: each speaks only of
 * the key the caller sent, never of another user or key. When the key store cannot be read,
 * a key verified in the last minutes still passes (src/auth/key-checker.ts), any other 503.
 */
import type { NextFunction, Request, Response } from 'express';
import { KeyChecker } from '../auth/key-checker.js';
import type { KeyStore } from '../auth/key-store.js';
import { errors } from '../errors/catalogue.js';
import { locals } from './locals.js';

const failures = {
  missing: errors.missingApiKey,
  unknown: errors.unknownApiKey,
  expired: errors.expiredApiKey,
  revoked: errors.revokedApiKey,
  unavailable: errors.keyStoreUnavailable,
} as const;

export function authenticate(store: KeyStore) {
  const checker = new KeyChecker(store);
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const result = await checker.check(req.get('x-api-key'));
    if (!result.ok) throw failures[result.reason]();
    locals(res).user = { id: result.record.userId, keyId: result.record.keyId };
    next();
  };
}
