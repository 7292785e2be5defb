/**
 * A typed client for the corpsearch API. The types come from openapi.yaml (generated into
 * ./generated/openapi.ts by `npm run gen:client`); requests go through openapi-fetch.
 *
 *   const api = createCorpsearchClient({ baseUrl: 'http://127.0.0.1:8080', apiKey });
 *   const page = await api.searchCorporates({ limit: 10, filters: { prefectureId: { any: [13] } } });
 *   for await (const job of api.eachJob({ filters: { mediaId: { any: [3] } } }, { pageSize: 100 })) { ... }
 *   const { totalResults, exportCredits } = await api.countCorporates({ filters: { prefectureId: { any: [13] } } });
 *   const file = await api.exportCorporates({ filters: { prefectureId: { any: [13] } }, format: 'jsonl' });
 *   for await (const result of api.eachMatch(crmRows, { maxCredits: 500 })) { ... } // any number of rows
 *   const { suggestions } = await api.suggest('マルカ', { limit: 5 });
 *
 * What the wrapper adds to the generated types:
 * - one Idempotency-Key per logical search, sent again on each of its retries, so a retried
 *   search is charged once;
 * - retries on 429 (rate limit), on 503 (nothing was charged) and on 409 (the same
 *   Idempotency-Key still running), each after the server's Retry-After;
 * - paging as async iterators, by offset or by cursor (`{ cursor: true }`: every record exactly
 *   once from one snapshot, also while the data changes); each page is one search and costs
 *   its credits; lists of any length;
 * - free counts, and exports as a byte stream (CSV or JSONL; charged by records delivered);
 * - matching lists of any length in requests of up to 1,000 records, each with its own
 *   Idempotency-Key (sent again on its retries), results in input order with their index.
 */
import createFetchClient, { type Client } from 'openapi-fetch';
import type { components, paths } from './generated/openapi.js';

export type { components, paths } from './generated/openapi.js';

type Schemas = components['schemas'];
export type CorporateSearchRequest = Schemas['CorporateSearchRequest'];
export type JobSearchRequest = Schemas['JobSearchRequest'];
export type CorporateFilters = Schemas['CorporateFilters'];
export type JobFilters = Schemas['JobFilters'];
export type Corporate = Schemas['Corporate'];
export type Job = Schemas['Job'];
/**
 * The records a search with body `B` answers: whole records, or only the fields `B.fields`
 * names when the body has them (`{ fields: ['name'] }` gives `Pick<Corporate, 'name'>`).
 */
export type Selected<R, B> = B extends { fields: readonly (infer F)[] } ? Pick<R, Extract<F, keyof R>> : R;
/** A search answer whose records are `Selected<R, B>`. */
type SearchAnswer<S extends { results: unknown }, R, B> = Omit<S, 'results'> & { results: Selected<R, B>[] };
export type CorporateSearchResponse<B = CorporateSearchRequest> = SearchAnswer<
  Schemas['CorporateSearchResponse'],
  Corporate,
  B
>;
export type JobSearchResponse<B = JobSearchRequest> = SearchAnswer<Schemas['JobSearchResponse'], Job, B>;
export type JobDetail = Schemas['JobDetail'];
export type ErrorBody = Schemas['Error'];
export type CountResponse = Schemas['CountResponse'];
export type CorporateExportRequest = Schemas['CorporateExportRequest'];
export type JobExportRequest = Schemas['JobExportRequest'];
export type MatchRecord = Schemas['MatchRecord'];
export type MatchRequest = Schemas['MatchRequest'];
export type MatchResponse = Schemas['MatchResponse'];
export type MatchResult = Schemas['MatchResult'];
export type MatchCandidate = Schemas['MatchCandidate'];
/** A list matched by the worker (POST /corporates/match-jobs): its state and progress. */
export type MatchJob = Schemas['MatchJob'];
export type SuggestResponse = Schemas['SuggestResponse'];
export type SavedSearch = Schemas['SavedSearch'];
export type SavedSearchCreate = Schemas['SavedSearchCreate'];
export type SavedSearchChanges = Schemas['SavedSearchChanges'];
export type Webhook = Schemas['Webhook'];
export type WebhookCreate = Schemas['WebhookCreate'];
export type WebhookWithSecret = Schemas['WebhookWithSecret'];
export type WebhookDelivery = Schemas['WebhookDelivery'];
export type Usage = Schemas['Usage'];
export type LedgerEntry = Schemas['LedgerEntry'];
export type LedgerEntries = Schemas['LedgerEntries'];
/** The body a webhook receiver gets (docs/webhooks.md, "Events"). */
export type WebhookEvent = Schemas['WebhookEvent'];
export type Suggestion = SuggestResponse['suggestions'][number];

/** The most records one match request takes (openapi.yaml MatchRequest.records maxItems). */
export const maxMatchChunk = 1000;

/** The master lists, by the last segment of their path. */
export type MasterName = {
  [P in keyof paths]: P extends `/master/${infer Name}` ? Name : never;
}[keyof paths];
export type MasterRecord<Name extends MasterName> = NonNullable<
  paths[`/master/${Name}`]['get']['responses'][200]['content']
>['application/json'][number];

export interface RetryInfo {
  /** 1 for the first retry. */
  attempt: number;
  status: number;
  delayMs: number;
  idempotencyKey: string | null;
}

export interface ClientOptions {
  /** Where the service runs, without `/rest/v1`: `http://127.0.0.1:8080`. */
  baseUrl: string;
  apiKey: string;
  /** Retries of one request after 429/503/409 (default 3). */
  maxRetries?: number;
  /**
   * A Retry-After longer than this is not waited for: the error goes to the caller
   * (default 30 s).
   */
  maxRetryDelayMs?: number;
  /** Called before each retry (logging, metrics). */
  onRetry?: (info: RetryInfo) => void;
  /** Default: globalThis.fetch. */
  fetch?: (request: Request) => Promise<Response>;
  /** Default: crypto.randomUUID. */
  newIdempotencyKey?: () => string;
}

/** Facts of one response besides its body. */
export interface ResponseMeta {
  status: number;
  requestId: string | null;
  creditsRemaining: number | null;
  rateLimitRemaining: number | null;
  /** true when the server answered from an earlier request with the same Idempotency-Key. */
  replayed: boolean;
  idempotencyKey: string | null;
}

export type Page<Response> = Response & { meta: ResponseMeta };

/** A non-2xx answer, after any retries. `body.errors` lists `{field, reason}` on a 400. */
export class CorpsearchError extends Error {
  /** The machine-readable code (`invalid_request`, `rate_limited`, ...), when the body had one. */
  readonly code: ErrorBody['code'] | undefined;

  constructor(
    readonly status: number,
    readonly body: ErrorBody | undefined,
    readonly meta: ResponseMeta,
  ) {
    const details = body?.errors?.map((error) => `${error.field}: ${error.reason}`).join('; ');
    super(
      `${status} ${body?.message ?? 'request failed'}${details ? ` (${details})` : ''}${
        meta.requestId ? ` [request ${meta.requestId}]` : ''
      }`,
    );
    this.name = 'CorpsearchError';
    this.code = body?.code;
  }
}

export interface SearchOptions {
  /** Reuse a key only to retry this very search yourself; default: a fresh one per call. */
  idempotencyKey?: string;
  signal?: AbortSignal;
}

export interface PagingOptions {
  /** Records per page (one search each), 1-1000; default 100. */
  pageSize?: number;
  /** Stop after this many records in all. */
  maxResults?: number;
  /**
   * Page by cursor instead of offset: the list is read from one snapshot taken at the first
   * page, so every record comes exactly once even while records change (body.offset must be
   * unset). Default: offset paging from body.offset.
   */
  cursor?: boolean;
  signal?: AbortSignal;
}

/** An export: the file as a byte stream, and what the response said of it. */
export interface ExportFile {
  /** `text/csv; charset=utf-8` (with a BOM), `text/csv; charset=shift_jis`, or `application/x-ndjson`. */
  contentType: string | null;
  /** Records the export will send (X-Export-Records) and the credits reserved for them (X-Export-Credits). */
  records: number | null;
  credits: number | null;
  meta: ResponseMeta;
  /** Read it to the end: a stream left unread or cancelled is charged only for what was sent. */
  body: ReadableStream<Uint8Array>;
}

/** How a list is uploaded as a match job (docs/api.md, "Match jobs"). */
export interface MatchJobOptions {
  /** Default 'csv'. */
  format?: 'csv' | 'jsonl';
  /** CSV: default 'auto' (a byte-order mark, or bytes that decode as UTF-8). */
  encoding?: 'auto' | 'utf-8' | 'shift_jis';
  candidates?: number;
  /** The most the job may spend; it stops when spent (`stopReason: 'maxCredits'`). */
  maxCredits?: number;
  minConfidence?: number;
  /** Default: a fresh one per call, so the client's own retries never make a second job. */
  idempotencyKey?: string;
  signal?: AbortSignal;
}

/** A job's results as a byte stream (CSV or JSONL, input order). */
export interface MatchJobResults {
  contentType: string | null;
  /** The job's status when the file was started (X-Match-Job-Status). */
  status: string | null;
  meta: ResponseMeta;
  body: ReadableStream<Uint8Array>;
}

/** How far a `match` / `eachMatch` run has come; sent after each answered chunk. */
export interface MatchProgress {
  /** Records answered so far. */
  done: number;
  /** Records in all, when known: the length of an array, or `options.total`. */
  total?: number;
  /** Records with a certain match so far. */
  matched: number;
  /** Certain matches withheld because `maxCredits` was spent (send those records again). */
  overMaxCredits: number;
  /** Credits the answered chunks cost, as the server said (`creditsCharged`). */
  creditsCharged: number;
  /** Requests answered so far. */
  chunks: number;
}

export interface MatchOptions {
  /** Records per request, 1-1000 (default 1000). */
  chunkSize?: number;
  /** Candidates per record, 1-10 (server default 3). */
  candidates?: number;
  /**
   * The most the whole run may spend. Each chunk is sent with what is left
   * (`maxCredits - creditsCharged so far`), so the certain matches past it come back with
   * `overMaxCredits: true` and cost nothing. Unset: no cap (each chunk reserves its worst case,
   * records x price, and a balance lower than that is a 402).
   */
  maxCredits?: number;
  /** The number of records, for `progress.total` when `records` is not an array. */
  total?: number;
  onProgress?: (progress: MatchProgress) => void;
  signal?: AbortSignal;
}

/** A record's result, with its place in the input (0-based). */
export type IndexedMatchResult = MatchResult & { index: number };

export interface MatchSummary {
  /** One per record, in input order (`results[i].index === i`). */
  results: IndexedMatchResult[];
  matched: number;
  overMaxCredits: number;
  creditsCharged: number;
  chunks: number;
}

/** 429 always; 503 says nothing was charged; 409 is a twin with our own key still running. */
function retryable(status: number, idempotencyKey: string | null): boolean {
  return status === 429 || status === 503 || (status === 409 && idempotencyKey !== null);
}

/** Retry-After in seconds or as an HTTP date, in ms; null when absent or unreadable. */
export function retryAfterMs(value: string | null, now = Date.now()): number | null {
  if (value === null || value.trim() === '') return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

function sleep(ms: number, signal?: AbortSignal | null): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}

function numberHeader(response: Response, name: string): number | null {
  const value = response.headers.get(name);
  return value === null || value === '' ? null : Number(value);
}

/** The facts of a response besides its body (for calls made through `raw`). */
export function metaOf(response: Response, idempotencyKey: string | null): ResponseMeta {
  return {
    status: response.status,
    requestId: response.headers.get('x-request-id'),
    creditsRemaining: numberHeader(response, 'x-credits-remaining'),
    rateLimitRemaining: numberHeader(response, 'x-ratelimit-remaining'),
    replayed: response.headers.get('idempotent-replayed') === 'true',
    idempotencyKey,
  };
}

/**
 * A fetch that retries what the server says to retry. The request is cloned per attempt, so
 * each retry sends the same body and the same Idempotency-Key.
 */
export function retryingFetch(options: ClientOptions): (request: Request) => Promise<Response> {
  const baseFetch = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const maxRetries = options.maxRetries ?? 3;
  const maxDelay = options.maxRetryDelayMs ?? 30_000;
  return async (request) => {
    const idempotencyKey = request.headers.get('idempotency-key');
    for (let attempt = 1; ; attempt += 1) {
      const response = await baseFetch(request.clone());
      if (attempt > maxRetries || !retryable(response.status, idempotencyKey)) return response;
      const told = retryAfterMs(response.headers.get('retry-after'));
      // without Retry-After: 0.5 s, 1 s, 2 s ...; jitter keeps a fleet of clients from
      // retrying in the same millisecond
      const delayMs = (told ?? 500 * 2 ** (attempt - 1)) + Math.floor(Math.random() * 100);
      if (delayMs > maxDelay) return response;
      await response.body?.cancel();
      options.onRetry?.({ attempt, status: response.status, delayMs, idempotencyKey });
      await sleep(delayMs, request.signal);
    }
  };
}

export interface CorpsearchClient {
  /** The underlying openapi-fetch client (typed by path), for anything not wrapped here. */
  raw: Client<paths>;
  /** A page of companies; with `fields` in the body, records typed with only those fields. */
  searchCorporates<const B extends CorporateSearchRequest>(
    body: B,
    options?: SearchOptions,
  ): Promise<Page<CorporateSearchResponse<B>>>;
  searchJobs<const B extends JobSearchRequest>(
    body: B,
    options?: SearchOptions,
  ): Promise<Page<JobSearchResponse<B>>>;
  /** One search per page, starting at `body.offset` (default 0). */
  corporatePages<const B extends CorporateSearchRequest>(
    body: B,
    options?: PagingOptions,
  ): AsyncGenerator<Page<CorporateSearchResponse<B>>>;
  jobPages<const B extends JobSearchRequest>(
    body: B,
    options?: PagingOptions,
  ): AsyncGenerator<Page<JobSearchResponse<B>>>;
  /** Every matching record, page by page. */
  eachCorporate<const B extends CorporateSearchRequest>(
    body: B,
    options?: PagingOptions,
  ): AsyncGenerator<Selected<Corporate, B>>;
  eachJob<const B extends JobSearchRequest>(
    body: B,
    options?: PagingOptions,
  ): AsyncGenerator<Selected<Job, B>>;
  jobDetail(jobId: string, options?: { signal?: AbortSignal }): Promise<JobDetail & { meta: ResponseMeta }>;
  /** The exact number of results of a search and what exporting them would cost; free. */
  countCorporates(
    body: CorporateSearchRequest,
    options?: { signal?: AbortSignal },
  ): Promise<Page<CountResponse>>;
  countJobs(body: JobSearchRequest, options?: { signal?: AbortSignal }): Promise<Page<CountResponse>>;
  /** Every result of a search as one file (CSV by default, or `format: 'jsonl'`). */
  exportCorporates(body: CorporateExportRequest, options?: { signal?: AbortSignal }): Promise<ExportFile>;
  exportJobs(body: JobExportRequest, options?: { signal?: AbortSignal }): Promise<ExportFile>;
  master<Name extends MasterName>(name: Name): Promise<MasterRecord<Name>[]>;
  /**
   * Matches records of any number: sent in order, `chunkSize` (1000) per request, one request
   * at a time, each under its own Idempotency-Key (kept across that request's retries, so a
   * retried chunk is charged once). Yields one result per record, in input order, with its
   * index. A failed chunk throws after its retries; the chunks before it were charged, the
   * results yielded so far stand (resume from the next index).
   */
  eachMatch(
    records: Iterable<MatchRecord> | AsyncIterable<MatchRecord>,
    options?: MatchOptions,
  ): AsyncGenerator<IndexedMatchResult>;
  /** `eachMatch`, collected: every result in input order and the totals. */
  match(
    records: Iterable<MatchRecord> | AsyncIterable<MatchRecord>,
    options?: MatchOptions,
  ): Promise<MatchSummary>;
  /**
   * Uploads a list of any size (CSV or JSONL text or bytes) as a match job, run by the
   * worker: 202 with the job. Follow it with `matchJob` / `waitForMatchJob`.
   */
  createMatchJob(
    list: string | Uint8Array,
    options?: MatchJobOptions,
  ): Promise<MatchJob & { meta: ResponseMeta }>;
  matchJob(id: string, options?: { signal?: AbortSignal }): Promise<MatchJob & { meta: ResponseMeta }>;
  /** Your jobs, newest first. */
  matchJobs(options?: {
    limit?: number;
    signal?: AbortSignal;
  }): Promise<{ jobs: MatchJob[]; meta: ResponseMeta }>;
  cancelMatchJob(id: string, options?: { signal?: AbortSignal }): Promise<MatchJob & { meta: ResponseMeta }>;
  /** Continues a stopped job (after a top-up), optionally with a new `maxCredits`. */
  resumeMatchJob(
    id: string,
    options?: { maxCredits?: number; signal?: AbortSignal },
  ): Promise<MatchJob & { meta: ResponseMeta }>;
  /** Polls the job until it ended (completed, stopped, cancelled, failed); `onProgress` on each poll. */
  waitForMatchJob(
    id: string,
    options?: { intervalMs?: number; onProgress?: (job: MatchJob) => void; signal?: AbortSignal },
  ): Promise<MatchJob>;
  /** The job's rows in input order, with the match columns (default: the upload's format). */
  matchJobResults(
    id: string,
    options?: { format?: 'csv' | 'jsonl'; signal?: AbortSignal },
  ): Promise<MatchJobResults>;
  /** Keeps a search body under a name, for the key's user; the body is checked as its search checks it. Free. */
  saveSearch(
    saved: SavedSearchCreate,
    options?: { signal?: AbortSignal },
  ): Promise<SavedSearch & { meta: ResponseMeta }>;
  /** The user's saved searches, newest first. Free. */
  savedSearches(options?: { signal?: AbortSignal }): Promise<{ results: SavedSearch[]; meta: ResponseMeta }>;
  savedSearch(id: string, options?: { signal?: AbortSignal }): Promise<SavedSearch & { meta: ResponseMeta }>;
  deleteSavedSearch(id: string, options?: { signal?: AbortSignal }): Promise<{ meta: ResponseMeta }>;
  /**
   * A page of what entered, left or changed in a watched saved company search, after `cursor`
   * (a `nextCursor` from before) or from `since`; charged as a search page.
   */
  savedSearchChanges(
    id: string,
    options?: { cursor?: string; since?: string; limit?: number; signal?: AbortSignal },
  ): Promise<SavedSearchChanges & { meta: ResponseMeta }>;
  /**
   * Sends a watched saved search's changes to an HTTPS URL (docs/webhooks.md). The answer holds
   * the signing secret, this once. Free.
   */
  createWebhook(
    webhook: WebhookCreate,
    options?: { signal?: AbortSignal },
  ): Promise<WebhookWithSecret & { meta: ResponseMeta }>;
  /** The user's webhooks, newest first (never their secrets). Free. */
  webhooks(options?: { signal?: AbortSignal }): Promise<{ results: Webhook[]; meta: ResponseMeta }>;
  webhook(id: string, options?: { signal?: AbortSignal }): Promise<Webhook & { meta: ResponseMeta }>;
  deleteWebhook(id: string, options?: { signal?: AbortSignal }): Promise<{ meta: ResponseMeta }>;
  /** A new signing secret; the previous one still signs beside it for 24 hours. */
  rotateWebhookSecret(
    id: string,
    options?: { signal?: AbortSignal },
  ): Promise<WebhookWithSecret & { meta: ResponseMeta }>;
  /**
   * Enables a webhook its receiver's 410 Gone disabled: what failed is sent again, then what
   * came since. An active webhook is answered as it is.
   */
  enableWebhook(id: string, options?: { signal?: AbortSignal }): Promise<Webhook & { meta: ResponseMeta }>;
  /** The webhook's last delivery attempts, newest first (`limit` 1-1,000, 100). */
  webhookDeliveries(
    id: string,
    options?: { limit?: number; signal?: AbortSignal },
  ): Promise<{ deliveries: WebhookDelivery[]; meta: ResponseMeta }>;
  /**
   * Credits spent and charged requests answered per day (Japan time) and per operation, from
   * `from` to `to` (`YYYY-MM-DD`; default the last 30 days), with the balance. Free.
   */
  usage(options?: {
    from?: string;
    to?: string;
    signal?: AbortSignal;
  }): Promise<Usage & { meta: ResponseMeta }>;
  /** A page of the ledger entries behind `usage`, newest first; `nextCursor` reads the next. Free. */
  ledgerEntries(options?: {
    from?: string;
    to?: string;
    kind?: LedgerEntry['kind'];
    cursor?: string;
    limit?: number;
    signal?: AbortSignal;
  }): Promise<LedgerEntries & { meta: ResponseMeta }>;
  /** Companies whose name, reading or romaji starts with `q` (autocomplete); free. */
  suggest(
    q: string,
    options?: { limit?: number; signal?: AbortSignal },
  ): Promise<SuggestResponse & { meta: ResponseMeta }>;
}

/** `records` in arrays of up to `size`, in order. */
async function* chunksOf<T>(records: Iterable<T> | AsyncIterable<T>, size: number): AsyncGenerator<T[]> {
  let chunk: T[] = [];
  for await (const record of records) {
    chunk.push(record);
    if (chunk.length === size) {
      yield chunk;
      chunk = [];
    }
  }
  if (chunk.length > 0) yield chunk;
}

type RawClient = Client<paths>;

/** A 2xx answer's data with its meta; anything else thrown as a CorpsearchError. */
function unwrap<T>(
  result: { data?: T; error?: unknown; response: Response },
  idempotencyKey: string | null,
): T & { meta: ResponseMeta } {
  const meta = metaOf(result.response, idempotencyKey);
  if (result.data === undefined || !result.response.ok) {
    throw new CorpsearchError(result.response.status, result.error as ErrorBody | undefined, meta);
  }
  return { ...result.data, meta };
}

/** Pages of one search, by offset or by cursor, until `maxResults` or the last page. */
async function* pages<
  B extends { limit?: number; offset?: number; cursor?: string; includeTotalResults?: boolean },
  R extends { results: unknown[]; nextCursor?: string | null },
>(
  search: (body: B, opts: SearchOptions) => Promise<Page<R>>,
  body: B,
  opts: PagingOptions,
): AsyncGenerator<Page<R>> {
  const pageSize = opts.pageSize ?? 100;
  let offset = body.offset ?? 0;
  let cursor: string | null | undefined = opts.cursor ? '*' : undefined;
  let remaining = opts.maxResults ?? Number.POSITIVE_INFINITY;
  let first = true;
  while (remaining > 0) {
    const limit = Math.min(pageSize, remaining);
    // the total is counted once, on the first page; later pages skip that work
    const paging = cursor !== undefined ? { cursor: cursor as string } : { offset };
    const page = await search(
      { ...body, limit, ...paging, ...(first ? {} : { includeTotalResults: false }) },
      { signal: opts.signal },
    );
    first = false;
    yield page;
    remaining -= page.results.length;
    if (cursor !== undefined) {
      cursor = page.nextCursor;
      if (!cursor) return;
    } else {
      if (page.results.length < limit) return;
      offset += page.results.length;
    }
  }
}

/** One export as a byte stream with its record count and credits. */
async function exportFile(
  raw: RawClient,
  path: '/corporates/export' | '/jobs/export',
  body: CorporateExportRequest | JobExportRequest,
  opts: { signal?: AbortSignal },
): Promise<ExportFile> {
  const result = await raw.POST(path, {
    body: body as CorporateExportRequest & JobExportRequest,
    parseAs: 'stream',
    signal: opts.signal,
  });
  const meta = metaOf(result.response, null);
  if (!result.response.ok || !result.response.body) {
    // openapi-fetch reads an error's JSON body whatever parseAs says
    throw new CorpsearchError(result.response.status, result.error as ErrorBody | undefined, meta);
  }
  return {
    contentType: result.response.headers.get('content-type'),
    records: numberHeader(result.response, 'x-export-records'),
    credits: numberHeader(result.response, 'x-export-credits'),
    meta,
    body: result.response.body,
  };
}

/** The records of every page, one by one. */
async function* records<T>(source: AsyncGenerator<{ results: T[] }>): AsyncGenerator<T> {
  for await (const page of source) for (const record of page.results) yield record;
}

/** `CorpsearchClient.eachMatch` over the raw client, each chunk under a key from `newKey`. */
async function* eachMatch(
  raw: RawClient,
  newKey: () => string,
  records: Iterable<MatchRecord> | AsyncIterable<MatchRecord>,
  opts: MatchOptions = {},
): AsyncGenerator<IndexedMatchResult> {
  const chunkSize = opts.chunkSize ?? maxMatchChunk;
  if (!Number.isInteger(chunkSize) || chunkSize < 1 || chunkSize > maxMatchChunk)
    throw new RangeError(`chunkSize must be a whole number from 1 to ${maxMatchChunk}, got ${chunkSize}`);
  const total = Array.isArray(records) ? records.length : opts.total;
  const progress: MatchProgress = {
    done: 0,
    ...(total === undefined ? {} : { total }),
    matched: 0,
    overMaxCredits: 0,
    creditsCharged: 0,
    chunks: 0,
  };
  for await (const chunk of chunksOf(records, chunkSize)) {
    const key = newKey();
    const body: MatchRequest = { records: chunk };
    if (opts.candidates !== undefined) body.candidates = opts.candidates;
    if (opts.maxCredits !== undefined)
      body.maxCredits = Math.max(0, opts.maxCredits - progress.creditsCharged);
    const answer = unwrap(
      await raw.POST('/corporates/match', {
        body,
        params: { header: { 'Idempotency-Key': key } },
        signal: opts.signal,
      }),
      key,
    );
    if (answer.results.length !== chunk.length)
      throw new Error(
        `match answered ${answer.results.length} results for ${chunk.length} records [request ${answer.meta.requestId}]`,
      );
    const first = progress.done;
    progress.done += chunk.length;
    progress.chunks += 1;
    progress.creditsCharged += answer.creditsCharged;
    for (const result of answer.results) {
      if (result.match) progress.matched += 1;
      if (result.overMaxCredits) progress.overMaxCredits += 1;
    }
    opts.onProgress?.({ ...progress });
    for (const [offset, result] of answer.results.entries()) yield { ...result, index: first + offset };
  }
}

/** Every match result in input order, with the totals the last progress report gave. */
async function collectMatches(
  matches: (
    records: Iterable<MatchRecord> | AsyncIterable<MatchRecord>,
    opts: MatchOptions,
  ) => AsyncGenerator<IndexedMatchResult>,
  records: Iterable<MatchRecord> | AsyncIterable<MatchRecord>,
  opts: MatchOptions,
): Promise<MatchSummary> {
  const summary: MatchSummary = {
    results: [],
    matched: 0,
    overMaxCredits: 0,
    creditsCharged: 0,
    chunks: 0,
  };
  for await (const result of matches(records, {
    ...opts,
    onProgress: (progress) => {
      summary.matched = progress.matched;
      summary.overMaxCredits = progress.overMaxCredits;
      summary.creditsCharged = progress.creditsCharged;
      summary.chunks = progress.chunks;
      opts.onProgress?.(progress);
    },
  }))
    summary.results.push(result);
  return summary;
}

export function createCorpsearchClient(options: ClientOptions): CorpsearchClient {
  const newKey = options.newIdempotencyKey ?? (() => globalThis.crypto.randomUUID());
  const raw = createFetchClient<paths>({
    baseUrl: `${options.baseUrl.replace(/\/+$/, '')}/rest/v1`,
    headers: { 'X-API-Key': options.apiKey },
    fetch: retryingFetch(options),
  });

  async function searchCorporates<const B extends CorporateSearchRequest>(body: B, opts: SearchOptions = {}) {
    const key = opts.idempotencyKey ?? newKey();
    const result = await raw.POST('/corporates/search', {
      body,
      params: { header: { 'Idempotency-Key': key } },
      signal: opts.signal,
    });
    // the server answers only the fields `body.fields` names (openapi.yaml CorporateSelection)
    return unwrap(result, key) as Page<CorporateSearchResponse<B>>;
  }

  async function searchJobs<const B extends JobSearchRequest>(body: B, opts: SearchOptions = {}) {
    const key = opts.idempotencyKey ?? newKey();
    const result = await raw.POST('/jobs/search', {
      body,
      params: { header: { 'Idempotency-Key': key } },
      signal: opts.signal,
    });
    // the server answers only the fields `body.fields` names (openapi.yaml JobSelection)
    return unwrap(result, key) as Page<JobSearchResponse<B>>;
  }

  const matches = (
    records: Iterable<MatchRecord> | AsyncIterable<MatchRecord>,
    opts: MatchOptions = {},
  ): AsyncGenerator<IndexedMatchResult> => eachMatch(raw, newKey, records, opts);

  return {
    raw,
    searchCorporates,
    searchJobs,
    corporatePages: (body, opts = {}) => pages(searchCorporates, body, opts),
    jobPages: (body, opts = {}) => pages(searchJobs, body, opts),
    eachCorporate: (body, opts = {}) => records(pages(searchCorporates, body, opts)),
    eachJob: (body, opts = {}) => records(pages(searchJobs, body, opts)),
    async jobDetail(jobId, opts = {}) {
      const result = await raw.GET('/jobs/{jobId}/detail', {
        params: { path: { jobId } },
        signal: opts.signal,
      });
      return unwrap(result, null);
    },
    async countCorporates(body, opts = {}) {
      return unwrap(await raw.POST('/corporates/count', { body, signal: opts.signal }), null);
    },
    async countJobs(body, opts = {}) {
      return unwrap(await raw.POST('/jobs/count', { body, signal: opts.signal }), null);
    },
    exportCorporates: (body, opts = {}) => exportFile(raw, '/corporates/export', body, opts),
    exportJobs: (body, opts = {}) => exportFile(raw, '/jobs/export', body, opts),
    async master(name) {
      const result = await raw.GET(`/master/${name}` as '/master/prefectures');
      const meta = metaOf(result.response, null);
      if (!result.data)
        throw new CorpsearchError(result.response.status, result.error as ErrorBody | undefined, meta);
      return result.data as MasterRecord<typeof name>[];
    },
    eachMatch: matches,
    async match(records, opts = {}) {
      return collectMatches(matches, records, opts);
    },
    async suggest(q, opts = {}) {
      const query = opts.limit === undefined ? { q } : { q, limit: opts.limit };
      return unwrap(await raw.GET('/corporates/suggest', { params: { query }, signal: opts.signal }), null);
    },
    ...matchJobCalls(raw, newKey),
    ...savedSearchCalls(raw),
    ...webhookCalls(raw),
    async usage(opts = {}) {
      const { signal, ...query } = opts;
      return unwrap(await raw.GET('/usage', { params: { query }, signal }), null);
    },
    async ledgerEntries(opts = {}) {
      const { signal, ...query } = opts;
      return unwrap(await raw.GET('/usage/entries', { params: { query }, signal }), null);
    },
  };
}

/** The webhook calls over the raw client. */
function webhookCalls(
  raw: RawClient,
): Pick<
  CorpsearchClient,
  | 'createWebhook'
  | 'webhooks'
  | 'webhook'
  | 'deleteWebhook'
  | 'rotateWebhookSecret'
  | 'enableWebhook'
  | 'webhookDeliveries'
> {
  const byId = (id: string) => ({ path: { webhookId: id } });
  return {
    async createWebhook(webhook, opts = {}) {
      return unwrap(await raw.POST('/webhooks', { body: webhook, signal: opts.signal }), null);
    },
    async webhooks(opts = {}) {
      return unwrap(await raw.GET('/webhooks', { signal: opts.signal }), null);
    },
    async webhook(id, opts = {}) {
      return unwrap(await raw.GET('/webhooks/{webhookId}', { params: byId(id), signal: opts.signal }), null);
    },
    async rotateWebhookSecret(id, opts = {}) {
      return unwrap(
        await raw.POST('/webhooks/{webhookId}/rotate-secret', { params: byId(id), signal: opts.signal }),
        null,
      );
    },
    async enableWebhook(id, opts = {}) {
      return unwrap(
        await raw.POST('/webhooks/{webhookId}/enable', { params: byId(id), signal: opts.signal }),
        null,
      );
    },
    async webhookDeliveries(id, opts = {}) {
      const query = opts.limit !== undefined ? { limit: opts.limit } : {};
      return unwrap(
        await raw.GET('/webhooks/{webhookId}/deliveries', {
          params: { ...byId(id), query },
          signal: opts.signal,
        }),
        null,
      );
    },
    async deleteWebhook(id, opts = {}) {
      return noContent(await raw.DELETE('/webhooks/{webhookId}', { params: byId(id), signal: opts.signal }));
    },
  };
}

/** A 204's facts; an error answer thrown as for any call. */
function noContent(result: { response: Response; error?: unknown }): { meta: ResponseMeta } {
  const meta = metaOf(result.response, null);
  if (!result.response.ok)
    throw new CorpsearchError(result.response.status, result.error as ErrorBody | undefined, meta);
  return { meta };
}

/** The saved-search calls over the raw client. */
function savedSearchCalls(
  raw: RawClient,
): Pick<
  CorpsearchClient,
  'saveSearch' | 'savedSearches' | 'savedSearch' | 'deleteSavedSearch' | 'savedSearchChanges'
> {
  return {
    async saveSearch(saved, opts = {}) {
      return unwrap(await raw.POST('/saved-searches', { body: saved, signal: opts.signal }), null);
    },
    async savedSearches(opts = {}) {
      return unwrap(await raw.GET('/saved-searches', { signal: opts.signal }), null);
    },
    async savedSearch(id, opts = {}) {
      return unwrap(
        await raw.GET('/saved-searches/{savedSearchId}', {
          params: { path: { savedSearchId: id } },
          signal: opts.signal,
        }),
        null,
      );
    },
    async savedSearchChanges(id, opts = {}) {
      const query = {
        ...(opts.cursor !== undefined ? { cursor: opts.cursor } : {}),
        ...(opts.since !== undefined ? { since: opts.since } : {}),
        ...(opts.limit !== undefined ? { limit: opts.limit } : {}),
      };
      return unwrap(
        await raw.GET('/saved-searches/{savedSearchId}/changes', {
          params: { path: { savedSearchId: id }, query },
          signal: opts.signal,
        }),
        null,
      );
    },
    async deleteSavedSearch(id, opts = {}) {
      return noContent(
        await raw.DELETE('/saved-searches/{savedSearchId}', {
          params: { path: { savedSearchId: id } },
          signal: opts.signal,
        }),
      );
    },
  };
}

const endedStatuses = new Set(['completed', 'stopped', 'cancelled', 'failed']);

/** The match-job calls over the raw client. */
function matchJobCalls(
  raw: RawClient,
  newKey: () => string,
): Pick<
  CorpsearchClient,
  | 'createMatchJob'
  | 'matchJob'
  | 'matchJobs'
  | 'cancelMatchJob'
  | 'resumeMatchJob'
  | 'waitForMatchJob'
  | 'matchJobResults'
> {
  const matchJob = async (id: string, opts: { signal?: AbortSignal } = {}) =>
    unwrap(
      await raw.GET('/corporates/match-jobs/{jobId}', {
        params: { path: { jobId: id } },
        signal: opts.signal,
      }),
      null,
    );
  return {
    async createMatchJob(list, opts = {}) {
      const key = opts.idempotencyKey ?? newKey();
      const format = opts.format ?? 'csv';
      const query = {
        format,
        ...(opts.encoding ? { encoding: opts.encoding } : {}),
        ...(opts.candidates !== undefined ? { candidates: opts.candidates } : {}),
        ...(opts.maxCredits !== undefined ? { maxCredits: opts.maxCredits } : {}),
        ...(opts.minConfidence !== undefined ? { minConfidence: opts.minConfidence } : {}),
      };
      const result = await raw.POST('/corporates/match-jobs', {
        // the list goes as it is: text or bytes, never JSON-encoded
        body: list as string,
        bodySerializer: (body: unknown) => body as string,
        headers: { 'Content-Type': format === 'csv' ? 'text/csv' : 'application/jsonl' },
        params: { query, header: { 'Idempotency-Key': key } },
        signal: opts.signal,
      });
      return unwrap(result, key);
    },
    matchJob,
    async matchJobs(opts = {}) {
      const query = opts.limit === undefined ? {} : { limit: opts.limit };
      return unwrap(
        await raw.GET('/corporates/match-jobs', { params: { query }, signal: opts.signal }),
        null,
      );
    },
    async cancelMatchJob(id, opts = {}) {
      return unwrap(
        await raw.DELETE('/corporates/match-jobs/{jobId}', {
          params: { path: { jobId: id } },
          signal: opts.signal,
        }),
        null,
      );
    },
    async resumeMatchJob(id, opts = {}) {
      const query = opts.maxCredits === undefined ? {} : { maxCredits: opts.maxCredits };
      return unwrap(
        await raw.POST('/corporates/match-jobs/{jobId}/resume', {
          params: { path: { jobId: id }, query },
          signal: opts.signal,
        }),
        null,
      );
    },
    async waitForMatchJob(id, opts = {}) {
      for (;;) {
        const { meta: _meta, ...job } = await matchJob(id, { signal: opts.signal });
        opts.onProgress?.(job);
        if (endedStatuses.has(job.status)) return job;
        await sleep(opts.intervalMs ?? 1000, opts.signal);
      }
    },
    async matchJobResults(id, opts = {}) {
      const query = opts.format ? { format: opts.format } : {};
      const result = await raw.GET('/corporates/match-jobs/{jobId}/results', {
        params: { path: { jobId: id }, query },
        parseAs: 'stream',
        signal: opts.signal,
      });
      const meta = metaOf(result.response, null);
      if (!result.response.ok || !result.response.body)
        throw new CorpsearchError(result.response.status, result.error as ErrorBody | undefined, meta);
      return {
        contentType: result.response.headers.get('content-type'),
        status: result.response.headers.get('x-match-job-status'),
        meta,
        body: result.response.body,
      };
    },
  };
}
