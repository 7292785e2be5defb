/**
 * POST /corporates/export and /jobs/export: every result of a search, streamed as CSV
 * (UTF-8 with BOM, or Shift_JIS/CP932) or JSONL. CSV text cells that a spreadsheet would run
 * as a formula are neutralised with a leading ' (see `encoder`); JSONL is the data as is.
 *
 *   open a point in time -> count on it -> maxCredits check (400) -> one export slot per
 *   user (429) -> reserve the full cost (402) -> stream pages of search_after over the PIT,
 *   waiting for the socket to drain -> settle the charge at the records sent, refund the rest
 *
 * Time: everything up to the first byte runs inside the request's deadline (REQUEST_DEADLINE_MS,
 * a 503 like any search); the stream itself has none (it lasts as long as the file and the
 * caller's reading take), but each page gets a deadline of its own, so a stalled engine cuts
 * the file within one deadline and the charge is settled at what was sent. While it streams,
 * a heartbeat renews the export slot and pushes the reservation's orphan time ahead
 * (ledger.keepOpen), so the orphan sweep never refunds a live export, however slowly its
 * caller reads; a process killed mid-file stops the heartbeat and the sweep refunds the whole
 * reservation one orphan timeout later (nothing of a file cut by a crash is charged).
 *
 * Memory stays at one page (1,000 records) whatever the size: a page is read only when the
 * connection has taken the one before. Counting on the same PIT as the stream means the
 * count, the cap check and the file agree even while the data changes. A connection that
 * breaks is charged for the records handed to it before it broke.
 */
import { randomUUID } from 'node:crypto';
import type { Writable } from 'node:stream';
import { stringify } from 'csv-stringify/sync';
import iconv from 'iconv-lite';
import { paging } from '../catalogue/paging.js';
import { type exportEncodings, type exportFormats, pagingFields } from '../catalogue/request-schema.js';
import type { SearchCatalogue } from '../catalogue/searches.js';
import { Deadline, DeadlineExceeded, stillAnswering } from '../deadline.js';
import { ApiError, errors, type FieldError } from '../errors/catalogue.js';
import { refundWithRetry } from '../limits/charges.js';
import { exportCost } from '../limits/export-cost.js';
import { leaseSeconds } from '../limits/export-slots.js';
import type { ChargeTag } from '../limits/ledger-entry.js';
import { describeFailure, inRedisBudget, LimitsStoreUnavailable } from '../limits/store-unavailable.js';
import { metrics } from '../metrics.js';
import type { Services } from '../services.js';
import { toSearchError } from './opensearch-errors.js';
import { closePit, openPit } from './paging/pit.js';
import {
  type EngineHit,
  engineSearch,
  hitsOf,
  onPit,
  type SearchRequest,
  totalOf,
} from './paging/pit-search.js';
import { parseSearchRequest } from './parse-request.js';
import type { SearchPlan } from './plan.js';
import { recordReaders, selectFields } from './records.js';
import { compileWithOverflow } from './run-search.js';

type Format = (typeof exportFormats)[number];
type Encoding = (typeof exportEncodings)[number];

/** An export body after its one validation (src/http/search-plan.ts runs it before credits). */
export interface ExportRequest {
  format: Format;
  encoding: Encoding;
  maxCredits?: number;
  fields: readonly string[];
  plan: SearchPlan;
}

interface ExportPlan extends ExportRequest {
  request: SearchRequest;
}

/** Records per engine page; at most the result window, the size limit of a PIT page. */
const exportPageSize = 1000;

/** Validates an export body: the search body's schema without paging, plus format, encoding, maxCredits. */
export function parseExportRequest(search: SearchCatalogue, body: unknown): ExportRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw errors.validation([{ field: 'body', reason: 'must be a JSON object' }]);
  const { format = 'csv', encoding = 'utf-8', maxCredits, ...rest } = body as Record<string, unknown>;
  const problems: FieldError[] = pagingFields
    .filter((field) => field in rest)
    .map((field) => ({ field, reason: 'is not a field of an export, which sends every result' }));
  if (format !== 'csv' && format !== 'jsonl')
    problems.push({ field: 'format', reason: 'must be one of: csv, jsonl' });
  if (encoding !== 'utf-8' && encoding !== 'shift_jis')
    problems.push({ field: 'encoding', reason: 'must be one of: utf-8, shift_jis' });
  else if (format === 'jsonl' && encoding !== 'utf-8')
    problems.push({ field: 'encoding', reason: 'applies to CSV only: JSONL is always UTF-8' });
  if (maxCredits !== undefined && (!Number.isSafeInteger(maxCredits) || (maxCredits as number) < 0))
    problems.push({ field: 'maxCredits', reason: 'must be a whole number of at least 0' });
  if (problems.length > 0) throw errors.validation(problems);
  const plan = parseSearchRequest(search, rest);
  return {
    format: format as Format,
    encoding: encoding as Encoding,
    ...(maxCredits !== undefined ? { maxCredits: maxCredits as number } : {}),
    fields: plan.fields ?? search.recordFields,
    plan,
  };
}

/**
 * One CSV cell: lists and objects as JSON text (which starts with [ or {, never a formula),
 * null as empty; numbers stay numbers, so csv-stringify's formula escape leaves -3 alone.
 */
function cell(value: unknown): unknown {
  return value !== null && typeof value === 'object' ? JSON.stringify(value) : value;
}

function encoder(plan: ExportPlan): {
  head: (fields: readonly string[]) => Buffer;
  row: (record: Record<string, unknown>) => Buffer;
} {
  const encode = (text: string) =>
    plan.encoding === 'shift_jis' ? iconv.encode(text, 'cp932') : Buffer.from(text, 'utf8');
  if (plan.format === 'jsonl')
    return {
      head: () => Buffer.alloc(0),
      row: (record) => Buffer.from(`${JSON.stringify(record)}\n`, 'utf8'),
    };
  // escape_formulas: a text cell that starts with = + - @, a tab or a carriage return (or a
  // full-width ＝ ＋ － ＠) gets a leading ' so a spreadsheet shows it as text and never runs
  // it (OWASP "CSV Injection"); numbers, negative ones included, stay numbers.
  // quote_record_delimiter: a cell holding a bare CR or LF is quoted (with record_delimiter
  // set, csv-stringify would otherwise write it bare and cut the row in two).
  // docs/decisions/export.md
  const csv = (values: unknown[]) =>
    stringify([values], { record_delimiter: 'windows', quote_record_delimiter: true, escape_formulas: true });
  return {
    // the BOM tells Excel the file is UTF-8; Shift_JIS has none
    head: (fields) => encode(`${plan.encoding === 'utf-8' ? '\ufeff' : ''}${csv([...fields])}`),
    row: (record) => encode(csv(plan.fields.map((field) => cell(record[field])))),
  };
}

/** true once the socket took everything; false when the connection closed first. */
function drained(res: Writable): Promise<boolean> {
  if (res.destroyed) return Promise.resolve(false);
  return new Promise((resolve) => {
    const finish = (ok: boolean) => {
      res.off('drain', onDrain);
      res.off('close', onClose);
      resolve(ok);
    };
    const onDrain = () => finish(true);
    const onClose = () => finish(false);
    res.on('drain', onDrain);
    res.on('close', onClose);
  });
}

const japanOffsetMs = 9 * 3_600_000;

/**
 * The export's file name, dated by the Japanese calendar day (the one the data and its users
 * live in): at 00:30 in Japan (15:30 UTC the day before) it is already the new day.
 *   exportFileName('corporates', 'csv', new Date('2026-11-30T15:00:00Z')) -> 'corporates-2026-12-01.csv'
 */
export function exportFileName(index: string, format: ExportPlan['format'], now = new Date()): string {
  const japanDay = new Date(now.getTime() + japanOffsetMs).toISOString().slice(0, 10);
  return `${index}-${japanDay}.${format === 'jsonl' ? 'jsonl' : 'csv'}`;
}

function contentType(plan: ExportPlan): string {
  if (plan.format === 'jsonl') return 'application/x-ndjson; charset=utf-8';
  return `text/csv; charset=${plan.encoding === 'shift_jis' ? 'Shift_JIS' : 'utf-8'}; header=present`;
}

/**
 * Every `intervalMs` while an export streams: the slot's lease and the reservation's orphan
 * time are pushed ahead. A timer, not a per-page step: a caller that reads slowly holds the
 * loop on one page for as long as it likes, and must not lose its reservation to the sweep.
 */
function startHeartbeat(
  services: Pick<Services, 'limits' | 'logger'>,
  userId: string,
  exportId: string,
): () => void {
  const { limits } = services;
  const intervalMs = (Math.min(limits.config.reservationOrphanSeconds, leaseSeconds) * 1000) / 3;
  let warned = false;
  const beat = async () => {
    try {
      const open = await limits.ledger.keepOpen(exportId);
      await limits.exportSlots.renew(userId, exportId);
      if (!open && !warned) {
        warned = true;
        // only if this process could not reach the ledger for a whole orphan timeout while
        // others could: the sweep refunded it, and the rest of the file goes uncharged
        services.logger.warn({ exportId }, 'export reservation no longer open while streaming');
      }
    } catch (error) {
      services.logger.warn({ err: describeFailure(error), exportId }, 'export heartbeat failed');
    }
  };
  const timer = setInterval(() => void beat(), intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * Where an export's file goes. `stream`: the file's bytes, with backpressure (`write` false ->
 * the export waits for 'drain', or 'close' when the reader is gone); `headersSent` says an
 * answer went out on it already (this file's head, or the request deadline's 503). `begin`:
 * the file's status and headers as plain values, once, before the first byte. The HTTP layer
 * passes its response (src/http/routes/search.ts).
 */
export interface ExportTarget {
  stream: Writable & { readonly headersSent: boolean };
  begin(head: { status: number; headers: Record<string, string> }): void;
}

type ExportServices = Pick<Services, 'opensearch' | 'config' | 'logger' | 'paging' | 'limits'>;

/** One export while it runs: what its parts share, and what its end must give back. */
interface ExportRun {
  services: ExportServices;
  search: SearchCatalogue;
  plan: ExportPlan;
  userId: string;
  tag?: ChargeTag;
  out: ExportTarget;
  /** The request's (src/deadline.ts): bounds everything before the first byte. */
  deadline?: Deadline;
  pit: { id: string; keepAliveSeconds: number };
  exportId: string;
  pageSize: number;
  slotHeld: boolean;
  /** Set once the full cost is reserved: the settlement charges the records sent, refunds the rest. */
  reservedCost?: number;
  sent: number;
  stopHeartbeat: () => void;
}

/** What the export knows once it may send its file: the count, the price, the first page. */
interface AdmittedExport {
  total: number;
  cost: number;
  balance: number;
  firstPage: EngineHit[];
}

/**
 * Streams every result of `parsed` into `out` (the steps in this file's head comment), in the
 * parts below: admitExport (up to the first page), streamFile, then failExport on an error and
 * endExport whatever happened.
 */
export async function runExport(
  services: ExportServices,
  search: SearchCatalogue,
  parsed: ExportRequest,
  userId: string,
  out: ExportTarget,
  /** The request's (src/deadline.ts): bounds everything before the first byte. */
  deadline?: Deadline,
  /** What the charge is for, on its ledger entry (src/limits/ledger-entry.ts). */
  tag?: ChargeTag,
): Promise<void> {
  const plan: ExportPlan = {
    ...parsed,
    // the jobs-first answers are taken once, so the count, the cap and every page agree
    request: await compileWithOverflow(services, search, parsed.plan, deadline),
  };
  const run: ExportRun = {
    services,
    search,
    plan,
    userId,
    ...(tag ? { tag } : {}),
    out,
    deadline,
    pit: { id: await openExportPit(services, plan, deadline), keepAliveSeconds: paging.cursorTtlSeconds },
    exportId: randomUUID(),
    pageSize: Math.min(exportPageSize, services.paging.resultWindow),
    slotHeld: false,
    sent: 0,
    stopHeartbeat: () => {},
  };
  try {
    const admitted = await admitExport(run);
    if (admitted) await streamFile(run, admitted);
  } catch (error) {
    failExport(run, error);
  } finally {
    await endExport(run);
  }
}

/** The point in time the count and every page read, so they agree while the data changes. */
async function openExportPit(
  services: ExportServices,
  plan: ExportPlan,
  deadline?: Deadline,
): Promise<string> {
  try {
    return await openPit(services.opensearch, String(plan.request.index), paging.cursorTtlSeconds, deadline);
  } catch (error) {
    if (error instanceof DeadlineExceeded) throw error;
    throw toSearchError(error, services.logger);
  }
}

/**
 * Everything before the first byte, inside the request's deadline: the count, the maxCredits
 * cap (400), the user's export slot (429), the full cost reserved (402), the first page.
 * undefined: the answer went out meanwhile (the deadline's 503, a hang-up); nothing to send.
 */
async function admitExport(run: ExportRun): Promise<AdmittedExport | undefined> {
  const { services, plan, deadline } = run;
  const { limits } = services;
  const total = await countOnPit(run);
  const cost = exportCost(limits.config, total);
  if (plan.maxCredits !== undefined && cost > plan.maxCredits)
    throw errors.validation([
      {
        field: 'maxCredits',
        reason: `is ${plan.maxCredits}, but this export of ${total} records costs ${cost} credits (${limits.config.exportRecordsPerCredit} records per credit); raise maxCredits or narrow the filters`,
      },
    ]);
  await takeExportSlot(run);
  const balance = await reserveFullCost(run, cost);
  if (balance === undefined) return undefined;
  run.stopHeartbeat = startHeartbeat(services, run.userId, run.exportId);
  // the first page is read inside the request's deadline, before the status is sent: an
  // engine failing here is a clean 503 with the reservation refunded whole, not a 200 cut
  // after its header row (test/opensearch/engine-faults.test.ts)
  const firstPage = hitsOf(
    await engineSearch({ ...services, deadline }, onPit(plan.request, run.pit, undefined, run.pageSize)),
  );
  if (!stillAnswering(run.out.stream)) return undefined;
  return { total, cost, balance, firstPage };
}

/** The records the export will send, counted on its point in time. */
async function countOnPit(run: ExportRun): Promise<number> {
  const counted = onPit(run.plan.request, run.pit, undefined, 0);
  const { aggs: _aggs, highlight: _highlight, ...countBody } = counted.body as Record<string, unknown>;
  return totalOf(
    await engineSearch(
      { ...run.services, deadline: run.deadline },
      { ...counted, body: { ...countBody, track_total_hits: true } as typeof counted.body },
    ),
  );
}

/** One of the user's export slots (EXPORT_MAX_CONCURRENT), or a 429. */
async function takeExportSlot(run: ExportRun): Promise<void> {
  const { limits } = run.services;
  try {
    run.slotHeld = await inRedisBudget(run.deadline, 'export slot', () =>
      limits.exportSlots.acquire(run.userId, run.exportId),
    );
  } catch (error) {
    // run late, the acquire would hold a slot for a lease; the release queues behind it
    void limits.exportSlots.release(run.userId, run.exportId).catch(() => {});
    throw error;
  }
  if (!run.slotHeld) throw errors.tooManyExports(limits.config.exportMaxConcurrent);
}

/** The full cost reserved: the balance after it, a 402 when short, undefined when no longer answering. */
async function reserveFullCost(run: ExportRun, cost: number): Promise<number | undefined> {
  const { services, userId, exportId, deadline, tag } = run;
  const { limits } = services;
  let reservation: Awaited<ReturnType<typeof limits.ledger.reserve>>;
  try {
    reservation = await inRedisBudget(deadline, 'credit reserve', () =>
      limits.ledger.reserve(userId, cost, exportId, deadline?.redisExpiresAt, tag),
    );
  } catch (error) {
    // the debit may still happen in Redis after we gave up: the refund cancels it
    refundWithRetry(limits, exportId, services.logger, cost);
    throw error;
  }
  if (!stillAnswering(run.out.stream)) {
    // the deadline answered (503) or the caller hung up while the reserve ran
    if (reservation.ok) refundWithRetry(limits, exportId, services.logger, cost);
    return undefined;
  }
  if (!reservation.ok) {
    const short = errors.insufficientCredits({ balance: reservation.balance, cost });
    short.headers['X-Credits-Remaining'] = String(reservation.balance);
    throw short;
  }
  run.reservedCost = cost;
  return reservation.balance;
}

/** The head, then the pages, each read only once the stream has taken the one before. */
async function streamFile(run: ExportRun, admitted: AdmittedExport): Promise<void> {
  const { services, search, plan, out } = run;
  // from here the stream has no deadline of its own; each further page gets one (nextPage)
  run.deadline?.release();
  out.begin({
    status: 200,
    headers: {
      'Content-Type': contentType(plan),
      'Content-Disposition': `attachment; filename="${exportFileName(search.index, plan.format)}"`,
      'X-Export-Records': String(admitted.total),
      'X-Export-Credits': String(admitted.cost),
      'X-Credits-Remaining': String(admitted.balance),
    },
  });
  const encode = encoder(plan);
  let hits = admitted.firstPage;
  let open = out.stream.write(encode.head(plan.fields)) || (await drained(out.stream));
  while (open) {
    open = await writePage(run, hits, encode.row);
    const after = hits.at(-1)?.sort;
    if (!open || hits.length < run.pageSize || !after) break;
    hits = await nextPage(services, onPit(plan.request, run.pit, after, run.pageSize));
  }
  if (open) out.stream.end();
  else
    services.logger.info(
      { exportId: run.exportId, sent: run.sent, total: admitted.total },
      'export connection closed early',
    );
}

/** Writes one page's rows; false when the connection closed while it waited to drain. */
async function writePage(
  run: ExportRun,
  hits: EngineHit[],
  row: (record: Record<string, unknown>) => Buffer,
): Promise<boolean> {
  const toRecord = recordReaders[run.search.index].record;
  const { stream } = run.out;
  for (const hit of hits) {
    const record = selectFields(toRecord(hit), run.plan.fields);
    run.sent += 1;
    if (!stream.write(row(record)) && !(await drained(stream))) return false;
  }
  return true;
}

/**
 * Before the head went out: the error is the answer (the limits store's failure as its 503).
 * Mid-stream: the status is sent; cutting the connection tells the client the file is
 * incomplete.
 */
function failExport(run: ExportRun, error: unknown): void {
  const { services, out } = run;
  if (!out.stream.headersSent) {
    if (error instanceof LimitsStoreUnavailable) {
      services.logger.warn({ err: describeFailure(error) }, 'export: limits store unavailable');
      throw errors.limitsUnavailable(services.limits.config.unavailableRetryAfterSeconds);
    }
    throw error;
  }
  // the cause by its code or class only: an engine error's message quotes the engine's text
  services.logger.warn(
    { exportId: run.exportId, sent: run.sent, err: failureName(error) },
    'export failed mid-stream',
  );
  out.stream.destroy();
}

/** Whatever happened: the heartbeat stopped, the PIT closed, the slot given back, the charge settled. */
async function endExport(run: ExportRun): Promise<void> {
  const { services, userId, exportId } = run;
  const { limits } = services;
  run.stopHeartbeat();
  void closePit(services.opensearch, run.pit.id);
  if (run.slotHeld) await limits.exportSlots.release(userId, exportId).catch(() => {});
  if (run.reservedCost !== undefined)
    await settle(services, exportId, exportCost(limits.config, run.sent), run.reservedCost, run.sent);
}

/** A page after the first, under a deadline of its own (the stream has none). */
async function nextPage(
  services: ExportServices,
  request: Parameters<typeof engineSearch>[1],
): Promise<EngineHit[]> {
  const pageDeadline = new Deadline({
    totalMs: services.config.requestDeadlineMs,
    redisMs: services.config.redisBudgetMs,
  });
  try {
    return hitsOf(await engineSearch({ ...services, deadline: pageDeadline }, request));
  } finally {
    pageDeadline.release();
  }
}

/** What a log line may say of a failure: the catalogue code, else the error's class. */
function failureName(error: unknown): string {
  if (error instanceof ApiError) return error.code;
  return error instanceof Error ? error.name : typeof error;
}

const settleRetryDelaysMs = [250, 500, 1000, 2000, 4000, 8000, 16000];

/** Charges the records sent, refunds the rest; retried for ~30 s while Redis is away. */
async function settle(
  services: Pick<Services, 'limits' | 'logger'>,
  exportId: string,
  charged: number,
  reservedCost: number,
  /** Records sent, on the charge's ledger entry. */
  rows: number,
): Promise<void> {
  for (let attempt = 0; ; attempt += 1) {
    try {
      const balance = await services.limits.ledger.settle(exportId, charged, rows);
      // null: nothing was open any more (swept after a lost heartbeat); nothing charged here
      if (balance !== null) {
        metrics.creditsCharged.inc(Math.min(charged, reservedCost));
        metrics.creditsRefunded.inc(Math.max(0, reservedCost - charged));
      }
      return;
    } catch (error) {
      const delay = settleRetryDelaysMs[attempt];
      if (delay === undefined) {
        services.logger.error(
          { err: describeFailure(error), exportId, charged },
          'export charge not settled',
        );
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}
