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
import { corporateCheckDigit, isValidCorporateNumber } from '../../indexer/corporate-number.js';
import {
  corporateTypeLabels,
  fundingSeriesLabels,
  paidMediaSpendLabels,
  revenueRangeLabels,
} from '../../indexer/labels.js';
import { loadMasters } from '../../indexer/masters.js';
import type { CorporateSource, JobSource } from '../../indexer/source-types.js';
import { isRecent, searchableSince, toCorporateFields, toJobDocument } from '../../indexer/transform.js';
import { validateLine } from '../../indexer/validate.js';
import {
  allocatePostings,
  generateDataSet,
  nestedPostingLimit,
  pastLimitCounts,
  postingCounts,
} from '../../sample-data/generator.js';
import { formulaNameStarts } from '../../sample-data/hard-cases.js';

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

// ---------------------------------------------------------------------------------------
// A sample a Japanese reader believes. The facts below are written here, independently of the
// generator's own table (sample-data/data/places.json), and at a coarser grain: the postal
// districts of Japan Post (first three digits per prefecture) and the area codes of the
// Ministry of Internal Affairs and Communications' numbering plan per prefecture.

/** First three postal digits per prefecture id: inclusive ranges. */
const postalRanges: Record<number, Array<[number, number]>> = {
  1: [[1, 99]],
  2: [[30, 39]],
  3: [[20, 29]],
  4: [[980, 989]],
  5: [[10, 19]],
  6: [[990, 999]],
  7: [[960, 979]],
  8: [[300, 319]],
  9: [[320, 329]],
  10: [[370, 379]],
  11: [[330, 369]],
  12: [[260, 299]],
  13: [[100, 208]],
  14: [[210, 259]],
  15: [[940, 959]],
  16: [[930, 939]],
  17: [[920, 929]],
  18: [[910, 919]],
  19: [[400, 409]],
  20: [[380, 399]],
  21: [[500, 509]],
  22: [[410, 439]],
  23: [[440, 499]],
  24: [[510, 519]],
  25: [[520, 529]],
  26: [[600, 629]],
  27: [[530, 599]],
  28: [[650, 679]],
  29: [[630, 639]],
  30: [[640, 649]],
  31: [[680, 689]],
  32: [[690, 699]],
  33: [[700, 719]],
  34: [[720, 739]],
  35: [[740, 759]],
  36: [[770, 779]],
  37: [[760, 769]],
  38: [[790, 799]],
  39: [[780, 789]],
  40: [[800, 839]],
  41: [[840, 849]],
  42: [[850, 859]],
  43: [[860, 869]],
  44: [[870, 879]],
  45: [[880, 889]],
  46: [[890, 899]],
  47: [[900, 909]],
};

/** How fixed-line numbers in each prefecture begin (area code, with its trailing hyphen where it is short). */
const phonePrefixes: Record<number, string[]> = {
  1: ['01'],
  2: ['017'],
  3: ['019'],
  4: ['022'],
  5: ['018'],
  6: ['023'],
  7: ['024'],
  8: ['029'],
  9: ['028'],
  10: ['027'],
  11: ['048', '049', '04-'],
  12: ['043', '047', '04-'],
  13: ['03-', '042', '0422'],
  14: ['045', '044', '042', '046'],
  15: ['025'],
  16: ['076'],
  17: ['076'],
  18: ['0776'],
  19: ['055'],
  20: ['026'],
  21: ['058'],
  22: ['054', '053', '055'],
  23: ['052', '053', '056', '058'],
  24: ['059'],
  25: ['077'],
  26: ['075', '0774'],
  27: ['06-', '072'],
  28: ['078', '079', '06-', '0798'],
  29: ['0742'],
  30: ['073'],
  31: ['0857'],
  32: ['0852'],
  33: ['086'],
  34: ['082', '084'],
  35: ['083'],
  36: ['088'],
  37: ['087'],
  38: ['089'],
  39: ['088'],
  40: ['092', '093', '0942'],
  41: ['0952'],
  42: ['095'],
  43: ['096'],
  44: ['097'],
  45: ['0985'],
  46: ['099'],
  47: ['098'],
};

/** Cities whose codes a reader checks first: postal prefixes and area code. */
const cityFacts: Record<string, { postal: string[]; phone: string }> = {
  渋谷区: { postal: ['150', '151'], phone: '03-' },
  千代田区: { postal: ['100', '101', '102'], phone: '03-' },
  港区: { postal: ['105', '106', '107', '108'], phone: '03-' },
  大阪市北区: { postal: ['530', '531'], phone: '06-' },
  名古屋市中区: { postal: ['460'], phone: '052-' },
  札幌市中央区: { postal: ['060', '064'], phone: '011-' },
  横浜市西区: { postal: ['220'], phone: '045-' },
  福岡市博多区: { postal: ['812'], phone: '092-' },
};

/**
 * When each legal form could be founded: 株式会社 and the partnerships under the Commercial
 * Code (1893); 有限会社 from the Limited Liability Company Act (1940) until the Companies Act
 * abolished new ones (May 2006); 合同会社 from the Companies Act (2006-05-01); the
 * non-company forms from their own acts.
 */
const foundingWindows: Array<{ form: RegExp; from: string; to?: string }> = [
  { form: /有限会社|㈲|（有）|\(有\)/, from: '1940-01-01', to: '2006-04-30' },
  { form: /合同会社/, from: '2006-05-01' },
  { form: /株式会社|㈱|（株）|\(株\)/, from: '1893-07-01' },
  { form: /合名会社|合資会社/, from: '1893-07-01' },
  { form: /^一般社団法人|^一般財団法人/, from: '2008-12-01' },
  { form: /^独立行政法人/, from: '2001-04-01' },
  { form: /^特定非営利活動法人/, from: '1998-12-01' },
  { form: /^学校法人/, from: '1950-03-15' },
  { form: /^社会福祉法人/, from: '1951-03-29' },
  { form: /^医療法人/, from: '1950-01-01' },
];

const legalFormOfType: Record<string, RegExp> = {
  kabushiki_gaisha: /株式会社|㈱|（株）|\(株\)/,
  yugen_gaisha: /有限会社|㈲|（有）|\(有\)/,
  godo_gaisha: /合同会社/,
  gomei_gaisha: /合名会社/,
  goshi_gaisha: /合資会社/,
  other: /^(一般社団法人|一般財団法人|独立行政法人|特定非営利活動法人|学校法人|社会福祉法人|医療法人)/,
};

/** A company name without the formula-name hard case's payload in front. */
const withoutFormulaStart = (name: string) => {
  const start = formulaNameStarts.find((candidate) => name.startsWith(candidate));
  return start ? name.slice(start.length) : name;
};

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
};

describe('a sample a Japanese reader believes', () => {
  const nestedLimit = 300;
  let companies: CorporateSource[];
  let postings: JobSource[];

  beforeAll(async () => {
    const outDir = mkdtempSync(path.join(os.tmpdir(), 'generate-plausible-'));
    const files = await generateDataSet({
      companies: 800,
      jobs: 6000,
      seed: 20261121,
      now,
      outDir,
      nestedLimit,
    });
    companies = lines(readFileSync(files.corporates)).map((line) => JSON.parse(line) as CorporateSource);
    postings = lines(readFileSync(files.jobs)).map((line) => JSON.parse(line) as JobSource);
  });

  it('gives every company a postal code and telephone numbers of its own prefecture and city', () => {
    let checkedCities = 0;
    for (const company of companies) {
      const prefecture = company.prefectureId as number;
      const where = `${company.name} (${prefecture} ${company.cityName})`;
      if (company.postalCode) {
        expect(company.postalCode, where).toMatch(/^\d{3}-\d{4}$/);
        const first = Number(company.postalCode.slice(0, 3));
        expect(
          postalRanges[prefecture]?.some(([from, to]) => first >= from && first <= to),
          `${where}: ${company.postalCode}`,
        ).toBe(true);
      }
      for (const number of [company.phoneNumber, company.fax]) {
        if (!number) continue;
        expect(number.replace(/-/g, ''), `${where}: ${number}`).toMatch(/^0[1-9]\d{8}$/);
        expect(
          phonePrefixes[prefecture]?.some((prefix) => number.startsWith(prefix)),
          `${where}: ${number}`,
        ).toBe(true);
      }
      if (company.phoneNumber && company.fax)
        expect(company.fax.split('-')[0]).toBe(company.phoneNumber.split('-')[0]);
      const facts = cityFacts[company.cityName ?? ''];
      if (facts) {
        checkedCities++;
        if (company.postalCode) expect(facts.postal, where).toContain(company.postalCode.slice(0, 3));
        if (company.phoneNumber) expect(company.phoneNumber.startsWith(facts.phone), where).toBe(true);
      }
    }
    expect(checkedCities).toBeGreaterThan(50);
    // Tokyo first, then Osaka and Aichi among the big ones
    const share = (id: number) => companies.filter((c) => c.prefectureId === id).length / companies.length;
    expect(share(13)).toBeGreaterThan(0.2);
    expect(share(27)).toBeGreaterThan(0.05);
    expect(share(23)).toBeGreaterThan(0.04);
    expect(share(27)).toBeGreaterThan(share(47) * 4);
  });

  it('writes street addresses the ways Japanese records do', () => {
    const addresses = companies.map((c) => c.streetAddress ?? '');
    expect(addresses.some((a) => /\d+丁目\d+番\d+号/.test(a))).toBe(true);
    expect(addresses.some((a) => /[一二三四五六七八九]丁目/.test(a))).toBe(true);
    expect(addresses.some((a) => /\d+-\d+-\d+/.test(a))).toBe(true);
    expect(addresses.some((a) => /[０-９]+－[０-９]+/.test(a))).toBe(true);
    expect(addresses.some((a) => /\d+番地/.test(a))).toBe(true);
    expect(addresses.some((a) => /ビル|タワー|会館|プラザ|スクエア/.test(a))).toBe(true);
    expect(addresses.some((a) => /(\d+F|\d+階)$/.test(a))).toBe(true);
  });

  it('founds each legal form only in the years it existed, and names it as its type says', () => {
    let checked = 0;
    for (const company of companies) {
      // the formula-name hard case puts a payload in front of the name the type gave it
      const name = withoutFormulaStart(company.name);
      const pattern = legalFormOfType[company.corporateType ?? ''];
      if (pattern) expect(name, `${company.corporateType}`).toMatch(pattern);
      if (company.corporateType === 'local_gov') expect(name).toMatch(/[市区町村都道府県]$/);
      if (!company.foundedAt) continue;
      const founded = company.foundedAt.slice(0, 10);
      expect(Date.parse(company.foundedAt)).toBeLessThan(now.getTime());
      const window = foundingWindows.find(({ form }) => form.test(name));
      if (!window) continue;
      checked++;
      expect(founded >= window.from, `${name} founded ${founded}`).toBe(true);
      if (window.to) expect(founded <= window.to, `${name} founded ${founded}`).toBe(true);
    }
    expect(checked).toBeGreaterThan(500);
    const founded = (type: string) =>
      companies.filter((c) => c.corporateType === type && c.foundedAt).map((c) => c.foundedAt?.slice(0, 4));
    expect(founded('yugen_gaisha').length).toBeGreaterThan(20);
    expect(founded('godo_gaisha').length).toBeGreaterThan(20);
  });

  it('sizes companies by form and listing: long-tailed, listed ones far larger', () => {
    const heads = (list: CorporateSource[]) =>
      list.flatMap((c) => (typeof c.employeeCount === 'number' ? [c.employeeCount] : []));
    const listed = companies.filter((c) => (c.marketCodes ?? []).length > 0);
    const unlisted = companies.filter((c) => c.corporateType === 'kabushiki_gaisha' && listed.indexOf(c) < 0);
    expect(listed.length).toBeGreaterThan(10);
    expect(median(heads(listed))).toBeGreaterThan(10 * median(heads(unlisted)));
    const capital = (list: CorporateSource[]) =>
      list.flatMap((c) => (typeof c.capitalMillionYen === 'number' ? [c.capitalMillionYen] : []));
    expect(median(capital(listed))).toBeGreaterThan(10 * median(capital(unlisted)));
    const all = heads(companies);
    expect(Math.max(...all)).toBeGreaterThan(100 * median(all));
    // only companies have capital; 有限会社 needed 3 million yen
    for (const company of companies) {
      if (
        /^(一般社団法人|一般財団法人|特定非営利活動法人)/.test(company.name) ||
        company.corporateType === 'local_gov'
      )
        expect(company.capitalMillionYen ?? null).toBeNull();
      if (company.corporateType === 'yugen_gaisha' && company.capitalMillionYen != null)
        expect(company.capitalMillionYen).toBeGreaterThanOrEqual(3);
      if (company.marketCodes?.length) expect(company.corporateType).toBe('kabushiki_gaisha');
    }
  });

  it('moves head counts plausibly over the year', () => {
    const histories = companies.filter(
      (c) =>
        typeof c.emp1MAgo === 'number' && typeof c.emp13MAgo === 'number' && (c.emp13MAgo as number) > 20,
    );
    expect(histories.length).toBeGreaterThan(100);
    const ratios = histories.map((c) => (c.emp1MAgo as number) / (c.emp13MAgo as number));
    expect(ratios.filter((r) => r > 0.7 && r < 1.5).length / ratios.length).toBeGreaterThan(0.9);
    expect(ratios.every((r) => r > 0.3 && r < 3)).toBe(true);
    expect(ratios.some((r) => r > 1) && ratios.some((r) => r < 1)).toBe(true);
    // the 6-month step lies between (a trend, not a zigzag) for most
    const between = histories.filter((c) => {
      const [a, b, d] = [c.emp13MAgo as number, c.emp7MAgo ?? null, c.emp1MAgo as number];
      return b === null || (b - a) * (d - b) >= 0 || Math.abs(b - a) <= 0.05 * a;
    });
    expect(between.length / histories.length).toBeGreaterThan(0.6);
  });

  it('mixes media by industry: care jobs on ジョブメドレー, executive search not for shop staff', () => {
    const industryOf = new Map(companies.map((c) => [c.corporateNumber, c.industryCategoryId]));
    const on = (mediaId: number) => postings.filter((p) => p.mediaId === mediaId);
    const jobMedley = on(18);
    expect(jobMedley.length).toBeGreaterThan(20);
    const medical = jobMedley.filter((p) => industryOf.get(p.corporateNumber) === 16).length;
    expect(medical / jobMedley.length).toBeGreaterThan(0.8);
    const executive = [...on(12), ...on(21)];
    expect(executive.length).toBeGreaterThan(10);
    // 宿泊・飲食 (13) and 医療・福祉 (16) hire through other channels
    expect(executive.filter((p) => [13, 16].includes(industryOf.get(p.corporateNumber) ?? 0))).toHaveLength(
      0,
    );
  });

  it('gives every company a katakana reading of its whole name, the legal form read where it stands', () => {
    const formReadings: Array<[RegExp, RegExp, string]> = [
      [/^(株式会社|㈱|（株）|\(株\))/, /(株式会社|㈱|（株）|\(株\))$/, 'カブシキガイシャ'],
      [/^(有限会社|㈲|（有）|\(有\))/, /(有限会社|㈲|（有）|\(有\))$/, 'ユウゲンガイシャ'],
      [/^合同会社/, /合同会社$/, 'ゴウドウガイシャ'],
    ];
    let katakanaNames = 0;
    for (const company of companies) {
      const reading = company.furigana ?? '';
      expect(reading, company.name).toMatch(/^[ァ-ヶー]{1,300}$/);
      for (const [front, back, formReading] of formReadings) {
        if (front.test(company.name)) expect(reading.startsWith(formReading), company.name).toBe(true);
        if (back.test(company.name) && company.name.length < 100)
          expect(reading.endsWith(formReading), company.name).toBe(true);
      }
      // a name written in katakana reads as written, without its middle dots
      const core = company.name.replace(/^(株式会社|有限会社|合同会社)|(株式会社|有限会社|合同会社)$/, '');
      if (/^[ァ-ヶー・]+$/.test(core) && company.name.length < 100) {
        katakanaNames++;
        expect(
          reading.replace(/^(カブシキ|ユウゲン|ゴウドウ)ガイシャ|(カブシキ|ユウゲン|ゴウドウ)ガイシャ$/, ''),
        ).toBe(core.replace(/・/g, ''));
      }
    }
    expect(katakanaNames).toBeGreaterThan(50);
    // the municipalities and the readings of hard-case names
    expect(companies.some((c) => c.corporateType === 'local_gov')).toBe(true);
    for (const company of companies.filter((c) => /[Ａ-Ｚ]|[Ⅱ-Ⅳ]/.test(c.name)))
      expect(company.furigana, company.name).toMatch(
        /エー|ビー|シー|ジェー|ケー|エス|ネクスト|エイム|ツー|スリー|フォー/,
      );
  });

  it('writes names with old kanji, 々, ヴ, small kana, ー and ・, and namesakes with their own numbers', () => {
    const names = companies.map((c) => c.name);
    // each old kanji in turn, on the records that are named from a stem (not every type is)
    const oldKanji = ['髙', '﨑', '齋', '邊', '澤', '廣', '德', '濱', '國', '會'];
    expect(
      oldKanji.filter((mark) => names.some((name) => name.includes(mark))).length,
    ).toBeGreaterThanOrEqual(8);
    for (const mark of ['々', 'ヴ', 'ャ', 'ー'])
      expect(
        names.some((name) => name.includes(mark)),
        `a name with ${mark}`,
      ).toBe(true);
    // a middle dot in a name that is neither a foreign company's nor a very long one
    expect(
      companies.some(
        (c) => c.name.includes('・') && c.corporateType !== 'foreign_company' && c.name.length < 100,
      ),
    ).toBe(true);
    // legal form before and after the name
    expect(names.some((name) => name.startsWith('株式会社'))).toBe(true);
    expect(names.some((name) => name.endsWith('株式会社'))).toBe(true);

    // records 57 and 58 of each hundred take the name of an earlier company of their type, in
    // another prefecture (57) or in their own (58); a type with no earlier 株式会社, 有限会社 or
    // 合同会社 to take from keeps its own name
    const namesakeOf = (at: number, samePrefecture: boolean) => {
      const company = companies[at] as CorporateSource;
      return companies
        .slice(0, at)
        .find(
          (c) =>
            c.name === company.name &&
            c.furigana === company.furigana &&
            c.corporateType === company.corporateType &&
            c.corporateNumber !== company.corporateNumber &&
            (c.prefectureId === company.prefectureId) === samePrefecture,
        );
    };
    const hundreds = Array.from({ length: 8 }, (_, n) => n * 100);
    expect(hundreds.filter((h) => namesakeOf(h + 57, false)).length).toBeGreaterThanOrEqual(6);
    expect(hundreds.filter((h) => namesakeOf(h + 58, true)).length).toBeGreaterThanOrEqual(4);
  });

  it('holds each hard case', () => {
    const names = companies.map((c) => c.name);
    for (const pattern of [/㈱/, /（株）/, /\(株\)/, /[Ａ-Ｚ]/, /[ｦ-ﾟ]/, /[Ⅰ-Ⅻ]/])
      expect(
        names.some((name) => pattern.test(name)),
        `a name with ${pattern}`,
      ).toBe(true);
    expect(names.some((name) => name.length === 300)).toBe(true);
    expect(names.filter((name) => name.length >= 100).length).toBeGreaterThanOrEqual(3);
    // names a spreadsheet would run as a formula: every start, on one company in 50 exactly
    for (const start of formulaNameStarts)
      expect(
        names.some((name) => name.startsWith(start) && name.length > start.length),
        `a name starting with ${JSON.stringify(start)}`,
      ).toBe(true);
    expect(names.filter((name) => formulaNameStarts.some((start) => name.startsWith(start)))).toHaveLength(
      companies.length / 50,
    );

    const titles = postings.map((p) => p.title);
    for (const pattern of [/[①-⑳]/, /[Ⅰ-Ⅻ]/, /～/, /[０-９]/, /[ｦ-ﾟ]/, /㈱/, /℡/])
      expect(
        titles.some((title) => pattern.test(title)),
        `a title with ${pattern}`,
      ).toBe(true);
    const texts = postings.flatMap((p) => (p.description ? [p.description] : []));
    for (const pattern of [/[①-⑳]/, /～/, /℡/, /[０-９]/, /㈱/, /[ｦ-ﾟ]/, /[Ⅰ-Ⅻ]/])
      expect(
        texts.some((text) => pattern.test(text)),
        `a text with ${pattern}`,
      ).toBe(true);
    const summaries = companies.flatMap((c) => (c.summary ? [c.summary] : []));
    for (const pattern of [/[①-⑳]/, /～/, /℡/])
      expect(
        summaries.some((text) => pattern.test(text)),
        `a summary with ${pattern}`,
      ).toBe(true);
    expect(companies.some((c) => /−/.test(c.streetAddress ?? ''))).toBe(true);

    // companies with no postings, and companies past the nested limit
    const perCompany = new Map<string, number>();
    for (const p of postings) perCompany.set(p.corporateNumber, (perCompany.get(p.corporateNumber) ?? 0) + 1);
    expect(companies.filter((c) => !perCompany.has(c.corporateNumber)).length).toBeGreaterThan(100);
    const past = [...perCompany.values()].filter((count) => count > nestedLimit).sort((a, b) => a - b);
    // the two placed on purpose (with this small limit a busy staffing firm may pass it too)
    expect(past).toEqual(expect.arrayContaining([nestedLimit + 1, nestedLimit + 10]));

    // every work-location kind
    expect(new Set(postings.map((p) => p.workLocation?.kind ?? null))).toEqual(
      new Set(['onsite', 'remote', 'client_site', 'one_off', 'unknown', null]),
    );

    // texts just inside and just outside the searchable window, as the indexer decides it
    const since = searchableSince(now).getTime();
    const offsets = postings.flatMap((p) =>
      p.descriptionCollectedAt ? [[Date.parse(p.descriptionCollectedAt) - since, p] as const] : [],
    );
    const inside = offsets.filter(([offset]) => offset >= 0 && offset <= 10 * 60_000);
    const outside = offsets.filter(([offset]) => offset < 0 && offset >= -10 * 60_000);
    expect(inside.length).toBeGreaterThan(20);
    expect(outside.length).toBeGreaterThan(20);
    expect(inside.every(([, p]) => isRecent(p.descriptionCollectedAt, now))).toBe(true);
    expect(outside.some(([, p]) => isRecent(p.descriptionCollectedAt, now))).toBe(false);
    // a posting is never younger than its collected text
    for (const [, p] of offsets)
      expect(Date.parse(p.jobCreatedAt as string)).toBeLessThanOrEqual(
        Date.parse(p.descriptionCollectedAt as string),
      );
  });
});

describe('companies past the nested limit', () => {
  it('appear only in large sets: one at four times the limit, three at the 1M bench size', () => {
    const mapping = JSON.parse(readFileSync(path.join(process.cwd(), 'mappings', 'corporates.json'), 'utf8'));
    expect(nestedPostingLimit()).toBe(mapping.settings.index.mapping.nested_objects.limit);
    expect(pastLimitCounts(20_000, 50_000)).toEqual([]);
    expect(pastLimitCounts(199_999, 50_000)).toEqual([]);
    expect(pastLimitCounts(200_000, 50_000)).toEqual([50_010]);
    expect(pastLimitCounts(1_000_000, 50_000)).toEqual([50_010, 50_001, 52_500]);
  });

  it('gives them their counts and shares the rest by weight, summing exactly', () => {
    const stubs = [
      { weight: 1, staffing: false },
      { weight: 5, staffing: true },
      { weight: 0, staffing: false },
      { weight: 3, staffing: false },
    ];
    const counts = postingCounts(stubs, 1000, 100);
    expect(counts[1]).toBe(110);
    expect(counts[2]).toBe(0);
    expect(counts.reduce((a, b) => a + b, 0)).toBe(1000);
    expect(counts[3]).toBeGreaterThan(counts[0] as number);
  });
});
