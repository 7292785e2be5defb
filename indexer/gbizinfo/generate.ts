/**
 * Seeded gBizINFO subsidy and procurement files for the companies of a generated
 * corporate-number register (../registry/generate.ts), in the download form (./format.ts: a
 * header row, then one row per subsidy or order): for loading a million companies' worth
 * without the real files. Each company's rows follow from (seed, its index) alone.
 *
 *   [...recordRows('subsidies', { companies: 1000, seed: 1, date: '2026-10-31' })]
 *   // [['5130001000000', '株式会社日本建設', '', '2024-03-11', '補助金 1', '2,400,000', '中小企業者', '経済産業省'], ...]
 *
 * Shares: subsidies for 1 company in 8 (1-4 each), orders for 1 in 25 (1-6 each); one row in
 * ten gives no amount; bodies drawn from the master's names and an unlisted agency.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import iconv from 'iconv-lite';
import { Random } from '../../sample-data/index.js';
import { readMasterFile } from '../../src/masters/masters.js';
import type { RegistryEncoding } from '../../src/text/csv.js';
import { companyByIndex, dateOf, dayOf, mix, type Universe } from '../registry/generate.js';
import { type RecordKind, recordColumns } from './format.js';

const shares: Record<RecordKind, { every: number; most: number; salt: number }> = {
  subsidies: { every: 8, most: 4, salt: 0x5b51d1 },
  procurement: { every: 25, most: 6, salt: 0x0c0de5 },
};

export function* recordRows(kind: RecordKind, universe: Universe): Generator<string[]> {
  const names = (readMasterFile('government-bodies').items as Array<{ id: number; name: string }>)
    .filter((body) => body.id !== 999)
    .map((body) => body.name)
    .concat(['独立行政法人中小企業基盤整備機構']);
  const { every, most, salt } = shares[kind];
  const last = dayOf(universe.date);
  for (let index = 0; index < universe.companies; index++) {
    const random = new Random(mix(universe.seed ^ salt, index));
    if (random.int(0, every - 1) !== 0) continue;
    const company = companyByIndex(universe, index);
    for (let n = random.int(1, most); n > 0; n--) {
      const yen = random.chance(0.1) ? '' : (random.int(1, 500) * 10_000).toLocaleString('en-US');
      const day = dateOf(random.int(last - 5 * 365, last));
      const body = random.pick(names);
      yield kind === 'subsidies'
        ? [
            company.corporateNumber,
            company.current.name ?? '',
            '',
            day,
            `補助金 ${n}`,
            yen,
            '中小企業者',
            body,
          ]
        : [company.corporateNumber, company.current.name ?? '', '', day, `業務 ${n}`, yen, body, ''];
    }
  }
}

/** Writes a kind's file (`Hojokinjoho_<date>.csv`, `Chotatsujoho_<date>.csv`); the rows written. */
export function writeRecordFile(
  kind: RecordKind,
  universe: Universe,
  outDir: string,
  encoding: RegistryEncoding,
): { file: string; rows: number } {
  const stem = kind === 'subsidies' ? 'Hojokinjoho' : 'Chotatsujoho';
  const file = path.join(outDir, `${stem}_${universe.date.replace(/-/g, '')}.csv`);
  const quote = (fields: readonly string[]) =>
    fields.map((field) => `"${field.replaceAll('"', '""')}"`).join(',');
  const lines = [quote(recordColumns[kind])];
  for (const row of recordRows(kind, universe)) lines.push(quote(row));
  const text = `${lines.join('\r\n')}\r\n`;
  writeFileSync(file, encoding === 'utf8' ? `\uFEFF${text}` : iconv.encode(text, 'cp932'));
  return { file, rows: lines.length - 1 };
}
