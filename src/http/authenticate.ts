/**
 * `X-API-Key` on every /rest/v1 route (masters included). Sets `res.locals.user`.
 * Missing, unknown, expired and revoked keys get distinct 401 messages: each speaks only of
 * the key the caller sent, never of another user or key. When the key store cannot be read,
 * a key verified in the last minutes still passes (src/auth/key-checker.ts), any other 503.
 * With `cache` (Redis mode), a key verified within `freshMs` is answered from memory while
 * revocations reach this process by pub/sub (src/auth/key-changes.ts).
 */
import type { NextFunction, Request, Response } from 'express';
import type { KeyChanges } from '../auth/key-changes.js';
import { KeyChecker } from '../auth/key-checker.js';
import type { KeyStore } from '../auth/key-store.js';
import { errors } from '../errors/catalogue.js';
import { deadlineOf, stillAnswering } from './deadline.js';
import { locals } from './locals.js';

const failures = {
  missing: errors.missingApiKey,
  unknown: errors.unknownApiKey,
  expired: errors.expiredApiKey,
  revoked: errors.revokedApiKey,
  unavailable: errors.keyStoreUnavailable,
} as const;

/** The app's one checker: its memory serves both authenticate() and the masters' fast path. */
export function keyChecker(store: KeyStore, cache?: { changes: KeyChanges; freshMs: number }): KeyChecker {
  return new KeyChecker(store, undefined, undefined, undefined, cache);
}

export function authenticate(checker: KeyChecker) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const presented = req.get('x-api-key');
    // masters: a key verified within the last minute waits at most 50 ms for Redis, then
    // answers from memory (a well Redis answers in a millisecond, so revocations still apply
    // on the next request; a stalled one no longer slows the masters)
    const result = isMastersRequest(req)
      ? await checker.checkPreferringMemory(presented, mastersKeyWaitMs, deadlineOf(res))
      : await checker.check(presented, new Date(), deadlineOf(res));
    if (!stillAnswering(res)) return;
    if (!result.ok) throw failures[result.reason]();
    locals(res).user = { id: result.record.userId, keyId: result.record.keyId };
    next();
  };
}

const mastersKeyWaitMs = 50;

function isMastersRequest(req: Request): boolean {
  return (req.method === 'GET' || req.method === 'HEAD') && req.path.startsWith('/master/');
}
