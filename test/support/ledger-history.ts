/**
 * The credit ledger under test, with every call and its answer written down: wraps the real
 * ledger (Redis or single-process; every call goes through to it) for the tests that must
 * show what happened to a balance on the way, not only at the end.
 *
 * Each balance change in the ledger is one atomic step that answers with the balance after it
 * (reserve, refund, grant), so the lowest answer recorded is the lowest the balance ever was:
 * unlike sampling `balance()` every few milliseconds, no dip can fall between two looks.
 */
import type { CreditLedger } from '../../src/limits/credit-ledger.js';

export interface LedgerHistory {
  ledger: CreditLedger;
  /** The lowest balance `userId` had after any change made through the ledger. */
  lowest(userId: string): number | undefined;
  /** Reservation ids made for `userId`, in the order the ledger debited them. */
  reservations(userId: string): string[];
  /** How many refunds of `reservationId` gave credits back (the ledger answered a balance). */
  refundsPaid(reservationId: string): number;
  /** How many times `reservationId` was closed: refunds paid plus settlements the ledger answered. */
  closings(reservationId: string): number;
}

export function recordLedger(inner: CreditLedger): LedgerHistory {
  const lowest = new Map<string, number>();
  const reservations = new Map<string, string[]>();
  const owner = new Map<string, string>();
  const refunds = new Map<string, number>();
  const settles = new Map<string, number>();
  const note = (userId: string | undefined, balance: number) => {
    if (userId === undefined) return;
    lowest.set(userId, Math.min(lowest.get(userId) ?? balance, balance));
  };
  const noteReserved = (userId: string, requestId: string, balance: number) => {
    owner.set(requestId, userId);
    reservations.set(userId, [...(reservations.get(userId) ?? []), requestId]);
    note(userId, balance);
  };
  const ledger: CreditLedger = {
    mode: inner.mode,
    balance: (userId) => inner.balance(userId),
    async grant(userId, amount) {
      const balance = await inner.grant(userId, amount);
      note(userId, balance);
      return balance;
    },
    async reserve(userId, cost, requestId, giveUpAt, tag) {
      const result = await inner.reserve(userId, cost, requestId, giveUpAt, tag);
      if (result.ok) noteReserved(userId, requestId, result.balance);
      return result;
    },
    // a charged request's rate count, claim and reservation in one call (one Redis round
    // trip): its reservation is written down like one made by `reserve`
    async admit(request) {
      const admission = await inner.admit(request);
      if (admission.reserve?.ok) noteReserved(request.userId, request.requestId, admission.reserve.balance);
      return admission;
    },
    commit: (requestId) => inner.commit(requestId),
    async refund(requestId) {
      const balance = await inner.refund(requestId);
      if (balance !== null) {
        refunds.set(requestId, (refunds.get(requestId) ?? 0) + 1);
        note(owner.get(requestId), balance);
      }
      return balance;
    },
    // the sweep only gives credits back (orphaned reservations), so it cannot lower a balance
    sweepOrphans: () => inner.sweepOrphans(),
    account: (userId) => inner.account(userId),
    // settle only gives back what was reserved beyond the final cost, so it cannot lower a balance
    async settle(requestId, finalCost, rows) {
      const balance = await inner.settle(requestId, finalCost, rows);
      if (balance !== null) settles.set(requestId, (settles.get(requestId) ?? 0) + 1);
      return balance;
    },
    keepOpen: (requestId) => inner.keepOpen(requestId),
    tail: (limit) => inner.tail(limit),
    dropTail: (tailIds) => inner.dropTail(tailIds),
    tailLength: () => inner.tailLength(),
    users: () => inner.users(),
    restoreBalance: (userId, sum) => inner.restoreBalance(userId, sum),
    open: (userId, sum) => inner.open(userId, sum),
  };
  return {
    ledger,
    lowest: (userId) => lowest.get(userId),
    reservations: (userId) => reservations.get(userId) ?? [],
    refundsPaid: (reservationId) => refunds.get(reservationId) ?? 0,
    closings: (reservationId) => (refunds.get(reservationId) ?? 0) + (settles.get(reservationId) ?? 0),
  };
}
