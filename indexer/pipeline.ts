/**
 * The ingestion pipeline shared by the CLI and the BullMQ worker: validated source records in,
 * `_bulk` writes out, bad records to the dead-letter sink with their reason, counts per type.
 * Records are buffered and written `batchSize` at a time; the companies a batch touched are
 * collected in `touched` for the caller to rebuild (the CLI at the end of the run, the worker
 * through deduplicated rebuild jobs).
 */

import { type BulkOp, writeBulkChunked } from '../src/opensearch/bulk.js';
import type { OpenSearchClient } from '../src/opensearch/client.js';
import { deleteMatching, getSources } from '../src/opensearch/documents.js';
import { type RetryOptions, withRetry } from '../src/opensearch/retry.js';
import type { DeadLetterEntry, DeadLetterSink } from './dead-letter.js';
import { type IndexNames, indexNames } from './index-names.js';
import { loadMasters, type Masters, withMasterList } from './masters.js';
import type {
  CorporateSource,
  DeleteCorporateSource,
  JobSource,
  MasterSource,
  SourceRecord,
} from './source-types.js';
import {
  type Doc,
  RecordError,
  toCorporateDocument,
  toCorporateFields,
  toJobDetailDocument,
  toJobDocument,
} from './transform.js';
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
  client: OpenSearchClient;
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
   * workLocationCount per company as it will be after this run (see scanWorkLocations), so
   * postings get the right company copy on their first write instead of a fan-out later.
   */
  workLocationCounts?: Map<string, number>;
}

interface Pending {
  record: SourceRecord;
  source: string | null;
}

const maxCachedCompanies = 50_000;

/** The record's source version, epoch ms of `sourceUpdatedAt`, when it has one. */
function versionOf(record: SourceRecord): number | undefined {
  const at = 'sourceUpdatedAt' in record ? record.sourceUpdatedAt : undefined;
  return at ? Date.parse(at) : undefined;
}

/**
 * A company upsert with a source version: the stored `sourceVersion` decides, so an older
 * record leaves a newer one alone (`noop`). An update (not an index with external versions)
 * because the company's postings and aggregates belong to the rebuild, not to the record.
 */
const versionedCompanyUpdate = [
  'if (ctx._source.sourceVersion != null && params.version < ctx._source.sourceVersion) {',
  "  ctx.op = 'noop';",
  '} else {',
  '  for (entry in params.doc.entrySet()) { ctx._source[entry.getKey()] = entry.getValue(); }',
  '  ctx._source.sourceVersion = params.version;',
  '}',
].join('\n');

function keyOf(record: SourceRecord): string | null {
  if (record.type === 'job' || record.type === 'delete_job') return record.id;
  if (record.type === 'corporate' || record.type === 'delete_corporate') return record.corporateNumber;
  return null;
}

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
      await this.reject(result.type, looseKeyOf(value), result.reason, source, value);
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
    reason: string,
    source: string | null,
    record: unknown,
  ) {
    this.count(type).rejected++;
    const entry: DeadLetterEntry = { at: this.now().toISOString(), type, key, reason, source, record };
    await this.options.deadLetter.add([entry]);
  }

  private applyMaster(record: MasterSource): void {
    this.masters = withMasterList(this.masters, record.master, record.items);
    this.companies.clear();
    this.count('master').indexed++;
  }

  private async deleteCorporate(record: DeleteCorporateSource, source: string | null): Promise<void> {
    const { client } = this.options;
    const byCompany = { term: { corporateNumber: record.corporateNumber } };
    try {
      for (const index of [this.names.jobs, this.names.jobDetails])
        await deleteMatching(client, index, byCompany, this.options.retry);
      await this.retry(() =>
        client.delete({ index: this.names.corporates, id: record.corporateNumber }, { ignore: [404] }),
      );
    } catch {
      await this.reject(
        record.type,
        record.corporateNumber,
        'OpenSearch did not accept the delete',
        source,
        record,
      );
      return;
    }
    this.companies.delete(record.corporateNumber);
    this.touched.delete(record.corporateNumber);
    this.count(record.type).indexed++;
  }

  /** Company fields for the postings of this batch: from this run, else from the index. */
  private async loadCompanies(numbers: string[]): Promise<void> {
    const missing = [...new Set(numbers)].filter((number) => !this.companies.has(number));
    if (missing.length === 0) return;
    if (this.companies.size + missing.length > maxCachedCompanies) this.companies.clear();
    const docs = await getSources<Doc>(
      this.options.client,
      this.names.corporates,
      missing,
      { excludes: ['postings', 'aggregates'] },
      this.options.retry,
    );
    for (const doc of docs) if (doc.source) this.companies.set(doc.id, doc.source);
  }

  private async corporateNumbersOfJobs(ids: string[]): Promise<Map<string, string>> {
    if (ids.length === 0) return new Map();
    const docs = await getSources<{ corporateNumber?: string }>(
      this.options.client,
      this.names.jobs,
      ids,
      { includes: ['corporateNumber'] },
      this.options.retry,
    );
    const found = new Map<string, string>();
    for (const doc of docs) if (doc.source?.corporateNumber) found.set(doc.id, doc.source.corporateNumber);
    return found;
  }

  /** Writes the buffered records and waits for every write in flight. */
  async flush(): Promise<void> {
    await this.flushBatch();
    await Promise.all(this.inFlight);
  }

  /**
   * Transforms the buffered records and starts their `_bulk` write; up to `maxInFlight`
   * writes run at once (the engine indexes on every core). A batch with deletes first waits
   * for the writes before it, so a delete never overtakes the upsert it follows.
   */
  private async flushBatch(): Promise<void> {
    if (this.pending.length === 0) return;
    const batch = this.pending;
    this.pending = [];
    const now = this.now();
    const rejected = new Map<number, string>();
    const deferred = new Set<number>();
    const corporateOps: BulkOp<number>[] = [];
    const otherOps: BulkOp<number>[] = [];

    batch.forEach(({ record }, position) => {
      if (record.type !== 'corporate') return;
      try {
        const fields = toCorporateFields(record as CorporateSource, this.masters);
        const upsert = toCorporateDocument(record as CorporateSource, this.masters, now);
        // an update keeps the aggregates and postings until the rebuild replaces them
        const version = versionOf(record);
        // a record without a version clears the stored one: from then on, arrival order
        const doc = { ...fields, updatedAt: now.toISOString(), sourceVersion: version ?? null };
        corporateOps.push(
          version === undefined
            ? {
                action: 'update',
                index: this.names.corporates,
                id: record.corporateNumber,
                ref: position,
                body: { doc, upsert: { ...upsert, sourceVersion: null } },
              }
            : {
                action: 'update',
                index: this.names.corporates,
                id: record.corporateNumber,
                ref: position,
                versioned: true,
                body: {
                  script: { source: versionedCompanyUpdate, lang: 'painless', params: { doc, version } },
                  upsert: { ...upsert, sourceVersion: version },
                },
              },
        );
        this.companies.set(record.corporateNumber, {
          ...(this.companies.get(record.corporateNumber) ?? {}),
          ...fields,
        });
      } catch (error) {
        rejected.set(position, reasonOf(error));
      }
    });

    const jobs = batch.filter((item) => item.record.type === 'job').map((item) => item.record as JobSource);
    await this.loadCompanies(jobs.map((job) => job.corporateNumber));
    const deletedJobIds = batch.flatMap(({ record }) => (record.type === 'delete_job' ? [record.id] : []));
    const deletedJobOwners = await this.corporateNumbersOfJobs(deletedJobIds);

    batch.forEach(({ record }, position) => {
      if (record.type === 'job') {
        const company = this.companies.get(record.corporateNumber);
        if (!company && this.options.deferMissingCompany) {
          deferred.add(position);
          return;
        }
        if (!company) {
          rejected.set(
            position,
            `corporateNumber: company ${record.corporateNumber} is not indexed; ingest its corporate record first`,
          );
          return;
        }
        try {
          const count = this.workLocationCounts.get(record.corporateNumber);
          const owner = count === undefined ? company : { ...company, workLocationCount: count };
          const job = toJobDocument(record, owner, this.masters, now);
          const version = versionOf(record);
          const versioned = version === undefined ? {} : { version };
          otherOps.push({
            action: 'index',
            index: this.names.jobs,
            id: record.id,
            ref: position,
            body: job,
            ...versioned,
          });
          otherOps.push({
            action: 'index',
            index: this.names.jobDetails,
            id: record.id,
            ref: position,
            body: toJobDetailDocument(record, now),
            ...versioned,
          });
        } catch (error) {
          rejected.set(position, reasonOf(error));
        }
      } else if (record.type === 'delete_job') {
        // with a version, the delete leaves a tombstone (kept `index.gc_deletes`, 7 days) that
        // refuses an older upsert arriving late
        const version = versionOf(record);
        const versioned = version === undefined ? {} : { version };
        otherOps.push({
          action: 'delete',
          index: this.names.jobs,
          id: record.id,
          ref: position,
          ...versioned,
        });
        otherOps.push({
          action: 'delete',
          index: this.names.jobDetails,
          id: record.id,
          ref: position,
          ...versioned,
        });
      }
    });

    if (deletedJobIds.length > 0) await Promise.all(this.inFlight);
    while (this.inFlight.length >= this.maxInFlight) await Promise.race(this.inFlight);
    const write = this.writeAndSettle(
      batch,
      [...corporateOps, ...otherOps],
      { rejected, deferred },
      deletedJobOwners,
      now,
    );
    const tracked: Promise<void> = write.finally(() => {
      this.inFlight = this.inFlight.filter((item) => item !== tracked);
    });
    tracked.catch(() => undefined); // awaited by flush(); this only keeps Node from calling it unhandled
    this.inFlight.push(tracked);
  }

  private async writeAndSettle(
    batch: Pending[],
    ops: BulkOp<number>[],
    { rejected, deferred }: { rejected: Map<number, string>; deferred: Set<number> },
    deletedJobOwners: Map<string, string>,
    now: Date,
  ): Promise<void> {
    const failures = await writeBulkChunked(this.options.client, ops, undefined, this.options.retry);
    const older = new Set<number>();
    for (const failure of failures) {
      if (failure.older) older.add(failure.op.ref);
      else if (!rejected.has(failure.op.ref)) rejected.set(failure.op.ref, failure.reason);
    }

    const entries: DeadLetterEntry[] = [];
    batch.forEach(({ record, source }, position) => {
      const counts = this.count(record.type);
      if (deferred.has(position)) {
        counts.read--; // counted again when it comes back
        this.deferred.push({ record, source });
        return;
      }
      const reason = rejected.get(position);
      if (reason !== undefined) {
        counts.rejected++;
        entries.push({
          at: now.toISOString(),
          type: record.type,
          key: keyOf(record),
          reason,
          source,
          record,
        });
        return;
      }
      if (older.has(position)) {
        // a newer version of this key is already indexed: nothing to write, nothing to rebuild
        counts.older = (counts.older ?? 0) + 1;
        return;
      }
      counts.indexed++;
      if (record.type === 'corporate' || record.type === 'job') this.touched.add(record.corporateNumber);
      if (record.type === 'delete_job') {
        const owner = deletedJobOwners.get(record.id);
        if (owner) this.touched.add(owner);
      }
    });
    await this.options.deadLetter.add(entries);
  }
}

/** The id or corporateNumber of a record that failed validation, when it has one. */
function looseKeyOf(value: unknown): string | null {
  if (typeof value !== 'object' || value === null) return null;
  const { id, corporateNumber, type } = value as Record<string, unknown>;
  if ((type === 'job' || type === 'delete_job') && typeof id === 'string') return id;
  return typeof corporateNumber === 'string' ? corporateNumber : null;
}

function reasonOf(error: unknown): string {
  if (error instanceof RecordError) return error.message;
  return 'could not be transformed into an index document';
}
