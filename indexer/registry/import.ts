/**
 * Loads NTA corporate-number files (full or diff, Shift_JIS or UTF-8; CSV, the zips they are
 * published in, or standard input: ./input.ts) into the
 * corporates index, one batch of records at a time, with a checkpoint per file after each
 * batch is written: a run that stops (crash, kill, Ctrl-C) starts again after the last
 * committed record, and a file loaded to its end is not read again unless asked (`restart`).
 * Rejected rows go to the dead-letter sink with every reason; the run never stops for them.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { OpenSearchClient } from '../../src/opensearch/client.js';
import { type CsvRecord, detectEncoding, type RegistryEncoding, readCsvStream } from '../../src/text/csv.js';
import type { DeadLetterEntry, DeadLetterSink } from '../dead-letter.js';
import { loadMasters, type Masters } from '../masters.js';
import { validateRow } from './format.js';
import { type FileIdentity, type RegistrySource, registrySources } from './input.js';
import { toRegistryChange } from './map.js';
import { type PendingChange, RegistryWriter, type WriteOutcome } from './write.js';

export interface RegistrySummary {
  read: number;
  upserted: number;
  closed: number;
  restored: number;
  deleted: number;
  /** the index already held the row's values (a file loaded again) */
  unchanged: number;
  /** rows older than what the company holds (updateDate) */
  older: number;
  /** history rows (latest=0) and rows replaced by a later row of the company in the same batch */
  superseded: number;
  /** hihyoji=1: the company asked not to be shown in search results; not written */
  hidden: number;
  rejected: number;
}

export function emptySummary(): RegistrySummary {
  return {
    read: 0,
    upserted: 0,
    closed: 0,
    restored: 0,
    deleted: 0,
    unchanged: 0,
    older: 0,
    superseded: 0,
    hidden: 0,
    rejected: 0,
  };
}

export { type FileIdentity, fileIdentity } from './input.js';

export interface Checkpoint extends FileIdentity {
  /** the last record (1-based) whose batch was written; 0 before the first */
  committedRecord: number;
  done: boolean;
  encoding: RegistryEncoding;
  summary: RegistrySummary;
  updatedAt: string;
}

export interface RegistryProgress {
  file: string;
  /** bytes read of this file, and its size */
  done: number;
  total: number;
  records: number;
}

export interface RegistryImportOptions {
  client: OpenSearchClient;
  indexPrefix: string;
  deadLetter: DeadLetterSink;
  /** where the checkpoints live (one JSON file per input file) */
  stateDir: string;
  encoding?: RegistryEncoding | 'auto';
  /** records per batch (and per checkpoint) */
  batchSize?: number;
  /** ignore a checkpoint and read the file from its start */
  restart?: boolean;
  masters?: Masters;
  now?: () => Date;
  onProgress?: (progress: RegistryProgress) => void;
  /** tests: stop (throw) when this record is reached, before its batch is written, as a crash would */
  stopAtRecord?: number;
}

export interface FileResult {
  file: string;
  encoding: RegistryEncoding;
  /** the record the run started after (a resumed run) */
  resumedAfter: number;
  /** true when a finished checkpoint said the file was loaded already */
  alreadyLoaded: boolean;
  summary: RegistrySummary;
}

export class InjectedStop extends Error {}

export function checkpointFile(stateDir: string, absolutePath: string): string {
  const key = createHash('sha1').update(absolutePath).digest('hex').slice(0, 16);
  return path.join(stateDir, `${path.basename(absolutePath)}.${key}.json`);
}

export function readCheckpoint(stateDir: string, identity: FileIdentity): Checkpoint | undefined {
  try {
    const saved = JSON.parse(readFileSync(checkpointFile(stateDir, identity.path), 'utf8')) as Checkpoint;
    const same =
      saved.path === identity.path &&
      saved.size === identity.size &&
      saved.mtimeMs === identity.mtimeMs &&
      saved.headSha256 === identity.headSha256;
    return same ? saved : undefined;
  } catch {
    return undefined;
  }
}

/** Written to a temporary file and renamed, so a crash mid-write leaves the previous checkpoint. */
function writeCheckpoint(stateDir: string, checkpoint: Checkpoint): void {
  mkdirSync(stateDir, { recursive: true });
  const target = checkpointFile(stateDir, checkpoint.path);
  writeFileSync(`${target}.tmp`, `${JSON.stringify(checkpoint, null, 2)}\n`);
  renameSync(`${target}.tmp`, target);
}

function add(total: RegistrySummary, part: RegistrySummary): void {
  for (const key of Object.keys(total) as (keyof RegistrySummary)[]) total[key] += part[key];
}

/** One plain file (a zip's entries: importRegistryFiles). */
export async function importRegistryFile(file: string, options: RegistryImportOptions): Promise<FileResult> {
  let result: FileResult | undefined;
  for await (const source of registrySources(file)) result = await importRegistrySource(source, options);
  if (!result) throw new Error(`${file}: no CSV in it`);
  return result;
}

/** What one CSV record adds to a batch: a reject to dead-letter, a change to write, or a skip to count. */
type RecordTake =
  | { reject: DeadLetterEntry }
  | { change: PendingChange }
  | { skipped: 'superseded' | 'hidden' };

/** A record rejected with every reason (CSV and row checks), or mapped to its change. */
function takeRecord(record: CsvRecord, source: string, now: () => Date): RecordTake {
  const check = validateRow(record.fields);
  const reasons = [...(record.problem ? [`CSV: ${record.problem}`] : []), ...(check.ok ? [] : check.reasons)];
  if (!check.ok || record.problem) {
    const number = record.fields[1];
    return {
      reject: {
        at: now().toISOString(),
        type: 'registry',
        key: typeof number === 'string' && /^\d{13}$/.test(number) ? number : null,
        reason: reasons.join('; '),
        source,
        record: { fields: record.fields, reasons },
      },
    };
  }
  const change = toRegistryChange(check.row);
  if (change.action === 'skip') return { skipped: change.why === 'history' ? 'superseded' : 'hidden' };
  return { change: { change, source } };
}

/** The writer of one source's batches into the corporates index. */
function registryWriter(options: RegistryImportOptions, masters: Masters, now: () => Date): RegistryWriter {
  return new RegistryWriter({
    client: options.client,
    indexPrefix: options.indexPrefix,
    deadLetter: options.deadLetter,
    masters,
    now,
  });
}

/**
 * One source: resumed after its checkpoint's record (the records before it are read and
 * skipped, which a zip entry or any stream allows), or skipped when it was loaded to its end.
 */
export async function importRegistrySource(
  source: RegistrySource,
  options: RegistryImportOptions,
): Promise<FileResult> {
  const file = source.name;
  const identity = source.identity;
  const saved = options.restart || !identity ? undefined : readCheckpoint(options.stateDir, identity);
  const asked = options.encoding ?? 'auto';
  const encoding = saved?.encoding ?? (asked === 'auto' ? detectEncoding(source.head) : asked);
  if (saved?.done)
    return {
      file,
      encoding,
      resumedAfter: saved.committedRecord,
      alreadyLoaded: true,
      summary: emptySummary(),
    };
  const masters = options.masters ?? loadMasters();
  const now = options.now ?? (() => new Date());
  const writer = registryWriter(options, masters, now);
  const batchSize = options.batchSize ?? 1000;
  const resumedAfter = saved?.committedRecord ?? 0;
  // counts of the whole file, the part before the crash included
  const summary = saved ? { ...saved.summary } : emptySummary();
  const name = source.label;
  const size = source.size;

  let batch: PendingChange[] = [];
  let rejects: DeadLetterEntry[] = [];
  let part = emptySummary();
  let records = 0;
  let lastRecord = resumedAfter;
  let bytes = 0;
  const checkpoint = (done: boolean) => {
    if (identity)
      writeCheckpoint(options.stateDir, {
        ...identity,
        committedRecord: lastRecord,
        done,
        encoding,
        summary,
        updatedAt: now().toISOString(),
      });
  };

  const commit = async () => {
    const outcomes = await writer.apply(batch);
    for (const outcome of outcomes) count(part, outcome);
    await options.deadLetter.add(rejects);
    add(summary, part);
    checkpoint(false);
    batch = [];
    rejects = [];
    part = emptySummary();
    records = 0;
  };

  for await (const record of readCsvStream(source.open(), encoding, (read) => {
    bytes += read;
  })) {
    if (record.number <= resumedAfter) continue;
    if (options.stopAtRecord !== undefined && record.number >= options.stopAtRecord)
      throw new InjectedStop(`stopped at record ${record.number}`);
    lastRecord = record.number;
    records++;
    part.read++;
    const taken = takeRecord(record, `${name}:${record.number}`, now);
    if ('reject' in taken) {
      part.rejected++;
      rejects.push(taken.reject);
    } else if ('change' in taken) batch.push(taken.change);
    else part[taken.skipped]++;
    if (records >= batchSize) {
      await commit();
      options.onProgress?.({ file, done: bytes, total: Math.max(size, bytes), records: lastRecord });
    }
  }
  await commit();
  checkpoint(true);
  options.onProgress?.({ file, done: bytes, total: Math.max(size, bytes), records: lastRecord });
  return { file, encoding, resumedAfter, alreadyLoaded: false, summary };
}

function count(summary: RegistrySummary, outcome: WriteOutcome): void {
  summary[outcome]++;
}

/**
 * The files in the order given (a full file first, then its diffs in date order); a zip's CSV
 * entries in name order, each a result of its own.
 */
export async function importRegistryFiles(
  files: string[],
  options: RegistryImportOptions,
): Promise<{ files: FileResult[]; total: RegistrySummary }> {
  const results: FileResult[] = [];
  const total = emptySummary();
  for (const file of files)
    for await (const source of registrySources(file)) {
      const result = await importRegistrySource(source, options);
      results.push(result);
      add(total, result.summary);
    }
  return { files: results, total };
}
