/**
 * Slot "credit reservation" of src/http/app.ts (after validation, before the search routes).
 *
 *   Idempotency-Key seen before, same body, done   -> the stored response again, not charged
 *   Idempotency-Key seen before, different body    -> 422 (errors.idempotencyConflict)
 *   Idempotency-Key seen before, still running     -> 409 with Retry-After (errors.idempotencyInProgress)
 *   balance < cost                                 -> 402, the search route never runs
 *   otherwise: reserve (atomic debit keyed by the request id) -> route -> on the response:
 *     status < 400: commit (and store it under the Idempotency-Key)
 *     status >= 400: refund exactly once (and release the Idempotency-Key)
 *   Redis away or slow at any step before the route -> 503 with Retry-After, nothing charged.
 *
 * X-Credits-Remaining on every charged response is the balance once this request is settled.
 *
 * A match (POST /corporates/match) goes the same way with a variable price: it reserves the
 * worst case (records x MATCH_CREDIT_COST, at most its `maxCredits`) and, on success, settles
 * at what the route reports with `setFinalCost` (the certain matches it answered), giving the
 * rest back in the same step: {records: 1000, maxCredits: 50} -> reserve 50 -> 12 matches ->
 * settle 12 (38 back).
 */
import { createHash, randomUUID } from 'node:crypto';
import type { ErrorRequestHandler, NextFunction, Request, RequestHandler, Response } from 'express';
import onHeaders from 'on-headers';
import type { Logger } from 'pino';
import stableStringify from 'safe-stable-stringify';
import { type Deadline, stillAnswering } from '../deadline.js';
import { errors } from '../errors/catalogue.js';
import { metrics } from '../metrics.js';
import type { Admission, AdmitRequest } from './credit-ledger.js';
import { type LimitedRoute, limitedRoute } from './limited-routes.js';
import type { Limits } from './limits.js';
import { applyRateDecision, countDeferredThen, takeDeferredCount } from './rate-limit-middleware.js';
import { describeFailure, inRedisBudget, LimitsStoreUnavailable } from './store-unavailable.js';

/** Visible ASCII, 1-255 characters: what the IETF draft's examples use (UUIDs, random tokens). */
const idempotencyKeyPattern = /^[\x21-\x7e]{1,255}$/;

export function creditsMiddleware(limits: Limits, log?: Logger): RequestHandler {
  return async (req: Request, res: Response, next: NextFunction) => {
    const route = limitedRoute(res);
    // counts and suggest are free; an export reserves and settles its own charge (src/search/export)
    if (!route || route === 'count' || route === 'suggest' || route === 'export') return next();
    const userId = (res.locals.user as { id?: string } | undefined)?.id;
    if (!userId) return next(errors.missingApiKey());
    let idempotencyKey: string | undefined;
    try {
      idempotencyKey = route === 'search' || route === 'match' ? readIdempotencyKey(req) : undefined;
    } catch (error) {
      // a bad header is refused after the rate count, as every bad request is
      return next(await countDeferredThen(error, res, limits, log));
    }
    // the ledger's idempotency key: minted here, never the caller's X-Request-Id, which a
    // caller could repeat to make a second search look like a replay of the first
    const requestId = randomUUID();
    const rateLimiter = takeDeferredCount(res);
    const request: AdmitRequest = {
      userId,
      requestId,
      rate: rateLimiter && { limiter: rateLimiter, arrivedAt: deadlineOf(res)?.startedAt },
      claim:
        idempotencyKey === undefined
          ? undefined
          : { store: limits.idempotency, key: idempotencyKey, fingerprint: fingerprint(req) },
      cost: costOf(route, req, limits),
      readBalance: route === 'search' || route === 'match',
      giveUpAt: deadlineOf(res)?.redisExpiresAt,
    };
    // a free detail with nothing to count or claim asks the store nothing
    if (request.cost === 0 && !request.readBalance && !request.rate && !request.claim) return next();
    let admission: Admission;
    try {
      admission = await admit(res, limits, request, log);
    } catch (error) {
      if (!(error instanceof LimitsStoreUnavailable)) throw error;
      log?.warn(
        { err: describeFailure(error), requestId: res.locals.requestId, reservationId: requestId },
        rateLimiter ? 'rate limiter unavailable' : 'credit ledger unavailable',
      );
      return next(errors.limitsUnavailable(limits.config.unavailableRetryAfterSeconds));
    }
    if (!stillAnswering(res)) return undoAdmission(limits, request, admission, log);
    return answerAdmission(res, next, { limits, request, admission, log });
  };
}

/**
 * The one store call of the admission, inside the request's Redis budget. When it fails or
 * times out, what it may still do in Redis later is undone: the reservation cancelled (the
 * ledger's refund leaves a marker a late reserve respects), the claim released (owner-checked,
 * sent after the admission on the same connection, so it runs after it).
 */
async function admit(res: Response, limits: Limits, request: AdmitRequest, log?: Logger): Promise<Admission> {
  try {
    return await inRedisBudget(deadlineOf(res), 'admission', () => limits.ledger.admit(request));
  } catch (error) {
    if (request.cost > 0) refundWithRetry(limits, request.requestId, log, request.cost);
    if (request.claim)
      void limits.idempotency.release(request.userId, request.claim.key, request.requestId).catch(() => {});
    throw error;
  }
}

/** The response went out (deadline, hang-up) while the admission ran: give back what it took. */
function undoAdmission(limits: Limits, request: AdmitRequest, admission: Admission, log?: Logger): void {
  // free the key for the caller's retry
  if (admission.claim?.kind === 'claimed' && request.claim)
    void limits.idempotency.release(request.userId, request.claim.key, request.requestId).catch(() => {});
  // 'finish' below would never come for this request: give the credit back now
  if (admission.reserve?.ok) refundWithRetry(limits, request.requestId, log, request.cost);
}

/** Rate refusal, then the claim's answers, then the reservation's, in the order they ran. */
function answerAdmission(
  res: Response,
  next: NextFunction,
  {
    limits,
    request,
    admission,
    log,
  }: { limits: Limits; request: AdmitRequest; admission: Admission; log?: Logger },
) {
  if (admission.rate) {
    const refusal = applyRateDecision(res, admission.rate, limits);
    if (refusal) return next(refusal);
  }
  const claim = admission.claim;
  if (claim?.kind === 'conflict') return next(errors.idempotencyConflict());
  if (claim?.kind === 'in-progress') return next(errors.idempotencyInProgress());
  if (claim?.kind === 'replay') {
    res.set({ 'X-Credits-Remaining': String(admission.balance), 'Idempotent-Replayed': 'true' });
    res.status(claim.response.status).json(claim.response.body);
    return;
  }
  if (claim && request.claim)
    recordOutcome(
      res,
      limits,
      { userId: request.userId, key: request.claim.key, owner: request.requestId },
      log,
    );
  const reserved = admission.reserve;
  if (!reserved) {
    if (admission.balance !== undefined) res.set('X-Credits-Remaining', String(admission.balance));
    return next();
  }
  const { requestId, cost } = request;
  if (!reserved.ok) {
    const short = errors.insufficientCredits(reserved.balance, cost, limitedRoute(res) === 'match');
    short.headers['X-Credits-Remaining'] = String(reserved.balance);
    return next(short);
  }
  const charge: Charge = { requestId, balanceAfterReserve: reserved.balance, cost };
  charges.set(res, charge);
  onHeaders(res, function (this: Response) {
    const settled =
      charge.balanceAfterRefund ??
      (this.statusCode < 400
        ? charge.balanceAfterReserve + (cost - (charge.finalCost ?? cost))
        : charge.balanceAfterReserve + cost);
    this.setHeader('X-Credits-Remaining', String(settled));
  });
  settleCharge(res, limits, requestId, log, cost);
  return next();
}

/** The request's deadline (src/http/deadline.ts), if it runs under one. */
function deadlineOf(res: Response): Deadline | undefined {
  return res.locals.deadline as Deadline | undefined;
}

interface Charge {
  requestId: string;
  balanceAfterReserve: number;
  cost: number;
  /** Set when the error path below refunded before the response went out. */
  balanceAfterRefund?: number;
  /** A match's actual price (`setFinalCost`), at most `cost`; unset: the reserved cost. */
  finalCost?: number;
}

const charges = new WeakMap<Response, Charge>();

/**
 * What a request reserves: a search its price, the detail its price, a match the worst case
 * (every record a certain match), capped by its `maxCredits`. The body was validated before.
 */
function costOf(route: LimitedRoute, req: Request, limits: Limits): number {
  if (route === 'search') return limits.config.searchCost;
  if (route === 'match') {
    const body = req.body as { records?: unknown[]; maxCredits?: number } | undefined;
    const worst = (body?.records?.length ?? 0) * limits.config.matchCost;
    return body?.maxCredits === undefined ? worst : Math.min(worst, body.maxCredits);
  }
  return limits.config.detailCost;
}

/** The reservation of this request (0 when nothing was reserved): what a match may spend. */
export function reservedCost(res: Response): number {
  return charges.get(res)?.cost ?? 0;
}

/**
 * A match's actual price, set by its route before it answers: the reservation is settled at
 * it (the rest refunded) instead of committed whole.
 */
export function setFinalCost(res: Response, credits: number): void {
  const charge = charges.get(res);
  if (charge) charge.finalCost = Math.min(credits, charge.cost);
}

/**
 * Slot after the search routes: when a charged route fails, refund BEFORE the error response
 * is written, so the caller's next balance check already shows it and X-Credits-Remaining is
 * the balance after the refund. (A route that writes its own error response is refunded once
 * the response is out; the refund is the same exactly-once script either way.)
 */
export function refundOnErrorMiddleware(limits: Limits, log?: Logger): ErrorRequestHandler {
  return async (error: unknown, _req: Request, res: Response, next: NextFunction) => {
    const charge = charges.get(res);
    if (!charge || res.headersSent) return next(error);
    try {
      const balance = await limits.ledger.refund(charge.requestId);
      if (balance !== null) {
        charge.balanceAfterRefund = balance;
        metrics.creditsRefunded.inc(charge.cost);
      }
    } catch (refundError) {
      log?.warn({ err: { message: (refundError as Error).message } }, 'refund deferred: ledger unavailable');
    }
    next(error);
  };
}

function readIdempotencyKey(req: Request): string | undefined {
  const key = req.get('Idempotency-Key');
  if (key === undefined) return undefined;
  if (!idempotencyKeyPattern.test(key))
    throw errors.validation([
      { field: 'Idempotency-Key', reason: 'must be 1 to 255 visible ASCII characters, e.g. a UUID' },
    ]);
  return key;
}

/** Same method, path and JSON body (key order ignored) -> same fingerprint. */
function fingerprint(req: Request): string {
  return createHash('sha256')
    .update(`${req.method} ${req.baseUrl}${req.path}\n${stableStringify(req.body ?? null)}`)
    .digest('base64url');
}

/**
 * Stores the response under the Idempotency-Key (status < 400) or releases the key (any
 * failure, 402 included), BEFORE the response is written: a retry sent the moment this
 * response arrives then finds the stored answer, not an in-flight claim.
 */
function recordOutcome(
  res: Response,
  limits: Limits,
  claim: { userId: string; key: string; owner: string },
  log?: Logger,
): void {
  let recorded = false;
  const record = (status: number, body: { value: unknown } | undefined): Promise<void> => {
    recorded = true;
    const write =
      status < 400 && body
        ? limits.idempotency.complete(claim.userId, claim.key, claim.owner, { status, body: body.value })
        : limits.idempotency.release(claim.userId, claim.key, claim.owner);
    return write.catch((error: Error) => {
      // the claim then expires by itself (idempotencyPendingTtlSeconds)
      log?.warn(
        { err: describeFailure(error), requestId: res.locals.requestId },
        'idempotency record not updated',
      );
    });
  };
  const json = res.json.bind(res);
  res.json = (body: unknown) => {
    void record(res.statusCode, { value: body }).finally(() => json(body));
    return res;
  };
  // a client gone before any JSON was sent: release, so its retry runs
  res.once('close', () => {
    if (!recorded) void record(res.statusCode, undefined);
  });
}

/**
 * Once the response is out: commit or refund (exactly once: the scripts are no-ops the second
 * time). A caller that hangs up before its answer is out gets nothing, so it is refunded;
 * its search is stopped through the request's deadline signal (src/http/deadline.ts).
 * Both are retried while Redis is away: an uncommitted reservation would otherwise be
 * refunded by the orphan sweep (a free search), an unrefunded one only by the sweep (late).
 */
function settleCharge(
  res: Response,
  limits: Limits,
  requestId: string,
  log: Logger | undefined,
  cost: number,
): void {
  res.once('finish', () => {
    if (res.statusCode < 400) {
      const finalCost = charges.get(res)?.finalCost;
      if (finalCost === undefined) {
        metrics.creditsCharged.inc(cost);
        settleWithRetry('commit', limits, requestId, log);
      } else {
        metrics.creditsCharged.inc(finalCost);
        metrics.creditsRefunded.inc(cost - finalCost);
        settleWithRetry('settle', limits, requestId, log, undefined, 0, finalCost);
      }
    } else {
      refundWithRetry(limits, requestId, log, cost);
    }
  });
  res.once('close', () => {
    if (!res.writableFinished) refundWithRetry(limits, requestId, log, cost);
  });
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
            // null: already refunded (refundOnErrorMiddleware counted it) or never debited
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
