import { type Deadline, DeadlineExceeded, withinRedisBudget } from '../deadline.js';

/**
 * Raised when Redis (or the single-process store) cannot answer: disconnected, timed out,
 * or erroring. The middleware turns it into a 503 with Retry-After (errors.limitsUnavailable):
 * searches fail closed, nothing is charged. The cause is kept for the log, never the response.
 */
export class LimitsStoreUnavailable extends Error {
  constructor(
    readonly operation: string,
    override readonly cause: unknown,
  ) {
    super(`limits store unavailable during ${operation}`);
    this.name = 'LimitsStoreUnavailable';
  }
}

/** Runs a store call, turning any failure into LimitsStoreUnavailable. */
export async function storeCall<T>(operation: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw new LimitsStoreUnavailable(operation, error);
  }
}

/** For a log line: what failed and why, from ioredis's own message (no keys, no values). */
export function describeFailure(error: unknown): { message: string; cause?: string } {
  const message = error instanceof Error ? error.message : String(error);
  const cause =
    error instanceof LimitsStoreUnavailable && error.cause instanceof Error ? error.cause.message : undefined;
  return cause ? { message, cause } : { message };
}

/**
 * A store call inside the request's Redis budget (src/deadline.ts): when the budget runs out
 * first, LimitsStoreUnavailable (503), and the call's late answer is ignored.
 */
export async function inRedisBudget<T>(
  deadline: Deadline | undefined,
  operation: string,
  call: () => Promise<T>,
): Promise<T> {
  try {
    return await withinRedisBudget(deadline, operation, call);
  } catch (error) {
    if (error instanceof DeadlineExceeded) throw new LimitsStoreUnavailable(operation, error);
    throw error;
  }
}
