/**
 * Writes generated registry rows (./generate.ts) as the NTA publishes them: one full file per
 * prefecture named `13_tokyo_all_20261031.csv` (or one nationwide `00_zenkoku_all_…`), a
 * diff as `diff_20261101.csv`; UTF-8 or Shift_JIS (cp932); optionally split into numbered
 * parts of at most `split` rows; optionally each wrapped in a zip of the same name, as the
 * downloads come. Rows are encoded a thousand at a time and streamed: constant memory.
 */
import { once } from 'node:events';
import { createWriteStream, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { finished } from 'node:stream/promises';
import iconv from 'iconv-lite';
import { projectRoot } from '../../src/project-root.js';
import type { RegistryEncoding } from '../../src/text/csv.js';
import {
  csvLine,
  type DiffKind,
  diffRows,
  emptyDiffCounts,
  prefectureRows,
  type RowValues,
  rangesOf,
  type Universe,
} from './generate.js';
import { ZipWriter } from './zip-writer.js';

export interface FileLayout {
  outDir: string;
  encoding: RegistryEncoding;
  /** rows per file; 0: one file per prefecture (or nationwide) */
  split: number;
  zip: boolean;
  /** one nationwide file instead of one per prefecture */
  nationwide: boolean;
}

export interface WrittenFile {
  file: string;
  rows: number;
}

const compact = (date: string) => date.replace(/-/g, '');

function encode(text: string, encoding: RegistryEncoding): Buffer {
  return encoding === 'utf8' ? Buffer.from(text, 'utf8') : iconv.encode(text, 'cp932');
}

/**
 * Writes `rows` under `stem` (+ `_1`, `_2`… when split), CSV or zip; the files written. `line`
 * writes one row (the register's columns unless told: the invoice generator gives its own).
 */
export async function writeRows<Row = RowValues>(
  stem: string,
  rows: Iterable<Row>,
  layout: FileLayout,
  line: (sequence: number, values: Row) => string = csvLine as (sequence: number, values: Row) => string,
): Promise<WrittenFile[]> {
  mkdirSync(layout.outDir, { recursive: true });
  const written: WrittenFile[] = [];
  const iterator = rows[Symbol.iterator]();
  let pending = iterator.next();
  for (let part = 1; !pending.done || part === 1; part++) {
    const name = layout.split > 0 ? `${stem}_${part}` : stem;
    let count = 0;
    // one part's rows, a thousand lines per chunk; the sequence number restarts in each file
    const chunks = function* (): Generator<Buffer> {
      let text = '';
      let lines = 0;
      while (!pending.done && (layout.split === 0 || count < layout.split)) {
        count++;
        text += line(count, pending.value);
        pending = iterator.next();
        if (++lines === 1000) {
          yield encode(text, layout.encoding);
          text = '';
          lines = 0;
        }
      }
      if (text) yield encode(text, layout.encoding);
    };
    const file = path.join(layout.outDir, `${name}.${layout.zip ? 'zip' : 'csv'}`);
    const out = createWriteStream(file);
    if (layout.zip) {
      const zip = new ZipWriter(out);
      await zip.add(`${name}.csv`, chunks());
      await zip.finish();
    } else {
      for (const chunk of chunks()) if (!out.write(chunk)) await once(out, 'drain');
      out.end();
      await finished(out);
    }
    written.push({ file, rows: count });
  }
  return written;
}

/** 13 -> "tokyo", as the published file names write it. */
function prefectureRomaji(): Map<number, string> {
  const file = path.join(projectRoot, 'data', 'masters', 'prefectures.json');
  const { items } = JSON.parse(readFileSync(file, 'utf8')) as { items: { id: number; nameRomaji: string }[] };
  return new Map(items.map((item) => [item.id, item.nameRomaji.toLowerCase()]));
}

/** The full files of the register `universe`. */
export async function writeFullFiles(
  universe: Universe,
  layout: FileLayout,
  onFile: (file: WrittenFile) => void = () => {},
): Promise<WrittenFile[]> {
  const date = compact(universe.date);
  const ranges = rangesOf(universe).filter((range) => range.count > 0);
  const files: WrittenFile[] = [];
  const keep = (batch: WrittenFile[]) => {
    for (const file of batch) {
      files.push(file);
      onFile(file);
    }
  };
  if (layout.nationwide) {
    const all = function* () {
      for (const range of ranges) yield* prefectureRows(universe, range.prefectureId);
    };
    keep(await writeRows(`00_zenkoku_all_${date}`, all(), layout));
    return files;
  }
  const romajiOf = prefectureRomaji();
  for (const range of ranges) {
    const romaji = romajiOf.get(range.prefectureId) ?? 'unknown';
    const code = String(range.prefectureId).padStart(2, '0');
    keep(
      await writeRows(`${code}_${romaji}_all_${date}`, prefectureRows(universe, range.prefectureId), layout),
    );
  }
  return files;
}

/** A day's diff of about `changes` changes, dated `date`. */
export async function writeDiffFile(
  universe: Universe,
  date: string,
  changes: number,
  layout: FileLayout,
): Promise<{ files: WrittenFile[]; counts: Record<DiffKind, number> }> {
  const counts = emptyDiffCounts();
  const files = await writeRows(`diff_${compact(date)}`, diffRows(universe, date, changes, counts), layout);
  return { files, counts };
}
