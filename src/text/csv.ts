/**
 * Streaming RFC 4180 reader (the registry files, the match jobs' uploads): bytes in (Shift_JIS or UTF-8), one record
 * at a time out, in constant memory (one record's text at most). No CSV parser is installed
 * (csv-stringify only writes), so this is the small state machine RFC 4180 needs:
 *
 *   "1","7000012050002","01",...,"株式会社""A,B"""   -> ['1', '7000012050002', '01', ..., '株式会社"A,B"']
 *
 * Fields may be quoted or not; inside quotes, `""` is a quote and commas and line breaks are
 * text. Records end at CRLF or LF. A record that breaks the quoting rules is still returned,
 * with `problem` saying how, so the importer can reject it and go on.
 */
import { createReadStream } from 'node:fs';
import iconv from 'iconv-lite';

export type RegistryEncoding = 'utf8' | 'sjis';

export interface CsvRecord {
  fields: string[];
  /** 1-based number of the record in the file (a record is one line unless a quoted field holds a line break) */
  number: number;
  problem?: string;
}

/** Longest record kept (a real row is under 2,000 characters): past it, an unclosed quote is assumed. */
const maxRecordChars = 20_000;

class CsvState {
  private fields: string[] = [];
  private field = '';
  private quoted = false;
  private inQuotes = false;
  /** a quote seen inside quotes: either the end of the field or the first half of `""` */
  private quotePending = false;
  private problem: string | undefined;
  private chars = 0;
  private number = 0;
  private started = false;

  push(text: string, out: CsvRecord[]): void {
    for (let i = 0; i < text.length; i++) {
      const c = text[i] as string;
      this.started = true;
      this.chars++;
      if (this.quotePending) {
        this.quotePending = false;
        if (c === '"') {
          this.field += '"';
          continue;
        }
        this.inQuotes = false;
        // falls through: the character after a closing quote
      } else if (this.inQuotes) {
        if (c === '"') this.quotePending = true;
        else if (this.chars > maxRecordChars) {
          // an unclosed quote: end the record here rather than swallow the rest of the file
          this.problem = 'unclosed quote';
          this.inQuotes = false;
          this.endRecord(out);
          if (c !== '\n') this.push(c, out);
        } else this.field += c;
        continue;
      }
      if (c === ',') this.endField();
      else if (c === '\n') this.endRecord(out);
      else if (c === '\r') {
        // CRLF: the LF ends the record; a lone CR is dropped
      } else if (c === '"' && this.field === '' && !this.quoted) {
        this.quoted = true;
        this.inQuotes = true;
      } else {
        if (this.quoted) this.problem ??= 'text after a closing quote';
        else if (c === '"') this.problem ??= 'a quote inside an unquoted field';
        this.field += c;
      }
    }
  }

  end(out: CsvRecord[]): void {
    if (this.quotePending) {
      this.quotePending = false;
      this.inQuotes = false;
    }
    if (this.inQuotes) this.problem = 'unclosed quote';
    if (this.started && (this.fields.length > 0 || this.field !== '' || this.quoted)) this.endRecord(out);
  }

  private endField(): void {
    this.fields.push(this.field);
    this.field = '';
    this.quoted = false;
  }

  private endRecord(out: CsvRecord[]): void {
    this.endField();
    this.number++;
    const blank = this.fields.length === 1 && this.fields[0] === '' && !this.problem;
    if (!blank)
      out.push({
        fields: this.fields,
        number: this.number,
        ...(this.problem ? { problem: this.problem } : {}),
      });
    this.fields = [];
    this.problem = undefined;
    this.chars = 0;
    this.started = false;
  }
}

/** Parses a whole text (tests, small inputs). */
export function parseCsv(text: string): CsvRecord[] {
  const state = new CsvState();
  const out: CsvRecord[] = [];
  state.push(text, out);
  state.end(out);
  return out;
}

/**
 * UTF-8 when the file's first 64 KiB decode as UTF-8 (Shift_JIS kanji almost never do), else
 * Shift_JIS. A UTF-8 byte-order mark settles it at once.
 */
export function detectEncoding(head: Buffer): RegistryEncoding {
  if (head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) return 'utf8';
  // a sequence cut by the 64 KiB boundary is not an error: drop up to 3 trailing bytes of it
  let end = head.length;
  for (let back = 1; back <= 3 && end - back >= 0; back++) {
    const byte = head[end - back] as number;
    if (byte >= 0xc0) {
      end -= back;
      break;
    }
    if (byte < 0x80) break;
  }
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(head.subarray(0, end));
    return 'utf8';
  } catch {
    return 'sjis';
  }
}

async function readHead(file: string, bytes = 65_536): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of createReadStream(file, { start: 0, end: bytes - 1 })) {
    chunks.push(chunk as Buffer);
    size += (chunk as Buffer).length;
  }
  return Buffer.concat(chunks, size);
}

export async function fileEncoding(
  file: string,
  asked: RegistryEncoding | 'auto',
): Promise<RegistryEncoding> {
  return asked === 'auto' ? detectEncoding(await readHead(file)) : asked;
}

/**
 * The records of one file, streamed. `onBytes` reports the bytes read (the progress bar).
 * Shift_JIS is decoded as Windows-31J (cp932), the superset the published Shift_JIS files fit in.
 */
export function readCsvRecords(
  file: string,
  encoding: RegistryEncoding,
  onBytes: (bytes: number) => void = () => {},
): AsyncGenerator<CsvRecord> {
  return readCsvStream(createReadStream(file, { highWaterMark: 256 * 1024 }), encoding, onBytes);
}

/** The records of any byte stream (a file, a zip entry, standard input), as readCsvRecords. */
export async function* readCsvStream(
  chunks: AsyncIterable<Buffer>,
  encoding: RegistryEncoding,
  onBytes: (bytes: number) => void = () => {},
): AsyncGenerator<CsvRecord> {
  const decoder =
    encoding === 'utf8' ? new TextDecoder('utf-8', { ignoreBOM: false }) : iconv.getDecoder('cp932');
  const state = new CsvState();
  let out: CsvRecord[] = [];
  for await (const chunk of chunks) {
    const bytes = chunk as Buffer;
    onBytes(bytes.length);
    const text =
      decoder instanceof TextDecoder ? decoder.decode(bytes, { stream: true }) : decoder.write(bytes);
    state.push(text, out);
    if (out.length > 0) {
      const ready = out;
      out = [];
      yield* ready;
    }
  }
  const rest = decoder instanceof TextDecoder ? decoder.decode() : (decoder.end() ?? '');
  state.push(rest, out);
  state.end(out);
  yield* out;
}
