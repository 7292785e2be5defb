/**
 * The registry generator (indexer/registry/generate.ts, generate-files.ts) and its zip writer:
 * what it writes is read back through the importer's own reader (csv.ts, input.ts) and row
 * checks (format.ts) with no reject at 10,000 companies, in both encodings, plain and zipped;
 * the same seed gives the same bytes; the diff changes companies the full files hold.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isValidCorporateNumber } from '../../indexer/corporate-number.js';
import { validateRow } from '../../indexer/registry/format.js';
import { writeDiffFile, writeFullFiles } from '../../indexer/registry/generate-files.js';
import { registrySources } from '../../indexer/registry/input.js';
import { detectEncoding, readCsvStream } from '../../src/text/csv.js';

const universe = { companies: 10_000, seed: 7, date: '2026-10-31' };
const dirs: string[] = [];
function outDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'registry-generate-'));
  dirs.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const layout = { encoding: 'utf8' as const, split: 0, zip: false, nationwide: false };

interface Read {
  rows: string[][];
  problems: string[];
  encodings: string[];
}

/** Every row of every file in `dir` (zips opened), in file order, through the importer's reader and checks. */
async function readAll(dir: string): Promise<Read> {
  const read: Read = { rows: [], problems: [], encodings: [] };
  for (const file of readdirSync(dir).sort())
    for await (const source of registrySources(path.join(dir, file))) {
      const encoding = detectEncoding(source.head);
      read.encodings.push(encoding);
      for await (const record of readCsvStream(source.open(), encoding)) {
        const check = validateRow(record.fields);
        if (record.problem) read.problems.push(`${file}:${record.number}: ${record.problem}`);
        if (!check.ok) read.problems.push(`${file}:${record.number}: ${check.reasons.join('; ')}`);
        read.rows.push(record.fields);
      }
    }
  return read;
}

function digest(dir: string): string {
  const hash = createHash('sha256');
  for (const file of readdirSync(dir).sort()) hash.update(file).update(readFileSync(path.join(dir, file)));
  return hash.digest('hex');
}

const latest = (rows: string[][]) => rows.filter((row) => row[23] === '1');

describe('full files', () => {
  it('10,000 companies, one file per prefecture: no reject, valid unique numbers, a mix of kinds and pasts', async () => {
    const dir = outDir();
    const files = await writeFullFiles(universe, { ...layout, outDir: dir });
    expect(files.length).toBe(47);
    expect(path.basename(files[12]?.file ?? '')).toBe('13_tokyo_all_20261031.csv');
    const { rows, problems } = await readAll(dir);
    expect(problems).toEqual([]);
    const current = latest(rows);
    expect(current).toHaveLength(universe.companies);
    const numbers = new Set(current.map((row) => row[1]));
    expect(numbers.size).toBe(universe.companies);
    expect([...numbers].every((number) => isValidCorporateNumber(number as string))).toBe(true);
    // every history row (latest=0) belongs to a company the file holds
    const history = rows.filter((row) => row[23] === '0');
    expect(history.length).toBeGreaterThan(universe.companies * 0.05);
    expect(history.every((row) => numbers.has(row[1]))).toBe(true);
    const kinds = new Set(current.map((row) => row[8]));
    for (const kind of ['301', '302', '305', '399', '401']) expect(kinds).toContain(kind);
    const processes = new Set(current.map((row) => row[2]));
    for (const process of ['01', '11', '12', '21', '71']) expect(processes).toContain(process);
    const withReading = current.filter((row) => row[28] !== '').length;
    expect(withReading).toBeGreaterThan(0);
    expect(withReading).toBeLessThan(universe.companies * 0.2);
    // each file numbers its rows from 1
    const tokyo = readFileSync(path.join(dir, '13_tokyo_all_20261031.csv'), 'utf8');
    expect(tokyo.startsWith('"1","')).toBe(true);
    expect(tokyo.endsWith('"\r\n')).toBe(true);
  });

  it('the same seed gives the same bytes; another seed other companies', async () => {
    const [a, b, c] = [outDir(), outDir(), outDir()];
    await writeFullFiles(universe, { ...layout, outDir: a });
    await writeFullFiles(universe, { ...layout, outDir: b });
    await writeFullFiles({ ...universe, seed: 8 }, { ...layout, outDir: c });
    expect(digest(a)).toBe(digest(b));
    expect(digest(a)).not.toBe(digest(c));
  });

  it('Shift_JIS, nationwide, split and zipped: the same rows, told apart as Shift_JIS, no reject', async () => {
    const [plain, packed] = [outDir(), outDir()];
    await writeFullFiles(universe, { ...layout, outDir: plain, nationwide: true });
    const files = await writeFullFiles(universe, {
      outDir: packed,
      encoding: 'sjis',
      split: 4000,
      zip: true,
      nationwide: true,
    });
    expect(files.map((file) => [path.basename(file.file), file.rows])).toEqual([
      ['00_zenkoku_all_20261031_1.zip', 4000],
      ['00_zenkoku_all_20261031_2.zip', 4000],
      // history rows (latest=0) come on top of the 10,000 companies
      ['00_zenkoku_all_20261031_3.zip', expect.any(Number)],
    ]);
    expect(files[2]?.rows).toBeLessThanOrEqual(4000);
    const fromZip = await readAll(packed);
    expect(fromZip.problems).toEqual([]);
    expect(new Set(fromZip.encodings)).toEqual(new Set(['sjis']));
    const fromCsv = await readAll(plain);
    // the sequence number restarts in each part; every other field is the same
    expect(fromZip.rows.map((row) => row.slice(1))).toEqual(fromCsv.rows.map((row) => row.slice(1)));
    // a standard unzip accepts the archive and its CRC-32s
    const test = spawnSync('unzip', ['-t', files[0]?.file ?? ''], { encoding: 'utf8' });
    expect(test.status, test.stderr).toBe(0);
    expect(test.stdout).toContain('No errors detected');
  });
});

describe('a day’s diff', () => {
  it('renames, moves, closes, restores and deletes companies of the full files; new ones are new', async () => {
    const [full, day] = [outDir(), outDir()];
    await writeFullFiles(universe, { ...layout, outDir: full });
    const { counts } = await writeDiffFile(universe, '2026-11-01', 3000, {
      ...layout,
      outDir: day,
      zip: true,
    });
    expect(readdirSync(day)).toEqual(['diff_20261101.zip']);
    const before = new Map(latest((await readAll(full)).rows).map((row) => [row[1], row]));
    const { rows, problems } = await readAll(day);
    expect(problems).toEqual([]);
    const current = latest(rows);
    expect(current).toHaveLength(3000);
    expect(new Set(current.map((row) => row[1])).size).toBe(3000);
    const byProcess = (code: string) => current.filter((row) => row[2] === code);
    expect(byProcess('01').length).toBe(counts.new);
    expect(byProcess('11').length).toBe(counts.rename);
    expect(byProcess('12').length).toBe(counts.address);
    expect(byProcess('21').length).toBe(counts.closure);
    expect(byProcess('22').length).toBe(counts.restoration);
    expect(byProcess('99').length).toBe(counts.deletion);
    for (const kind of Object.values(counts)) expect(kind).toBeGreaterThan(0);
    expect(byProcess('01').every((row) => !before.has(row[1]))).toBe(true);
    for (const code of ['11', '12', '21', '22', '99'])
      expect(
        byProcess(code).every((row) => before.has(row[1])),
        code,
      ).toBe(true);
    // a restored company was closed in the full files; a renamed one has a new name
    expect(byProcess('22').every((row) => before.get(row[1])?.[18] !== '')).toBe(true);
    expect(byProcess('11').filter((row) => row[6] !== before.get(row[1])?.[6]).length).toBeGreaterThan(
      counts.rename * 0.9,
    );
    // every row is dated the diff's day, after everything in the full files
    expect(current.every((row) => row[4] === '2026-11-01')).toBe(true);
  });
});
