/**
 * Writes generated invoice rows (./generate.ts) as files: the full file as
 * `invoice_all_20261031.csv`, a day's diff as `invoice_diff_20261101.csv`; UTF-8 or Shift_JIS;
 * optionally split and zipped (the register's file writer, ../registry/generate-files.ts).
 */

import type { Universe } from '../registry/generate.js';
import { type FileLayout, type WrittenFile, writeRows } from '../registry/generate-files.js';
import { type InvoiceDiffKind, invoiceCsvLine, invoiceDiffRows, invoiceFullRows } from './generate.js';

const compact = (date: string) => date.replace(/-/g, '');

export function writeInvoiceFullFile(universe: Universe, layout: FileLayout): Promise<WrittenFile[]> {
  return writeRows(
    `invoice_all_${compact(universe.date)}`,
    invoiceFullRows(universe),
    layout,
    invoiceCsvLine,
  );
}

export async function writeInvoiceDiffFile(
  universe: Universe,
  date: string,
  changes: number,
  layout: FileLayout,
): Promise<{ files: WrittenFile[]; counts: Record<InvoiceDiffKind, number> }> {
  const counts = { registered: 0, expired: 0, cancelled: 0, deleted: 0 };
  const rows = invoiceDiffRows(universe, date, changes, counts);
  const files = await writeRows(`invoice_diff_${compact(date)}`, rows, layout, invoiceCsvLine);
  return { files, counts };
}
