/**
 * What one batch of source records becomes, decided without the engine: the `_bulk`
 * operations, the records refused before any write (with their reason), the postings held
 * back for their company, and the company each record changes once written. The pipeline
 * reads what `lookupsFor` names, plans with `planBatch`, writes the plan's operations and
 * turns the engine's answers into one outcome per record with `outcomesOf`.
 *
 *   const plan = planBatch([corporate, job], context, { cached, indexed, jobOwners });
 *   // plan.ops: the company update (ref 0), then the posting in jobs and job-details (ref 1)
 *   // plan.touches: 0 -> and 1 -> the company's corporateNumber
 */
import type { BulkFailure, BulkOp } from '../ops/engine/bulk.js';
import { toMatchCard } from '../src/names/card.js';
import { toCompactJobRecord, toCompactRecord } from '../src/search/records.js';
import type { IndexNames } from './index-names.js';
import type { Masters } from './masters.js';
import { registryOwnedDocFields } from './ownership.js';
import type { CorporateSource, DeleteJobSource, JobSource, SourceRecord } from './source-types.js';
import {
  type Doc,
  RecordError,
  toCorporateDocument,
  toCorporateFields,
  toJobDetailDocument,
  toJobDocument,
} from './transform.js';

/** What holds for the whole batch: where it goes, the masters and the clock of the run. */
export interface PlanContext {
  names: IndexNames;
  masters: Masters;
  now: Date;
  /** workLocationCount per company as it will be after the run (the CLI's pre-scan) */
  workLocationCounts: ReadonlyMap<string, number>;
  /** hold back a posting whose company is not known instead of rejecting it (the worker) */
  deferMissingCompany: boolean;
}

/** What the run already knows, and what was read from the index for this batch. */
export interface KnownState {
  /** company fields by corporateNumber, as earlier batches of the run left them */
  cached: ReadonlyMap<string, Doc>;
  /** company fields read from the index for this batch (`lookupsFor(...).companies`) */
  indexed: ReadonlyMap<string, Doc>;
  /** the company of each posting the batch deletes, where the index has the posting */
  jobOwners: ReadonlyMap<string, string>;
  /**
   * the source version of the newest delete of each company the batch's versioned corporate
   * records name, where the company was deleted (`lookupsFor(...).deletions`)
   */
  deletions?: ReadonlyMap<string, number>;
  /**
   * the registry-owned fields (./ownership.ts) of the companies of the batch's corporate
   * records that the registry has written (`lookupsFor(...).registered`, read for every batch):
   * those records keep these values instead of their own
   */
  registered?: ReadonlyMap<string, Doc>;
}

/** A batch's writes. Positions (`ref`, the map keys) are indices into the batch's records. */
export interface BatchPlan {
  /** company updates first, then the postings' writes and deletes */
  ops: BulkOp<number>[];
  /** records refused before any write, with the reason for the dead-letter entry */
  rejected: Map<number, string>;
  /** the problems of a record refused for more than one, each naming its field (`rejected` joins them) */
  problems: Map<number, string[]>;
  /** postings held back because their company is not known yet (deferMissingCompany) */
  deferred: Set<number>;
  /** corporate records at or before their company's delete: not written (outcome `older`) */
  deleted: Set<number>;
  /** the company whose postings or aggregates the record changes, once it is written */
  touches: Map<number, string>;
  /** company fields as this batch's corporate records leave them, for later batches */
  companies: Map<string, Doc>;
  /** the batch deletes postings: it waits for earlier writes, so a delete never overtakes the upsert it follows */
  deletesPostings: boolean;
}

/** How one record of a batch ended. */
export type RecordOutcome =
  | { status: 'indexed'; touches: string | undefined }
  /** `problems`: when there were more than one, each apart (`reason` joins them by `; `) */
  | { status: 'rejected'; reason: string; problems?: string[] }
  /** the index holds a newer version of its key, or its company's delete is as new: nothing written, nothing to rebuild */
  | { status: 'older' }
  | { status: 'deferred' };

/** The record's source version, epoch ms of `sourceUpdatedAt`, when it has one. */
export function versionOf(record: SourceRecord): number | undefined {
  const at = 'sourceUpdatedAt' in record ? record.sourceUpdatedAt : undefined;
  return at ? Date.parse(at) : undefined;
}

/** The key a dead-letter entry names: a posting's id or a company's corporateNumber. */
export function keyOf(record: SourceRecord): string | null {
  if (record.type === 'job' || record.type === 'delete_job') return record.id;
  if (record.type === 'corporate' || record.type === 'delete_corporate') return record.corporateNumber;
  return null;
}

/**
 * Every company update of the pipeline (an update, not an index with external versions,
 * because the company's postings and aggregates belong to the rebuild, not to the record).
 * - With a source version (`params.version`), the stored `sourceVersion` decides, so an older
 *   record leaves a newer one alone (`noop`); without one, the stored version is cleared.
 * - A company the registry has written (`registry` present) keeps the registry's own fields
 *   (`params.owned`, ./ownership.ts): the record's other fields are merged, those are not. The
 *   planner puts the registry's values, read before the batch, into the record's doc and its
 *   compact copy and match card; when the registry wrote in between (a stored value differs
 *   from the doc's), the copy and the card, now stale, are removed, so searches read that
 *   company from `_source` and matching its fields one by one until its next write or
 *   `npm run backfill` gives it both again.
 */
export const versionedCompanyUpdate = [
  'if (params.version != null && ctx._source.sourceVersion != null && params.version < ctx._source.sourceVersion) {',
  "  ctx.op = 'noop';",
  '} else {',
  '  boolean registered = ctx._source.registry != null;',
  '  boolean stale = false;',
  '  for (entry in params.doc.entrySet()) {',
  '    String key = entry.getKey();',
  '    if (registered && params.owned.contains(key)) {',
  '      if (ctx._source[key] != entry.getValue()) { stale = true; }',
  '    } else {',
  '      ctx._source[key] = entry.getValue();',
  '    }',
  '  }',
  "  if (stale) { ctx._source.remove('compactRecord'); ctx._source.remove('matchCard'); }",
  '  ctx._source.sourceVersion = params.version;',
  '}',
].join('\n');

/** A plan that writes nothing, refuses nothing and touches nothing. */
export function emptyPlan(): BatchPlan {
  return {
    ops: [],
    rejected: new Map(),
    problems: new Map(),
    deferred: new Set(),
    deleted: new Set(),
    touches: new Map(),
    companies: new Map(),
    deletesPostings: false,
  };
}

/**
 * What the batch needs read from the index before it can be planned: the companies of its
 * postings that the run has not cached (a company whose corporate record is in the batch too
 * is read as well: that record may be refused, and then the indexed company still serves),
 * the postings it deletes (to know which company to rebuild), and the companies of its
 * versioned corporate records (a delete of the company at or after the record's version wins),
 * and the companies of all its corporate records (`registered`: whether the registry owns their
 * name and address, ./ownership.ts).
 */
export function lookupsFor(
  records: readonly SourceRecord[],
  cached: ReadonlyMap<string, Doc>,
): { companies: string[]; jobs: string[]; deletions: string[]; registered: string[] } {
  const companies = new Set<string>();
  const registered = new Set<string>();
  const jobs: string[] = [];
  const deletions = new Set<string>();
  for (const record of records) {
    if (record.type === 'job' && !cached.has(record.corporateNumber)) companies.add(record.corporateNumber);
    if (record.type === 'delete_job') jobs.push(record.id);
    if (record.type === 'corporate' && versionOf(record) !== undefined) deletions.add(record.corporateNumber);
    // read every time, not from the run's cache: the registry may have written it since
    if (record.type === 'corporate') registered.add(record.corporateNumber);
  }
  return { companies: [...companies], jobs, deletions: [...deletions], registered: [...registered] };
}

/** A versioned corporate record at or before the newest delete of its company. */
export function deletedBefore(
  record: SourceRecord,
  deletions: ReadonlyMap<string, number> | undefined,
): boolean {
  if (record.type !== 'corporate') return false;
  const version = versionOf(record);
  const deletedAt = deletions?.get(record.corporateNumber);
  return version !== undefined && deletedAt !== undefined && version <= deletedAt;
}

/** The batch's operations, refusals and deferrals; pure (no engine, no clock, no state kept). */
export function planBatch(
  records: readonly SourceRecord[],
  context: PlanContext,
  known: KnownState,
): BatchPlan {
  const plan = emptyPlan();
  const postingOps: BulkOp<number>[] = [];
  // companies first: a posting of the same batch gets the company as its record leaves it
  records.forEach((record, position) => {
    if (record.type === 'corporate') planCompany(plan, record, position, context, known);
  });
  records.forEach((record, position) => {
    if (record.type === 'job') planPosting(plan, postingOps, record, position, context, known);
    else if (record.type === 'delete_job')
      planPostingDelete(plan, postingOps, record, position, context, known);
  });
  plan.ops.push(...postingOps);
  return plan;
}

/** A corporate record: its company update, and the company as later postings of the batch see it. */
function planCompany(
  plan: BatchPlan,
  record: CorporateSource,
  position: number,
  context: PlanContext,
  known: KnownState,
): void {
  // a late copy of a deleted company: writing it would bring the company back
  if (deletedBefore(record, known.deletions)) {
    plan.deleted.add(position);
    return;
  }
  try {
    // a registry company keeps the registry's name, reading, legal form and address
    const fields = {
      ...toCorporateFields(record, context.masters),
      ...known.registered?.get(record.corporateNumber),
    };
    plan.ops.push(companyUpdate(record, position, fields, context));
    const before = plan.companies.get(record.corporateNumber) ?? known.cached.get(record.corporateNumber);
    plan.companies.set(record.corporateNumber, { ...(before ?? {}), ...fields });
    plan.touches.set(position, record.corporateNumber);
  } catch (error) {
    refuse(plan, position, error);
  }
}

/** The `_bulk` update of one company record (`versionedCompanyUpdate`, with the whole document as its upsert). */
function companyUpdate(
  record: CorporateSource,
  position: number,
  fields: Doc,
  { names, masters, now }: PlanContext,
): BulkOp<number> {
  // the compact copy a company search reads instead of `_source` (src/search/records.ts)
  const compactRecord = toCompactRecord({ ...fields, updatedAt: now.toISOString() });
  // and the card matching reads (src/names/card.ts)
  const matchCard = toMatchCard(fields);
  const upsert = { ...toCorporateDocument(record, masters, now), compactRecord, matchCard };
  // an update keeps the aggregates and postings until the rebuild replaces them
  const version = versionOf(record);
  // a record without a version clears the stored one: from then on, arrival order
  const doc = { ...fields, compactRecord, matchCard, updatedAt: now.toISOString() };
  return {
    action: 'update',
    index: names.corporates,
    id: record.corporateNumber,
    ref: position,
    ...(version === undefined ? {} : { versioned: true }),
    body: {
      script: {
        source: versionedCompanyUpdate,
        lang: 'painless',
        params: { doc, version: version ?? null, owned: [...registryOwnedDocFields] },
      },
      upsert: { ...upsert, sourceVersion: version ?? null },
    },
  };
}

/** A job record: its writes to jobs and job-details with the company copy, else its refusal or deferral. */
function planPosting(
  plan: BatchPlan,
  postingOps: BulkOp<number>[],
  record: JobSource,
  position: number,
  { names, masters, now, workLocationCounts, deferMissingCompany }: PlanContext,
  known: KnownState,
): void {
  const company =
    plan.companies.get(record.corporateNumber) ??
    known.cached.get(record.corporateNumber) ??
    known.indexed.get(record.corporateNumber);
  if (!company && deferMissingCompany) {
    plan.deferred.add(position);
    return;
  }
  if (!company) {
    plan.rejected.set(
      position,
      `corporateNumber: company ${record.corporateNumber} is not indexed; ingest its corporate record first`,
    );
    return;
  }
  try {
    const count = workLocationCounts.get(record.corporateNumber);
    const owner = count === undefined ? company : { ...company, workLocationCount: count };
    const doc = toJobDocument(record, owner, masters, now);
    // searches read the record from this copy (src/search/records.ts)
    const job = { ...doc, compactRecord: toCompactJobRecord(doc) };
    const version = versionOf(record);
    const versioned = version === undefined ? {} : { version };
    postingOps.push(
      { action: 'index', index: names.jobs, id: record.id, ref: position, body: job, ...versioned },
      {
        action: 'index',
        index: names.jobDetails,
        id: record.id,
        ref: position,
        body: toJobDetailDocument(record, now),
        ...versioned,
      },
    );
    plan.touches.set(position, record.corporateNumber);
  } catch (error) {
    refuse(plan, position, error);
  }
}

/** A delete_job record: the deletes from jobs and job-details; it touches the posting's company. */
function planPostingDelete(
  plan: BatchPlan,
  postingOps: BulkOp<number>[],
  record: DeleteJobSource,
  position: number,
  { names }: PlanContext,
  known: KnownState,
): void {
  plan.deletesPostings = true;
  // with a version, the delete leaves a tombstone (kept `index.gc_deletes`, 7 days) that
  // refuses an older upsert arriving late
  const version = versionOf(record);
  const versioned = version === undefined ? {} : { version };
  postingOps.push(
    { action: 'delete', index: names.jobs, id: record.id, ref: position, ...versioned },
    { action: 'delete', index: names.jobDetails, id: record.id, ref: position, ...versioned },
  );
  const owner = known.jobOwners.get(record.id);
  if (owner) plan.touches.set(position, owner);
}

/**
 * One outcome per record, from the plan and the engine's item failures: held back, then
 * refused (by the plan, else with the engine's reason), then older than the index, else
 * indexed. A posting is refused when either of its two writes is.
 */
export function outcomesOf(
  count: number,
  plan: BatchPlan,
  failures: readonly BulkFailure<number>[],
): RecordOutcome[] {
  const rejected = new Map(plan.rejected);
  const older = new Set<number>();
  for (const failure of failures) {
    if (failure.older) older.add(failure.op.ref);
    else if (!rejected.has(failure.op.ref)) rejected.set(failure.op.ref, failure.reason);
  }
  return Array.from({ length: count }, (_, position): RecordOutcome => {
    if (plan.deferred.has(position)) return { status: 'deferred' };
    if (plan.deleted.has(position)) return { status: 'older' };
    const reason = rejected.get(position);
    const problems = plan.problems.get(position);
    if (reason !== undefined) return { status: 'rejected', reason, ...(problems ? { problems } : {}) };
    if (older.has(position)) return { status: 'older' };
    return { status: 'indexed', touches: plan.touches.get(position) };
  });
}

function refuse(plan: BatchPlan, position: number, error: unknown): void {
  if (!(error instanceof RecordError)) {
    plan.rejected.set(position, 'could not be transformed into an index document');
    return;
  }
  plan.rejected.set(position, error.message);
  if (error.problems.length > 1) plan.problems.set(position, error.problems);
}
