/**
 * The file side of `npm run match` (scripts/match.ts): a CSV list read in UTF-8 (with or
 * without a BOM) or Shift_JIS, its columns found by header name or number, and the rows written
 * back with the match columns added, in the input's encoding, formula cells neutralised.
 */
import { stringify } from 'csv-stringify/sync';
import iconv from 'iconv-lite';
import type { IndexedMatchResult, MatchRecord } from '../client/src/index.js';

export type Encoding = 'utf-8' | 'shift_jis';

export interface DecodedCsv {
  encoding: Encoding;
  header: string[];
  rows: string[][];
}

/**
 * The text of a file: a UTF-8 BOM says UTF-8; without one, bytes that are valid UTF-8 are
 * read as UTF-8, others as Shift_JIS (what Excel saves a Japanese sheet as). `encoding` forces
 * one.
 */
export function decode(bytes: Buffer, encoding?: Encoding): { text: string; encoding: Encoding } {
  const bom = bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
  if (encoding === 'shift_jis') return { text: iconv.decode(bytes, 'shift_jis'), encoding };
  if (bom) return { text: bytes.subarray(3).toString('utf8'), encoding: 'utf-8' };
  if (encoding === 'utf-8') return { text: bytes.toString('utf8'), encoding };
  try {
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(bytes), encoding: 'utf-8' };
  } catch {
    return { text: iconv.decode(bytes, 'shift_jis'), encoding: 'shift_jis' };
  }
}

/**
 * RFC 4180 rows (csv-parse is not among the installed packages): fields separated by commas,
 * quoted with `"` (a quote inside doubled), quoted fields may hold commas and line breaks;
 * lines end in CRLF, LF or CR. `a,"b ""x"", c"\r\n` -> [['a', 'b "x", c']].
 */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i += 1) {
    const char = text[i];
    if (quoted) {
      if (char === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i += 1;
        } else quoted = false;
      } else field += char;
    } else if (char === '"' && field === '') quoted = true;
    else if (char === ',') {
      row.push(field);
      field = '';
    } else if (char === '\n' || char === '\r') {
      if (char === '\r' && text[i + 1] === '\n') i += 1;
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else field += char;
  }
  if (quoted) throw new Error('a quoted field is not closed before the end of the file');
  if (field !== '' || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  // blank lines carry no record
  return rows.filter((r) => r.length > 1 || r[0] !== '');
}

export function readCsv(bytes: Buffer, encoding?: Encoding): DecodedCsv {
  const decoded = decode(bytes, encoding);
  const [header, ...rows] = parseCsv(decoded.text);
  if (!header) throw new Error('the file is empty: a header row is needed');
  // a row cut short (trailing empty cells dropped) is padded, so the added columns line up
  const padded = rows.map((row) =>
    row.length < header.length ? [...row, ...Array<string>(header.length - row.length).fill('')] : row,
  );
  return { encoding: decoded.encoding, header, rows: padded };
}

/** The match fields a column can fill, with the header names found without an option. */
export const columnFields = {
  name: [
    'name',
    'company',
    'company name',
    'company_name',
    '会社名',
    '企業名',
    '法人名',
    '社名',
    '商号',
    '名称',
    '取引先名',
    '顧客名',
  ],
  prefecture: ['prefecture', 'prefectureid', 'prefecture_id', '都道府県', '都道府県名'],
  address: ['address', '住所', '所在地', '本社所在地'],
  phone: ['phone', 'phonenumber', 'phone_number', 'tel', '電話', '電話番号'],
  website: ['website', 'websiteurl', 'website_url', 'url', 'hp', 'ホームページ', 'ウェブサイト'],
  number: ['corporatenumber', 'corporate_number', '法人番号'],
} as const;
export type ColumnField = keyof typeof columnFields;

/**
 * The 0-based column of each field: `given[field]` is a header name or a 1-based column
 * number (`--name-column 会社名`, `--name-column 2`); unset, the first header named as in
 * `columnFields` (spaces and case ignored). The name column must be found.
 */
export function resolveColumns(
  header: string[],
  given: Partial<Record<ColumnField, string>>,
): Partial<Record<ColumnField, number>> {
  const plain = (text: string) => text.normalize('NFKC').trim().toLowerCase();
  const columns: Partial<Record<ColumnField, number>> = {};
  for (const field of Object.keys(columnFields) as ColumnField[]) {
    const wanted = given[field];
    if (wanted !== undefined) {
      let index = header.indexOf(wanted);
      if (index < 0) index = header.findIndex((name) => plain(name) === plain(wanted));
      if (index < 0 && /^\d+$/.test(wanted) && Number(wanted) >= 1 && Number(wanted) <= header.length)
        index = Number(wanted) - 1;
      if (index < 0)
        throw new Error(
          `--${field}-column ${JSON.stringify(wanted)}: no such column; the header has ${header
            .map((name, i) => `${i + 1}:${JSON.stringify(name)}`)
            .join(', ')}`,
        );
      columns[field] = index;
    } else {
      const known: readonly string[] = columnFields[field];
      const index = header.findIndex((name) => known.includes(plain(name)));
      if (index >= 0) columns[field] = index;
    }
  }
  if (columns.name === undefined)
    throw new Error(
      `no company-name column: name one with --name-column (a header or a column number); the header has ${header
        .map((name, i) => `${i + 1}:${JSON.stringify(name)}`)
        .join(', ')}`,
    );
  return columns;
}

const limits = { name: 200, address: 300, phoneNumber: 50, websiteUrl: 500, corporateNumber: 20 };

/**
 * The match record of a row, or null when its name cell is empty (not sent, status none).
 * A prefecture cell is an id (13) or a name (東京都, 東京) from `prefectureIds`; anything
 * else is left out, like a field longer than the API takes.
 */
export function recordOf(
  row: string[],
  columns: Partial<Record<ColumnField, number>>,
  prefectureIds: Map<string, number>,
): MatchRecord | null {
  const cell = (field: ColumnField) => {
    const index = columns[field];
    return index === undefined ? '' : (row[index] ?? '').trim();
  };
  const name = cell('name');
  if (name === '') return null;
  const record: MatchRecord = { name: name.slice(0, limits.name) };
  const prefecture = cell('prefecture').normalize('NFKC');
  const id = /^\d+$/.test(prefecture) ? Number(prefecture) : prefectureIds.get(prefecture);
  if (id !== undefined && id >= 1 && id <= 47) record.prefectureId = id;
  const optional = [
    ['address', 'address'],
    ['phone', 'phoneNumber'],
    ['website', 'websiteUrl'],
    ['number', 'corporateNumber'],
  ] as const;
  for (const [field, key] of optional) {
    const value = cell(field);
    if (value !== '' && value.length <= limits[key]) record[key] = value;
  }
  return record;
}

export type RowStatus = 'matched' | 'unsure' | 'none' | 'over-max-credits';

export const addedColumns = ['corporateNumber', 'matchedName', 'status', 'candidates'] as const;

/** The added cells of a row: its result's match, status and first 3 candidates (`number:name:score`). */
export function addedCells(result: IndexedMatchResult | null): string[] {
  if (!result) return ['', '', 'none', ''];
  const status: RowStatus = result.match
    ? 'matched'
    : result.overMaxCredits
      ? 'over-max-credits'
      : result.candidates.length > 0
        ? 'unsure'
        : 'none';
  const candidates = result.candidates
    .slice(0, 3)
    .map((c) => `${c.corporateNumber}:${c.name}:${c.score}`)
    .join(' | ');
  return [result.match?.corporateNumber ?? '', result.match?.name ?? '', status, candidates];
}

/**
 * A cell a spreadsheet would run as a formula (`=HYPERLINK(...)`, `+81...`, `@SUM`, a leading
 * tab or CR) gets a leading `'`, so Excel shows it as text.
 */
export function neutralise(cell: string): string {
  return /^[=+\-@\t\r]/.test(cell) ? `'${cell}` : cell;
}

/** CSV lines of `rows`, every cell neutralised, CRLF line ends (as Excel writes them). */
export function csvLines(rows: string[][]): string {
  return stringify(
    rows.map((row) => row.map(neutralise)),
    // csv-stringify quotes a field holding the record delimiter (CRLF) but not a lone LF or CR
    { record_delimiter: 'windows', quoted_match: /[\r\n]/ },
  );
}

/** Bytes of CSV text in the input's encoding; UTF-8 with a BOM, so Excel reads it as UTF-8. */
export function encode(text: string, encoding: Encoding, first: boolean): Buffer {
  if (encoding === 'shift_jis') return iconv.encode(text, 'shift_jis');
  return Buffer.from(first ? `\uFEFF${text}` : text, 'utf8');
}
