/**
 * The sample's invoice registrations (`npm start`, ../sample-data.ts): an invoice-register file
 * in the published format for the sample's companies, so its records and the invoice filters
 * have something to show. Each company's registration follows from its corporate number
 * alone (the same sample, the same file): about 60 in 100 registered, a few cancelled or
 * expired, a few registered from a day ahead of `today`.
 *
 *   sampleInvoiceRows([{ corporateNumber: '8010001000001', name: '株式会社A' }], '2026-11-30')
 *   // [{ registratedNumber: 'T8010001000001', process: '01', registrationDate: '2023-10-01', ... }]
 */
import { writeFileSync } from 'node:fs';
import type { InvoiceRowValues } from './generate.js';
import { invoiceCsvLine } from './generate.js';

const shift = (day: string, days: number) =>
  new Date(Date.parse(`${day}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

/** 0-99 from the corporate number's digits (its last two, before the check digit's influence). */
function bucketOf(corporateNumber: string): number {
  let h = 0;
  for (const digit of corporateNumber) h = (h * 31 + digit.charCodeAt(0)) % 10_007;
  return h % 100;
}

export function sampleInvoiceRows(
  companies: ReadonlyArray<{ corporateNumber: string; name: string }>,
  today: string,
): InvoiceRowValues[] {
  const rows: InvoiceRowValues[] = [];
  for (const { corporateNumber, name } of companies) {
    const bucket = bucketOf(corporateNumber);
    if (bucket >= 60) continue;
    const base: InvoiceRowValues = {
      registratedNumber: `T${corporateNumber}`,
      process: '01',
      correct: '0',
      kind: '2',
      country: '1',
      latest: '1',
      registrationDate: bucket < 40 ? '2023-10-01' : shift(today, -(bucket * 17)),
      updateDate: '2023-09-20',
      name,
    };
    if (bucket < 4)
      rows.push({
        ...base,
        process: '04',
        disposalDate: shift(today, -30 * (bucket + 1)),
        updateDate: shift(today, -30 * (bucket + 1)),
      });
    else if (bucket < 8)
      rows.push({
        ...base,
        process: '03',
        expireDate: shift(today, -20 * bucket),
        updateDate: shift(today, -20 * bucket),
      });
    else if (bucket < 10)
      rows.push({ ...base, registrationDate: shift(today, 14 * (bucket - 7)), updateDate: shift(today, -3) });
    else rows.push(base);
  }
  return rows;
}

/** Writes the rows as the published CSV (UTF-8). */
export function writeSampleInvoiceFile(file: string, rows: InvoiceRowValues[]): void {
  writeFileSync(file, rows.map((row, i) => invoiceCsvLine(i + 1, row)).join(''));
}
