/**
 * Step "credits" of a route's chain (src/http/route-table.ts: after validation and the plan,
 * before the handler), on the plain admission of src/limits/charges.ts.
 *
 *   Idempotency-Key seen before, same body, done   -> the stored response again, not charged
 *   Idempotency-Key seen before, different body    -> 422 (errors.idempotencyConflict)
 *   Idempotency-Key seen before, still running     -> 409 with Retry-After (errors.idempotencyInProgress)
 *   balance < cost                                 -> 402, the handler never runs
 *   otherwise: reserve (atomic debit keyed by the request id) -> handler -> on the response:
 *     status < 400: commit (and store it under the Idempotency-Key)
 *     status >= 400: refund exactly once (and release the Idempotency-Key)
 *   Redis away or slow at any step before the handler -> 503 with Retry-After, nothing charged.
 *
 * X-Credits-Remaining on every charged response is the balance once this request is settled.
 *
 * A match (POST /corporates/match) goes the same way with a variable price: it reserves the
 * worst case (records x MATCH_CREDIT_COST, at most its `maxCredits`) and, on success, settles
 * at what the handler reports with `setFinalCost` (the certain matches it answered), giving the
 * rest back in the same step: {records: 1000, maxCredits: 50} -> reserve 50 -> 12 matches ->
 * settle 12 (38 back).
 */
import { randomUUID } from 'node:crypto';
import type { ErrorRequestHandler, NextFunction, Request, RequestHandler, Response } from 'express';
import onHeaders from 'on-headers';
import type { Logger } from 'pino';
import type { LimitKind } from '../../catalogue/operations.js';
import { stillAnswering } from '../../deadline.js';
import { errors } from '../../errors/catalogue.js';
import { AdmissionHints } from '../../limits/admission-hints.js';
import {
  admit,
  costOf,
  parseIdempotencyKey,
  refundBeforeAnswer,
  requestFingerprint,
  settleReservation,
  undoAdmission,
} from '../../limits/charges.js';
import type { Admission, AdmitRequest } from '../../limits/credit-ledger.js';
import type { Limits } from '../../limits/limits.js';
import { describeFailure, LimitsStoreUnavailable } from '../../limits/store-unavailable.js';
import type { LeaveBusy } from '../../redis.js';
import { chargeTagOf, limitOf, locals } from '../locals.js';
import { applyRateDecision, countDeferredThen, takeDeferredCount } from './rate-limit.js';

/**
 * What the admission decided: go on to the handler, or not (`refusal` the error to answer;
 * none when the request was answered already: a replay, or the deadline or a hang-up first).
 */
export type AdmissionVerdict = { pass: true } | { pass: false; refusal?: unknown };

const passed: AdmissionVerdict = { pass: true };
const answered: AdmissionVerdict = { pass: false };
const refused = (refusal: unknown): AdmissionVerdict => ({ pass: false, refusal });

/**
 * At most this many requests of the step in flight, this one included, for it to run beside:
 * the overlap takes a round trip off a request's latency when the process has idle time, and
 * only adds engine searches at once when it has none (docs/bench.md, "A step of the request
 * path": at 32 connections the overlap cost throughput).
 */
const besideUpTo = 2;

/** The admissions running beside their handler's work (`beside` below), by response. */
const besideVerdicts = new WeakMap<Response, Promise<AdmissionVerdict>>();

/**
 * `beside`: the handler need not wait for the admission to start its work. When the user's
 * last admission in this process left room for this request (src/limits/admission-hints.ts),
 * the store call is sent and the chain goes on at once: the handler starts its engine call,
 * then awaits `admissionOf(res)` before it writes anything, and drops its engine answer when
 * the verdict is not to pass (a search: src/http/routes/search.ts). `beside` says which
 * requests may: those whose handler's work before the verdict changes nothing (a search page
 * read by from/size; never one that opens or closes a point in time). Otherwise, and always
 * without `beside`, the handler runs only once the request is admitted.
 */
export function creditsMiddleware(
  limits: Limits,
  log?: Logger,
  {
    beside,
    busy,
  }: {
    beside?: (res: Response) => boolean;
    /** counts the requests that ask the store, from here to their close (src/redis.ts) */
    busy?: { enter(): LeaveBusy };
  } = {},
): RequestHandler {
  const hints = beside ? new AdmissionHints() : undefined;
  /** Requests of this step in flight in this process (from their admission to their close). */
  let inFlight = 0;
  return async (req: Request, res: Response, next: NextFunction) => {
    const kind = limitOf(res);
    // counts and suggest are free; an export reserves and settles its own charge (src/search/export)
    if (!kind || kind === 'count' || kind === 'suggest' || kind === 'export') return next();
    const userId = locals(res).user?.id;
    if (!userId) return next(errors.missingApiKey());
    let idempotencyKey: string | undefined;
    try {
      idempotencyKey =
        kind === 'search' || kind === 'match' ? parseIdempotencyKey(req.get('Idempotency-Key')) : undefined;
    } catch (error) {
      // a bad header is refused after the rate count, as every bad request is
      return next(await countDeferredThen(error, res, limits, log));
    }
    const request = admitRequest(req, res, limits, { kind, userId, idempotencyKey });
    // a free detail with nothing to count or claim asks the store nothing
    if (request.cost === 0 && !request.readBalance && !request.rate && !request.claim) return next();
    const now = Date.now();
    if (busy) res.once('close', busy.enter());
    if (hints) {
      inFlight += 1;
      res.once('close', () => {
        inFlight -= 1;
      });
    }
    // with others in flight the process has no idle time for the overlap to use (bench:step)
    const runsBeside =
      hints !== undefined &&
      inFlight <= besideUpTo &&
      beside?.(res) === true &&
      hints.takeRoom(userId, request.cost, request.rate !== undefined, now);
    hints?.begin(userId);
    const verdict = judgeAdmission(res, { limits, request, log, hints });
    if (!runsBeside) return passOn(await verdict, next);
    besideVerdicts.set(res, verdict);
    next();
  };
}

/**
 * The admission of a request whose handler works beside it; a request admitted before its
 * handler ran (or not charged) passes at once.
 */
export function admissionOf(res: Response): Promise<AdmissionVerdict> {
  return besideVerdicts.get(res) ?? Promise.resolve(passed);
}

/** Whether this request's handler started its work beside its admission. */
export function besideAdmission(res: Response): boolean {
  return besideVerdicts.has(res);
}

/** Hands a verdict to the chain: on to the next step, its refusal to the error steps, or nothing. */
export function passOn(verdict: AdmissionVerdict, next: NextFunction): void {
  if (verdict.pass) next();
  else if (verdict.refusal !== undefined) next(verdict.refusal);
}

/** The one store call, then its answer applied to the response. Never rejects. */
async function judgeAdmission(
  res: Response,
  {
    limits,
    request,
    log,
    hints,
  }: { limits: Limits; request: AdmitRequest; log?: Logger; hints?: AdmissionHints },
): Promise<AdmissionVerdict> {
  let admission: Admission;
  try {
    admission = await admit(limits, request, locals(res).deadline, log);
  } catch (error) {
    hints?.learn(request.userId);
    if (!(error instanceof LimitsStoreUnavailable)) return refused(error);
    log?.warn(
      { err: describeFailure(error), requestId: locals(res).requestId, reservationId: request.requestId },
      request.rate ? 'rate limiter unavailable' : 'credit ledger unavailable',
    );
    return refused(errors.limitsUnavailable(limits.config.unavailableRetryAfterSeconds));
  }
  hints?.learn(request.userId, admission);
  if (!stillAnswering(res)) {
    undoAdmission(limits, request, admission, log);
    return answered;
  }
  try {
    return answerAdmission(res, { limits, request, admission, log });
  } catch (error) {
    return refused(error);
  }
}

/** The store call's request: the count put off by the rate limit step, the claim, the cost. */
function admitRequest(
  req: Request,
  res: Response,
  limits: Limits,
  { kind, userId, idempotencyKey }: { kind: LimitKind; userId: string; idempotencyKey?: string },
): AdmitRequest {
  const deadline = locals(res).deadline;
  const rateLimiter = takeDeferredCount(res);
  // the ledger's idempotency key: minted here, never the caller's X-Request-Id, which a
  // caller could repeat to make a second search look like a replay of the first
  const requestId = randomUUID();
  return {
    userId,
    requestId,
    rate: rateLimiter && { limiter: rateLimiter, arrivedAt: deadline?.startedAt },
    claim:
      idempotencyKey === undefined
        ? undefined
        : {
            store: limits.idempotency,
            key: idempotencyKey,
            fingerprint: requestFingerprint(req.method, `${req.baseUrl}${req.path}`, req.body),
          },
    // a reconciliation batch is charged as the match request it became (its plan step)
    cost: costOf(kind, locals(res).reconcile?.match ?? req.body, limits.config),
    readBalance: kind === 'search' || kind === 'match',
    giveUpAt: deadline?.redisExpiresAt,
    tag: chargeTagOf(res),
  };
}

/** Rate refusal, then the claim's answers, then the reservation's, in the order they ran. */
function answerAdmission(
  res: Response,
  {
    limits,
    request,
    admission,
    log,
  }: { limits: Limits; request: AdmitRequest; admission: Admission; log?: Logger },
): AdmissionVerdict {
  if (admission.rate) {
    const refusal = applyRateDecision(res, admission.rate, limits);
    if (refusal) return refused(refusal);
  }
  const claim = admission.claim;
  if (claim?.kind === 'conflict') return refused(errors.idempotencyConflict());
  if (claim?.kind === 'in-progress') return refused(errors.idempotencyInProgress());
  if (claim?.kind === 'replay') {
    res.set({ 'X-Credits-Remaining': String(admission.balance), 'Idempotent-Replayed': 'true' });
    res.status(claim.response.status).json(claim.response.body);
    return answered;
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
    return passed;
  }
  const { requestId, cost } = request;
  if (!reserved.ok) {
    const shortfall = { balance: reserved.balance, cost };
    const short = locals(res).reconcile
      ? errors.insufficientReconcileCredits(shortfall)
      : limitOf(res) === 'match'
        ? errors.insufficientMatchCredits(shortfall)
        : errors.insufficientCredits(shortfall);
    short.headers['X-Credits-Remaining'] = String(reserved.balance);
    return refused(short);
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
  settleCharge(res, limits, charge, log);
  return passed;
}

interface Charge {
  requestId: string;
  balanceAfterReserve: number;
  cost: number;
  /** Set when the error step below refunded before the response went out. */
  balanceAfterRefund?: number;
  /** A match's actual price (`setFinalCost`), at most `cost`; unset: the reserved cost. */
  finalCost?: number;
}

const charges = new WeakMap<Response, Charge>();

/** The reservation of this request (0 when nothing was reserved): what a match may spend. */
export function reservedCost(res: Response): number {
  return charges.get(res)?.cost ?? 0;
}

/**
 * A match's actual price, set by its handler before it answers: the reservation is settled at
 * it (the rest refunded) instead of committed whole.
 */
export function setFinalCost(res: Response, credits: number): void {
  const charge = charges.get(res);
  if (charge) charge.finalCost = Math.min(credits, charge.cost);
}

/**
 * Error step after the handler: when a charged route fails, refund BEFORE the error response
 * is written, so the caller's next balance check already shows it and X-Credits-Remaining is
 * the balance after the refund. (A handler that writes its own error response is refunded once
 * the response is out; the refund is the same exactly-once script either way.)
 */
export function refundOnErrorMiddleware(limits: Limits, log?: Logger): ErrorRequestHandler {
  return async (error: unknown, _req: Request, res: Response, next: NextFunction) => {
    const charge = charges.get(res);
    if (!charge || res.headersSent) return next(error);
    const balance = await refundBeforeAnswer(limits, charge, log);
    if (balance !== undefined) charge.balanceAfterRefund = balance;
    next(error);
  };
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
        { err: describeFailure(error), requestId: locals(res).requestId },
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
function settleCharge(res: Response, limits: Limits, charge: Charge, log: Logger | undefined): void {
  res.once('finish', () => settleReservation(limits, charge, res.statusCode, log));
  res.once('close', () => {
    if (!res.writableFinished) settleReservation(limits, charge, 500, log);
  });
}
