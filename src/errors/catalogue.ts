/**
 * The one error catalogue, independent of any transport. Every error the API can answer with
 * has a stable machine `code` (what a client branches on), its HTTP status, and a message for
 * a person. The HTTP layer only renders an `ApiError` (src/http/error-middleware.ts) as
 * `{ message, code, errors?: [{ field, reason, value? }], requestId, docUrl }`; `field` is the
 * request path as the caller wrote it (`limit`, `sort.order`, `filters.prefectureId.any[2]`),
 * `requestId` the response's X-Request-Id and `docUrl` the code's entry in the served error
 * documentation (`/docs/errors#<code>`).
 *
 * Nothing from OpenSearch, no stack trace and no API key ever goes into `message` or `reason`.
 * Every code is documented in openapi/openapi.base.yaml (`Error.code`) and docs/api.md; a test
 * (test/errors/error-codes.test.ts) fails when one is missing there.
 */

/** code -> HTTP status and what the code means (the documentation's wording). */
export const errorCatalogue = {
  invalid_request: {
    status: 400,
    meaning:
      'A field is unknown, missing, given twice, of the wrong type or out of range (a lone surrogate included); see errors[].',
  },
  malformed_json: { status: 400, meaning: 'The body is not valid JSON (in UTF-8).' },
  malformed_compressed_body: {
    status: 400,
    meaning: 'The body is not the gzip stream its Content-Encoding says (corrupt or cut short).',
  },
  query_too_complex: {
    status: 400,
    meaning:
      'The search needs more query clauses than the search engine runs (1,024 by default); errors[] names the field that needs most. Sending it again will not help: send fewer values or filterGroups, or split it into several searches. Nothing was charged.',
  },
  query_rejected: {
    status: 400,
    meaning:
      'The search engine refuses this query as invalid; sending it again will not help. Nothing was charged; quote X-Request-Id when reporting it.',
  },
  api_key_missing: { status: 401, meaning: 'No X-API-Key header was sent.' },
  api_key_invalid: { status: 401, meaning: 'The key is not one this API issued.' },
  api_key_expired: { status: 401, meaning: 'The key is past its expiry date.' },
  api_key_revoked: { status: 401, meaning: 'The key was revoked.' },
  insufficient_credits: {
    status: 402,
    meaning:
      "The balance is below the cost of this search; nothing was searched or charged. Credits do not renew by themselves: the API's operator grants them per user.",
  },
  not_found: { status: 404, meaning: 'The requested record (a job posting) does not exist.' },
  route_not_found: { status: 404, meaning: 'There is no endpoint at this path.' },
  method_not_allowed: { status: 405, meaning: 'The path exists but does not accept this method.' },
  idempotency_in_progress: {
    status: 409,
    meaning: 'A request with this Idempotency-Key is still running; retry after Retry-After.',
  },
  payload_too_large: { status: 413, meaning: 'The body is larger than 100 kB.' },
  unsupported_media_type: { status: 415, meaning: 'The body is not sent as application/json.' },
  unsupported_charset: {
    status: 415,
    meaning: 'The Content-Type names a charset other than UTF-8; errors[] names Content-Type.',
  },
  unsupported_content_encoding: {
    status: 415,
    meaning: 'The Content-Encoding is neither gzip nor identity; errors[] names Content-Encoding.',
  },
  idempotency_key_reused: {
    status: 422,
    meaning: 'This Idempotency-Key was used before with a different body.',
  },
  rate_limited: {
    status: 429,
    meaning: 'More requests per second than the user may send; retry after Retry-After.',
  },
  saved_search_limit: {
    status: 409,
    meaning: 'The user keeps as many saved searches as this API allows; delete one first.',
  },
  webhook_limit: {
    status: 409,
    meaning: 'The user keeps as many webhooks as this API allows; delete one first.',
  },
  too_many_exports: {
    status: 429,
    meaning: 'The user already runs as many exports as allowed at once; retry when one has finished.',
  },
  internal_error: { status: 500, meaning: 'An unexpected error on the server; nothing was charged.' },
  search_unavailable: {
    status: 503,
    meaning: 'The search engine is unavailable or gave a partial answer; nothing was charged.',
  },
  key_store_unavailable: { status: 503, meaning: 'API keys cannot be checked right now.' },
  deadline_exceeded: {
    status: 503,
    meaning: 'The request did not complete within its deadline (3 s by default); nothing was charged.',
  },
  limits_unavailable: {
    status: 503,
    meaning: 'Rate limits and credits cannot be checked right now; nothing was charged.',
  },
} as const satisfies Record<string, { status: number; meaning: string }>;

export type ErrorCode = keyof typeof errorCatalogue;

export const errorCodes = Object.keys(errorCatalogue) as ErrorCode[];

export interface FieldError {
  field: string;
  reason: string;
  /**
   * The value at fault, where naming it helps and it is ours to echo (a master id or code the
   * master lacks). Never written to the log: the request log keeps field and reason only.
   */
  value?: unknown;
}

export interface ErrorBody {
  message: string;
  code: ErrorCode;
  errors?: FieldError[];
  /** The response's X-Request-Id, to quote when reporting the error. */
  requestId?: string;
  /** The served documentation of this code: `/docs/errors#<code>`. */
  docUrl: string;
}

/**
 * Where the served error documentation lives (src/http/routes/docs.ts renders docs/api.md's
 * "Errors" table there, one anchor per code). A relative reference: it resolves against the
 * URL the caller used, whatever host or proxy that was (docs/decisions/errors-and-validation.md).
 */
export const errorDocsPath = '/docs/errors';

export const docUrlOf = (code: ErrorCode) => `${errorDocsPath}#${code}`;

export class ApiError extends Error {
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly errors?: FieldError[],
    /** Extra response headers, e.g. Retry-After. */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiError';
    this.status = errorCatalogue[code].status;
  }

  /** The same error with its field errors moved (a body checked as a part of another: `search.limit`). */
  withFields(fieldErrors: FieldError[]): ApiError {
    return new ApiError(this.code, this.message, fieldErrors, this.headers);
  }

  /** The response body; `requestId` is the response's X-Request-Id (src/http/request-id.ts). */
  toBody(requestId?: string): ErrorBody {
    return {
      message: this.message,
      code: this.code,
      ...(this.errors && this.errors.length > 0 ? { errors: this.errors } : {}),
      ...(requestId !== undefined ? { requestId } : {}),
      docUrl: docUrlOf(this.code),
    };
  }
}

const retryAfter = (seconds: number) => ({ 'Retry-After': String(seconds) });

/**
 * RFC 9110 §11.6.1: a 401 names how to authenticate. There is no registered scheme for a key
 * in a header of its own, so the challenge names the header, as API gateways commonly do.
 */
const apiKeyChallenge = () => ({ 'WWW-Authenticate': 'ApiKey realm="corpsearch-api", header="X-API-Key"' });

function formatSeconds(ms: number): string {
  const seconds = ms / 1000;
  return `${Number.isInteger(seconds) ? seconds : seconds.toFixed(1)}-second`;
}

/**
 * One situation the API answers with an error: its code (which fixes the status), the message
 * as a template of the situation's parameters, and what else the answer carries.
 */
interface Situation<P> {
  code: ErrorCode;
  message: string | ((params: P) => string);
  errors?: (params: P) => FieldError[] | undefined;
  headers?: (params: P) => Record<string, string>;
}

/**
 * The factory of a situation: takes its parameters (one value, or an object of named ones) and
 * gives the error. Every error of the API is made by one (test/errors/error-codes.test.ts checks them).
 */
type SituationArgs<P> = undefined extends P ? [params?: P] : [params: P];

function situation<P = undefined>(spec: Situation<P>): (...params: SituationArgs<P>) => ApiError {
  const { code, message, errors: fieldErrors, headers } = spec;
  return (...[params]: SituationArgs<P>) =>
    new ApiError(
      code,
      typeof message === 'string' ? message : message(params as P),
      fieldErrors?.(params as P),
      headers?.(params as P) ?? {},
    );
}

/** How a user gets more credits (docs/api.md, "Limits and credits"): said in every 402. */
const creditsGranted =
  " Nothing was searched or charged. Credits do not renew by themselves: the API's operator grants them to your user; ask them for more (docUrl).";

interface Shortfall {
  /** The user's balance. */
  balance: number;
  /** What the request costs or reserves. */
  cost: number;
}

const unavailableFor = (seconds = 1) => retryAfter(seconds);

/** One factory per situation; several situations may share a code. */
export const errors = {
  validation: situation<FieldError[]>({
    code: 'invalid_request',
    message: 'The request is invalid; correct the fields listed in errors.',
    errors: (fieldErrors) => fieldErrors,
  }),
  malformedJson: situation<FieldError[] | undefined>({
    code: 'malformed_json',
    message: 'The request body is not valid JSON.',
    errors: (fieldErrors) => fieldErrors ?? [{ field: 'body', reason: 'must be valid JSON' }],
  }),
  /** Content-Encoding: gzip on a body that does not gunzip (garbage, plain JSON, cut short). */
  malformedCompressedBody: situation({
    code: 'malformed_compressed_body',
    message:
      'The request body could not be decompressed: Content-Encoding says gzip, but the body is not a complete gzip stream. Send a complete gzip stream, or send the JSON uncompressed without Content-Encoding.',
    errors: () => [
      { field: 'body', reason: 'must be a complete gzip stream, as Content-Encoding: gzip says' },
    ],
  }),
  missingApiKey: situation({
    code: 'api_key_missing',
    message: 'Send your API key in the X-API-Key header.',
    headers: apiKeyChallenge,
  }),
  unknownApiKey: situation({
    code: 'api_key_invalid',
    message: 'The API key is not valid.',
    headers: apiKeyChallenge,
  }),
  expiredApiKey: situation({
    code: 'api_key_expired',
    message: 'The API key has expired; ask for a new one.',
    headers: apiKeyChallenge,
  }),
  revokedApiKey: situation({
    code: 'api_key_revoked',
    message: 'The API key has been revoked; ask for a new one.',
    headers: apiKeyChallenge,
  }),
  /** A search, count or export that costs more than the balance. */
  insufficientCredits: situation<Shortfall>({
    code: 'insufficient_credits',
    message: ({ balance, cost }) =>
      `Not enough API credits: this search costs ${cost}, the balance is ${balance}.${creditsGranted}`,
  }),
  /** A match (POST /corporates/match): it reserves one credit per record that could be a certain match. */
  insufficientMatchCredits: situation<Shortfall>({
    code: 'insufficient_credits',
    message: ({ balance, cost }) =>
      `Not enough API credits: this match reserves ${cost} (every record a certain match, at most maxCredits), the balance is ${balance}; send maxCredits up to your balance, or fewer records.${creditsGranted}`,
  }),
  /** A reconciliation batch (POST /reconcile): it reserves one match per query. */
  insufficientReconcileCredits: situation<Shortfall>({
    code: 'insufficient_credits',
    message: ({ balance, cost }) =>
      `Not enough API credits: this reconciliation batch reserves ${cost} (every query a certain match; only the certain matches are charged), the balance is ${balance}; send smaller batches (OpenRefine: fewer rows at a time), or get more credits.${creditsGranted}`,
  }),
  /** `what`: the record asked for, as a sentence starts (`The job posting`). */
  notFound: situation<string>({ code: 'not_found', message: (what) => `${what} was not found.` }),
  routeNotFound: situation<{ method: string; path: string; didYouMean?: string | undefined }>({
    code: 'route_not_found',
    message: ({ method, path, didYouMean }) =>
      didYouMean
        ? `There is no endpoint ${method} ${path}; paths are spelled exactly (letter case, slashes): did you mean ${method} ${didYouMean}?`
        : `There is no endpoint ${method} ${path}; see /docs for the API reference.`,
  }),
  methodNotAllowed: situation<{ method: string; path: string }>({
    code: 'method_not_allowed',
    message: ({ method, path }) => `${path} does not accept ${method}; see /docs for the API reference.`,
  }),
  /** `limit`: what the body may hold, as said to the caller (`100 kB`, `1,000,000 rows`). */
  payloadTooLarge: situation<string>({
    code: 'payload_too_large',
    message: (limit) => `The request body is larger than ${limit}.`,
  }),
  unsupportedMediaType: situation({
    code: 'unsupported_media_type',
    message: 'Send the request body as application/json.',
  }),
  unsupportedFormMediaType: situation({
    code: 'unsupported_media_type',
    message:
      'Send the reconciliation batch as application/x-www-form-urlencoded: queries=<the query batch as JSON>.',
  }),
  /** `charset`: the one the Content-Type named. */
  unsupportedCharset: situation<string>({
    code: 'unsupported_charset',
    message: 'Send the request body as application/json in UTF-8.',
    errors: (charset) => [
      {
        field: 'Content-Type',
        reason: `charset must be utf-8 (or left out), not ${JSON.stringify(charset.slice(0, 40))}`,
      },
    ],
  }),
  /** `encoding`: the Content-Encoding sent. */
  unsupportedContentEncoding: situation<string>({
    code: 'unsupported_content_encoding',
    message:
      "The request body's Content-Encoding is not accepted: send the JSON uncompressed (no Content-Encoding, or identity) or gzip-compressed (Content-Encoding: gzip).",
    errors: (encoding) => [
      {
        field: 'Content-Encoding',
        reason: `must be gzip or identity (or left out), not ${JSON.stringify(String(encoding).slice(0, 40))}`,
      },
    ],
  }),
  idempotencyConflict: situation({
    code: 'idempotency_key_reused',
    message: 'This Idempotency-Key was already used with a different request body.',
    errors: () => [{ field: 'Idempotency-Key', reason: 'reuse a key only for a retry of the same request' }],
  }),
  idempotencyInProgress: situation({
    code: 'idempotency_in_progress',
    message: 'A request with this Idempotency-Key is still in progress; retry shortly to get its response.',
    headers: () => retryAfter(1),
  }),
  keyStoreUnavailable: situation<number | undefined>({
    code: 'key_store_unavailable',
    message: 'API keys cannot be checked right now; retry shortly.',
    headers: unavailableFor,
  }),
  rateLimited: situation<{ retryAfterSeconds: number; perSecond: number; windowSeconds: number }>({
    code: 'rate_limited',
    message: ({ perSecond, windowSeconds }) =>
      `Rate limit exceeded: at most ${perSecond} requests per ${windowSeconds === 1 ? 'second' : `${windowSeconds} seconds`} per user.`,
    headers: ({ retryAfterSeconds }) => retryAfter(retryAfterSeconds),
  }),
  /** `max`: exports one user may run at once. */
  tooManyExports: situation<number>({
    code: 'too_many_exports',
    message: (max) => `At most ${max} exports per user run at the same time; retry when one has finished.`,
    headers: () => retryAfter(5),
  }),
  /**
   * A search past the engine's clause limit: `clauses` and `field` when validation counted
   * them (src/search/clause-count.ts), neither when the engine itself refused it.
   */
  queryTooComplex: situation<{ limit: number; clauses?: number; field?: FieldError }>({
    code: 'query_too_complex',
    message: ({ limit, clauses, field }) =>
      `${
        clauses !== undefined
          ? `The search needs ${clauses.toLocaleString('en-US')} query clauses`
          : 'The search needs more query clauses than the search engine allows'
      }; the search engine runs at most ${limit.toLocaleString('en-US')} per query. Send fewer values or filterGroups${
        field ? ' (errors names the field that needs most)' : ''
      }, or split it into several searches; sending it again unchanged will not help. No credits were charged.`,
    errors: ({ field }) => (field ? [field] : undefined),
  }),
  queryRejected: situation({
    code: 'query_rejected',
    message:
      'The search engine refuses this query as invalid; sending it again unchanged will not help. No credits were charged; quote the X-Request-Id when reporting it.',
  }),
  internal: situation({ code: 'internal_error', message: 'Internal server error.' }),
  searchUnavailable: situation({
    code: 'search_unavailable',
    message: 'The search engine is unavailable; retry shortly. No credits were charged.',
    headers: () => retryAfter(1),
  }),
  /** `deadlineMs`: the request's whole deadline. */
  deadlineExceeded: situation<number>({
    code: 'deadline_exceeded',
    message: (deadlineMs) =>
      `The request did not complete within its ${formatSeconds(deadlineMs)} deadline; retry shortly. No credits were charged.`,
    headers: () => retryAfter(1),
  }),
  /** `cap`: the saved searches one user may keep. */
  savedSearchLimit: situation<number>({
    code: 'saved_search_limit',
    message: (cap) =>
      `You keep ${cap} saved searches, the most allowed; delete one (DELETE /saved-searches/{id}) before saving another.`,
  }),
  /** `cap`: the webhooks one user may keep. */
  webhookLimit: situation<number>({
    code: 'webhook_limit',
    message: (cap) =>
      `You keep ${cap} webhooks, the most allowed; delete one (DELETE /webhooks/{id}) before adding another.`,
  }),
  /** Single-process mode (no shared store): no saved searches. */
  savedSearchesUnavailable: situation({
    code: 'limits_unavailable',
    message:
      'Saved searches are not available on this API (it runs without its shared store). Nothing was charged.',
  }),
  /** Single-process mode (no shared store): no queue and no worker for a match job. */
  matchJobsUnavailable: situation({
    code: 'limits_unavailable',
    message:
      'Match jobs are not available on this API (it runs without its shared store); send lists of up to 1,000 records to POST /corporates/match. Nothing was charged.',
  }),
  /** `retryAfterSeconds`: when the store may answer again (default 1). */
  limitsUnavailable: situation<number | undefined>({
    code: 'limits_unavailable',
    message: 'Rate limiting and credits are temporarily unavailable; retry shortly. No credits were charged.',
    headers: unavailableFor,
  }),
} as const;
