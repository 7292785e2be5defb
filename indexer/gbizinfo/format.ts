/**
 * gBizINFO's download files (docs/public-records.md): CSV with a header row, UTF-8 (with a
 * byte-order mark) or Shift_JIS, the columns in a fixed order, one file per kind of record:
 * subsidies (補助金情報, `Hojokinjoho`) and procurement (調達情報, `Chotatsujoho`), one row per
 * subsidy or order; certifications (届出・認定情報, `Todokedejoho`) and awards (表彰情報,
 * `Hyoshojoho`), one row per certification or award; workplace figures (職場情報,
 * `Shokubajoho`), one row per company. `kindFormats` holds, per kind, its columns, the check of
 * one row (every reason it is wrong), and how the rows of one company sum into the summary the
 * index keeps (src/catalogue/gbizinfo-kinds.ts gives the summaries' keys).
 *
 *   kindFormats.subsidies.check(['8010001000001', '株式会社A', '東京都…', '2024-03-29', 'ものづくり補助金', '12,500,000', '中小企業', '経済産業省'])
 *   // { ok: true, corporateNumber: '8010001000001', row: { on: '2024-03-29', amountYen: 12500000, bodyId: 11, title: 'ものづくり補助金' } }
 */
import type { GbizinfoKind } from '../../src/catalogue/gbizinfo-kinds.js';
import { listedIdOf } from './listed.js';
import {
  columnCountReasons,
  type KindFormat,
  numberReasons,
  optionalDay,
  type Summary,
  yenOf,
} from './rows.js';
import { workplaceFormat } from './workplace.js';

export { gbizinfoKinds as recordKinds } from '../../src/catalogue/gbizinfo-kinds.js';
export { dayOf, type KindFormat, type Summary, yenOf } from './rows.js';
export type RecordKind = GbizinfoKind;

/** The listed government body whose name appears in the text (./listed.ts); 999 when none. */
export function bodyIdOf(text: string): number {
  return listedIdOf('government-bodies', text);
}

// subsidies and procurement: counted and summed

export interface MoneyRow {
  /** the day it was granted (認定日) or ordered (受注日); null when the row gives none */
  on: string | null;
  /** in yen; null when the row gives none */
  amountYen: number | null;
  /** the government-bodies master's id of who granted or ordered it (999: not listed) */
  bodyId: number;
  title: string;
}

/** A company's subsidies or procurement (`count`, `totalYen`, `latestOn`, `bodyIds`). */
export interface MoneySummary {
  count: number;
  /** the sum of the amounts the rows give (rows without one add nothing) */
  totalYen: number;
  /** the latest day a row gives; null when none gives one */
  latestOn: string | null;
  /** the bodies that granted or ordered, ascending */
  bodyIds: number[];
}

/** Beyond this a company's total could not be held exactly (a JSON number, a long). */
const maxTotalYen = Number.MAX_SAFE_INTEGER;

function addSorted(list: number[], value: number): void {
  if (list.includes(value)) return;
  list.push(value);
  list.sort((a, b) => a - b);
}

function moneyFormat(
  stem: string,
  columns: readonly string[],
  at: { date: number; title: number; amount: number; body: number },
): KindFormat<MoneyRow> {
  return {
    columns,
    stem,
    check(fields) {
      const reasons = columnCountReasons(fields, columns);
      if (reasons.length > 0) return { ok: false, reasons };
      reasons.push(...numberReasons(fields, columns));
      const on = optionalDay(fields, columns, at.date, reasons);
      const amountText = (fields[at.amount] ?? '').trim();
      const amountYen = amountText === '' ? null : yenOf(amountText);
      if (amountYen === undefined)
        reasons.push(`${columns[at.amount]}: must be empty or a whole number of yen`);
      if (reasons.length > 0) return { ok: false, reasons };
      return {
        ok: true,
        corporateNumber: (fields[0] ?? '').trim(),
        row: {
          on,
          amountYen: amountYen ?? null,
          bodyId: bodyIdOf(fields[at.body] ?? ''),
          title: (fields[at.title] ?? '').trim(),
        },
      };
    },
    empty: (): MoneySummary & Summary => ({ count: 0, totalYen: 0, latestOn: null, bodyIds: [] }),
    add(summary, row) {
      const money = summary as unknown as MoneySummary;
      const total = money.totalYen + (row.amountYen ?? 0);
      if (total > maxTotalYen) return `${columns[at.amount]}: the company's total passes ${maxTotalYen} yen`;
      money.count += 1;
      money.totalYen = total;
      if (row.on !== null && (money.latestOn === null || row.on > money.latestOn)) money.latestOn = row.on;
      addSorted(money.bodyIds, row.bodyId);
      return undefined;
    },
  };
}

// certifications and awards: master-listed kinds with dates

export interface ListedRow {
  /** the kind's id in its master (certification-kinds, award-kinds; 999 not listed) */
  kindId: number;
  title: string;
  /** certified (認定日) or awarded (年月日); null when the row gives none */
  on: string | null;
  /** certifications: the day it lapses (有効期限); null when none is given (awards: always null) */
  expiresOn: string | null;
  bodyId: number;
}

export interface ListedSummary {
  count: number;
  /** every kind the company's rows name, ascending */
  kindIds: number[];
  latestOn: string | null;
  /** the rows, latest first (by `on`, undated last), at most `maxListedItems` */
  items: ListedRow[];
}

/** A company's `items` keep the latest this many; `count` and `kindIds` count every row. */
export const maxListedItems = 50;

/** Latest first, undated last; then kind, title, expiry, body: one order whatever the file's. */
function itemOrder(a: ListedRow, b: ListedRow): number {
  const text = (x: string | null, y: string | null) =>
    (x ?? '') < (y ?? '') ? -1 : (x ?? '') > (y ?? '') ? 1 : 0;
  if (a.on === b.on)
    return (
      a.kindId - b.kindId || text(a.title, b.title) || text(a.expiresOn, b.expiresOn) || a.bodyId - b.bodyId
    );
  if (a.on === null) return 1;
  if (b.on === null) return -1;
  return a.on > b.on ? -1 : 1;
}

function listedFormat(
  stem: string,
  master: 'certification-kinds' | 'award-kinds',
  columns: readonly string[],
  at: { date: number; title: number; body: number; expires?: number },
): KindFormat<ListedRow> {
  return {
    columns,
    stem,
    check(fields) {
      const reasons = columnCountReasons(fields, columns);
      if (reasons.length > 0) return { ok: false, reasons };
      reasons.push(...numberReasons(fields, columns));
      const on = optionalDay(fields, columns, at.date, reasons);
      const expiresOn = at.expires === undefined ? null : optionalDay(fields, columns, at.expires, reasons);
      const title = (fields[at.title] ?? '').trim();
      if (title === '') reasons.push(`${columns[at.title]}: must not be empty (it names what was given)`);
      if (reasons.length > 0) return { ok: false, reasons };
      return {
        ok: true,
        corporateNumber: (fields[0] ?? '').trim(),
        row: {
          kindId: listedIdOf(master, title),
          title,
          on,
          expiresOn,
          bodyId: bodyIdOf(fields[at.body] ?? ''),
        },
      };
    },
    empty: (): ListedSummary & Summary => ({ count: 0, kindIds: [], latestOn: null, items: [] }),
    add(summary, row) {
      const listed = summary as unknown as ListedSummary;
      listed.count += 1;
      addSorted(listed.kindIds, row.kindId);
      if (row.on !== null && (listed.latestOn === null || row.on > listed.latestOn)) listed.latestOn = row.on;
      listed.items.push(row);
      listed.items.sort(itemOrder);
      if (listed.items.length > maxListedItems) listed.items.length = maxListedItems;
      return undefined;
    },
  };
}

/** Each kind's file: columns, row check, summing. Header names as gBizINFO's download files give them. */
export const kindFormats: Record<RecordKind, KindFormat> = {
  subsidies: moneyFormat(
    'Hojokinjoho',
    ['法人番号', '法人名', '本社所在地', '認定日', '補助金等', '金額', '対象', '府省'],
    { date: 3, title: 4, amount: 5, body: 7 },
  ) as KindFormat,
  procurement: moneyFormat(
    'Chotatsujoho',
    ['法人番号', '法人名', '本社所在地', '受注日', '事業名', '金額', '府省', '備考'],
    { date: 3, title: 4, amount: 5, body: 6 },
  ) as KindFormat,
  certifications: listedFormat(
    'Todokedejoho',
    'certification-kinds',
    [
      '法人番号',
      '法人名',
      '本社所在地',
      '認定日',
      '届出・認定等',
      '対象',
      '部門',
      '企業規模',
      '有効期限',
      '府省',
    ],
    { date: 3, title: 4, expires: 8, body: 9 },
  ) as KindFormat,
  awards: listedFormat(
    'Hyoshojoho',
    'award-kinds',
    ['法人番号', '法人名', '本社所在地', '年月日', '表彰名', '受賞対象', '部門', '府省'],
    { date: 3, title: 4, body: 7 },
  ) as KindFormat,
  workplace: workplaceFormat as KindFormat,
};

/** The columns of each kind's file, in order. */
export const recordColumns: Record<RecordKind, readonly string[]> = Object.fromEntries(
  Object.entries(kindFormats).map(([kind, format]) => [kind, format.columns]),
) as Record<RecordKind, readonly string[]>;

/**
 * Whether a header row is the kind's: every column's name, in order, compared in NFKC form
 * (a file writing `（男性）` in full width is the same file).
 */
export function checkHeader(kind: RecordKind, fields: readonly string[]): string | undefined {
  const found = fields.map((field, i) => (i === 0 ? field.replace(/^\uFEFF/, '') : field).trim());
  const expected = recordColumns[kind];
  const same = (a: string, b: string) => a.normalize('NFKC') === b.normalize('NFKC');
  if (found.length === expected.length && expected.every((name, i) => same(found[i] ?? '', name)))
    return undefined;
  return `not a gBizINFO ${kind} file: its header should be ${expected.join(',')} (found ${found.join(',') || '(empty)'})`;
}
