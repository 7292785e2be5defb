/**
 * Process state the readiness probe reads: the request validators are compiled (src/server.ts
 * marks it once they are), and the process is not draining (set on SIGTERM, so a balancer
 * stops sending before the listener closes).
 */
let validatorsCompiled = false;
let draining = false;

export const processState = {
  markValidatorsCompiled(): void {
    validatorsCompiled = true;
  },
  markDraining(): void {
    draining = true;
  },
  get validatorsCompiled(): boolean {
    return validatorsCompiled;
  },
  get draining(): boolean {
    return draining;
  },
};

/** What one check of the dependencies found (src/http/routes/health.ts builds it). */
export interface DependencyHealth {
  /** green / yellow: the API's indices; down: no answer, refused, or an index red. */
  opensearch: { status: string; cluster?: string };
  /** Every index alias of the API exists. */
  indices: boolean;
  /** up / down (shared), in-memory (single-process). */
  redis: { status: string; mode: string };
}

export interface HealthReading extends DependencyHealth {
  /** The state is older than `staleAfterMs` (a check that hangs): it proves nothing. */
  stale: boolean;
}

/**
 * The probes' view of OpenSearch and Redis, checked in the background, so that no number of
 * probe calls adds a request to the engine or Redis: one check at a time, the next one
 * `intervalMs` after the last one ended. A probe reads the last state; one older than
 * `staleAfterMs` (a check still hanging) counts as not ready.
 *
 *   const monitor = new HealthMonitor(check);       // check: () => Promise<DependencyHealth>
 *   monitor.start();                                 // with the server (src/http/server.ts)
 *   await monitor.read();                            // memory, or the first check once
 *   monitor.stop();                                  // when the server closes
 *
 * A monitor that was never started (an app served by a test's own listener) checks on
 * demand, with the same bounds: at most one check in flight and one started per
 * `intervalMs`, whatever the number of callers. Its timer is unref'd: it never keeps the
 * process alive.
 */
export class HealthMonitor {
  private state?: DependencyHealth & { checkedAt: number };
  private inFlight?: Promise<void>;
  private lastStartedAt = Number.NEGATIVE_INFINITY;
  private timer?: NodeJS.Timeout;
  private started = false;
  /** Checks started, for the operator's eyes and the tests. */
  checks = 0;

  constructor(
    private readonly check: () => Promise<DependencyHealth>,
    private readonly opts: { intervalMs: number; staleAfterMs: number } = {
      intervalMs: 1000,
      staleAfterMs: 5000,
    },
  ) {}

  get running(): boolean {
    return this.started;
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    this.tick();
  }

  stop(): void {
    this.started = false;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  async read(now = Date.now): Promise<HealthReading> {
    if (!this.started && now() - this.lastStartedAt >= this.opts.intervalMs) await this.refresh();
    else if (!this.state && this.inFlight) await this.inFlight;
    const state = this.state;
    if (!state) return { ...unknownHealth, stale: true };
    // age from the start of the check that produced it: what it saw may be that old
    return { ...state, stale: now() - state.checkedAt > this.opts.staleAfterMs };
  }

  private tick(): void {
    void this.refresh().then(() => {
      if (!this.started) return;
      this.timer = setTimeout(() => this.tick(), this.opts.intervalMs);
      this.timer.unref();
    });
  }

  private refresh(): Promise<void> {
    if (this.inFlight) return this.inFlight;
    const startedAt = Date.now();
    this.lastStartedAt = startedAt;
    this.checks++;
    this.inFlight = this.check()
      .then((found) => {
        this.state = { ...found, checkedAt: startedAt };
      })
      .catch(() => {
        // each part of the check answers "down" for its own failures; an escape is a fault
        // of the check: keep the old state, which turns stale if this repeats
      })
      .finally(() => {
        this.inFlight = undefined;
      });
    return this.inFlight;
  }
}

const unknownHealth: DependencyHealth = {
  opensearch: { status: 'unknown' },
  indices: false,
  redis: { status: 'unknown', mode: 'shared' },
};
