/**
 * Rate-limit and credit settings (DESIGN §4), from the environment. Every value has the
 * contract's default, so nothing needs to be set; a benchmark user can be put out of the
 * rate limiter's way with RATE_LIMIT_EXEMPT_USERS and given credits with the keys CLI.
 */
export interface LimitsConfig {
  /** Requests per second per user on the searches and the detail endpoint (contract: 5). */
  ratePerSecond: number;
  /** User ids the rate limiter lets through unmetered (benchmarks); credits still apply. */
  rateLimitExemptUsers: ReadonlySet<string>;
  /** Credits per company or job search. */
  searchCost: number;
  /** Credits per job detail lookup (0: free, then the ledger is not touched). */
  detailCost: number;
  /**
   * How long a reservation record is kept, so a replayed debit (seconds after a reconnect) or
   * a retried refund (up to ~30 s) still finds it; one record per search, so not for days.
   */
  reservationTtlSeconds: number;
  /** How long a completed Idempotency-Key response is replayed. */
  idempotencyTtlSeconds: number;
  /** How long an in-flight Idempotency-Key blocks its twins if the process dies mid-request. */
  idempotencyPendingTtlSeconds: number;
  /** Retry-After on a 503 when Redis is away. */
  unavailableRetryAfterSeconds: number;
}

function wholeNumber(value: string | undefined, fallback: number, name: string, min = 0): number {
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < min)
    throw new Error(`${name} must be a whole number of at least ${min}, got "${value}"`);
  return parsed;
}

export function loadLimitsConfig(env: NodeJS.ProcessEnv = process.env): LimitsConfig {
  return {
    ratePerSecond: wholeNumber(env.RATE_LIMIT_PER_SECOND, 5, 'RATE_LIMIT_PER_SECOND', 1),
    rateLimitExemptUsers: new Set(
      (env.RATE_LIMIT_EXEMPT_USERS ?? '')
        .split(',')
        .map((id) => id.trim())
        .filter((id) => id !== ''),
    ),
    searchCost: wholeNumber(env.SEARCH_CREDIT_COST, 1, 'SEARCH_CREDIT_COST'),
    detailCost: wholeNumber(env.DETAIL_CREDIT_COST, 0, 'DETAIL_CREDIT_COST'),
    reservationTtlSeconds: 3600,
    idempotencyTtlSeconds: wholeNumber(env.IDEMPOTENCY_TTL_SECONDS, 24 * 3600, 'IDEMPOTENCY_TTL_SECONDS', 1),
    idempotencyPendingTtlSeconds: 30,
    unavailableRetryAfterSeconds: 1,
  };
}
