/**
 * What every gBizINFO kind's row check shares (./format.ts): the shape of a kind's format, the
 * corporate number and column count checks, and the parsers of days and yen as the files write
 * them.
 *
 *   dayOf('2024/3/29') // '2024-03-29'
 *   yenOf('12,500,000円') // 12500000
 */
import { isValidCorporateNumber } from '../corporate-number.js';
import { isDate } from '../registry/format.js';

/** A company's summary of one kind, as the index keeps it: a JSON object. */
export type Summary = Record<string, unknown>;

export type RowCheck<Row> =
  | { ok: true; corporateNumber: string; row: Row }
  | { ok: false; reasons: string[] };

export interface KindFormat<Row = unknown> {
  /** the header's names, in order */
  columns: readonly string[];
  /** the download's file name stem (`Hojokinjoho`) */
  stem: string;
  check(fields: readonly string[]): RowCheck<Row>;
  empty(): Summary;
  /** adds one checked row to its company's summary; a reason when the row cannot be added */
  add(summary: Summary, row: Row): string | undefined;
  /** a file of one row per company: the reason a second row of a company is rejected */
  onePerCompany?: string;
}

/** 2024-03-29, 2024/03/29 or 2024/3/29 -> 2024-03-29; undefined for anything else. */
export function dayOf(text: string): string | undefined {
  const match = /^(\d{4})[-/](\d{1,2})[-/](\d{1,2})$/.exec(text.trim());
  if (!match) return undefined;
  const day = `${match[1]}-${match[2]?.padStart(2, '0')}-${match[3]?.padStart(2, '0')}`;
  return isDate(day) ? day : undefined;
}

/** 12,500,000 / 12500000 / 12,500,000円 -> 12500000; undefined for anything else. */
export function yenOf(text: string): number | undefined {
  const plain = text.trim().replace(/,/g, '').replace(/円$/, '');
  if (!/^\d{1,15}$/.test(plain)) return undefined;
  return Number(plain);
}

/** The corporate number's reason, if any (the first column of every kind). */
export function numberReasons(fields: readonly string[], columns: readonly string[]): string[] {
  return isValidCorporateNumber((fields[0] ?? '').trim())
    ? []
    : [`${columns[0]}: must be 13 digits with a valid check digit`];
}

/** An optional day column: null when empty, undefined (and a reason) when not a day. */
export function optionalDay(
  fields: readonly string[],
  columns: readonly string[],
  at: number,
  reasons: string[],
) {
  const text = (fields[at] ?? '').trim();
  const day = text === '' ? null : dayOf(text);
  if (day === undefined) reasons.push(`${columns[at]}: must be empty or a date (YYYY-MM-DD or YYYY/MM/DD)`);
  return day ?? null;
}

/** A row with the wrong column count is not read further. */
export function columnCountReasons(fields: readonly string[], columns: readonly string[]): string[] {
  return fields.length === columns.length
    ? []
    : [`row has ${fields.length} columns, expected ${columns.length}`];
}
