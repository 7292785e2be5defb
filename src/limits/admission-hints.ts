/**
 * What this process last learnt of each user's admission (src/limits/admission.ts): the
 * credits left, and the rate budget left in the window then current. A search's engine call
 * starts beside its admission only when its user's last admission left room for it
 * (src/http/limits/credits.ts, `beside`); otherwise the engine is asked only once the request
 * is admitted, as every charged request was before. Room is taken as it is given (the credits
 * and one count of the rate budget), so a burst runs beside only as far as the last answer's
 * room goes, and after a rate window ends only one request runs beside until its admission
 * tells the new window's budget. So a user known to be out of credits or over the rate limit
 * never costs the engine a search, and one over it costs the engine at most the rate budget of
 * one window per API process in dropped searches (room spent elsewhere: another process, a
 * grant taken back).
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

  /** Remembers what an admission answered (a part it did not reach keeps what was known). */
  learn(userId: string, admission: Admission): void {
    const hint: Hint = { ...this.byUser.get(userId) };
    const balance = admission.reserve?.balance ?? admission.balance;
    if (balance !== undefined) hint.balance = balance;
    if (admission.rate) {
      hint.rateRemaining = admission.rate.remaining;
      hint.rateResetAtMs = admission.rate.resetEpochSeconds * 1000;
    }
    this.byUser.delete(userId);
    this.byUser.set(userId, hint);
    if (this.byUser.size > this.maxUsers) {
      const oldest = this.byUser.keys().next().value;
      if (oldest !== undefined) this.byUser.delete(oldest);
    }
  }
}
