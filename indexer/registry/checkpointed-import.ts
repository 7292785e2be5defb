/**
 * The loop every published-file importer shares (the corporate-number register, ./import.ts;
 * the invoice register, ../invoice/import.ts): the records of one source (./input.ts) read as
 * CSV, taken one by one (rejected with every reason, skipped and counted, or kept), applied a
 * batch at a time, with a checkpoint per source after each batch is written, so a run that
 * stops (crash, kill, Ctrl-C) starts again after the last committed record, and a source loaded
 * to its end is not read again unless asked (`restart`).
 *
 *   importCheckpointed(source, options, {
 *     emptySummary: () => ({ read: 0, upserted: 0, rejected: 0, ... }),
 *     take: (record, label) => ({ item }) | ({ reject }) | ({ skipped: 'superseded' }),
 *     apply: async (items) => outcomes (one summary key per item),
 *   })
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { type CsvRecord, detectEncoding, type RegistryEncoding, readCsvStream } from '../../src/text/csv.js';
import type { DeadLetterEntry, DeadLetterSink } from '../dead-letter.js';
import type { FileIdentity, RegistrySource } from './input.js';

/** Counts per outcome; `read` and `rejected` are counted by the loop itself. */
export type ImportSummary = { read: number; rejected: number } & Record<string, number>;

export interface Checkpoint<S extends ImportSummary = ImportSummary> extends FileIdentity {
  /** the last record (1-based) whose batch was written; 0 before the first */
  committedRecord: number;
  done: boolean;
  encoding: RegistryEncoding;
  summary: S;
  updatedAt: string;
}

export interface ImportProgress {
  file: string;
  /** bytes read of this file, and its size */
  done: number;
  total: number;
  records: number;
}

export interface CheckpointedOptions {
  deadLetter: DeadLetterSink;
  /** where the checkpoints live (one JSON file per input file) */
  stateDir: string;
  encoding?: RegistryEncoding | 'auto';
  /** records per batch (and per checkpoint) */
  batchSize?: number;
  /** ignore a checkpoint and read the file from its start */
  restart?: boolean;
  now?: () => Date;
  onProgress?: (progress: ImportProgress) => void;
  /** tests: stop (throw) when this record is reached, before its batch is written, as a crash would */
  stopAtRecord?: number;
}

export interface SourceResult<S extends ImportSummary = ImportSummary> {
  file: string;
  encoding: RegistryEncoding;
  /** the record the run started after (a resumed run) */
  resumedAfter: number;
  /** true when a finished checkpoint said the file was loaded already */
  alreadyLoaded: boolean;
  summary: S;
}

/** What one CSV record adds to a batch: a reject to dead-letter, an item to apply, or a skip to count. */
export type Take<T, S extends ImportSummary> =
  | { reject: DeadLetterEntry }
  | { item: T }
  | { skipped: keyof S & string };

/** What an importer brings to the loop. */
export interface RecordHandler<T, S extends ImportSummary> {
  emptySummary(): S;
  /** `label` is `file:record`, the dead letter's source */
  take(record: CsvRecord, label: string): Take<T, S>;
  /**
   * writes a batch; one summary key per item, in the same order. `resumed`: the first batch
   * of a run that resumes a stopped one (the stop may have come after some of its writes and
   * before what follows them: an importer redoes that for every item, changed or not)
   */
  apply(items: T[], batch: { resumed: boolean }): Promise<Array<keyof S & string>>;
}

export class InjectedStop extends Error {}

/** Every reason a CSV record is refused: the reader's problem, then the row checks'. */
export function rowReasons(
  record: CsvRecord,
  check: { ok: true } | { ok: false; reasons: string[] },
): string[] {
  return [...(record.problem ? [`CSV: ${record.problem}`] : []), ...(check.ok ? [] : check.reasons)];
}

/** A refused row's dead letter: its fields kept whole, with every reason. */
export function rowReject(
  row: { type: string; key: string | null; source: string; at: string },
  fields: readonly string[],
  reasons: string[],
): DeadLetterEntry {
  return { ...row, reason: reasons.join('; '), record: { fields, reasons } };
}

export function checkpointFile(stateDir: string, absolutePath: string): string {
  const key = createHash('sha1').update(absolutePath).digest('hex').slice(0, 16);
  return path.join(stateDir, `${path.basename(absolutePath)}.${key}.json`);
}

export function readCheckpoint<S extends ImportSummary>(
  stateDir: string,
  identity: FileIdentity,
): Checkpoint<S> | undefined {
  try {
    const saved = JSON.parse(readFileSync(checkpointFile(stateDir, identity.path), 'utf8')) as Checkpoint<S>;
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
export function writeCheckpoint(stateDir: string, checkpoint: Checkpoint): void {
  mkdirSync(stateDir, { recursive: true });
  const target = checkpointFile(stateDir, checkpoint.path);
  writeFileSync(`${target}.tmp`, `${JSON.stringify(checkpoint, null, 2)}\n`);
  renameSync(`${target}.tmp`, target);
}

export function addSummary<S extends ImportSummary>(total: S, part: S): void {
  for (const key of Object.keys(part) as (keyof S)[])
    (total[key] as number) = ((total[key] as number | undefined) ?? 0) + (part[key] as number);
}

/**
 * One source: resumed after its checkpoint's record (the records before it are read and
 * skipped, which a zip entry or any stream allows), or skipped when it was loaded to its end.
 */
export async function importCheckpointed<T, S extends ImportSummary>(
  source: RegistrySource,
  options: CheckpointedOptions,
  handler: RecordHandler<T, S>,
): Promise<SourceResult<S>> {
  const file = source.name;
  const identity = source.identity;
  const saved = options.restart || !identity ? undefined : readCheckpoint<S>(options.stateDir, identity);
  const asked = options.encoding ?? 'auto';
  const encoding = saved?.encoding ?? (asked === 'auto' ? detectEncoding(source.head) : asked);
  const resumedAfter = saved?.committedRecord ?? 0;
  if (saved?.done)
    return { file, encoding, resumedAfter, alreadyLoaded: true, summary: handler.emptySummary() };
  const now = options.now ?? (() => new Date());
  const batchSize = options.batchSize ?? 1000;
  // counts of the whole file, the part before the crash included
  const summary = { ...handler.emptySummary(), ...saved?.summary };
  let batch: T[] = [];
  let rejects: DeadLetterEntry[] = [];
  let part = handler.emptySummary();
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
  const progress = () =>
    options.onProgress?.({ file, done: bytes, total: Math.max(source.size, bytes), records: lastRecord });
  // a stop inside the first batch is a resume too: the checkpoint says the run began
  let resumed = saved !== undefined;
  if (!saved) checkpoint(false);
  const commit = async () => {
    for (const outcome of await handler.apply(batch, { resumed })) (part[outcome] as number) += 1;
    resumed = false;
    await options.deadLetter.add(rejects);
    addSummary(summary, part);
    checkpoint(false);
    batch = [];
    rejects = [];
    part = handler.emptySummary();
  };

  for await (const record of readCsvStream(source.open(), encoding, (read) => {
    bytes += read;
  })) {
    if (record.number <= resumedAfter) continue;
    if (options.stopAtRecord !== undefined && record.number >= options.stopAtRecord)
      throw new InjectedStop(`stopped at record ${record.number}`);
    lastRecord = record.number;
    part.read++;
    const taken = handler.take(record, `${source.label}:${record.number}`);
    if ('reject' in taken) {
      part.rejected++;
      rejects.push(taken.reject);
    } else if ('item' in taken) batch.push(taken.item);
    else (part[taken.skipped] as number) += 1;
    if (part.read >= batchSize) {
      await commit();
      progress();
    }
  }
  await commit();
  checkpoint(true);
  progress();
  return { file, encoding, resumedAfter, alreadyLoaded: false, summary };
}
