/**
 * Seeded gBizINFO files of every kind (subsidies, procurement, certifications, awards,
 * workplace figures) for the companies of a generated
 * corporate-number register (../registry/generate.ts), in the download form (./format.ts: a
 * header row, then the kind's rows): for loading a million companies' worth
 * without the real files. Each company's rows follow from (seed, its index) alone.
 *
 *   [...recordRows('subsidies', { companies: 1000, seed: 1, date: '2026-10-31' })]
 *   // [['5130001000000', '株式会社日本建設', '', '2024-03-11', '補助金 1', '2,400,000', '中小企業者', '経済産業省'], ...]
 *
 * Shares: subsidies for 1 company in 8 (1-4 each), orders for 1 in 25 (1-6 each),
 * certifications for 1 in 6 (1-3 each, half with an expiry), awards for 1 in 40 (1-2 each),
 * workplace figures for 1 in 5 (some figures empty); one money row in ten gives no amount;
 * bodies, kinds and awards drawn from their masters' names and one name each does not list.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import iconv from 'iconv-lite';
import { Random } from '../../sample-data/index.js';
import { readMasterFile } from '../../src/masters/masters.js';
import type { RegistryEncoding } from '../../src/text/csv.js';
import { companyByIndex, dateOf, dayOf, mix, type Universe } from '../registry/generate.js';
import { kindFormats, type RecordKind, recordColumns } from './format.js';

const shares: Record<RecordKind, { every: number; most: number; salt: number }> = {
  subsidies: { every: 8, most: 4, salt: 0x5b51d1 },
  procurement: { every: 25, most: 6, salt: 0x0c0de5 },
  certifications: { every: 6, most: 3, salt: 0xce271f },
  awards: { every: 40, most: 2, salt: 0xa3a2d5 },
  workplace: { every: 5, most: 1, salt: 0x3047c1 },
};

/** The names a master lists (999 aside), and one it does not. */
function namesOf(
  master: 'government-bodies' | 'certification-kinds' | 'award-kinds',
  unlisted: string,
): string[] {
  return (readMasterFile(master).items as Array<{ id: number; name: string }>)
    .filter((item) => item.id !== 999)
    .map((item) => item.name)
    .concat([unlisted]);
}

/** One figure as the file writes it: empty one time in `gaps`. */
function figure(random: Random, low: number, high: number, gaps: number): string {
  return random.int(0, gaps - 1) === 0 ? '' : (random.int(low * 10, high * 10) / 10).toFixed(1);
}

function workplaceRow(random: Random, number: string, name: string): string[] {
  const managers = random.int(0, 200);
  const officers = random.int(1, 15);
  const eligible = random.int(0, 40);
  return [
    number,
    name,
    '',
    random.pick(['300人以下', '301人以上']),
    '',
    '',
    '',
    '',
    '',
    figure(random, 1, 30, 4),
    figure(random, 22, 58, 3),
    figure(random, 0, 60, 3),
    '',
    figure(random, 5, 80, 3),
    random.chance(0.3) ? '' : String(random.int(0, managers)),
    random.chance(0.3) ? '' : String(managers),
    String(random.int(0, officers)),
    String(officers),
    String(eligible),
    '',
    String(random.int(0, eligible)),
    '',
  ];
}

export function* recordRows(kind: RecordKind, universe: Universe): Generator<string[]> {
  const bodies = namesOf('government-bodies', '独立行政法人中小企業基盤整備機構');
  const certifications = namesOf('certification-kinds', '〇〇県ものづくり企業認定');
  const awards = namesOf('award-kinds', '〇〇市優良企業表彰');
  const { every, most, salt } = shares[kind];
  const last = dayOf(universe.date);
  for (let index = 0; index < universe.companies; index++) {
    const random = new Random(mix(universe.seed ^ salt, index));
    if (random.int(0, every - 1) !== 0) continue;
    const company = companyByIndex(universe, index);
    const number = company.corporateNumber;
    const name = company.current.name ?? '';
    if (kind === 'workplace') {
      yield workplaceRow(random, number, name);
      continue;
    }
    for (let n = random.int(1, most); n > 0; n--) {
      const yen = random.chance(0.1) ? '' : (random.int(1, 500) * 10_000).toLocaleString('en-US');
      const start = random.int(last - 5 * 365, last);
      const day = dateOf(start);
      const body = random.pick(bodies);
      if (kind === 'subsidies') yield [number, name, '', day, `補助金 ${n}`, yen, '中小企業者', body];
      else if (kind === 'procurement') yield [number, name, '', day, `業務 ${n}`, yen, body, ''];
      else if (kind === 'certifications') {
        const expires = random.chance(0.5) ? dateOf(start + 3 * 365) : '';
        yield [number, name, '', day, random.pick(certifications), '', '', '中小企業', expires, body];
      } else yield [number, name, '', day, random.pick(awards), '', '', body];
    }
  }
}

/** Writes a kind's file (`Hojokinjoho_<date>.csv`, `Shokubajoho_<date>.csv`, …); the rows written. */
export function writeRecordFile(
  kind: RecordKind,
  universe: Universe,
  outDir: string,
  encoding: RegistryEncoding,
): { file: string; rows: number } {
  const { stem } = kindFormats[kind];
  const file = path.join(outDir, `${stem}_${universe.date.replace(/-/g, '')}.csv`);
  const quote = (fields: readonly string[]) =>
    fields.map((field) => `"${field.replaceAll('"', '""')}"`).join(',');
  const lines = [quote(recordColumns[kind])];
  for (const row of recordRows(kind, universe)) lines.push(quote(row));
  const text = `${lines.join('\r\n')}\r\n`;
  writeFileSync(file, encoding === 'utf8' ? `\uFEFF${text}` : iconv.encode(text, 'cp932'));
  return { file, rows: lines.length - 1 };
}
