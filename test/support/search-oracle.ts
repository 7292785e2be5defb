/**
 * The plain evaluation behind test/search/search-oracle.test.ts: the generator's records as the
 * contract describes them (docs/api.md "Records", "Filters", "Sorting and paging"), the small
 * predicates the cases are written with, the sort, facet counts and a CSV reader. Nothing here
 * imports the product's compiler, catalogue or text code: the rules are written out from the
 * contract, and text is folded with the tests' own fold (./unicode-fold.ts).
 */
import { unicodeFold } from './unicode-fold.js';

export type Raw = Record<string, unknown>;

export interface Posting extends Raw {
  id: string;
  company: Company;
  /** The detail text the searches see: collected within the last month, else null. */
  seenDescription: string | null;
}

export interface Company extends Raw {
  corporateNumber: string;
  postings: Posting[];
  closed: boolean;
}

const japanOffset = 9 * 3_600_000;

export const present = (value: unknown): boolean => value !== null && value !== undefined && value !== '';

/**
 * Text conditions: the record's text contains the fragment once both are folded (NFKC, case,
 * ignorables: the contract's "regardless of full-width or half-width forms"). The cases use
 * fragments without spaces or punctuation, where a substring search has no analyser choice
 * to make.
 */
export function contains(text: unknown, fragment: string): boolean {
  return typeof text === 'string' && unicodeFold(text).includes(unicodeFold(fragment));
}

/** Exact company names compare folded (docs/api.md: `㈱A` = `(株)A`, `ＡＢＣ` = `abc`). */
export const sameName = (name: unknown, value: string): boolean =>
  typeof name === 'string' && unicodeFold(name) === unicodeFold(value);

/** An inclusive numeric range; a record without the value is outside every range. */
export function within(value: unknown, min?: number, max?: number): boolean {
  if (typeof value !== 'number') return false;
  return (min === undefined || value >= min) && (max === undefined || value <= max);
}

/** The day in Japan of a date (`2026-09-04`) or a date-time (`1914-03-24T00:00:00+09:00`). */
export function japanDay(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) return value;
  return new Date(Date.parse(value) + japanOffset).toISOString().slice(0, 10);
}

/** Inclusive whole days in Japan time. */
export function daysWithin(value: unknown, from?: string, to?: string): boolean {
  const day = japanDay(value);
  if (day === null) return false;
  return (from === undefined || day >= from) && (to === undefined || day <= to);
}

export const oneOf = (value: unknown, values: readonly unknown[]): boolean => values.includes(value);

/** A posting states a license, or (stating none) its company holds it (docs/decisions/source-records.md). */
export function postingLicense(posting: Raw, company: Raw, flag: string): boolean | null {
  const own = posting[flag];
  if (typeof own === 'boolean') return own;
  const inherited = company[flag];
  return typeof inherited === 'boolean' ? inherited : null;
}

/** The markets a company is listed on (codes). */
export const marketsOf = (company: Raw): string[] => (company.marketCodes as string[] | null) ?? [];

/** Builds the view: postings grouped under their company, detail text kept while recent. */
export function buildViews(
  corporates: Raw[],
  jobs: Raw[],
  closed: ReadonlySet<string>,
  textSeen: (job: Raw) => boolean,
): { companies: Company[]; postings: Posting[] } {
  const companies = corporates.map(
    (raw) =>
      ({ ...raw, postings: [], closed: closed.has(String(raw.corporateNumber)) }) as unknown as Company,
  );
  const byNumber = new Map(companies.map((company) => [company.corporateNumber, company]));
  const postings = jobs.map((raw) => {
    const company = byNumber.get(String(raw.corporateNumber)) as Company;
    const posting = {
      ...raw,
      company,
      seenDescription: textSeen(raw) ? (raw.description as string | null) : null,
    } as unknown as Posting;
    company.postings.push(posting);
    return posting;
  });
  return { companies, postings };
}

// ---------------------------------------------------------------------------------------
// order: the requested field, records without it last in either order, then the unique key

export type SortValue = (record: Raw) => number | string | null;

/** Code point order (the engine compares keywords by their UTF-8 bytes). */
export function compareCodePoints(a: string, b: string): number {
  const left = [...a];
  const right = [...b];
  for (let i = 0; i < Math.min(left.length, right.length); i++) {
    const diff = (left[i]?.codePointAt(0) ?? 0) - (right[i]?.codePointAt(0) ?? 0);
    if (diff !== 0) return diff;
  }
  return left.length - right.length;
}

export function sortRecords<T extends Raw>(
  records: T[],
  value: SortValue,
  order: 'asc' | 'desc',
  key: (record: T) => string,
): T[] {
  const sign = order === 'asc' ? 1 : -1;
  return [...records].sort((a, b) => {
    const [x, y] = [value(a), value(b)];
    if (x !== y) {
      if (x === null) return 1;
      if (y === null) return -1;
      const diff = typeof x === 'string' ? compareCodePoints(x, String(y)) : x - Number(y);
      if (diff !== 0) return sign * diff;
    }
    return compareCodePoints(key(a), key(b));
  });
}

export const numberOf = (value: unknown): number | null => (typeof value === 'number' ? value : null);
export const instantOf = (value: unknown): number | null =>
  typeof value === 'string' ? Date.parse(value) : null;

/** The highest value among a company's postings (the company sorts on posting fields). */
export function highestOf(company: Company, read: (posting: Posting) => number | null): number | null {
  const values = company.postings.map(read).filter((value): value is number => value !== null);
  return values.length === 0 ? null : Math.max(...values);
}

// ---------------------------------------------------------------------------------------
// facets: results counted per value

/** value -> number of records having it (a record counts once per value, however often it has it). */
export function countBy<T>(records: T[], values: (record: T) => unknown[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const record of records)
    for (const value of new Set(values(record).filter(present)))
      counts.set(String(value), (counts.get(String(value)) ?? 0) + 1);
  return counts;
}

// ---------------------------------------------------------------------------------------
// CSV (RFC 4180: quoted cells, doubled quotes, CRLF), read without the product's writer

export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(cell);
      cell = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
      i++;
    } else cell += c;
  }
  if (cell !== '' || row.length > 0) rows.push([...row, cell]);
  return rows;
}

/** A CSV text cell as the contract writes it: a formula-like start gets a `'` in front. */
export function csvText(value: unknown): string {
  if (value === null || value === undefined) return '';
  const text = String(value);
  return /^[=+\-@\t\r＝＋－＠]/.test(text) && typeof value === 'string' ? `'${text}` : text;
}
