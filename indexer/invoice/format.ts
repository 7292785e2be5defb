/**
 * The rows of the NTA's invoice-issuer download files (適格請求書発行事業者公表情報: the full
 * file and the daily diff files, docs/public-records.md): CSV without a header, 24 columns in
 * the order below. `validateInvoiceRow` checks one row and gives every reason it is wrong, not
 * only the first; `toInvoiceChange` says what the row does to a company.
 *
 *   validateInvoiceRow(['1', 'T8010001000001', '01', '0', '2', '1', '1', '2023-10-01', '2023-09-20', '', '', ...24 fields])
 *   // { ok: true, row: { sequenceNumber: '1', registratedNumber: 'T8010001000001', ... } }
 *   toInvoiceChange(row)
 *   // { action: 'set', corporateNumber: '8010001000001', invoice: { registrationNumber: 'T8010001000001',
 *   //   registeredOn: '2023-10-01', endedOn: null, endReason: null, updatedOn: '2023-09-20' } }
 */
import { isValidCorporateNumber } from '../corporate-number.js';
import { isDate } from '../registry/format.js';

/** The columns, named as the NTA's specification names them (`registratedNumber` is its spelling). */
export const invoiceColumns = [
  'sequenceNumber',
  'registratedNumber',
  'process',
  'correct',
  'kind',
  'country',
  'latest',
  'registrationDate',
  'updateDate',
  'disposalDate',
  'expireDate',
  'address',
  'addressPrefectureCode',
  'addressCityCode',
  'addressRequest',
  'addressRequestPrefectureCode',
  'addressRequestCityCode',
  'kana',
  'name',
  'addressInside',
  'addressInsidePrefectureCode',
  'addressInsideCityCode',
  'tradeName',
  'popularName_previousName',
] as const;

export type InvoiceColumn = (typeof invoiceColumns)[number];
export type InvoiceRow = Record<InvoiceColumn, string>;

/** 事業者処理区分: what happened to the registration in this row. */
export const invoiceProcessCodes = {
  '01': 'registered',
  '02': 'changed',
  '03': 'expired',
  '04': 'cancelled',
  '99': 'deleted',
} as const;

/** 人格区分: 1 a person (not a company: never written), 2 a legal person. */
const kinds = new Set(['1', '2']);
/** 国内外区分: 1 domestic, 2 and 3 foreign businesses. */
const countries = new Set(['1', '2', '3']);

/** A company's invoice registration as the index keeps it (the `invoice` object). */
export interface StoredInvoice {
  /** 'T' and the 13 digits of the corporate number */
  registrationNumber: string;
  registeredOn: string;
  /** the day the registration stopped counting: the earlier of its cancellation and expiry */
  endedOn: string | null;
  endReason: 'cancelled' | 'expired' | null;
  /** the register's own last change of the row (更新年月日) */
  updatedOn: string;
}

export type InvoiceChange =
  | { action: 'set'; corporateNumber: string; invoice: StoredInvoice; updatedOn: string }
  | { action: 'remove'; corporateNumber: string; updatedOn: string }
  | { action: 'skip'; why: 'history' | 'person' };

export type InvoiceRowCheck = { ok: true; row: InvoiceRow } | { ok: false; reasons: string[] };

function checkDates(row: InvoiceRow, reasons: string[]): void {
  if (!isDate(row.updateDate)) reasons.push('updateDate: must be a date YYYY-MM-DD');
  // a deleted row may carry no registration date; every other row has one
  if (row.process !== '99' && !isDate(row.registrationDate))
    reasons.push('registrationDate: must be a date YYYY-MM-DD');
  else if (row.registrationDate !== '' && !isDate(row.registrationDate))
    reasons.push('registrationDate: must be empty or a date YYYY-MM-DD');
  for (const column of ['disposalDate', 'expireDate'] as const)
    if (row[column] !== '' && !isDate(row[column]))
      reasons.push(`${column}: must be empty or a date YYYY-MM-DD`);
  // a cancelled or expired row without its day would leave the company registered
  if (row.process === '04' && row.disposalDate === '')
    reasons.push('disposalDate: a cancellation (04) needs its date');
  if (row.process === '03' && row.expireDate === '')
    reasons.push('expireDate: an expiry (03) needs its date');
}

/** Every reason one row cannot be applied; a row with the wrong column count is not read further. */
export function validateInvoiceRow(fields: readonly string[]): InvoiceRowCheck {
  if (fields.length !== invoiceColumns.length)
    return { ok: false, reasons: [`row has ${fields.length} columns, expected ${invoiceColumns.length}`] };
  const row = Object.fromEntries(invoiceColumns.map((column, i) => [column, fields[i] ?? ''])) as InvoiceRow;
  const reasons: string[] = [];
  if (!/^\d+$/.test(row.sequenceNumber)) reasons.push('sequenceNumber: must be a whole number');
  if (!/^T\d{13}$/.test(row.registratedNumber)) reasons.push('registratedNumber: must be T and 13 digits');
  else if (row.kind !== '1' && !isValidCorporateNumber(row.registratedNumber.slice(1)))
    reasons.push(
      "registratedNumber: a legal person's must be T and its corporate number (check digit wrong)",
    );
  if (!(row.process in invoiceProcessCodes))
    reasons.push(
      `process: ${row.process || '(empty)'} is not a process code (${Object.keys(invoiceProcessCodes).join(', ')})`,
    );
  if (row.correct !== '0' && row.correct !== '1') reasons.push('correct: must be 0 or 1');
  if (!kinds.has(row.kind)) reasons.push('kind: must be 1 (a person) or 2 (a legal person)');
  if (!countries.has(row.country)) reasons.push('country: must be 1, 2 or 3');
  if (row.latest !== '0' && row.latest !== '1') reasons.push('latest: must be 0 or 1');
  checkDates(row, reasons);
  if (row.name.length > 300) reasons.push('name: longer than 300 characters');
  return reasons.length > 0 ? { ok: false, reasons } : { ok: true, row };
}

/** The registration's end: the earlier of cancellation (取消) and expiry (失効), and which it was. */
function endOf(row: InvoiceRow): Pick<StoredInvoice, 'endedOn' | 'endReason'> {
  const cancelled = row.disposalDate || null;
  const expired = row.expireDate || null;
  if (cancelled && (!expired || cancelled <= expired)) return { endedOn: cancelled, endReason: 'cancelled' };
  if (expired) return { endedOn: expired, endReason: 'expired' };
  return { endedOn: null, endReason: null };
}

/**
 * What a valid row does: a history row (latest=0) and a person's row are skipped; a deleted row
 * (99) removes the company's registration; any other row sets it whole (every row carries the
 * registration's whole state, so a correction or a change is the same write).
 */
export function toInvoiceChange(row: InvoiceRow): InvoiceChange {
  if (row.kind !== '2') return { action: 'skip', why: 'person' };
  if (row.latest !== '1') return { action: 'skip', why: 'history' };
  const corporateNumber = row.registratedNumber.slice(1);
  if (row.process === '99') return { action: 'remove', corporateNumber, updatedOn: row.updateDate };
  return {
    action: 'set',
    corporateNumber,
    updatedOn: row.updateDate,
    invoice: {
      registrationNumber: row.registratedNumber,
      registeredOn: row.registrationDate,
      ...endOf(row),
      updatedOn: row.updateDate,
    },
  };
}
