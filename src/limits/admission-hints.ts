/**
 * What this process last learnt of each user's admission (src/limits/admission.ts): the
 * credits left, and the rate budget left in the window then current. A search's engine call
 * starts beside its admission only when its user's last admission left room for it
 * (src/http/limits/credits.ts, `beside`); otherwise the engine is asked only once the request
 * is admitted, as every charged request was before. Room is taken as it is given (the credits
 * and one count of the rate budget), an answer that may predate other admissions still out
 * only lowers what is known, and after a rate window ends only one request runs beside until
 * an admission tells the new window's budget. So a user known to be out of credits or over the
 * rate limit never costs the engine a search, and one whose room was spent elsewhere (another
 * API process, a detail or match of the same user, a grant taken back) costs the engine at most
 * about one window's rate budget per API process in dropped searches, never a credit.
 *
 *   learn('u', { reserve: { ok: true, balance: 7 }, rate: { remaining: 1, resetEpochSeconds: 100 } })
 *   takeRoom('u', 3, true, 99_000)   -> true  (4 credits and no rate budget left, as far as known)
 *   takeRoom('u', 3, true, 99_500)   -> false (until second 100)
 *   takeRoom('u', 3, true, 100_000)  -> true  (a new window: one, until an admission answers)
 *   takeRoom('u', 3, false, 100_000) -> false (1 credit left)
 */
import type { Admission } from './credit-ledger.js';

interface Hint {
  balance?: number;
  rateRemaining?: number;
  rateResetAtMs?: number;
  /** Admissions of the user sent and not yet answered (beside or not). */
  pending: number;
}

export class AdmissionHints {
  private readonly byUser = new Map<string, Hint>();

  /** At most `maxUsers` remembered; the one learnt of longest ago is forgotten first. */
  constructor(private readonly maxUsers = 10_000) {}

  /**
   * Whether what is known of `userId` leaves room for a request of `cost` now; if so, the
   * room is taken (until an admission's answer says what is left).
   */
  takeRoom(userId: string, cost: number, rateCounted: boolean, nowMs = Date.now()): boolean {
    const hint = this.byUser.get(userId);
    if (hint?.balance === undefined || hint.balance < cost) return false;
    if (rateCounted) {
      if (hint.rateRemaining === undefined || hint.rateResetAtMs === undefined) return false;
      if (nowMs >= hint.rateResetAtMs) {
        // a new window, its budget unknown: this one request, until an admission answers
        hint.rateRemaining = 0;
        hint.rateResetAtMs = Number.POSITIVE_INFINITY;
      } else if (hint.rateRemaining > 0) hint.rateRemaining -= 1;
      else return false;
    }
    hint.balance -= cost;
    return true;
  }

  /** An admission of `userId` is sent; `learn` is called with its answer (or without, on failure). */
  begin(userId: string): void {
    const hint = this.remember(userId);
    hint.pending += 1;
  }

  /**
   * Remembers what an admission answered (a part it did not reach keeps what was known).
   * While other admissions of the user are still out, an answer may predate them: it only
   * lowers what is known (the credits and counts left, a later window end), never gives back
   * room they took; the last answer in is taken as it is.
   */
  learn(userId: string, admission?: Admission): void {
    const hint = this.remember(userId);
    hint.pending = Math.max(0, hint.pending - 1);
    if (!admission) return;
    const partial = hint.pending > 0;
    const lower = (known: number | undefined, answered: number) =>
      partial && known !== undefined ? Math.min(known, answered) : answered;
    const balance = admission.reserve?.balance ?? admission.balance;
    if (balance !== undefined) hint.balance = lower(hint.balance, balance);
    if (admission.rate) {
      const resetAtMs = admission.rate.resetEpochSeconds * 1000;
      hint.rateRemaining = lower(hint.rateRemaining, admission.rate.remaining);
      hint.rateResetAtMs =
        partial && hint.rateResetAtMs !== undefined ? Math.max(hint.rateResetAtMs, resetAtMs) : resetAtMs;
    }
  }

  /**
   * The user's hint, made the most recent (a new one when unknown). Past the size the oldest
   * with no admission out is forgotten (one with admissions out would come back without their
   * count); among the 100 oldest, else the oldest.
   */
  private remember(userId: string): Hint {
    const hint = this.byUser.get(userId) ?? { pending: 0 };
    this.byUser.delete(userId);
    this.byUser.set(userId, hint);
    if (this.byUser.size > this.maxUsers) this.byUser.delete(this.forgettable());
    return hint;
  }

  private forgettable(): string {
    let looked = 0;
    let oldest: string | undefined;
    for (const [user, hint] of this.byUser) {
      oldest ??= user;
      if (hint.pending === 0) return user;
      if (++looked >= 100) break;
    }
    return oldest as string;
  }
}
