/**
 * What this process last learnt of each user's admission (src/limits/admission.ts): the
 * credits left, and the rate budget left in the window then current. A search's engine call
 * starts beside its admission only when its user's last admission left room for it
 * (src/http/limits/credits.ts, `beside`); otherwise the engine is asked only once the request
 * is admitted, as every charged request was before. So a user known to be out of credits or
 * over the rate limit never costs the engine a search; one whose room was spent elsewhere since
 * (another API process, a grant taken back) costs it at most one dropped search per admission
 * that tells this process so.
 *
 *   learn('u', { reserve: { ok: true, balance: 7 }, rate: { remaining: 0, resetEpochSeconds: 100 } })
 *   roomFor('u', 3, true, 99_000)   -> false (no rate budget left until second 100)
 *   roomFor('u', 3, true, 100_000)  -> true
 *   roomFor('u', 8, false, 100_000) -> false (7 credits left)
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

  /** Whether the last admission of `userId` left room for a request of `cost` now. */
  roomFor(userId: string, cost: number, rateCounted: boolean, nowMs = Date.now()): boolean {
    const hint = this.byUser.get(userId);
    if (hint?.balance === undefined || hint.balance < cost) return false;
    if (!rateCounted) return true;
    if (hint.rateRemaining === undefined || hint.rateResetAtMs === undefined) return false;
    return hint.rateRemaining > 0 || nowMs >= hint.rateResetAtMs;
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
