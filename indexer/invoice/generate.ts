/**
 * Seeded invoice-register rows in the NTA's published download format (./format.ts) for the
 * companies of a generated corporate-number register (../registry/generate.ts): the same
 * universe (companies, seed, date) gives the same registrations, each a pure function of
 * (seed, company index), so a full file and a diff need no memory of each other.
 *
 *   invoiceStateAt(universe, 0)
 *   // { registered: true, registrationDate: '2023-10-01', disposalDate: '', expireDate: '' }
 *   [...invoiceFullRows(universe)] // a legal person's rows (its history first), persons' rows between
 *
 * Shares (per 1000 companies): 600 registered, of which 30 expired, 8 cancelled, 10 with an
 * expiry announced after the file's date and 10 registered from a day after it; every tenth row
 * is a person's (kind 1, never a company). A company closed in the register expired on its
 * close date when it was registered.
 */
import { Random } from '../../sample-data/index.js';
import { companyByIndex, dateOf, dayOf, mix, type Universe } from '../registry/generate.js';
import { type InvoiceColumn, invoiceColumns } from './format.js';

export type InvoiceRowValues = Partial<Record<InvoiceColumn, string>>;

/** The day the invoice system started: most registrations take effect on it. */
const systemStart = dayOf('2023-10-01');
/** Kept apart from the register's own draws: the same company, an independent coin. */
const invoiceSalt = 0x1a2b3c;

export interface InvoiceState {
  registered: boolean;
  registrationDate: string;
  disposalDate: string;
  expireDate: string;
  updateDate: string;
}

/** Company `index`'s registration as of the universe's date (registered false: none). */
export function invoiceStateAt(universe: Universe, index: number): InvoiceState {
  const random = new Random(mix(universe.seed ^ invoiceSalt, index));
  const last = dayOf(universe.date);
  const none = { registered: false, registrationDate: '', disposalDate: '', expireDate: '', updateDate: '' };
  if (random.int(0, 999) >= 600) return none;
  const startDay = random.chance(0.7) ? systemStart : random.int(systemStart + 1, last - 2);
  const state: InvoiceState = { ...none, registered: true, registrationDate: dateOf(startDay) };
  const fate = random.int(0, 599);
  const endDay = random.int(startDay + 1, last);
  if (fate < 30) state.expireDate = dateOf(endDay);
  else if (fate < 38) state.disposalDate = dateOf(endDay);
  else if (fate < 48) state.expireDate = dateOf(last + random.int(1, 60));
  else if (fate < 58) state.registrationDate = dateOf(last + random.int(1, 30));
  const company = companyByIndex(universe, index);
  const closeDate = company.closed ? company.current.closeDate : undefined;
  // a company closed before its registration would have taken effect never had one
  if (closeDate && closeDate <= state.registrationDate) return none;
  if (closeDate && !state.expireDate && !state.disposalDate) state.expireDate = closeDate;
  const dates = [state.registrationDate, state.disposalDate, state.expireDate].filter(
    (date) => date !== '' && date <= universe.date,
  );
  state.updateDate = dates.sort().at(-1) ?? dateOf(startDay - random.int(1, 20));
  return state;
}

const process = (state: InvoiceState) => (state.disposalDate ? '04' : state.expireDate ? '03' : '01');

/** One legal person's row in the published column order (the sequence number is the writer's). */
export function invoiceRow(universe: Universe, index: number, state: InvoiceState): InvoiceRowValues {
  const company = companyByIndex(universe, index);
  const row = company.current;
  return {
    registratedNumber: `T${company.corporateNumber}`,
    process: process(state),
    correct: '0',
    kind: '2',
    country: row.kind === '401' ? '2' : '1',
    latest: '1',
    registrationDate: state.registrationDate,
    updateDate: state.updateDate,
    disposalDate: state.disposalDate,
    expireDate: state.expireDate,
    address: `${row.prefectureName ?? ''}${row.cityName ?? ''}${row.streetNumber ?? ''}`,
    addressPrefectureCode: row.prefectureCode ?? '',
    addressCityCode: row.cityCode ?? '',
    name: row.name ?? '',
  };
}

/** A person's row: a registration number that is no corporate number's, never a company. */
function personRow(universe: Universe, index: number): InvoiceRowValues {
  const random = new Random(mix(universe.seed ^ (invoiceSalt + 1), index));
  const digits = String(9_000_000_000_000 + random.int(0, 999_999_999) * 1000 + (index % 1000));
  return {
    registratedNumber: `T${digits}`,
    process: '01',
    correct: '0',
    kind: '1',
    country: '1',
    latest: '1',
    registrationDate: '2023-10-01',
    updateDate: '2023-09-15',
    name: '',
  };
}

/**
 * The full file's rows: each registered company's row, an ended registration preceded by its
 * row from before it ended (latest=0), a person's row after every ninth company row.
 */
export function* invoiceFullRows(universe: Universe): Generator<InvoiceRowValues> {
  let written = 0;
  for (let index = 0; index < universe.companies; index++) {
    const state = invoiceStateAt(universe, index);
    if (!state.registered) continue;
    const row = invoiceRow(universe, index, state);
    const ended = (state.disposalDate || state.expireDate) && (row.updateDate ?? '') <= universe.date;
    if (ended)
      yield {
        ...row,
        process: '01',
        latest: '0',
        disposalDate: '',
        expireDate: '',
        updateDate: state.registrationDate,
      };
    yield row;
    if (++written % 9 === 0) yield personRow(universe, index);
  }
}

export type InvoiceDiffKind = 'registered' | 'expired' | 'cancelled' | 'deleted';

/**
 * A day's diff after the universe's date: about `changes` rows, each a company's whole new
 * state: new registrations of companies without one, expiries and cancellations of registered
 * ones, and (rarely) a deleted row (99). Counts per kind go to `counts`.
 */
export function* invoiceDiffRows(
  universe: Universe,
  date: string,
  changes: number,
  counts: Record<InvoiceDiffKind, number>,
): Generator<InvoiceRowValues> {
  const random = new Random(mix(universe.seed ^ (invoiceSalt + 2), dayOf(date)));
  const seen = new Set<number>();
  for (let made = 0; made < changes && seen.size < universe.companies; ) {
    const index = random.int(0, universe.companies - 1);
    if (seen.has(index)) continue;
    seen.add(index);
    const state = invoiceStateAt(universe, index);
    const ended = state.disposalDate !== '' || state.expireDate !== '';
    const next: InvoiceState = { ...state, updateDate: date };
    let kind: InvoiceDiffKind;
    if (!state.registered) {
      Object.assign(next, { registered: true, registrationDate: date });
      kind = 'registered';
    } else if (ended) continue;
    else if (random.chance(0.02)) kind = 'deleted';
    else if (random.chance(0.2)) {
      next.disposalDate = date;
      kind = 'cancelled';
    } else {
      next.expireDate = date;
      kind = 'expired';
    }
    const row = invoiceRow(universe, index, next);
    yield kind === 'deleted' ? { ...row, process: '99' } : row;
    counts[kind]++;
    made++;
  }
}

/** One CSV line as published: every field double-quoted, CRLF. */
export function invoiceCsvLine(sequence: number, values: InvoiceRowValues): string {
  const all: InvoiceRowValues = { ...values, sequenceNumber: String(sequence) };
  return `${invoiceColumns.map((column) => `"${(all[column] ?? '').replace(/"/g, '""')}"`).join(',')}\r\n`;
}
