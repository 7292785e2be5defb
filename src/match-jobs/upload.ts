/**
 * An uploaded list, streamed from the request into the job's input file (./files.ts), one
 * JSON line per row, never held whole in memory: the row's number, its values as uploaded
 * (kept for the results) and either its match record (checked as POST /corporates/match
 * checks one: ./rows.ts) or the reason it was refused.
 *
 *   CSV  (UTF-8 with or without BOM, or Shift_JIS; a header row first)
 *        `会社名,都道府県\n㈱マルカ物流,神奈川県\n`
 *        -> {"r":1,"v":["㈱マルカ物流","神奈川県"],"m":{"name":"㈱マルカ物流","prefectureId":14}}
 *   JSONL (UTF-8, one match record per line; blank lines skipped)
 *        `{"name":"サクラ精機"}\n{"nam":"x"}\n`
 *        -> {"r":1,"m":{"name":"サクラ精機"}}  {"r":2,"v":{"nam":"x"},"e":"name: is required; nam: ..."}
 *
 * The bytes are hashed as they pass (the Idempotency-Key's fingerprint).
 */
import { createHash, type Hash } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream, type WriteStream } from 'node:fs';
import { errors } from '../errors/catalogue.js';
import type { MatchRecord } from '../names/match.js';
import { type CsvRecord, detectEncoding, readCsvStream } from '../text/csv.js';
import type { UploadEncoding, UploadFormat } from './job-store.js';
import { type ColumnMap, mapColumns, recordFields, recordOfCsvRow, recordProblem } from './rows.js';

export interface UploadOptions {
  format: UploadFormat;
  /** CSV: 'auto' looks at the first 64 KiB (a BOM, or bytes that decode as UTF-8). */
  encoding: UploadEncoding | 'auto';
  maxRows: number;
}

export interface StoredUpload {
  totalRows: number;
  rejectedRows: number;
  columns: string[];
  encoding?: UploadEncoding;
  /** sha256 of the bytes as uploaded (base64url). */
  digest: string;
}

/** One input line as the worker reads it back (./process.ts, ./results.ts). */
export interface InputLine {
  r: number;
  /** The values as uploaded: the CSV row's cells, or the JSONL line (when not a valid record). */
  v?: string[] | unknown;
  /** The match record (valid rows). */
  m?: MatchRecord;
  /** Why the row was refused. */
  e?: string;
}

class LineWriter {
  constructor(private readonly out: WriteStream) {}
  async write(line: InputLine): Promise<void> {
    if (!this.out.write(`${JSON.stringify(line)}\n`)) await once(this.out, 'drain');
  }
  async close(): Promise<void> {
    this.out.end();
    await once(this.out, 'finish');
  }
}

async function* hashed(body: AsyncIterable<Buffer>, hash: Hash): AsyncGenerator<Buffer> {
  for await (const chunk of body) {
    const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
    hash.update(bytes);
    yield bytes;
  }
}

/** The first 64 KiB decide the encoding; every byte is passed on. */
async function withEncoding(
  body: AsyncIterable<Buffer>,
  asked: UploadEncoding | 'auto',
): Promise<{ encoding: UploadEncoding; bytes: AsyncIterable<Buffer> }> {
  const iterator = body[Symbol.asyncIterator]();
  const head: Buffer[] = [];
  let size = 0;
  let done = false;
  while (size < 65_536) {
    const next = await iterator.next();
    if (next.done) {
      done = true;
      break;
    }
    head.push(next.value);
    size += next.value.length;
  }
  const encoding = asked === 'auto' ? detectEncoding(Buffer.concat(head, size)) : asked;
  async function* all(): AsyncGenerator<Buffer> {
    yield* head;
    if (done) return;
    for (;;) {
      const next = await iterator.next();
      if (next.done) return;
      yield next.value;
    }
  }
  return { encoding, bytes: all() };
}

function tooManyRows(maxRows: number) {
  return errors.payloadTooLarge(`${maxRows.toLocaleString('en')} rows`);
}

export async function storeUpload(
  body: AsyncIterable<Buffer>,
  inputFile: string,
  options: UploadOptions,
): Promise<StoredUpload> {
  const hash = createHash('sha256');
  const writer = new LineWriter(createWriteStream(inputFile));
  let stored: Omit<StoredUpload, 'digest'>;
  try {
    stored =
      options.format === 'csv'
        ? await storeCsv(hashed(body, hash), writer, options)
        : await storeJsonl(hashed(body, hash), writer, options);
  } finally {
    await writer.close();
  }
  return { ...stored, digest: hash.digest('base64url') };
}

async function storeCsv(
  body: AsyncIterable<Buffer>,
  writer: LineWriter,
  options: UploadOptions,
): Promise<Omit<StoredUpload, 'digest'>> {
  const { encoding, bytes } = await withEncoding(body, options.encoding);
  let header: string[] | undefined;
  let columns: ColumnMap | undefined;
  let totalRows = 0;
  let rejectedRows = 0;
  for await (const csv of readCsvStream(bytes, encoding) as AsyncGenerator<CsvRecord>) {
    if (!header || !columns) {
      header = csv.fields.map((field, index) => (index === 0 ? field.replace(/^\uFEFF/, '') : field).trim());
      if (csv.problem)
        throw errors.validation([{ field: 'header', reason: `is not a valid CSV row (${csv.problem})` }]);
      columns = mapColumns(header);
      continue;
    }
    totalRows += 1;
    if (totalRows > options.maxRows) throw tooManyRows(options.maxRows);
    const row = csv.number - 1;
    const record = csv.problem ? `row: ${csv.problem}` : recordOfCsvRow(csv.fields, columns);
    const problem = typeof record === 'string' ? record : recordProblem(record);
    if (problem !== undefined) rejectedRows += 1;
    // a record without a problem passed the MatchRecord schema
    if (problem === undefined && typeof record !== 'string')
      await writer.write({ r: row, v: csv.fields, m: record as unknown as MatchRecord });
    else await writer.write({ r: row, v: csv.fields, e: problem ?? '' });
  }
  if (!header)
    throw errors.validation([
      { field: 'body', reason: 'is empty: send a header row, then one row per company' },
    ]);
  return { totalRows, rejectedRows, columns: header, encoding };
}

async function storeJsonl(
  body: AsyncIterable<Buffer>,
  writer: LineWriter,
  options: UploadOptions,
): Promise<Omit<StoredUpload, 'digest'>> {
  const decoder = new TextDecoder('utf-8', { ignoreBOM: false });
  let totalRows = 0;
  let rejectedRows = 0;
  let lineNumber = 0;
  let rest = '';
  const take = async (line: string) => {
    lineNumber += 1;
    const text = line.replace(/\r$/, '');
    if (text.trim() === '') return;
    totalRows += 1;
    if (totalRows > options.maxRows) throw tooManyRows(options.maxRows);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      rejectedRows += 1;
      await writer.write({ r: lineNumber, v: text, e: 'line: must be a JSON object (a match record)' });
      return;
    }
    const problem =
      value !== null && typeof value === 'object' && !Array.isArray(value)
        ? recordProblem(value)
        : 'line: must be a JSON object (a match record)';
    if (problem !== undefined) {
      rejectedRows += 1;
      await writer.write({ r: lineNumber, v: value, e: problem });
    }
    // checked against the MatchRecord schema just above
    else await writer.write({ r: lineNumber, m: value as MatchRecord });
  };
  for await (const chunk of body) {
    rest += decoder.decode(chunk, { stream: true });
    const lines = rest.split('\n');
    rest = lines.pop() ?? '';
    for (const line of lines) await take(line);
    if (rest.length > 1_000_000)
      throw errors.validation([
        { field: `line ${lineNumber + 1}`, reason: 'is longer than 1,000,000 characters' },
      ]);
  }
  rest += decoder.decode();
  if (rest !== '') await take(rest);
  return { totalRows, rejectedRows, columns: [...recordFields] };
}
