/**
 * Samples a user's balance every few milliseconds while concurrent searches run, so a test
 * can show the balance never went below zero on the way, not only at the end.
 */
import type { CreditLedger } from '../../src/limits/credit-ledger.js';

export function watchLowestBalance(ledger: CreditLedger, userId: string, start: number) {
  let lowest = start;
  let running = true;
  const sampling = (async () => {
    while (running) {
      lowest = Math.min(lowest, await ledger.balance(userId));
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  })();
  return {
    /** Stops sampling; resolves to the lowest balance seen. */
    async stop(): Promise<number> {
      running = false;
      await sampling;
      return lowest;
    },
  };
}
