/**
 * Loads a gBizINFO download file (./format.ts: subsidies, procurement, certifications, awards,
 * workplace figures) onto the companies of the corporates index. gBizINFO publishes each kind as one whole file, updated
 * daily and never as a diff, so a load makes the index say what the file says:
 *
 *   1. read: every row checked (a rejected row goes to the dead-letter sink with every reason),
 *      the rows summed per company (the kind's summary: ./format.ts);
 *   2. write: the companies in corporate-number order, a thousand at a time, each read with its
 *      sequence number and written only when its summary differs (./write.ts), with a
 *      checkpoint after each batch: a run that stops reads the file again and goes on after
 *      the last company written;
 *   3. sweep: a company that has the kind's summary and is not in the file loses it (null),
 *      unless the file looks cut or changed (`sweepAllowed`: far fewer companies than the index
 *      holds, or many rows refused): then nothing is cleared and the summary says so.
 * An empty file, one whose header is not the kind's, one with no valid row, or a zip of more
 * than one CSV is refused before anything is written.
 *
 *   await importRecordFile('subsidies', 'Hojokinjoho.csv', { client, indexPrefix, deadLetter, stateDir })
 *   // { read: 120, companies: 80, set: 80, unchanged: 0, cleared: 0, noCompany: 3, rejected: 1, ... }
 */

import { presenceField } from '../../src/catalogue/gbizinfo-kinds.js';
import type { Engine } from '../../src/opensearch/engine.js';
import { withRetry } from '../../src/opensearch/retry.js';
import type { Membership } from '../../src/saved-searches/membership.js';
import { type CsvRecord, detectEncoding, type RegistryEncoding, readCsvStream } from '../../src/text/csv.js';
import type { DeadLetterEntry, DeadLetterSink } from '../dead-letter.js';
import { readCheckpoint, rowReasons, rowReject, writeCheckpoint } from '../registry/checkpointed-import.js';
import { type RegistrySource, registrySources } from '../registry/input.js';
import { checkHeader, kindFormats, type RecordKind, type Summary } from './format.js';
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

/**
 * The sweep's guard: a file that gives fewer than this share of the companies holding the kind
 * now, or rejects more than `sweepMaxRejectedShare` of its rows, clears nothing (a cut or
 * changed file would otherwise wipe the summaries); `allowShrink` lets it.
 */
export const sweepMinShare = 0.5;
export const sweepMaxRejectedShare = 0.01;

export interface RecordImportOptions {
  client: Engine;
  indexPrefix: string;
  deadLetter: DeadLetterSink;
  stateDir: string;
  encoding?: RegistryEncoding | 'auto';
  /** companies per write and per checkpoint */
  batchSize?: number;
  /** companies summed per read of the file (memory: about 2 KiB each at most) */
  companiesPerPass?: number;
  restart?: boolean;
  /** let the sweep clear even when the file is much smaller than what the index holds */
  allowShrink?: boolean;
  /** the saved searches' membership: the companies written are reported to them (../record-rebuild.ts) */
  watch?: Membership;
  now?: () => Date;
  /** tests: stop (throw) once this many companies are written, as a crash would */
  stopAfterCompanies?: number;
  onProgress?: (done: number, total: number) => void;
}

export class RecordImportStopped extends Error {}

/** Companies summed per read of the file: 200,000 hold about 400 MiB at most (certifications). */
export const defaultCompaniesPerPass = 200_000;

function emptySummary(): RecordImportSummary {
  return { read: 0, companies: 0, set: 0, unchanged: 0, cleared: 0, noCompany: 0, rejected: 0 };
}

/** A rejected row's dead letter. */
function rejectOf(kind: RecordKind, label: string, record: CsvRecord, reasons: string[], at: string) {
  const number = record.fields[0]?.trim();
  const key = number && /^\d{13}$/.test(number) ? number : null;
  return rowReject(
    { type: `gbizinfo-${kind}`, key, source: `${label}:${record.number}`, at },
    record.fields,
    reasons,
  );
}

/** The rows of the file after its header (checked against the kind's). */
async function* rowsOf(kind: RecordKind, source: RegistrySource, encoding: RegistryEncoding) {
  let header = false;
  for await (const record of readCsvStream(source.open(), encoding)) {
    if (record.number === 1) {
      const wrong = checkHeader(kind, record.fields);
      if (wrong) throw new Error(`${source.label}: ${wrong}`);
      header = true;
      continue;
    }
    yield record;
  }
  if (!header) throw new Error(`${source.label}: empty, not a gBizINFO ${kind} file`);
}

/**
 * Step 1: every row checked, the rejected rows dead-lettered (not again on a resumed run: the
 * run that stopped wrote them before its first checkpoint); the companies the file has,
 * ascending. A second row of a company in a file of one row per company is rejected here.
 */
async function companiesOf(
  kind: RecordKind,
  source: RegistrySource,
  encoding: RegistryEncoding,
  options: RecordImportOptions,
  summary: RecordImportSummary,
  resumed: boolean,
): Promise<string[]> {
  const deadLetter = resumed ? undefined : options.deadLetter;
  const format = kindFormats[kind];
  const companies = new Set<string>();
  const rejects: DeadLetterEntry[] = [];
  const now = (options.now?.() ?? new Date()).toISOString();
  for await (const record of rowsOf(kind, source, encoding)) {
    summary.read += 1;
    const check = format.check(record.fields);
    let reasons = check.ok && !record.problem ? undefined : rowReasons(record, check);
    if (check.ok && !reasons) {
      if (format.onePerCompany && companies.has(check.corporateNumber)) reasons = [format.onePerCompany];
      else companies.add(check.corporateNumber);
    }
    if (reasons) {
      summary.rejected += 1;
      rejects.push(rejectOf(kind, source.label, record, reasons, now));
      if (rejects.length >= 1000) await deadLetter?.add(rejects.splice(0));
    }
  }
  await deadLetter?.add(rejects);
  if (companies.size === 0)
    throw new Error(
      `${source.label}: no valid row (${summary.rejected} rejected): nothing written, nothing cleared`,
    );
  return [...companies].sort();
}

/**
 * The summaries of the companies from `first` to `last` (corporate-number order), the file
 * read again: a pass holds at most `companiesPerPass` companies, so memory stays bounded
 * whatever the file's size. A row step 1 rejected is skipped; one whose company's sum it would
 * break (a total past 2^53 yen) is rejected here, counted and dead-lettered.
 */
async function summariesOf(
  kind: RecordKind,
  source: RegistrySource,
  encoding: RegistryEncoding,
  range: { first: string; last: string },
  options: RecordImportOptions,
  summary: RecordImportSummary,
): Promise<Map<string, Summary>> {
  const format = kindFormats[kind];
  const byCompany = new Map<string, Summary>();
  const rejects: DeadLetterEntry[] = [];
  const now = (options.now?.() ?? new Date()).toISOString();
  for await (const record of rowsOf(kind, source, encoding)) {
    const check = format.check(record.fields);
    if (!check.ok || record.problem) continue;
    const number = check.corporateNumber;
    if (number < range.first || number > range.last) continue;
    const company = byCompany.get(number) ?? format.empty();
    const refused = format.add(company, check.row);
    if (!refused) byCompany.set(number, company);
    // a second row of a one-row company: step 1 rejected it already
    else if (!format.onePerCompany) {
      summary.rejected += 1;
      rejects.push(rejectOf(kind, source.label, record, [refused], now));
    }
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
  // the file is the whole of its kind: a zip of several is refused before anything is written
  const sources = registrySources(file);
  try {
    const first = await sources.next();
    if (first.done) throw new Error(`${file}: no CSV in it`);
    if (!(await sources.next()).done) throw new Error(`${file}: one CSV expected, found more`);
    return await importRecordSource(kind, first.value, options);
  } finally {
    await sources.return(undefined);
  }
}

/** Whether the sweep may clear: the file is not much smaller than what the index holds, nor mostly refused. */
async function sweepAllowed(
  kind: RecordKind,
  summary: RecordImportSummary,
  writer: RecordWriter,
  options: RecordImportOptions,
): Promise<boolean> {
  if (options.allowShrink) return true;
  if (summary.rejected > sweepMaxRejectedShare * summary.read) return false;
  const { body } = await withRetry(() =>
    writer.options.client.count({
      index: writer.index,
      body: { query: { exists: { field: presenceField(kind) } } },
    }),
  );
  return summary.companies >= sweepMinShare * body.count;
}

async function importRecordSource(
  kind: RecordKind,
  source: RegistrySource,
  options: RecordImportOptions,
): Promise<RecordImportSummary> {
  // the checkpoint is the file's as loaded as this kind: the same file loaded as the other kind is another load
  const identity = source.identity
    ? { ...source.identity, path: `${source.identity.path}#${kind}` }
    : undefined;
  const saved = options.restart || !identity ? undefined : readCheckpoint(options.stateDir, identity);
  const asked = options.encoding ?? 'auto';
  const encoding = saved?.encoding ?? (asked === 'auto' ? detectEncoding(source.head) : asked);
  const summary = emptySummary();
  if (saved?.done) return { ...summary, alreadyLoaded: 1 };
  const numbers = await companiesOf(kind, source, encoding, options, summary, saved !== undefined);
  // the writes before the stop are counted as they were then
  for (const key of ['set', 'unchanged', 'noCompany'] as const) summary[key] = saved?.summary[key] ?? 0;
  summary.companies = numbers.length;
  const writer = new RecordWriter(kind, options);
  const batchSize = options.batchSize ?? 1000;
  const perPass = Math.max(options.companiesPerPass ?? defaultCompaniesPerPass, batchSize);
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
  // a stop inside the first batch resumes too: the checkpoint says the writes began
  let resumed = saved !== undefined;
  if (!saved) checkpoint(false);
  let range = new Map<string, Summary>();
  let rangeEnd = written;
  while (written < numbers.length) {
    if (options.stopAfterCompanies !== undefined && written >= options.stopAfterCompanies)
      throw new RecordImportStopped(`stopped after ${written} companies`);
    if (written >= rangeEnd) {
      rangeEnd = Math.min(numbers.length, written + perPass);
      const bounds = { first: numbers[written] as string, last: numbers[rangeEnd - 1] as string };
      range = await summariesOf(kind, source, encoding, bounds, options, summary);
    }
    const batch = numbers.slice(written, Math.min(written + batchSize, rangeEnd));
    const entries = batch.map((number): [string, Summary | null] => [number, range.get(number) ?? null]);
    for (const outcome of await writer.apply(entries, resumed))
      summary[outcome] = (summary[outcome] ?? 0) + 1;
    resumed = false;
    written += batch.length;
    checkpoint(false);
    options.onProgress?.(written, numbers.length);
  }
  if (await sweepAllowed(kind, summary, writer, options))
    summary.cleared = await clearMissing(kind, new Set(numbers), writer);
  else summary.sweepSkipped = 1;
  checkpoint(true);
  return summary;
}
