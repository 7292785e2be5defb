/**
 * Runs the ledger's orphan sweep (credit-ledger.ts `sweepOrphans`) in every API process, every
 * `intervalSeconds` give or take a fifth (so processes started together drift apart). The
 * sweep is one script per batch in Redis, so two processes sweeping at once refund each
 * orphan once between them. A reservation is therefore refunded at most
 * CREDIT_RESERVATION_TIMEOUT_SECONDS + CREDIT_SWEEP_INTERVAL_SECONDS x 1.2 after it was made,
 * as long as one API process is running.
 */
import type { Logger } from 'pino';
import type { CreditLedger } from './credit-ledger.js';
import { describeFailure } from './store-unavailable.js';

export function startOrphanSweeper(
  ledger: CreditLedger,
  intervalSeconds: number,
  logger?: Logger,
): { stop(): void } {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const schedule = () => {
    if (stopped) return;
    const jitter = 0.8 + Math.random() * 0.4;
    timer = setTimeout(run, intervalSeconds * 1000 * jitter);
    timer.unref();
  };
  const run = async () => {
    try {
      const swept = await ledger.sweepOrphans();
      if (swept.reservations > 0)
        logger?.warn(swept, 'refunded orphaned credit reservations (their API process died mid-request)');
    } catch (error) {
      logger?.warn({ err: describeFailure(error) }, 'orphan sweep skipped: ledger unavailable');
    }
    schedule();
  };
  schedule();
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
