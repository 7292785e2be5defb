/**
 * The ingestion pipeline shared by the CLI and the BullMQ worker: validated source records in,
 * `_bulk` writes out, bad records to the dead-letter sink with their reasons, counts per type.
 * Records are buffered and written `batchSize` at a time, each batch planned without the
 * engine (./batch-plan.ts) and then dispatched (`dispatchPlan`); the companies a batch touched are
 * collected in `touched` for the caller to rebuild (the CLI at the end of the run, the worker
 * through deduplicated rebuild jobs).
 */

import { writeBulkChunked } from '../ops/engine/bulk.js';
import { deleteMatching, getSources } from '../src/opensearch/documents.js';
import type { Engine } from '../src/opensearch/engine.js';
import { type RetryOptions, withRetry } from '../src/opensearch/retry.js';
import {
  type BatchPlan,
  deletedBefore,
  keyOf,
  lookupsFor,
  outcomesOf,
  planBatch,
  type RecordOutcome,
  versionOf,
} from './batch-plan.js';
import {
  type DeadLetterEntry,
  type DeadLetterReason,
  type DeadLetterSink,
  joinReasons,
  reasonFromText,
} from './dead-letter.js';
import { type IndexNames, indexNames } from './index-names.js';
import { loadMasters, type Masters, withMasterList } from './masters.js';
import { prepareDerivedReadings } from './name-keys.js';
import { isRegistryCompany, registryOwnedDocFields } from './ownership.js';
import type { DeleteCorporateSource, MasterSource, SourceRecord } from './source-types.js';
import type { Doc } from './transform.js';
import { type Validated, validateLine, validateRecord } from './validate.js';

export interface TypeCounts {
  read: number;
  indexed: number;
  rejected: number;
  /** records not written because the index holds a newer version of their key (sourceUpdatedAt) */
  older?: number;
}

export type Report = Record<string, TypeCounts>;

export interface PipelineOptions {
  client: Engine;
  indexPrefix: string;
  deadLetter: DeadLetterSink;
  /** Records per `_bulk` round (each job record is two writes: jobs and job-details). */
  batchSize?: number;
  now?: () => Date;
  masters?: Masters;
  /**
   * Worker: hold back a posting whose company is not indexed yet (its corporate record may be
   * in a batch still being written) instead of rejecting it; see `deferred`.
   */
  deferMissingCompany?: boolean;
  /** Backoff on transient engine errors (default: 6 retries from 200 ms). */
  retry?: RetryOptions;
  /** Concurrent `_bulk` writes (default 2). */
  maxInFlight?: number;
  /**
   * workLocationCount per company as it will be after this run (see prescanFiles, ./ingest.ts), so
   * postings get the right company copy on their first write instead of a fan-out later.
   */
  workLocationCounts?: Map<string, number>;
  /**
   * Called once per batch after its records are counted and dead-lettered, with the records,
   * their outcomes and the plan that was written (the file load's early rebuilds:
   * ./run-postings.ts).
   */
  onSettled?: (records: readonly SourceRecord[], outcomes: readonly RecordOutcome[], plan: BatchPlan) => void;
}

interface Pending {
  record: SourceRecord;
  source: string | null;
}

const maxCachedCompanies = 50_000;

export class IngestPipeline {
  readonly report: Report = {};
  /** corporateNumbers whose aggregates or postings may have changed */
  readonly touched = new Set<string>();
  /** postings held back because their company is not indexed yet (deferMissingCompany) */
  readonly deferred: Array<{ record: SourceRecord; source: string | null }> = [];
  masters: Masters;
  private pending: Pending[] = [];
  private readonly names: IndexNames;
  private readonly batchSize: number;
  private readonly now: () => Date;
  /** company fields by corporateNumber, for the `corporate` copy on postings */
  private readonly companies = new Map<string, Doc>();
  private inFlight: Promise<void>[] = [];
  private readonly maxInFlight: number;
  private readonly workLocationCounts: Map<string, number>;

  constructor(private readonly options: PipelineOptions) {
    this.names = indexNames(options.indexPrefix);
    this.batchSize = options.batchSize ?? 1000;
    this.now = options.now ?? (() => new Date());
    this.masters = options.masters ?? loadMasters();
    this.maxInFlight = options.maxInFlight ?? 2;
    this.workLocationCounts = options.workLocationCounts ?? new Map();
  }

  private retry<T>(run: () => Promise<T>): Promise<T> {
    return withRetry(run, this.options.retry);
  }

  private count(type: string): TypeCounts {
    this.report[type] ??= { read: 0, indexed: 0, rejected: 0 };
    return this.report[type];
  }

  /** One NDJSON line; `source` says where it came from (`file:line`). */
  addLine(line: string, source: string | null): Promise<void> {
    return this.addValidated(validateLine(line), line, source);
  }

  add(value: unknown, source: string | null = null): Promise<void> {
    return this.addValidated(validateRecord(value), value, source);
  }

  private async addValidated(result: Validated, raw: unknown, source: string | null): Promise<void> {
    if (!result.ok) {
      this.count(result.type).read++;
      const value = result.value ?? raw;
      await this.reject(result.type, looseKeyOf(value), result.reasons, source, value);
      return;
    }
    const { record } = result;
    this.count(record.type).read++;
    if (record.type === 'master' || record.type === 'delete_corporate') {
      // both change what later records mean, so everything before them is written first
      await this.flush();
      if (record.type === 'master') this.applyMaster(record);
      else await this.deleteCorporate(record, source);
      return;
    }
    this.pending.push({ record, source });
    if (this.pending.length >= this.batchSize) await this.flushBatch();
  }

  private async reject(
    type: string,
    key: string | null,
    reasons: DeadLetterReason[],
    source: string | null,
    record: unknown,
  ) {
    this.count(type).rejected++;
    const at = this.now().toISOString();
    const entry: DeadLetterEntry = { at, type, key, reason: joinReasons(reasons), reasons, source, record };
    await this.options.deadLetter.add([entry]);
  }

  private applyMaster(record: MasterSource): void {
    this.masters = withMasterList(this.masters, record.master, record.items);
    this.companies.clear();
    this.count('master').indexed++;
  }

  /**
   * A company and its postings out of the index. A versioned delete first records itself in
   * `deleted-corporates` (external version: the newest delete of a company stays), so a late
   * older corporate record cannot bring the company back; and it leaves alone a company whose
   * stored record is newer than the delete (the company came back later in the source).
   */
  private async deleteCorporate(record: DeleteCorporateSource, source: string | null): Promise<void> {
    const version = versionOf(record);
    let removed: boolean;
    try {
      if (version !== undefined) await this.recordDeletion(record, version);
      removed = await this.removeCompany(record.corporateNumber, version);
    } catch {
      await this.reject(
        record.type,
        record.corporateNumber,
        [{ field: '(record)', reason: 'OpenSearch did not accept the delete' }],
        source,
        record,
      );
      return;
    }
    const counts = this.count(record.type);
    if (removed) counts.indexed++;
    else counts.older = (counts.older ?? 0) + 1;
  }

  private async recordDeletion(record: DeleteCorporateSource, version: number): Promise<void> {
    const { client } = this.options;
    await this.retry(() =>
      client.index(
        {
          index: this.names.deletedCorporates,
          id: record.corporateNumber,
          version,
          version_type: 'external',
          body: {
            corporateNumber: record.corporateNumber,
            sourceUpdatedAt: record.sourceUpdatedAt,
            deletedAt: this.now().toISOString(),
          },
        },
        // 409: a delete as new or newer is recorded already, and it stays
        { ignore: [409] },
      ),
    );
  }

  /**
   * Deletes the company (unless its stored record is newer than `deletedVersion`), then its
   * postings. The company is deleted only at the sequence number its version was read at, so
   * a newer record written in between is never lost. False when a newer record stays.
   */
  private async removeCompany(corporateNumber: string, deletedVersion: number | undefined): Promise<boolean> {
    const { client } = this.options;
    const id = corporateNumber;
    const index = this.names.corporates;
    for (let attempt = 1; ; attempt++) {
      const { body } = await this.retry(() =>
        client.get({ index, id, _source_includes: ['sourceVersion'] }, { ignore: [404] }),
      );
      const found = body as { found?: boolean; _seq_no?: number; _primary_term?: number; _source?: Doc };
      if (!found.found) break;
      const stored = found._source?.sourceVersion;
      if (deletedVersion !== undefined && typeof stored === 'number' && stored > deletedVersion) return false;
      const { statusCode } = await this.retry(() =>
        client.delete(
          { index, id, if_seq_no: found._seq_no, if_primary_term: found._primary_term },
          { ignore: [404, 409] },
        ),
      );
      // 409: the company was written since it was read; read it again (a few times at most)
      if (statusCode !== 409) break;
      if (attempt === 5) throw new Error('the company kept changing while it was deleted');
    }
    const byCompany = { term: { corporateNumber } };
    for (const postings of [this.names.jobs, this.names.jobDetails])
      await deleteMatching(client, postings, byCompany, this.options.retry);
    this.companies.delete(corporateNumber);
    this.touched.delete(corporateNumber);
    return true;
  }

  /** The source version of the newest recorded delete of each of `numbers` that was deleted. */
  private async deletionsOf(numbers: string[]): Promise<Map<string, number>> {
    const found = await this.fieldById(this.names.deletedCorporates, numbers, 'sourceUpdatedAt');
    return new Map([...found].map(([number, at]) => [number, Date.parse(at)]));
  }

  /** One text field of the documents `ids` of `index`, where the document has it. */
  private async fieldById(index: string, ids: string[], field: string): Promise<Map<string, string>> {
    if (ids.length === 0) return new Map();
    const docs = await getSources<Doc>(
      this.options.client,
      index,
      ids,
      { includes: [field] },
      this.options.retry,
    );
    const found = new Map<string, string>();
    for (const doc of docs) {
      const value = doc.source?.[field];
      if (typeof value === 'string' && value) found.set(doc.id, value);
    }
    return found;
  }

  /**
   * After a batch's writes: a corporate record planned before a delete of its company was
   * recorded (by another worker, in the same moment) may have brought the company back. Each
   * such company is deleted again, and the record counts as older.
   */
  private async undoLateCompanies(batch: Pending[], outcomes: RecordOutcome[]): Promise<RecordOutcome[]> {
    const written = batch.flatMap(({ record }, position) =>
      record.type === 'corporate' &&
      outcomes[position]?.status === 'indexed' &&
      versionOf(record) !== undefined
        ? [{ record, position }]
        : [],
    );
    if (written.length === 0) return outcomes;
    const deletions = await this.deletionsOf([
      ...new Set(written.map(({ record }) => record.corporateNumber)),
    ]);
    if (deletions.size === 0) return outcomes;
    const result = [...outcomes];
    for (const { record, position } of written) {
      if (!deletedBefore(record, deletions)) continue;
      await this.removeCompany(record.corporateNumber, deletions.get(record.corporateNumber));
      result[position] = { status: 'older' };
    }
    return result;
  }

  /** Company fields from the index, for the postings of this batch the run has not cached. */
  private async loadCompanies(numbers: string[]): Promise<Map<string, Doc>> {
    const docs = await getSources<Doc>(
      this.options.client,
      this.names.corporates,
      numbers,
      { excludes: ['postings', 'aggregates'] },
      this.options.retry,
    );
    const found = new Map<string, Doc>();
    for (const doc of docs) if (doc.source) found.set(doc.id, doc.source);
    return found;
  }

  /**
   * The registry-owned fields of those companies the registry has written (./ownership.ts): a
   * corporate record of the batch keeps these values instead of its own.
   */
  private async registryOwned(numbers: string[]): Promise<Map<string, Doc>> {
    const docs = await getSources<Doc>(
      this.options.client,
      this.names.corporates,
      numbers,
      { includes: [...registryOwnedDocFields, 'registry.updateDate'] },
      this.options.retry,
    );
    const found = new Map<string, Doc>();
    for (const { id, source } of docs) {
      if (!source || !isRegistryCompany(source)) continue;
      found.set(
        id,
        Object.fromEntries(registryOwnedDocFields.map((field) => [field, source[field] ?? null])),
      );
    }
    return found;
  }

  private corporateNumbersOfJobs(ids: string[]): Promise<Map<string, string>> {
    return this.fieldById(this.names.jobs, ids, 'corporateNumber');
  }

  /** Keeps the companies a batch read or wrote for the next batches (bounded: cleared when full). */
  private remember(indexed: Map<string, Doc>, written: Map<string, Doc>): void {
    if (this.companies.size + indexed.size + written.size > maxCachedCompanies) this.companies.clear();
    for (const [number, doc] of indexed) this.companies.set(number, doc);
    for (const [number, doc] of written) this.companies.set(number, doc);
  }

  /** Writes the buffered records and waits for every write in flight. */
  async flush(): Promise<void> {
    await this.flushBatch();
    await Promise.all(this.inFlight);
  }

  /**
   * Plans the buffered records (./batch-plan.ts: reads what the plan needs from the index
   * first) and starts their `_bulk` write; up to `maxInFlight` writes run at once (the engine
   * indexes on every core). A batch with deletes first waits for the writes before it, so a
   * delete never overtakes the upsert it follows.
   */
  private async flushBatch(): Promise<void> {
    if (this.pending.length === 0) return;
    const batch = this.pending;
    this.pending = [];
    const now = this.now();
    const records = batch.map((item) => item.record);
    const lookups = lookupsFor(records, this.companies);
    // four independent reads: together, so the batch waits for the slowest, not for their sum
    const [indexed, jobOwners, deletions, registered] = await Promise.all([
      this.loadCompanies(lookups.companies),
      this.corporateNumbersOfJobs(lookups.jobs),
      this.deletionsOf(lookups.deletions),
      this.registryOwned(lookups.registered),
      prepareDerivedReadings(),
    ]);
    const plan = planBatch(
      records,
      {
        names: this.names,
        masters: this.masters,
        now,
        workLocationCounts: this.workLocationCounts,
        deferMissingCompany: this.options.deferMissingCompany ?? false,
      },
      { cached: this.companies, indexed, jobOwners, deletions, registered },
    );
    this.remember(indexed, plan.companies);

    if (plan.deletesPostings) await Promise.all(this.inFlight);
    while (this.inFlight.length >= this.maxInFlight) await Promise.race(this.inFlight);
    const write = dispatchPlan(this.options.client, records.length, plan, this.options.retry)
      .then((outcomes) => this.undoLateCompanies(batch, outcomes))
      .then((outcomes) => this.settle(batch, outcomes, now, plan));
    const tracked: Promise<void> = write.finally(() => {
      this.inFlight = this.inFlight.filter((item) => item !== tracked);
    });
    tracked.catch(() => undefined); // awaited by flush(); this only keeps Node from calling it unhandled
    this.inFlight.push(tracked);
  }

  /** Counts each record's outcome, dead-letters the refused ones, collects the touched companies. */
  private async settle(
    batch: Pending[],
    outcomes: RecordOutcome[],
    now: Date,
    plan: BatchPlan,
  ): Promise<void> {
    const entries: DeadLetterEntry[] = [];
    batch.forEach(({ record, source }, position) => {
      const counts = this.count(record.type);
      const outcome = outcomes[position];
      if (!outcome) return;
      if (outcome.status === 'deferred') {
        counts.read--; // counted again when it comes back
        this.deferred.push({ record, source });
      } else if (outcome.status === 'rejected') {
        counts.rejected++;
        entries.push({
          at: now.toISOString(),
          type: record.type,
          key: keyOf(record),
          reason: outcome.reason,
          reasons: (outcome.problems ?? [outcome.reason]).map(reasonFromText),
          source,
          record,
        });
      } else if (outcome.status === 'older') {
        // a newer version of this key is already indexed: nothing to write, nothing to rebuild
        counts.older = (counts.older ?? 0) + 1;
      } else {
        counts.indexed++;
        if (outcome.touches) this.touched.add(outcome.touches);
      }
    });
    await this.options.deadLetter.add(entries);
    this.options.onSettled?.(
      batch.map(({ record }) => record),
      outcomes,
      plan,
    );
  }
}

/**
 * The dispatch step: writes a plan's operations through `_bulk` (../ops/engine/bulk.ts)
 * and maps the engine's item failures back to the records, one outcome each.
 */
export async function dispatchPlan(
  client: Engine,
  count: number,
  plan: BatchPlan,
  retry?: RetryOptions,
): Promise<RecordOutcome[]> {
  const failures = await writeBulkChunked(client, plan.ops, undefined, retry);
  return outcomesOf(count, plan, failures);
}

/** The id or corporateNumber of a record that failed validation, when it has one. */
function looseKeyOf(value: unknown): string | null {
  if (typeof value !== 'object' || value === null) return null;
  const { id, corporateNumber, type } = value as Record<string, unknown>;
  if ((type === 'job' || type === 'delete_job') && typeof id === 'string') return id;
  return typeof corporateNumber === 'string' ? corporateNumber : null;
}
