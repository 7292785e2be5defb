/**
 * One deadline per request. Everything the request waits on (Redis, OpenSearch) is given the
 * time that is left, never a fixed timeout of its own, so a stall anywhere ends the request at
 * the deadline and not at the sum of the per-call timeouts.
 *
 *   const deadline = new Deadline({ totalMs: 3000, redisMs: 1000 });
 *   await withinRedisBudget(deadline, 'credit reserve', () => redis.csCreditReserve(...));
 *   await engine.search(request, { deadline }); // src/opensearch/engine.ts
 *   deadline.signal.aborted; // true once the time is up (or the caller hung up)
 *
 * Redis gets a shorter budget of its own (`redisMs`) for all of a request's Redis work
 * together: Redis answers in a millisecond when it is well, so waiting longer only delays the
 * 503 a caller would get anyway.
 */
export class DeadlineExceeded extends Error {
  constructor(readonly operation: string) {
    super(`the request deadline passed during ${operation}`);
    this.name = 'DeadlineExceeded';
  }
}

export class Deadline {
  readonly startedAt: number;
  readonly expiresAt: number;
  /** When this request stops waiting on Redis (never after expiresAt). */
  readonly redisExpiresAt: number;
  readonly totalMs: number;
  /**
   * Made when something first asks for `signal` (an engine call, a match): most requests
   * (a master list, a key refused) never do, and an AbortController with its event target
   * was a sizeable share of such a request's cost (docs/bench.md, "Masters beside a bare
   * Express route").
   */
  private controller: AbortController | undefined;
  /** Why it ended early or late, once it has (the reason `signal` aborts with). */
  private ended: DeadlineExceeded | undefined;
  private onExpired: (() => void) | undefined;
  private readonly timer: NodeJS.Timeout;

  /** `now`: when the request arrived, if earlier than this call (its time in the queue counts). */
  constructor(opts: { totalMs: number; redisMs: number; now?: number }) {
    this.startedAt = opts.now ?? Date.now();
    this.totalMs = opts.totalMs;
    this.expiresAt = this.startedAt + opts.totalMs;
    this.redisExpiresAt = this.startedAt + Math.min(opts.redisMs, opts.totalMs);
    this.timer = setTimeout(
      () => {
        // never after `cancel` or `release`: both clear this timer
        this.ended = new DeadlineExceeded('the request');
        // the 503 first, as it went when it listened on the signal before anything else did;
        // the engine calls stop whatever it does
        try {
          this.onExpired?.();
        } finally {
          this.controller?.abort(this.ended);
        }
      },
      Math.max(0, this.expiresAt - Date.now()),
    );
    this.timer.unref();
  }

  /** Aborted when the deadline passes or the caller hangs up. */
  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.ended) this.controller.abort(this.ended);
    }
    return this.controller.signal;
  }

  /**
   * Called once when the time is up (not when the caller hangs up): the HTTP layer's 503
   * (src/http/deadline.ts). One callback; a second replaces the first.
   */
  whenExpired(callback: () => void): void {
    this.onExpired = callback;
  }

  private end(reason: DeadlineExceeded): void {
    if (this.ended) return;
    this.ended = reason;
    this.controller?.abort(reason);
  }

  get expired(): boolean {
    return this.ended !== undefined || Date.now() >= this.expiresAt;
  }

  remainingMs(now = Date.now()): number {
    return Math.max(0, this.expiresAt - now);
  }

  redisRemainingMs(now = Date.now()): number {
    return Math.max(0, this.redisExpiresAt - now);
  }

  /** The request is over (answered): stop the timer; nothing more will wait on it. */
  release(): void {
    clearTimeout(this.timer);
  }

  /** The caller hung up: nothing more needs doing for it (`signal` aborts, the timer stops). */
  cancel(operation: string): void {
    clearTimeout(this.timer);
    this.end(new DeadlineExceeded(operation));
  }
}

/**
 * Runs one Redis call inside the request's Redis budget. The call is not cancelled when the
 * budget runs out (Redis has no way to take back a command already sent): every command the
 * API sends is written so that executing it late changes nothing (see the ledger, the rate
 * limiter and the Idempotency-Key store), and its late answer is ignored here.
 */
export async function withinRedisBudget<T>(
  deadline: Deadline | undefined,
  operation: string,
  call: () => Promise<T>,
): Promise<T> {
  if (!deadline) return call();
  const budget = deadline.redisRemainingMs();
  if (budget <= 0) throw new DeadlineExceeded(operation);
  let timer: NodeJS.Timeout | undefined;
  const pending = call();
  // a late rejection after the race is lost must not become an unhandled rejection
  pending.catch(() => {});
  try {
    return await Promise.race([
      pending,
      new Promise<never>((_resolve, reject) => {
        timer = setTimeout(() => reject(new DeadlineExceeded(operation)), budget);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * False once the response has gone out (the deadline's 503, or a client that hung up): a
 * handler that finishes late must not write, and a middleware must not hand on. Typed by
 * shape so that src/limits can use it without knowing the HTTP layer.
 */
export function stillAnswering(res: {
  headersSent: boolean;
  writableEnded: boolean;
  destroyed: boolean;
}): boolean {
  return !res.headersSent && !res.writableEnded && !res.destroyed;
}
