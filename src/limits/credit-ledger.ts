/**
 * The credit ledger: one balance per user (docs/decisions/credits-and-admission.md). A search reserves its cost before
 * OpenSearch is called, then commits on success or is refunded exactly once.
 *
 *   const r = await ledger.reserve('user-1', 1, requestId); // { ok: true, balance: 41 }
 *   ... search ...
 *   await ledger.commit(requestId);   // or: await ledger.refund(requestId)
 *
 * Two implementations: Redis (shared by every API process; ./redis-credit-ledger.ts) and the
 * single-process one (this process only, balances optionally kept in a file under .local/ so
 * the keys CLI and `npm start` see the same numbers; ./local-credit-ledger.ts).
 * `createCreditLedger` and, for the keys CLI, `openCreditLedger(config)` pick the right one
 * (./open-credit-ledger.ts).
 */
import type { IdempotencyClaim, IdempotencyStore } from './idempotency-store.js';
import type { ChargeTag, TailEntry } from './ledger-entry.js';
import type { RateDecision, RateLimiter } from './rate-limiter.js';

export type ReserveResult =
  /** Debited (or already debited under this request id); `balance` is after the debit. */
  | { ok: true; balance: number }
  /** Not enough credits; nothing was debited. */
  | { ok: false; balance: number };

export interface CreditLedger {
  /** 'shared': Redis, every process; 'single-process': this process (and file) only. */
  readonly mode: 'shared' | 'single-process';
  balance(userId: string): Promise<number>;
  /**
   * Adds `amount` (negative takes credits back, never below 0) and writes its ledger entry in
   * the same step; returns the new balance.
   */
  grant(userId: string, amount: number): Promise<number>;
  /**
   * Atomic check-and-debit, idempotent per `requestId`. `giveUpAt` (epoch ms): when the
   * caller stops waiting; a reserve the store only gets to after it debits nothing. `tag`:
   * what the charge is for, written on its ledger entry when it becomes final (./ledger-entry.ts).
   */
  reserve(
    userId: string,
    cost: number,
    requestId: string,
    giveUpAt?: number,
    tag?: ChargeTag,
  ): Promise<ReserveResult>;
  /** Makes the debit final and writes its charge on the ledger (once). */
  commit(requestId: string): Promise<void>;
  /** Gives a reserved debit back, exactly once; returns the balance after, or null if nothing was refunded. */
  refund(requestId: string): Promise<number | null>;
  /** Refunds every reservation left open past the orphan time (its process died), exactly once. */
  sweepOrphans(): Promise<SweepResult>;
  /** For the keys CLI: balance, open reservations, automatic refunds. */
  account(userId: string): Promise<AccountReport>;
  /**
   * Makes a reservation final at `finalCost` (at most what was reserved) and gives the rest
   * back, exactly once (exports: reserved for every record, charged for those sent).
   * Returns the balance after, or null if the reservation was not open. `rows`: what the
   * charge counted (records sent, rows matched), kept on its ledger entry.
   */
  settle(requestId: string, finalCost: number, rows?: number): Promise<number | null>;
  /**
   * Pushes an open reservation's orphan time a full orphan timeout ahead (an export renews
   * its one reservation while it streams, so the sweep never refunds a live export); false
   * if it is no longer open (settled, refunded, or already swept). Late-harmless: it never
   * reopens a reservation.
   */
  keepOpen(requestId: string): Promise<boolean>;
  /**
   * A charged request's rate count, Idempotency-Key claim and reservation, in that order
   * (src/limits/admission.ts): one round trip in Redis, the steps one by one elsewhere.
   */
  admit(request: AdmitRequest): Promise<Admission>;
  /** The oldest ledger entries not yet filed (at most `limit`), oldest first. */
  tail(limit: number): Promise<TailEntry[]>;
  /** Takes filed entries out of the tail. */
  dropTail(tailIds: string[]): Promise<void>;
  /** Entries waiting in the tail (the metric `corpsearch_ledger_tail_entries`). */
  tailLength(): Promise<number>;
  /** Users with a balance in the store (for `npm run ledger -- verify`). */
  users(): Promise<string[]>;
  /**
   * Sets a user's balance from the ledger: `ledgerSum` (every entry of the user, filed) less
   * the user's open reservations. Refused ('tail') while entries wait in the tail, which the
   * caller files first: they are not in `ledgerSum`.
   */
  restoreBalance(userId: string, ledgerSum: number): Promise<{ before: number; after: number } | 'tail'>;
  /**
   * Once per user, for balances that predate the ledger (`npm run ledger -- open`): an opening
   * entry of what the ledger lacks, `balance + open reservations - ledgerSum` (none when that
   * is 0), in one step; returns those credits, null when the user was opened before, 'tail'
   * while entries wait in the tail (not in `ledgerSum`).
   */
  open(userId: string, ledgerSum: number): Promise<number | null | 'tail'>;
}

export interface SweepResult {
  reservations: number;
  credits: number;
}

export interface AccountReport {
  balance: number;
  /** Reserved and not yet committed or refunded (searches in flight, or orphans not yet swept). */
  open: { reservations: number; credits: number };
  /** Orphaned reservations the sweep refunded: totals, and the latest (newest first, at most 10). */
  autoRefunded: {
    reservations: number;
    credits: number;
    recent: Array<{ at: string; reservationId: string; cost: number }>;
  };
}

/** What `admit` is asked to do (src/limits/admission.ts). */
export interface AdmitRequest {
  userId: string;
  /** The ledger's idempotency key for the reservation (minted per request). */
  requestId: string;
  /** Count the request in this limiter first (a charged route's deferred rate count). */
  rate?: { limiter: RateLimiter; arrivedAt?: number };
  /** Claim the caller's Idempotency-Key before anything is debited. */
  claim?: { store: IdempotencyStore; key: string; fingerprint: string };
  /** Credits to reserve; 0 reserves nothing and, with `readBalance`, reads the balance. */
  cost: number;
  /** What the charge is for, on its ledger entry. */
  tag?: ChargeTag;
  readBalance?: boolean;
  /** Epoch ms (this host's clock): a step the store only gets to after it does nothing. */
  giveUpAt?: number;
}

export interface Admission {
  rate?: RateDecision;
  claim?: IdempotencyClaim;
  reserve?: ReserveResult;
  balance?: number;
}
