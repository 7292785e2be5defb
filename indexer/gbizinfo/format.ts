/**
 * gBizINFO's download files of subsidies (補助金情報, `Hojokinjoho`) and of government
 * procurement (調達情報, `Chotatsujoho`) (docs/public-records.md): CSV with a header row, UTF-8
 * (with a byte-order mark) or Shift_JIS, one row per subsidy or per order, the columns in a
 * fixed order. `checkHeader` tells the kind's file from another; `validateRecordRow` checks one
 * row and gives every reason it is wrong.
 *
 *   validateRecordRow('subsidies', ['8010001000001', '株式会社A', '東京都…', '2024-03-29', 'ものづくり補助金', '12,500,000', '中小企業', '経済産業省'])
 *   // { ok: true, row: { corporateNumber: '8010001000001', on: '2024-03-29', amountYen: 12500000, bodyId: 11, title: 'ものづくり補助金' } }
 */
import { readMasterFile } from '../../src/masters/masters.js';
import { isValidCorporateNumber } from '../corporate-number.js';
import { isDate } from '../registry/format.js';

export const recordKinds = ['subsidies', 'procurement'] as const;
export type RecordKind = (typeof recordKinds)[number];

/** The columns of each file, in order: the header's names, and what the service reads of each. */
export const recordColumns: Record<RecordKind, readonly string[]> = {
  // 法人番号, 法人名, 本社所在地, 認定日, 補助金等, 金額, 対象, 府省
  subsidies: ['法人番号', '法人名', '本社所在地', '認定日', '補助金等', '金額', '対象', '府省'],
  // 法人番号, 法人名, 本社所在地, 受注日, 事業名, 金額, 府省, 備考
  procurement: ['法人番号', '法人名', '本社所在地', '受注日', '事業名', '金額', '府省', '備考'],
};

/** Where each read value sits (0-based). */
const at: Record<RecordKind, { date: number; title: number; amount: number; body: number }> = {
  subsidies: { date: 3, title: 4, amount: 5, body: 7 },
  procurement: { date: 3, title: 4, amount: 5, body: 6 },
};

export interface RecordRow {
  corporateNumber: string;
  /** the day it was granted (認定日) or ordered (受注日); null when the row gives none */
  on: string | null;
  /** in yen; null when the row gives none */
  amountYen: number | null;
  /** the government-bodies master's id of who granted or ordered it (999: not listed) */
  bodyId: number;
  title: string;
}

export type RecordRowCheck = { ok: true; row: RecordRow } | { ok: false; reasons: string[] };

/** Whether a header row is the kind's: every column's name, in order. */
export function checkHeader(kind: RecordKind, fields: readonly string[]): string | undefined {
  const found = fields.map((field, i) => (i === 0 ? field.replace(/^\uFEFF/, '') : field).trim());
  const expected = recordColumns[kind];
  if (found.length === expected.length && expected.every((name, i) => found[i] === name)) return undefined;
  return `not a gBizINFO ${kind} file: its header should be ${expected.join(',')} (found ${found.join(',') || '(empty)'})`;
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

interface Body {
  id: number;
  name: string;
}
let bodies: Body[] | undefined;

/**
 * The listed body whose name appears in the text: the longest name, and of names as long the
 * one written last (`経済産業省 中小企業庁` is the agency); 999 when none.
 */
export function bodyIdOf(text: string): number {
  bodies ??= (readMasterFile('government-bodies').items as unknown as Body[]).filter(
    (body) => body.id !== 999,
  );
  let best: { id: number; length: number; at: number } | undefined;
  for (const body of bodies) {
    const at = text.lastIndexOf(body.name);
    if (at < 0) continue;
    const better =
      !best || body.name.length > best.length || (body.name.length === best.length && at > best.at);
    if (better) best = { id: body.id, length: body.name.length, at };
  }
  return best?.id ?? 999;
}

/** Every reason one row cannot be counted; a row with the wrong column count is not read further. */
export function validateRecordRow(kind: RecordKind, fields: readonly string[]): RecordRowCheck {
  const columns = recordColumns[kind];
  if (fields.length !== columns.length)
    return { ok: false, reasons: [`row has ${fields.length} columns, expected ${columns.length}`] };
  const where = at[kind];
  const reasons: string[] = [];
  const number = (fields[0] ?? '').trim();
  if (!isValidCorporateNumber(number))
    reasons.push(`${columns[0]}: must be 13 digits with a valid check digit`);
  const dateText = (fields[where.date] ?? '').trim();
  const on = dateText === '' ? null : dayOf(dateText);
  if (on === undefined)
    reasons.push(`${columns[where.date]}: must be empty or a date (YYYY-MM-DD or YYYY/MM/DD)`);
  const amountText = (fields[where.amount] ?? '').trim();
  const amountYen = amountText === '' ? null : yenOf(amountText);
  if (amountYen === undefined)
    reasons.push(`${columns[where.amount]}: must be empty or a whole number of yen`);
  if (reasons.length > 0) return { ok: false, reasons };
  return {
    ok: true,
    row: {
      corporateNumber: number,
      on: on ?? null,
      amountYen: amountYen ?? null,
      bodyId: bodyIdOf(fields[where.body] ?? ''),
      title: (fields[where.title] ?? '').trim(),
    },
  };
}

/** A company's records of one kind, as the index keeps them (`subsidies`, `procurement`). */
export interface RecordSummary {
  count: number;
  /** the sum of the amounts the rows give (rows without one add nothing) */
  totalYen: number;
  /** the latest day a row gives; null when none gives one */
  latestOn: string | null;
  /** the bodies that granted or ordered, ascending */
  bodyIds: number[];
}

export function emptyRecordSummary(): RecordSummary {
  return { count: 0, totalYen: 0, latestOn: null, bodyIds: [] };
}

/** Adds one row to a company's summary. */
export function addRow(summary: RecordSummary, row: RecordRow): void {
  summary.count += 1;
  summary.totalYen += row.amountYen ?? 0;
  if (row.on !== null && (summary.latestOn === null || row.on > summary.latestOn)) summary.latestOn = row.on;
  if (!summary.bodyIds.includes(row.bodyId)) {
    summary.bodyIds.push(row.bodyId);
    summary.bodyIds.sort((a, b) => a - b);
  }
}
