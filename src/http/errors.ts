/**
 * The one error catalogue. Every error response has the body
 * `{ message, errors?: [{ field, reason }] }` (contract §7); `field` is the request path as
 * the caller wrote it (`limit`, `sort.order`, `filters.prefectureId.any[2]`).
 * Throw an `ApiError` anywhere; the error middleware (src/http/error-middleware.ts) writes it.
 * Nothing from OpenSearch, no stack trace and no API key ever goes into `message` or `reason`.
 */
export interface FieldError {
  field: string;
  reason: string;
}

export interface ErrorBody {
  message: string;
  errors?: FieldError[];
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly errors?: FieldError[],
    /** Extra response headers, e.g. Retry-After. */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }

  toBody(): ErrorBody {
    return this.errors && this.errors.length > 0
      ? { message: this.message, errors: this.errors }
      : { message: this.message };
  }
}

export const errors = {
  validation: (fieldErrors: FieldError[]) =>
    new ApiError(400, 'The request is invalid; correct the fields listed in errors.', fieldErrors),
  malformedJson: () =>
    new ApiError(400, 'The request body is not valid JSON.', [
      { field: 'body', reason: 'must be valid JSON' },
    ]),
  unauthenticated: (reason: string) => new ApiError(401, reason),
  missingApiKey: () => new ApiError(401, 'Send your API key in the X-API-Key header.'),
  unknownApiKey: () => new ApiError(401, 'The API key is not valid.'),
  expiredApiKey: () => new ApiError(401, 'The API key has expired; ask for a new one.'),
  revokedApiKey: () => new ApiError(401, 'The API key has been revoked; ask for a new one.'),
  insufficientCredits: (balance: number, cost: number) =>
    new ApiError(402, `Not enough API credits: this search costs ${cost}, the balance is ${balance}.`),
  notFound: (what: string) => new ApiError(404, `${what} was not found.`),
  routeNotFound: (method: string, path: string) =>
    new ApiError(404, `There is no endpoint ${method} ${path}; see /docs for the API reference.`),
  methodNotAllowed: (method: string, path: string) =>
    new ApiError(405, `${path} does not accept ${method}; see /docs for the API reference.`),
  payloadTooLarge: (limit: string) => new ApiError(413, `The request body is larger than ${limit}.`),
  unsupportedMediaType: () => new ApiError(415, 'Send the request body as application/json.'),
  idempotencyConflict: () =>
    new ApiError(422, 'This Idempotency-Key was already used with a different request body.', [
      { field: 'Idempotency-Key', reason: 'reuse a key only for a retry of the same request' },
    ]),
  keyStoreUnavailable: (retryAfterSeconds = 1) =>
    new ApiError(503, 'API keys cannot be checked right now; retry shortly.', undefined, {
      'Retry-After': String(retryAfterSeconds),
    }),
  idempotencyInProgress: () =>
    new ApiError(
      409,
      'A request with this Idempotency-Key is still in progress; retry shortly to get its response.',
      undefined,
      { 'Retry-After': '1' },
    ),
  rateLimited: (retryAfterSeconds: number, perSecond = 5) =>
    new ApiError(429, `Rate limit exceeded: at most ${perSecond} requests per second per user.`, undefined, {
      'Retry-After': String(retryAfterSeconds),
    }),
  internal: () => new ApiError(500, 'Internal server error.'),
  searchUnavailable: (retryAfterSeconds = 1) =>
    new ApiError(
      503,
      'The search engine is unavailable; retry shortly. No credits were charged.',
      undefined,
      {
        'Retry-After': String(retryAfterSeconds),
      },
    ),
  limitsUnavailable: (retryAfterSeconds = 1) =>
    new ApiError(
      503,
      'Rate limiting and credits are temporarily unavailable; retry shortly. No credits were charged.',
      undefined,
      { 'Retry-After': String(retryAfterSeconds) },
    ),
} as const;
