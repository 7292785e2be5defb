/**
 * Loads the NTA's invoice-issuer files (the full file and daily diffs; CSV, the zips they are
 * published in, or standard input; UTF-8 or Shift_JIS) into the corporates index: each legal
 * person's registration onto its company (./write.ts), a batch at a time with a checkpoint per
 * file (the loop of ../registry/checkpointed-import.ts: a stopped run resumes after its last
 * committed record). Rejected rows go to the dead-letter sink with every reason.
 *
 *   await importInvoiceFiles(['invoice_all_20261031.zip', 'invoice_diff_20261101.csv'], { client, ... })
 *   // { files: [...], total: { read: 120, set: 100, removed: 1, persons: 15, noCompany: 4, ... } }
 */

import type { Engine } from '../../src/opensearch/engine.js';
import type { Membership } from '../../src/saved-searches/membership.js';
import type { CsvRecord } from '../../src/text/csv.js';
import {
  addSummary,
  type CheckpointedOptions,
  importCheckpointed,
  rowReasons,
  rowReject,
  type SourceResult,
  type Take,
} from '../registry/checkpointed-import.js';
import { registrySources } from '../registry/input.js';
import { toInvoiceChange, validateInvoiceRow } from './format.js';
import { InvoiceWriter, type PendingInvoice } from './write.js';

export type InvoiceSummary = {
  read: number;
  set: number;
  removed: number;
  /** the company already held the row's registration (a file loaded again) */
  unchanged: number;
  /** rows older than what the company holds (updateDate) */
  older: number;
  /** legal persons the index holds no company of */
  noCompany: number;
  /** history rows (latest=0) and rows replaced by a later row of the company in the same batch */
  superseded: number;
  /** rows of persons (kind 1): not companies, never written */
  persons: number;
  rejected: number;
};

export function emptyInvoiceSummary(): InvoiceSummary {
  return {
    read: 0,
    set: 0,
    removed: 0,
    unchanged: 0,
    older: 0,
    noCompany: 0,
    superseded: 0,
    persons: 0,
    rejected: 0,
  };
}

export interface InvoiceImportOptions extends CheckpointedOptions {
  client: Engine;
  indexPrefix: string;
  /** the saved searches' membership: the companies written are reported to them (../record-rebuild.ts) */
  watch?: Membership;
}

export type InvoiceFileResult = SourceResult<InvoiceSummary>;

/** A row rejected with every reason (CSV and row checks), skipped, or mapped to its change. */
function takeInvoiceRecord(
  record: CsvRecord,
  source: string,
  now: () => Date,
): Take<PendingInvoice, InvoiceSummary> {
  const check = validateInvoiceRow(record.fields);
  if (!check.ok || record.problem) {
    const number = record.fields[1];
    const key = typeof number === 'string' && /^T\d{13}$/.test(number) ? number.slice(1) : null;
    const at = now().toISOString();
    return {
      reject: rowReject({ type: 'invoice', key, source, at }, record.fields, rowReasons(record, check)),
    };
  }
  const change = toInvoiceChange(check.row);
  if (change.action === 'skip') return { skipped: change.why === 'person' ? 'persons' : 'superseded' };
  return { item: { change, source } };
}

/**
 * The files in the order given (a full file first, then its diffs in date order); a zip's CSV
 * entries in name order, each a result of its own.
 */
export async function importInvoiceFiles(
  files: string[],
  options: InvoiceImportOptions,
): Promise<{ files: InvoiceFileResult[]; total: InvoiceSummary }> {
  const now = options.now ?? (() => new Date());
  const writer = new InvoiceWriter({
    client: options.client,
    indexPrefix: options.indexPrefix,
    deadLetter: options.deadLetter,
    now,
    ...(options.watch ? { watch: options.watch } : {}),
  });
  const results: InvoiceFileResult[] = [];
  const total = emptyInvoiceSummary();
  for (const file of files)
    for await (const source of registrySources(file)) {
      const result = await importCheckpointed(source, options, {
        emptySummary: emptyInvoiceSummary,
        take: (record, label) => takeInvoiceRecord(record, label, now),
        apply: (batch, { resumed }) => writer.apply(batch, resumed),
      });
      results.push(result);
      addSummary(total, result.summary);
    }
  return { files: results, total };
}
