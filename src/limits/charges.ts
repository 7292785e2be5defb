/**
 * A charged request's admission and settlement, as plain values and calls: the Idempotency-Key
 * it presents, the fingerprint of its body, what it reserves, the one store call that counts,
 * claims and reserves (inside the request's Redis budget), and the commit, settle or refund
 * once its answer is out, retried while Redis is away. The HTTP step that runs them is
 * src/http/limits/credits.ts; an export reserves and settles its own charge
 * (src/search/export.ts) and refunds through `refundWithRetry`.
 */
import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import stableStringify from 'safe-stable-stringify';
import type { LimitKind } from '../catalogue/operations.js';
import type { Deadline } from '../deadline.js';
import { errors } from '../errors/catalogue.js';
import { metrics } from '../metrics.js';
import type { Admission, AdmitRequest } from './credit-ledger.js';
import type { Limits } from './limits.js';
import { describeFailure, inRedisBudget } from './store-unavailable.js';

/** Visible ASCII, 1-255 characters: what the IETF draft's examples use (UUIDs, random tokens). */
const idempotencyKeyPattern = /^[\x21-\x7e]{1,255}$/;

/** The `Idempotency-Key` header's value, checked; a 400 naming the header when malformed. */
export function parseIdempotencyKey(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  if (!idempotencyKeyPattern.test(header))
    throw errors.validation([
      { field: 'Idempotency-Key', reason: 'must be 1 to 255 visible ASCII characters, e.g. a UUID' },
    ]);
  return header;
}

/** Same method, path and JSON body (key order ignored) -> same fingerprint. */
export function requestFingerprint(method: string, path: string, body: unknown): string {
  return createHash('sha256')
    .update(`${method} ${path}\n${stableStringify(body ?? null)}`)
    .digest('base64url');
}

/**
 * What a request reserves: a search its price, the detail its price, a match the worst case
 * (every record a certain match), capped by its `maxCredits`. The body was validated before.
 */
export function costOf(kind: LimitKind, body: unknown, config: Limits['config']): number {
  // a page of a watched saved search's changes costs what a page of search results costs
  if (kind === 'search' || kind === 'changes') return config.searchCost;
  if (kind === 'match') {
    const match = body as { records?: unknown[]; maxCredits?: number } | undefined;
    const worst = (match?.records?.length ?? 0) * config.matchCost;
    return match?.maxCredits === undefined ? worst : Math.min(worst, match.maxCredits);
  }
  return config.detailCost;
}

/**
 * The one store call of the admission, inside the request's Redis budget. When it fails or
 * times out, what it may still do in Redis later is undone: the reservation cancelled (the
 * ledger's refund leaves a marker a late reserve respects), the claim released (owner-checked,
 * sent after the admission on the same connection, so it runs after it).
 */
export async function admit(
  limits: Limits,
  request: AdmitRequest,
  deadline: Deadline | undefined,
  log?: Logger,
): Promise<Admission> {
  try {
    return await inRedisBudget(deadline, 'admission', () => limits.ledger.admit(request));
  } catch (error) {
    if (request.cost > 0) refundWithRetry(limits, request.requestId, log, request.cost);
    if (request.claim)
      void limits.idempotency.release(request.userId, request.claim.key, request.requestId).catch(() => {});
    throw error;
  }
}

/** The response went out (deadline, hang-up) while the admission ran: give back what it took. */
export function undoAdmission(
  limits: Limits,
  request: AdmitRequest,
  admission: Admission,
  log?: Logger,
): void {
  // free the key for the caller's retry
  if (admission.claim?.kind === 'claimed' && request.claim)
    void limits.idempotency.release(request.userId, request.claim.key, request.requestId).catch(() => {});
  // the response's 'finish' would never come for this request: give the credit back now
  if (admission.reserve?.ok) refundWithRetry(limits, request.requestId, log, request.cost);
}

/**
 * A reservation's end once its answer is out: status < 400 commits it (or settles it at a
 * match's `finalCost`, the rest given back), anything else refunds it.
 */
export function settleReservation(
  limits: Limits,
  reservation: { requestId: string; cost: number; finalCost?: number },
  status: number,
  log?: Logger,
): void {
  const { requestId, cost, finalCost } = reservation;
  if (status >= 400) {
    refundWithRetry(limits, requestId, log, cost);
  } else if (finalCost === undefined) {
    metrics.creditsCharged.inc(cost);
    settleWithRetry('commit', limits, requestId, log);
  } else {
    metrics.creditsCharged.inc(finalCost);
    metrics.creditsRefunded.inc(cost - finalCost);
    settleWithRetry('settle', limits, requestId, log, undefined, 0, finalCost);
  }
}

/**
 * Refunds a failed request's reservation now, before its error answer is written, so the
 * caller's next balance check already shows it: the balance after the refund, or undefined
 * when nothing was refunded here (already refunded, or the ledger away: the refund on the
 * response's end retries it).
 */
export async function refundBeforeAnswer(
  limits: Limits,
  reservation: { requestId: string; cost: number },
  log?: Logger,
): Promise<number | undefined> {
  try {
    const balance = await limits.ledger.refund(reservation.requestId);
    if (balance === null) return undefined;
    metrics.creditsRefunded.inc(reservation.cost);
    return balance;
  } catch (refundError) {
    log?.warn({ err: { message: (refundError as Error).message } }, 'refund deferred: ledger unavailable');
    return undefined;
  }
}

const retryDelaysMs = [250, 500, 1000, 2000, 4000, 8000, 16000];

/**
 * Refunds `requestId` exactly once (the Lua script is a no-op the second time), retrying
 * while Redis is away, for about half a minute, so an outage during a failing search does
 * not keep the user's credit. After that the orphan sweep refunds it.
 */
export function refundWithRetry(limits: Limits, requestId: string, log?: Logger, cost?: number): void {
  settleWithRetry('refund', limits, requestId, log, cost);
}

function settleWithRetry(
  step: 'commit' | 'refund' | 'settle',
  limits: Limits,
  requestId: string,
  log?: Logger,
  cost?: number,
  attempt = 0,
  /** 'settle': the final price (a match's), the rest of the reservation given back. */
  finalCost = 0,
): void {
  const call =
    step === 'commit'
      ? limits.ledger.commit(requestId)
      : step === 'settle'
        ? limits.ledger.settle(requestId, finalCost)
        : limits.ledger.refund(requestId).then((balance) => {
            // null: already refunded (the HTTP error step counted it) or never debited
            if (balance !== null && cost !== undefined) metrics.creditsRefunded.inc(cost);
          });
  call.catch((error: Error) => {
    const delay = retryDelaysMs[attempt];
    if (delay === undefined) {
      log?.error(
        { err: describeFailure(error), reservationId: requestId },
        `credit ${step} could not be recorded; the orphan sweep will refund the reservation`,
      );
      return;
    }
    setTimeout(
      () => settleWithRetry(step, limits, requestId, log, cost, attempt + 1, finalCost),
      delay,
    ).unref();
  });
}
