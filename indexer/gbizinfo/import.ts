/**
 * Loads a gBizINFO download file of subsidies or of procurement (./format.ts) onto the
 * companies of the corporates index. gBizINFO publishes each kind as one whole file, updated
 * daily and never as a diff, so a load makes the index say what the file says:
 *
 *   1. read: every row checked (a rejected row goes to the dead-letter sink with every reason),
 *      the rows summed per company (count, total yen, latest day, bodies: ./format.ts);
 *   2. write: the companies in corporate-number order, a thousand at a time, each read with its
 *      sequence number and written only when its summary differs (./write.ts), with a
 *      checkpoint after each batch: a run that stops reads the file again and goes on after
 *      the last company written;
 *   3. sweep: a company that has the kind's summary and is not in the file loses it (null).
 *
 *   await importRecordFile('subsidies', 'Hojokinjoho.csv', { client, indexPrefix, deadLetter, stateDir })
 *   // { read: 120, companies: 80, set: 80, unchanged: 0, cleared: 0, noCompany: 3, rejected: 1, ... }
 */
import type { OpenSearchClient } from '../../src/opensearch/client.js';
import { detectEncoding, type RegistryEncoding, readCsvStream } from '../../src/text/csv.js';
import type { DeadLetterEntry, DeadLetterSink } from '../dead-letter.js';
import { readCheckpoint, writeCheckpoint } from '../registry/checkpointed-import.js';
import { type RegistrySource, registrySources } from '../registry/input.js';
import {
  addRow,
  checkHeader,
  emptyRecordSummary,
  type RecordKind,
  type RecordSummary,
  validateRecordRow,
} from './format.js';
import { clearMissing, RecordWriter } from './write.js';

export interface RecordImportSummary {
  read: number;
  /** companies the file has rows of */
  companies: number;
  set: number;
  unchanged: number;
  /** companies the file no longer has: their summary removed */
  cleared: number;
  /** companies the index does not hold */
  noCompany: number;
  rejected: number;
  [count: string]: number;
}

export interface RecordImportOptions {
  client: OpenSearchClient;
  indexPrefix: string;
  deadLetter: DeadLetterSink;
  stateDir: string;
  encoding?: RegistryEncoding | 'auto';
  /** companies per write and per checkpoint */
  batchSize?: number;
  restart?: boolean;
  now?: () => Date;
  /** tests: stop (throw) once this many companies are written, as a crash would */
  stopAfterCompanies?: number;
  onProgress?: (done: number, total: number) => void;
}

export class RecordImportStopped extends Error {}

function emptySummary(): RecordImportSummary {
  return { read: 0, companies: 0, set: 0, unchanged: 0, cleared: 0, noCompany: 0, rejected: 0 };
}

/** Step 1: the file's rows summed per company, the rejected rows dead-lettered. */
async function summarise(
  kind: RecordKind,
  source: RegistrySource,
  encoding: RegistryEncoding,
  options: RecordImportOptions,
  summary: RecordImportSummary,
): Promise<Map<string, RecordSummary>> {
  const byCompany = new Map<string, RecordSummary>();
  const rejects: DeadLetterEntry[] = [];
  const now = (options.now?.() ?? new Date()).toISOString();
  for await (const record of readCsvStream(source.open(), encoding)) {
    if (record.number === 1) {
      const wrong = checkHeader(kind, record.fields);
      if (wrong) throw new Error(`${source.label}: ${wrong}`);
      continue;
    }
    summary.read += 1;
    const check = validateRecordRow(kind, record.fields);
    const reasons = [
      ...(record.problem ? [`CSV: ${record.problem}`] : []),
      ...(check.ok ? [] : check.reasons),
    ];
    if (!check.ok || record.problem) {
      summary.rejected += 1;
      const number = record.fields[0]?.trim();
      rejects.push({
        at: now,
        type: `gbizinfo-${kind}`,
        key: number && /^\d{13}$/.test(number) ? number : null,
        reason: reasons.join('; '),
        source: `${source.label}:${record.number}`,
        record: { fields: record.fields, reasons },
      });
      if (rejects.length >= 1000) await options.deadLetter.add(rejects.splice(0));
      continue;
    }
    const { row } = check;
    let company = byCompany.get(row.corporateNumber);
    if (!company) {
      company = emptyRecordSummary();
      byCompany.set(row.corporateNumber, company);
    }
    addRow(company, row);
  }
  await options.deadLetter.add(rejects);
  return byCompany;
}

/** One kind's file: the three steps, resumed after the last batch a stopped run wrote. */
export async function importRecordFile(
  kind: RecordKind,
  file: string,
  options: RecordImportOptions,
): Promise<RecordImportSummary> {
  let result: RecordImportSummary | undefined;
  for await (const source of registrySources(file)) {
    if (result) throw new Error(`${file}: one CSV expected, found more`);
    result = await importRecordSource(kind, source, options);
  }
  if (!result) throw new Error(`${file}: no CSV in it`);
  return result;
}

async function importRecordSource(
  kind: RecordKind,
  source: RegistrySource,
  options: RecordImportOptions,
): Promise<RecordImportSummary> {
  const identity = source.identity;
  const saved = options.restart || !identity ? undefined : readCheckpoint(options.stateDir, identity);
  const asked = options.encoding ?? 'auto';
  const encoding = saved?.encoding ?? (asked === 'auto' ? detectEncoding(source.head) : asked);
  const summary = emptySummary();
  if (saved?.done) return { ...summary, alreadyLoaded: 1 };
  const byCompany = await summarise(kind, source, encoding, options, summary);
  // the writes before the stop are counted as they were then
  for (const key of ['set', 'unchanged', 'noCompany'] as const) summary[key] = saved?.summary[key] ?? 0;
  const numbers = [...byCompany.keys()].sort();
  summary.companies = numbers.length;
  const writer = new RecordWriter(kind, options);
  const batchSize = options.batchSize ?? 1000;
  let written = saved?.committedRecord ?? 0;
  const checkpoint = (done: boolean) => {
    if (identity)
      writeCheckpoint(options.stateDir, {
        ...identity,
        committedRecord: written,
        done,
        encoding,
        summary,
        updatedAt: (options.now?.() ?? new Date()).toISOString(),
      });
  };
  for (let start = written; start < numbers.length; start += batchSize) {
    if (options.stopAfterCompanies !== undefined && start >= options.stopAfterCompanies)
      throw new RecordImportStopped(`stopped after ${start} companies`);
    const batch = numbers.slice(start, start + batchSize);
    for (const outcome of await writer.apply(batch.map((number) => [number, byCompany.get(number) ?? null])))
      summary[outcome] = (summary[outcome] ?? 0) + 1;
    written = start + batch.length;
    checkpoint(false);
    options.onProgress?.(written, numbers.length);
  }
  summary.cleared = await clearMissing(kind, new Set(numbers), writer);
  checkpoint(true);
  return summary;
}
