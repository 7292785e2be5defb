/**
 * A user's usage, read from the filed ledger (the `credit-ledger` index, ./ledger-filing.ts):
 * per day in Japan time and per operation, the credits spent and the charged requests
 * answered, the credits granted; and the entries themselves, newest first, page by page.
 *
 *   await usageOf(ctx, 'user-1', { from: '2026-11-01', to: '2026-11-29' })
 *   // { from, to, timeZone: 'Asia/Tokyo', totals: {creditsSpent: 312, requests: 290}, operations: [...],
 *   //   days: [{ date: '2026-11-01', creditsSpent: 0, requests: 0, creditsGranted: 0, operations: [] }, ...] }
 *   await entriesOf(ctx, 'user-1', { from, to, limit: 100 }) // { entries: [...], nextCursor: '…' | null }
 */
import type { Deadline } from '../deadline.js';
import type { API, Engine } from '../opensearch/engine.js';
import type { LedgerEntry, LedgerEntryKind } from './ledger-entry.js';

type SearchBody = NonNullable<API.Search_Request['body']>;

export const usageTimeZone = 'Asia/Tokyo';
/** The longest range one call reads, in days (both ends included). */
export const maxUsageDays = 366;
/** The days a range may name (the ledger began long after the first; the last is far off). */
const firstDay = '2000-01-01';
const lastDay = '2999-12-31';
/** Japan has no daylight saving time: a day there is UTC+9 all year. */
const tokyoOffsetMs = 9 * 3600_000;

export interface UsageRange {
  from: string;
  to: string;
}

export interface UsageFigures {
  creditsSpent: number;
  requests: number;
}

export interface UsageOperation extends UsageFigures {
  operation: string;
}

export interface UsageDay extends UsageFigures {
  date: string;
  creditsGranted: number;
  operations: UsageOperation[];
}

export interface Usage extends UsageRange {
  timeZone: typeof usageTimeZone;
  totals: UsageFigures;
  operations: UsageOperation[];
  days: UsageDay[];
}

interface UsageContext {
  opensearch: Engine;
  index: string;
  /** The request's deadline, given to the engine call (src/opensearch/engine.ts). */
  deadline?: Deadline;
}

/** Today in Japan, `YYYY-MM-DD`. */
export function tokyoToday(now = Date.now()): string {
  return new Date(now + tokyoOffsetMs).toISOString().slice(0, 10);
}

function dayNumber(date: string): number {
  return Date.parse(`${date}T00:00:00Z`) / 86_400_000;
}

function dateOf(day: number): string {
  return new Date(day * 86_400_000).toISOString().slice(0, 10);
}

/**
 * The range a request asks for, defaults filled (to: today in Japan; from: 29 days before
 * `to`), or the problem with it as `{field, reason}` (the dates' form is checked before).
 */
export function usageRange(
  query: { from?: string; to?: string },
  now = Date.now(),
): UsageRange | { field: string; reason: string } {
  for (const field of ['from', 'to'] as const) {
    const day = query[field];
    if (day !== undefined && (day < firstDay || day > lastDay))
      return { field, reason: `must be a day from ${firstDay} to ${lastDay}` };
  }
  const to = query.to ?? tokyoToday(now);
  const from = query.from ?? dateOf(dayNumber(to) - 29);
  if (dayNumber(from) > dayNumber(to)) return { field: 'from', reason: `is after \`to\` (${to})` };
  if (dayNumber(to) - dayNumber(from) + 1 > maxUsageDays)
    return { field: 'from', reason: `is more than ${maxUsageDays} days before \`to\` (${to})` };
  return { from, to };
}

/** The range's instants: from 00:00 Japan time of `from` to 00:00 of the day after `to`. */
function rangeFilter(userId: string, range: UsageRange) {
  return [
    { term: { userId } },
    {
      range: {
        at: {
          gte: new Date(dayNumber(range.from) * 86_400_000 - tokyoOffsetMs).toISOString(),
          lt: new Date((dayNumber(range.to) + 1) * 86_400_000 - tokyoOffsetMs).toISOString(),
        },
      },
    },
  ];
}

interface Bucket {
  key: string | number;
  key_as_string?: string;
  doc_count: number;
  credits?: { value: number };
  operations?: { buckets: Bucket[] };
  kinds?: { buckets: Bucket[] };
}

/** Charges: credits are negative on the ledger, spent is their opposite. */
function figuresOf(bucket: Bucket | undefined): UsageFigures {
  return { creditsSpent: -Math.round(bucket?.credits?.value ?? 0), requests: bucket?.doc_count ?? 0 };
}

function operationsOf(bucket: Bucket | undefined): UsageOperation[] {
  return (bucket?.operations?.buckets ?? [])
    .map((op) => ({ operation: String(op.key), ...figuresOf(op) }))
    .sort(
      (a, b) =>
        b.creditsSpent - a.creditsSpent || b.requests - a.requests || a.operation.localeCompare(b.operation),
    );
}

/** One search: charges by day and operation, grants and openings by day, the range's totals. */
export async function usageOf(ctx: UsageContext, userId: string, range: UsageRange): Promise<Usage> {
  const byOperation = {
    terms: { field: 'operation', size: 100, missing: 'unknown' },
    aggs: { credits: { sum: { field: 'credits' } } },
  };
  const { body } = await ctx.opensearch.search(
    {
      index: ctx.index,
      body: {
        size: 0,
        query: { bool: { filter: rangeFilter(userId, range) } },
        aggs: {
          kinds: {
            terms: { field: 'kind', size: 10 },
            aggs: {
              credits: { sum: { field: 'credits' } },
              operations: byOperation,
              days: {
                date_histogram: {
                  field: 'at',
                  calendar_interval: 'day',
                  time_zone: usageTimeZone,
                  format: 'yyyy-MM-dd',
                },
                aggs: { credits: { sum: { field: 'credits' } }, operations: byOperation },
              },
            },
          },
        },
      } as SearchBody,
    },
    { deadline: ctx.deadline, operation: 'usage' },
  );
  // the engine answers every aggregation asked, and a day's key in the format asked
  type Day = Bucket & { key_as_string: string; credits: { value: number } };
  const { kinds } = body.aggregations as unknown as {
    kinds: { buckets: Array<Bucket & { days: { buckets: Day[] } }> };
  };
  const charges = kinds.buckets.find((b) => b.key === 'charge');
  const chargeDays = new Map<string, Day>();
  for (const day of charges?.days.buckets ?? []) chargeDays.set(day.key_as_string, day);
  const granted = new Map<string, number>();
  for (const kind of kinds.buckets)
    if (kind.key !== 'charge')
      for (const day of kind.days.buckets)
        granted.set(day.key_as_string, (granted.get(day.key_as_string) ?? 0) + Math.round(day.credits.value));
  const days: UsageDay[] = [];
  for (let day = dayNumber(range.from); day <= dayNumber(range.to); day += 1) {
    const date = dateOf(day);
    const bucket = chargeDays.get(date);
    days.push({
      date,
      ...figuresOf(bucket),
      creditsGranted: granted.get(date) ?? 0,
      operations: operationsOf(bucket),
    });
  }
  return {
    ...range,
    timeZone: usageTimeZone,
    totals: figuresOf(charges),
    operations: operationsOf(charges),
    days,
  };
}

export class BadLedgerCursor extends Error {}

/** The place after the last entry of a page: its time and id (the sort). */
function encodeCursor(at: number, id: string): string {
  return Buffer.from(JSON.stringify([at, id])).toString('base64url');
}

function decodeCursor(cursor: string): [number, string] {
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (
      Array.isArray(value) &&
      value.length === 2 &&
      Number.isFinite(value[0]) &&
      typeof value[1] === 'string'
    )
      return [value[0] as number, value[1] as string];
  } catch {
    // refused below
  }
  throw new BadLedgerCursor('is not a cursor this endpoint answered');
}

/** The user's entries over the range, newest first (ties by id), a page at a time. */
export async function entriesOf(
  ctx: UsageContext,
  userId: string,
  options: UsageRange & { kind?: LedgerEntryKind; cursor?: string; limit: number },
): Promise<{ entries: Array<Omit<LedgerEntry, 'userId'>>; nextCursor: string | null }> {
  const after = options.cursor === undefined ? undefined : decodeCursor(options.cursor);
  const filter: unknown[] = rangeFilter(userId, options);
  if (options.kind) filter.push({ term: { kind: options.kind } });
  const { body } = await ctx.opensearch.search(
    {
      index: ctx.index,
      body: {
        size: options.limit + 1,
        query: { bool: { filter } },
        sort: [{ at: 'desc' }, { id: 'desc' }],
        ...(after ? { search_after: after } : {}),
        track_total_hits: false,
      } as SearchBody,
    },
    { deadline: ctx.deadline, operation: 'usage entries' },
  );
  const hits = body.hits.hits as Array<{ _source: LedgerEntry; sort: [number, string] }>;
  const page = hits.slice(0, options.limit);
  const last = page.at(-1);
  return {
    entries: page.map(({ _source: { userId: _user, ...entry } }) => entry),
    nextCursor: hits.length > options.limit && last ? encodeCursor(last.sort[0], last.sort[1]) : null,
  };
}
