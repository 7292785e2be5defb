/**
 * Writes invoice registrations into the corporates index, touching only what the invoice
 * register owns (docs/index-documents.md, "Who writes which field"): the `invoice` object, its
 * record text `invoiceRecord` (the doc value a search splices into the record,
 * src/search/records.ts) and `invoiceUpdatedOn`, the register's date of the last row applied,
 * kept after a removal so an older file loaded later cannot bring a removed registration back.
 * The company's `updatedAt` moves with a change, as it does for any record field.
 *
 * Each company is read first (with its sequence number) and written only when its registration
 * differs, with `if_seq_no`/`if_primary_term`, so a write of another feed in between is never
 * lost (the company is read again and the change redone). Loading the same rows twice writes
 * nothing the second time. A row for a corporate number the index does not hold is counted
 * `noCompany` and not written: the register of companies comes first (docs/public-records.md).
 *
 * A company with postings is rebuilt after its write (indexer/rebuild.ts): a partial update
 * rewrites the document from its `_source`, which leaves out the postings' detail text
 * (mappings/corporates.json), so the rebuild writes the postings again whole.
 */
import { type BulkOp, writeBulkChunked } from '../../ops/engine/bulk.js';
import { getSources } from '../../src/opensearch/documents.js';
import type { DeadLetterSink } from '../dead-letter.js';
import { indexNames } from '../index-names.js';
import { RecordRebuild, type RecordRebuildOptions } from '../record-rebuild.js';
import type { InvoiceChange, StoredInvoice } from './format.js';

export type InvoiceOutcome =
  | 'set'
  | 'removed'
  /** the company already holds this registration (a second load), or has none to remove */
  | 'unchanged'
  /** the company holds a row the register changed later (updateDate) */
  | 'older'
  /** no company with this corporate number in the index */
  | 'noCompany'
  /** a later row of the same company in the same batch was applied instead */
  | 'superseded'
  | 'rejected';

export interface PendingInvoice {
  change: Exclude<InvoiceChange, { action: 'skip' }>;
  /** `file:record` for the dead-letter entry */
  source: string;
}

interface Stored {
  /** it has postings: rebuilt after a write */
  postings: boolean;
  invoice: StoredInvoice | null;
  updatedOn: string | null;
  seqNo: number;
  primaryTerm: number;
}

const maxConflictRounds = 5;

/** The invoice record text a search splices: the stored object's JSON, base64 (a binary doc value). */
export function invoiceRecordValue(invoice: StoredInvoice): string {
  return Buffer.from(JSON.stringify(invoice), 'utf8').toString('base64');
}

const invoiceKeys = ['registrationNumber', 'registeredOn', 'endedOn', 'endReason', 'updatedOn'] as const;

/** Field by field: the engine gives an object a partial update merged back in its own key order. */
function sameInvoice(a: StoredInvoice | null, b: StoredInvoice | null): boolean {
  if (a === null || b === null) return a === b;
  return invoiceKeys.every((key) => (a[key] ?? null) === (b[key] ?? null));
}

export class InvoiceWriter {
  private readonly index: string;
  private readonly after: RecordRebuild;

  constructor(private readonly options: RecordRebuildOptions & { deadLetter: DeadLetterSink }) {
    this.index = indexNames(options.indexPrefix).corporates;
    this.after = new RecordRebuild(options);
  }

  /**
   * Applies one batch (in file order); one outcome per row, in the same order. `resumed`: the
   * first batch of a resumed run, whose writes may have landed before the stop without what
   * follows them: every company of the batch is followed up (rebuilt, reported), changed or not.
   */
  async apply(batch: PendingInvoice[], resumed = false): Promise<InvoiceOutcome[]> {
    const outcomes: InvoiceOutcome[] = new Array(batch.length).fill('superseded');
    // every row carries the registration's whole state: the last row of a company wins
    const last = new Map<string, number>();
    batch.forEach(({ change }, position) => {
      last.set(change.corporateNumber, position);
    });
    let pending = [...last.values()];
    const written = new Set<string>();
    const rebuild = new Set<string>();
    for (let round = 1; pending.length > 0; round++)
      pending = await this.writeRound(
        batch,
        pending,
        outcomes,
        { written, rebuild, all: resumed },
        round === maxConflictRounds,
      );
    await this.after.rebuild(written, rebuild);
    return outcomes;
  }

  private async read(numbers: string[]): Promise<Map<string, Stored>> {
    const docs = await getSources<{
      invoice?: StoredInvoice | null;
      invoiceUpdatedOn?: string | null;
      postings?: unknown[];
    }>(this.options.client, this.index, numbers, {
      includes: ['invoice', 'invoiceUpdatedOn', 'postings.id'],
    });
    const found = new Map<string, Stored>();
    for (const doc of docs) {
      if (!doc.source || !doc.version) continue;
      const [seqNo, primaryTerm] = doc.version.split(':').map(Number) as [number, number];
      found.set(doc.id, {
        postings: (doc.source.postings?.length ?? 0) > 0,
        invoice: doc.source.invoice ?? null,
        updatedOn: doc.source.invoiceUpdatedOn ?? null,
        seqNo,
        primaryTerm,
      });
    }
    return found;
  }

  /** Writes the rows at `positions`; returns the positions whose company changed meanwhile. */
  private async writeRound(
    batch: PendingInvoice[],
    positions: number[],
    outcomes: InvoiceOutcome[],
    after: { written: Set<string>; rebuild: Set<string>; all: boolean },
    lastRound: boolean,
  ): Promise<number[]> {
    const stored = await this.read(positions.map((at) => batch[at]?.change.corporateNumber ?? ''));
    const now = (this.options.now?.() ?? new Date()).toISOString();
    const ops: BulkOp<number>[] = [];
    for (const position of positions) {
      const { change } = batch[position] as PendingInvoice;
      const existing = stored.get(change.corporateNumber);
      const plan = planWrite(change, existing);
      outcomes[position] = plan.outcome;
      if (after.all && existing) {
        after.written.add(change.corporateNumber);
        if (existing.postings) after.rebuild.add(change.corporateNumber);
      }
      if (!plan.doc || !existing) continue;
      ops.push({
        action: 'update',
        index: this.index,
        id: change.corporateNumber,
        ref: position,
        ifUnchanged: { seqNo: existing.seqNo, primaryTerm: existing.primaryTerm },
        // the record's updatedAt moves when its invoice does, not for the register's date alone
        body: { doc: 'invoice' in plan.doc ? { ...plan.doc, updatedAt: now } : plan.doc },
      });
    }
    const failures = await writeBulkChunked(this.options.client, ops);
    const failed = new Set(failures.map((failure) => failure.op.ref));
    for (const op of ops) {
      if (failed.has(op.ref)) continue;
      // the record changed (not only the register's date): the watch may see it
      if ('invoice' in (op.body as { doc: Record<string, unknown> }).doc) after.written.add(op.id);
      if (stored.get(op.id)?.postings) after.rebuild.add(op.id);
    }
    const conflicts: number[] = [];
    for (const failure of failures) {
      const position = failure.op.ref;
      if (failure.conflict && !lastRound) {
        conflicts.push(position);
        continue;
      }
      outcomes[position] = 'rejected';
      const item = batch[position] as PendingInvoice;
      await this.options.deadLetter.add([
        {
          at: now,
          type: 'invoice',
          key: item.change.corporateNumber,
          reason: failure.reason,
          source: item.source,
          record: { change: item.change, reasons: [failure.reason] },
        },
      ]);
    }
    return conflicts;
  }
}

/** What one row does to the company as read: its outcome, and the fields to write (none: nothing to write). */
export function planWrite(
  change: PendingInvoice['change'],
  existing: Stored | undefined,
): { outcome: InvoiceOutcome; doc?: Record<string, unknown> } {
  if (!existing) return { outcome: 'noCompany' };
  if (existing.updatedOn !== null && existing.updatedOn > change.updatedOn) return { outcome: 'older' };
  if (change.action === 'remove') {
    // nothing to remove; still noted, so an older row loaded later cannot set it
    if (existing.invoice === null)
      return existing.updatedOn === change.updatedOn
        ? { outcome: 'unchanged' }
        : { outcome: 'unchanged', doc: { invoiceUpdatedOn: change.updatedOn } };
    return {
      outcome: 'removed',
      doc: { invoice: null, invoiceRecord: null, invoiceUpdatedOn: change.updatedOn },
    };
  }
  if (sameInvoice(existing.invoice, change.invoice)) return { outcome: 'unchanged' };
  return {
    outcome: 'set',
    doc: {
      invoice: change.invoice,
      invoiceRecord: invoiceRecordValue(change.invoice),
      invoiceUpdatedOn: change.updatedOn,
    },
  };
}
