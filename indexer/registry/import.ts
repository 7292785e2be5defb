/**
 * Loads NTA corporate-number files (full or diff, Shift_JIS or UTF-8; CSV, the zips they are
 * published in, or standard input: ./input.ts) into the
 * corporates index, one batch of records at a time, with a checkpoint per file after each
 * batch is written: a run that stops (crash, kill, Ctrl-C) starts again after the last
 * committed record, and a file loaded to its end is not read again unless asked (`restart`):
 * the loop of ./checkpointed-import.ts. Rejected rows go to the dead-letter sink with every reason; the run never stops for them.
 */
import type { Engine } from '../../src/opensearch/engine.js';
import type { CsvRecord } from '../../src/text/csv.js';
import { loadMasters, type Masters } from '../masters.js';
import {
  addSummary,
  type CheckpointedOptions,
  checkpointFile,
  type Checkpoint as GenericCheckpoint,
  type ImportProgress,
  InjectedStop,
  importCheckpointed,
  readCheckpoint,
  rowReasons,
  rowReject,
  type SourceResult,
  type Take,
} from './checkpointed-import.js';
import { validateRow } from './format.js';
import { type RegistrySource, registrySources } from './input.js';
import { toRegistryChange } from './map.js';
import { type PendingChange, RegistryWriter } from './write.js';

export type RegistrySummary = {
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
};

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

export type Checkpoint = GenericCheckpoint<RegistrySummary>;
export type RegistryProgress = ImportProgress;

export interface RegistryImportOptions extends CheckpointedOptions {
  client: Engine;
  indexPrefix: string;
  masters?: Masters;
}

export type FileResult = SourceResult<RegistrySummary>;

export { checkpointFile, InjectedStop, readCheckpoint };

/** One plain file (a zip's entries: importRegistryFiles). */
export async function importRegistryFile(file: string, options: RegistryImportOptions): Promise<FileResult> {
  let result: FileResult | undefined;
  for await (const source of registrySources(file)) result = await importRegistrySource(source, options);
  if (!result) throw new Error(`${file}: no CSV in it`);
  return result;
}

/** A record rejected with every reason (CSV and row checks), or mapped to its change. */
function takeRecord(
  record: CsvRecord,
  source: string,
  now: () => Date,
): Take<PendingChange, RegistrySummary> {
  const check = validateRow(record.fields);
  if (!check.ok || record.problem) {
    const number = record.fields[1];
    const key = typeof number === 'string' && /^\d{13}$/.test(number) ? number : null;
    const at = now().toISOString();
    return {
      reject: rowReject({ type: 'registry', key, source, at }, record.fields, rowReasons(record, check)),
    };
  }
  const change = toRegistryChange(check.row);
  if (change.action === 'skip') return { skipped: change.why === 'history' ? 'superseded' : 'hidden' };
  return { item: { change, source } };
}

/** One source (./checkpointed-import.ts), written by a RegistryWriter. */
export async function importRegistrySource(
  source: RegistrySource,
  options: RegistryImportOptions,
): Promise<FileResult> {
  const now = options.now ?? (() => new Date());
  let writer: RegistryWriter | undefined;
  return importCheckpointed(source, options, {
    emptySummary,
    take: (record, label) => takeRecord(record, label, now),
    apply: (batch) => {
      writer ??= new RegistryWriter({
        client: options.client,
        indexPrefix: options.indexPrefix,
        deadLetter: options.deadLetter,
        masters: options.masters ?? loadMasters(),
        now,
      });
      return writer.apply(batch);
    },
  });
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
      addSummary(total, result.summary);
    }
  return { files: results, total };
}
