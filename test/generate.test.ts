/**
 * The sample generator: byte-identical for one seed, different for another, every record
 * valid, corporate numbers with valid check digits, and a spread that gives every filter and
 * sort something to find.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { corporateCheckDigit, isValidCorporateNumber } from '../indexer/corporate-number.js';
import { allocatePostings, generateDataSet } from '../indexer/generate/generator.js';
import {
  corporateTypeLabels,
  fundingSeriesLabels,
  paidMediaSpendLabels,
  revenueRangeLabels,
} from '../indexer/labels.js';
import { loadMasters } from '../indexer/masters.js';
import type { CorporateSource, JobSource } from '../indexer/source-types.js';
import { toCorporateFields, toJobDocument } from '../indexer/transform.js';
import { validateLine } from '../indexer/validate.js';

const now = new Date('2026-11-21T00:00:00Z');
const day = 86_400_000;

async function generate(seed: number, companies = 600, jobs = 5000) {
  const outDir = mkdtempSync(path.join(os.tmpdir(), `generate-${seed}-`));
  const files = await generateDataSet({ companies, jobs, seed, now, outDir });
  const read = (file: string) => readFileSync(file);
  return { corporates: read(files.corporates), jobs: read(files.jobs) };
}

const sha = (data: Buffer) => createHash('sha256').update(data).digest('hex');
const lines = (data: Buffer) => data.toString('utf8').trim().split('\n');

describe('corporate number check digit', () => {
  it('matches published corporate numbers', () => {
    for (const number of ['7000012050002', '1180301018771', '5010401067252']) {
      expect(corporateCheckDigit(number.slice(1))).toBe(Number(number[0]));
      expect(isValidCorporateNumber(number)).toBe(true);
    }
    expect(isValidCorporateNumber('6000012050002')).toBe(false);
    expect(isValidCorporateNumber('700001205000')).toBe(false);
  });
});

describe('generateDataSet', () => {
  let first: Awaited<ReturnType<typeof generate>>;
  let companies: CorporateSource[];
  let postings: JobSource[];

  beforeAll(async () => {
    first = await generate(42);
    companies = lines(first.corporates).map((line) => JSON.parse(line) as CorporateSource);
    postings = lines(first.jobs).map((line) => JSON.parse(line) as JobSource);
  });

  it('is byte-identical for the same seed and differs for another', async () => {
    const again = await generate(42);
    expect(sha(again.corporates)).toBe(sha(first.corporates));
    expect(sha(again.jobs)).toBe(sha(first.jobs));
    const other = await generate(43);
    expect(sha(other.corporates)).not.toBe(sha(first.corporates));
    expect(sha(other.jobs)).not.toBe(sha(first.jobs));
  });

  it('writes exactly the asked counts of schema-valid records with unique, valid corporate numbers', () => {
    expect(companies).toHaveLength(600);
    expect(postings).toHaveLength(5000);
    for (const line of [...lines(first.corporates), ...lines(first.jobs)])
      expect(validateLine(line)).toMatchObject({ ok: true });
    const numbers = new Set(companies.map((company) => company.corporateNumber));
    expect(numbers.size).toBe(600);
    expect([...numbers].every(isValidCorporateNumber)).toBe(true);
    expect(new Set(postings.map((posting) => posting.id)).size).toBe(5000);
  });

  it('uses only real master ids (the transform names every one of them)', () => {
    const masters = loadMasters();
    const byNumber = new Map(
      companies.map((company) => [company.corporateNumber, toCorporateFields(company, masters)]),
    );
    for (const posting of postings) {
      const owner = byNumber.get(posting.corporateNumber);
      expect(owner).toBeDefined();
      expect(() => toJobDocument(posting, owner ?? {}, masters, now)).not.toThrow();
    }
  });

  it('spreads values so that every filter and sort has matches and non-matches', () => {
    const values = <T>(items: T[], pick: (item: T) => unknown) => new Set(items.map(pick));
    expect(values(companies, (c) => c.corporateType)).toEqual(new Set(Object.keys(corporateTypeLabels)));
    expect(values(companies, (c) => c.revenueRange)).toEqual(
      new Set([...Object.keys(revenueRangeLabels), null]),
    );
    expect(values(companies, (c) => c.paidMediaSpend)).toEqual(
      new Set([...Object.keys(paidMediaSpendLabels), null]),
    );
    expect(values(companies, (c) => c.fundingSeries).size).toBeGreaterThanOrEqual(
      Object.keys(fundingSeriesLabels).length - 2,
    );
    expect(values(postings, (p) => p.workLocation?.kind ?? null)).toEqual(
      new Set(['onsite', 'remote', 'client_site', 'one_off', 'unknown', null]),
    );
    expect(values(postings, (p) => p.employmentTypeId)).toEqual(new Set([1, 2, 3, 4, 5, 6, 7, 8, 9]));
    expect(values(postings, (p) => p.salaryUnit)).toEqual(
      new Set(['yearly', 'monthly', 'daily', 'hourly', null]),
    );

    const diffs = companies.map((c) => c.employeeDiff6mMin).filter((d): d is number => typeof d === 'number');
    expect(diffs.some((d) => d > 0) && diffs.some((d) => d < 0)).toBe(true);
    expect(companies.some((c) => (c.marketCodes ?? []).length > 0)).toBe(true);
    expect(companies.some((c) => (c.marketCodes ?? []).length === 0)).toBe(true);
    expect(companies.some((c) => c.hasDispatchLicense === true)).toBe(true);
    expect(companies.some((c) => c.phoneNumber === null) && companies.some((c) => c.email !== null)).toBe(
      true,
    );

    // Tokyo-heavy
    const tokyo = companies.filter((c) => c.prefectureId === 13).length / companies.length;
    expect(tokyo).toBeGreaterThan(0.2);
    expect(tokyo).toBeLessThan(0.45);

    // skewed: a staffing firm carries far more postings than the median company
    const perCompany = new Map<string, number>();
    for (const p of postings) perCompany.set(p.corporateNumber, (perCompany.get(p.corporateNumber) ?? 0) + 1);
    const counts = [...perCompany.values()].sort((a, b) => a - b);
    expect(counts[counts.length - 1]).toBeGreaterThan(20 * (counts[Math.floor(counts.length / 2)] ?? 1));

    // texts of a few KB, collected over ~3 months: the one-month window holds some, not all
    const sizes = postings.flatMap((p) => (p.description ? [Buffer.byteLength(p.description)] : []));
    expect(sizes.reduce((a, b) => a + b, 0) / sizes.length).toBeGreaterThan(2000);
    const ages = postings.flatMap((p) =>
      p.descriptionCollectedAt ? [(now.getTime() - Date.parse(p.descriptionCollectedAt)) / day] : [],
    );
    const recent = ages.filter((age) => age <= 30).length / ages.length;
    expect(recent).toBeGreaterThan(0.2);
    expect(recent).toBeLessThan(0.5);
    expect(postings.some((p) => p.description === null)).toBe(true);
  });
});

describe('allocatePostings', () => {
  it('splits the total by weight and sums exactly', () => {
    expect(allocatePostings([3, 1, 0], 10)).toEqual([8, 2, 0]);
    expect(allocatePostings([1, 1, 1], 10).reduce((a, b) => a + b, 0)).toBe(10);
    expect(allocatePostings([0, 0], 5)).toEqual([0, 0]);
  });
});
