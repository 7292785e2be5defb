/**
 * Writes registry changes into the corporates index, touching only what the registry owns:
 * the name, reading, legal form, address fields (with their labels) and the internal
 * `registry` object. Everything the job-postings pipeline writes (phone, website, employees,
 * ad spend, industries, ...) is left as it is, so the two feeds can write the same company.
 *
 * Each company is read first (with its sequence number) and written only when a value it owns
 * differs, with `if_seq_no`/`if_primary_term`, so a write of the other feed in between is never
 * lost (the company is read again and the change redone). Loading the same rows twice writes
 * nothing the second time. A row older than what the company holds (its `updateDate` before
 * the stored one) is not applied: an old full file loaded after newer diffs cannot undo them.
 * A company written is rebuilt (unless its last rebuild counted no posting and no field its
 * postings carry changed): its postings then carry the new name and the close fields,
 * and get back their detail text, which a partial update drops (it rewrites the company from
 * `_source`, and `_source` leaves the detail text out). The names a row replaces (and those of
 * `latest=0` rows) are kept as former names (./former-names.ts).
 */
import { type BulkOp, writeBulkChunked } from '../../ops/engine/bulk.js';
import { toMatchCard } from '../../src/names/card.js';
import { getSources } from '../../src/opensearch/documents.js';
import type { Engine } from '../../src/opensearch/engine.js';
import { withRetry } from '../../src/opensearch/retry.js';
import { toCompactRecord } from '../../src/search/records.js';
import type { DeadLetterEntry, DeadLetterSink } from '../dead-letter.js';
import { type IndexNames, indexNames } from '../index-names.js';
import type { Masters } from '../masters.js';
import { prepareDerivedReadings } from '../name-keys.js';
import { registryOwnedDocFields } from '../ownership.js';
import { IngestPipeline } from '../pipeline.js';
import { rebuildCompanies, throwOnFailures } from '../rebuild.js';
import type { CorporateSource } from '../source-types.js';
import { type Doc, toCorporateDocument, toCorporateFields } from '../transform.js';
import { type FormerName, formerNameKeysOf, formerNamesOf, type NameRow } from './former-names.js';
import { type RegistryChange, type RegistryFields, recordFieldsOf } from './map.js';

/**
 * The company fields a registry write sets: the owned fields with the labels and keys derived
 * from them, the record's close fields; all are copied onto the company's postings.
 */
const writtenFields = [
  ...registryOwnedDocFields,
  'closed',
  'closedOn',
  'closeReason',
  'successorCorporateNumber',
] as const;
/** Written with them, internal and not on the postings (the company is rebuilt all the same: see above). */
const historyFields = ['formerNames', 'formerNameKeys'] as const;
/** Record fields of the company alone (not copied onto postings). */
const companyOnlyFields = ['registeredOn', 'englishName'] as const;

/** The `registry` object's fields, compared one by one to tell a change from a reload. */
const registryFieldOrder: (keyof RegistryFields)[] = [
  'assignmentDate',
  'updateDate',
  'changeDate',
  'process',
  'closed',
  'closeDate',
  'closeCause',
  'successorCorporateNumber',
  'enName',
  'kind',
];

export type WriteOutcome =
  | 'upserted'
  | 'closed'
  | 'restored'
  | 'deleted'
  /** the company already holds these values (a second load), or there was nothing to delete */
  | 'unchanged'
  /** the company holds a newer registry row (updateDate) */
  | 'older'
  /** a later row of the same company in the same batch was applied instead */
  | 'superseded'
  | 'rejected';

export interface PendingChange {
  change: Exclude<RegistryChange, { action: 'skip' }>;
  /** `file:record` for the dead-letter entry */
  source: string;
}

interface Stored {
  source: Doc;
  seqNo: number;
  primaryTerm: number;
}

type UpsertChange = Extract<PendingChange['change'], { action: 'upsert' }>;

/** What one round of a batch's upserts is planned against: read once, at one instant. */
interface UpsertRound {
  stored: Map<string, Stored>;
  /** when each company missing from the index was deleted by a registry row (epoch ms) */
  deletions: Map<string, number>;
  rows: Map<string, NameRow[]>;
  now: Date;
}

/** One upsert's outcome and the write it needs (none when rejected, older or unchanged). */
interface UpsertPlan {
  outcome: WriteOutcome;
  op?: BulkOp<number>;
  /** the company is rebuilt once the write is in (its postings' copy, and their detail text) */
  rebuild?: boolean;
}

const maxConflictRounds = 5;

/** A registry date as the instant the pipeline's versions count in: the start of that day in Japan. */
export function registryInstant(date: string): string {
  return `${date}T00:00:00+09:00`;
}

function sameValue(a: unknown, b: unknown): boolean {
  if (typeof a === 'object' && a !== null) return JSON.stringify(a) === JSON.stringify(b ?? null);
  return (a ?? null) === (b ?? null);
}

const nameRowOf = (change: PendingChange['change']): NameRow | undefined =>
  change.action === 'delete'
    ? undefined
    : change.action === 'history'
      ? { ...change, history: true }
      : {
          name: change.fields.name,
          changeDate: change.registry.changeDate,
          updateDate: change.registry.updateDate,
          correction: change.correction,
          history: false,
        };

/** The last rebuild counted no posting (a company written before the count: not known). */
function knownWithoutPostings(source: Doc): boolean {
  return (source.aggregates as Doc | undefined)?.postingCount === 0;
}

function sameRegistry(stored: unknown, next: RegistryFields): boolean {
  if (!stored || typeof stored !== 'object') return false;
  const old = stored as Record<string, unknown>;
  return registryFieldOrder.every((key) => sameValue(old[key], next[key]));
}

export class RegistryWriter {
  private readonly names: IndexNames;

  constructor(
    private readonly options: {
      client: Engine;
      indexPrefix: string;
      deadLetter: DeadLetterSink;
      masters: Masters;
      now?: () => Date;
    },
  ) {
    this.names = indexNames(options.indexPrefix);
  }

  private now(): Date {
    return this.options.now?.() ?? new Date();
  }

  /** Applies one batch (in file order); one outcome per change, in the same order. */
  async apply(batch: PendingChange[]): Promise<WriteOutcome[]> {
    const outcomes: WriteOutcome[] = new Array(batch.length).fill('superseded');
    // every row carries the company's whole state: the last row of a company in the batch wins;
    // history rows (latest=0) are never applied, only read for the former names
    const last = new Map<string, number>();
    const rows = new Map<string, NameRow[]>();
    batch.forEach(({ change }, position) => {
      const row = nameRowOf(change);
      if (row) rows.set(change.corporateNumber, [...(rows.get(change.corporateNumber) ?? []), row]);
      if (change.action !== 'history') last.set(change.corporateNumber, position);
    });
    const deletes: number[] = [];
    const upserts: number[] = [];
    for (const position of last.values())
      (batch[position]?.change.action === 'delete' ? deletes : upserts).push(position);

    let pending = upserts;
    const rebuild = new Set<string>();
    for (let round = 1; pending.length > 0; round++) {
      const conflicts = await this.writeUpserts(
        batch,
        pending,
        outcomes,
        rebuild,
        rows,
        round === maxConflictRounds,
      );
      pending = conflicts;
    }
    const historyOnly = [...rows.keys()].filter((number) => !last.has(number));
    for (let round = 1; historyOnly.length > 0 && round <= maxConflictRounds; round++)
      historyOnly.splice(0, historyOnly.length, ...(await this.writeHistory(historyOnly, rows, rebuild)));
    if (deletes.length > 0) await this.applyDeletes(batch, deletes, outcomes);
    if (rebuild.size > 0)
      throwOnFailures(
        await rebuildCompanies(this.options.client, this.options.indexPrefix, [...rebuild], {
          refresh: false,
          now: this.now(),
        }),
      );
    return outcomes;
  }

  /**
   * The former names of companies that the batch has only history rows of (their current row
   * came in an earlier batch): merged into the stored company; returns those that changed
   * meanwhile. A company not in the index gets nothing (its history waits for its current row).
   * A company written is rebuilt (`rebuild`): the partial update rewrote it from its `_source`,
   * which leaves out its postings' detail text.
   */
  private async writeHistory(
    numbers: string[],
    rows: Map<string, NameRow[]>,
    rebuild: Set<string>,
  ): Promise<string[]> {
    const stored = await this.read(numbers);
    const ops: BulkOp<string>[] = [];
    for (const [number, existing] of stored) {
      const name = String(existing.source.name ?? '');
      const formerNames = formerNamesOf(rows.get(number) ?? [], existing.source, name);
      const history = { formerNames, formerNameKeys: formerNameKeysOf(formerNames, name) };
      if (historyFields.every((field) => sameValue(existing.source[field], history[field]))) continue;
      ops.push({
        action: 'update',
        index: this.names.corporates,
        id: number,
        ref: number,
        ifUnchanged: { seqNo: existing.seqNo, primaryTerm: existing.primaryTerm },
        body: { doc: history },
      });
    }
    const failures = await writeBulkChunked(this.options.client, ops);
    const unexpected = failures.find((failure) => !failure.conflict);
    if (unexpected)
      throw new Error(`OpenSearch did not accept a company's former names: ${unexpected.reason}`);
    const conflicts = failures.map((failure) => failure.op.ref);
    for (const op of ops) if (!conflicts.includes(op.ref)) rebuild.add(op.ref);
    return conflicts;
  }

  private async read(numbers: string[]): Promise<Map<string, Stored>> {
    const found = new Map<string, Stored>();
    if (numbers.length === 0) return found;
    const { body } = await withRetry(() =>
      this.options.client.mget({
        index: this.names.corporates,
        body: {
          docs: numbers.map((id) => ({ _id: id, _source: { excludes: ['postings', 'compactRecord'] } })),
        },
      }),
    );
    for (const doc of body.docs as Array<{
      _id: string;
      found?: boolean;
      _source?: Doc;
      _seq_no?: number;
      _primary_term?: number;
    }>) {
      if (doc.found && doc._source && doc._seq_no !== undefined && doc._primary_term !== undefined)
        found.set(doc._id, { source: doc._source, seqNo: doc._seq_no, primaryTerm: doc._primary_term });
    }
    return found;
  }

  /** Writes the changes at `positions`; returns the positions whose company changed meanwhile. */
  private async writeUpserts(
    batch: PendingChange[],
    positions: number[],
    outcomes: WriteOutcome[],
    rebuild: Set<string>,
    rows: Map<string, NameRow[]>,
    lastRound: boolean,
  ): Promise<number[]> {
    const now = this.now();
    // a company without furigana gets a derived reading, as the pipeline's writes give it
    await prepareDerivedReadings();
    const stored = await this.read(
      positions.map((position) => batch[position]?.change.corporateNumber ?? ''),
    );
    const missing = positions
      .map((position) => batch[position]?.change.corporateNumber ?? '')
      .filter((number) => !stored.has(number));
    const deletions = await this.deletions(missing);
    const round: UpsertRound = { stored, deletions, rows, now };
    const ops: BulkOp<number>[] = [];
    const wouldRebuild = new Map<number, string>();
    for (const position of positions) {
      const item = batch[position] as PendingChange;
      const change = item.change;
      if (change.action !== 'upsert') continue;
      const plan = await this.planUpsert(item, change, position, round);
      outcomes[position] = plan.outcome;
      if (plan.op) ops.push(plan.op);
      if (plan.rebuild) wouldRebuild.set(position, change.corporateNumber);
    }
    const failures = await writeBulkChunked(this.options.client, ops);
    const conflicts: number[] = [];
    const failed = new Set<number>();
    for (const failure of failures) {
      const position = failure.op.ref;
      failed.add(position);
      if (failure.conflict && !lastRound) {
        conflicts.push(position);
        continue;
      }
      outcomes[position] = 'rejected';
      await this.deadLetter(batch[position] as PendingChange, [failure.reason]);
    }
    for (const [position, number] of wouldRebuild) if (!failed.has(position)) rebuild.add(number);
    return conflicts;
  }

  /**
   * One upsert against what the round read: rejected (dead-lettered) when its fields do not
   * map, older than a recorded delete or the stored row, a new company, or an update.
   */
  private async planUpsert(
    item: PendingChange,
    change: UpsertChange,
    position: number,
    round: UpsertRound,
  ): Promise<UpsertPlan> {
    const source: CorporateSource = {
      type: 'corporate',
      corporateNumber: change.corporateNumber,
      ...change.fields,
    };
    let fields: Doc;
    try {
      fields = toCorporateFields(source, this.options.masters);
    } catch (error) {
      await this.deadLetter(item, [error instanceof Error ? error.message : String(error)]);
      return { outcome: 'rejected' };
    }
    const existing = round.stored.get(change.corporateNumber);
    const formerNames: FormerName[] = formerNamesOf(
      round.rows.get(change.corporateNumber) ?? [],
      existing?.source,
      change.fields.name,
    );
    const owned: Doc = {
      ...Object.fromEntries(writtenFields.map((field) => [field, fields[field] ?? null])),
      ...recordFieldsOf(change.registry),
    };
    const history: Doc = { formerNames, formerNameKeys: formerNameKeysOf(formerNames, change.fields.name) };
    const deletedAt = round.deletions.get(change.corporateNumber);
    if (
      !existing &&
      deletedAt !== undefined &&
      deletedAt >= Date.parse(registryInstant(change.registry.updateDate))
    )
      return { outcome: 'older' };
    if (!existing)
      return {
        outcome: change.outcome,
        op: this.createOp(source, change, { owned, history }, position, round.now),
      };
    return this.updatePlan(change, existing, { owned, history }, position, round.now);
  }

  /** A company not in the index: written whole, its record copy included. */
  private createOp(
    source: CorporateSource,
    change: UpsertChange,
    written: { owned: Doc; history: Doc },
    position: number,
    now: Date,
  ): BulkOp<number> {
    const { owned, history } = written;
    const document = {
      ...toCorporateDocument(source, this.options.masters, now),
      ...owned,
      ...history,
      sourceVersion: null,
    };
    const compactRecord = toCompactRecord({ ...document, updatedAt: now.toISOString() });
    const matchCard = toMatchCard(document);
    return {
      action: 'update',
      index: this.names.corporates,
      id: change.corporateNumber,
      ref: position,
      // created by the other feed since it was read: only the owned fields are merged in
      body: {
        doc: { ...owned, ...history, registry: change.registry },
        upsert: { ...document, compactRecord, matchCard, registry: change.registry },
      },
    };
  }

  /**
   * A stored company: older when it holds a newer registry row, unchanged when every written
   * field is the same, else an update guarded by its sequence number, and a rebuild.
   */
  private updatePlan(
    change: UpsertChange,
    existing: Stored,
    written: { owned: Doc; history: Doc },
    position: number,
    now: Date,
  ): UpsertPlan {
    const { owned, history } = written;
    const storedUpdate = (existing.source.registry as Doc | undefined)?.updateDate;
    if (typeof storedUpdate === 'string' && storedUpdate > change.registry.updateDate)
      return { outcome: 'older' };
    const ownedSame = writtenFields.every((field) => sameValue(existing.source[field], owned[field]));
    const historySame = historyFields.every((field) => sameValue(existing.source[field], history[field]));
    // a company loaded before these fields existed gets them at its next load
    const companyOnlySame = companyOnlyFields.every((field) =>
      sameValue(existing.source[field], owned[field]),
    );
    if (
      ownedSame &&
      historySame &&
      companyOnlySame &&
      sameRegistry(existing.source.registry, change.registry)
    )
      return { outcome: 'unchanged' };
    // the copy holds only the record fields (src/search/records.ts picks them)
    const merged: Doc = { ...existing.source, ...owned, updatedAt: now.toISOString() };
    return {
      outcome: change.outcome,
      op: {
        action: 'update',
        index: this.names.corporates,
        id: change.corporateNumber,
        ref: position,
        ifUnchanged: { seqNo: existing.seqNo, primaryTerm: existing.primaryTerm },
        body: {
          doc: {
            ...owned,
            ...history,
            registry: change.registry,
            updatedAt: now.toISOString(),
            compactRecord: toCompactRecord(merged),
            matchCard: toMatchCard(merged),
          },
        },
      },
      // any write rewrites the company from `_source`, which leaves out its postings' detail
      // text: the rebuild writes the postings again (and their company copy, when it changed);
      // a company known to have none needs it only for a change its record copy carries
      rebuild: !ownedSame || !knownWithoutPostings(existing.source),
    };
  }

  /** When each of `numbers` that was deleted by a registry row was deleted (epoch ms of its updateDate). */
  private async deletions(numbers: string[]): Promise<Map<string, number>> {
    const docs = await getSources<Doc>(this.options.client, this.names.deletedCorporates, numbers, {
      includes: ['sourceUpdatedAt'],
    });
    const found = new Map<string, number>();
    for (const doc of docs) {
      const at = doc.source?.sourceUpdatedAt;
      if (typeof at === 'string') found.set(doc.id, Date.parse(at));
    }
    return found;
  }

  /** Deletes through the pipeline's delete_corporate (the company and its postings go). */
  private async applyDeletes(batch: PendingChange[], positions: number[], outcomes: WriteOutcome[]) {
    const numbers = positions.map((position) => batch[position]?.change.corporateNumber ?? '');
    const stored = await this.read(numbers);
    const pipeline = new IngestPipeline({
      client: this.options.client,
      indexPrefix: this.options.indexPrefix,
      deadLetter: this.options.deadLetter,
      masters: this.options.masters,
      ...(this.options.now ? { now: this.options.now } : {}),
    });
    for (const position of positions) {
      const item = batch[position] as PendingChange;
      if (item.change.action !== 'delete') continue;
      // versioned: the delete is recorded (deleted-corporates), so loading an older file again
      // does not bring the company back (see writeUpserts)
      await pipeline.add(
        {
          type: 'delete_corporate',
          corporateNumber: item.change.corporateNumber,
          sourceUpdatedAt: registryInstant(item.change.updateDate),
        },
        item.source,
      );
      outcomes[position] = stored.has(item.change.corporateNumber) ? 'deleted' : 'unchanged';
    }
    await pipeline.flush();
    if ((pipeline.report.delete_corporate?.rejected ?? 0) > 0)
      throw new Error('OpenSearch did not accept a registry delete; the run stops so it can be resumed');
  }

  private async deadLetter(item: PendingChange, reasons: string[]): Promise<void> {
    const entry: DeadLetterEntry = {
      at: this.now().toISOString(),
      type: 'registry',
      key: item.change.corporateNumber,
      reason: reasons.join('; '),
      source: item.source,
      record: { change: item.change, reasons },
    };
    await this.options.deadLetter.add([entry]);
  }
}
