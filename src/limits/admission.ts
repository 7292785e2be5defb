/**
 * A charged request's admission: the rate count, the Idempotency-Key claim and the credit
 * reservation, in that order, each step run only when the one before let the request through
 * (decision "A search's admission in one Redis round trip"). The Redis ledger runs the three as ONE script, so a
 * search costs one Redis round trip before it starts (src/limits/redis-credit-ledger.ts);
 * the single-process ledger, and any ledger whose steps are not all in its Redis, runs them
 * one after the other with `admitInSteps`, which is the reference for what the script does.
 *
 *   rate refused (consumed > points)   -> { rate }                      nothing claimed or debited
 *   claim not won (conflict, in flight) -> { rate, claim }               nothing debited
 *   claim is a replay                  -> { rate, claim, balance }      nothing debited
 *   cost 0                             -> { rate, claim, balance }      balance read, nothing debited
 *   otherwise                          -> { rate, claim, reserve }      reserve's own answer
 */
import type { Admission, AdmitRequest, CreditLedger } from './credit-ledger.js';

/** The steps one after the other: one store call each. */
export async function admitInSteps(ledger: CreditLedger, request: AdmitRequest): Promise<Admission> {
  const { userId, requestId, giveUpAt } = request;
  const admission: Admission = {};
  if (request.rate) {
    admission.rate = await request.rate.limiter.consume(userId, giveUpAt, request.rate.arrivedAt);
    if (!admission.rate.allowed) return admission;
  }
  if (request.claim) {
    const { store, key, fingerprint } = request.claim;
    admission.claim = await store.claim(userId, key, fingerprint, requestId, giveUpAt);
    if (admission.claim.kind !== 'claimed') {
      if (admission.claim.kind === 'replay') admission.balance = await ledger.balance(userId);
      return admission;
    }
  }
  if (request.cost > 0)
    admission.reserve = await ledger.reserve(userId, request.cost, requestId, giveUpAt, request.tag);
  else if (request.readBalance) admission.balance = await ledger.balance(userId);
  return admission;
}
