/**
 * The rules of docs/decisions/filters.md, on the real engine: the same-posting rule and `…Not` on postings,
 * substring matching on Japanese text, the one-month window of the detail text, filter groups,
 * snippets, and the request checks the compiler makes itself.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { searchCorporates, searchJobs } from '../../src/search/run-search.js';
import type { Services } from '../../src/services.js';
import { corporate, daysAgo, indexFixture, job, posting } from '../fixtures/search/docs.js';
import { setUpServices } from '../support/env.js';
import { rejection } from '../support/rejection.js';

let services: Services;

const FULL_TIME = 1;
const PART_TIME = 2;
const SALES = 5;
const ENGINEER = 6;
// media master ids (data/masters/media.json): a search takes only ids its master has
const MEDIUM_A = 11;
const MEDIUM_B = 12;

// same-posting rule: mixed has a full-time sales posting and a part-time engineer posting
const mixed = corporate({
  name: '混在商事',
  postings: [
    posting({ employmentTypeId: FULL_TIME, jobCategoryId: SALES }),
    posting({ employmentTypeId: PART_TIME, jobCategoryId: ENGINEER }),
  ],
});
const fullTimeEngineer = corporate({
  name: '正社員技術',
  postings: [posting({ employmentTypeId: FULL_TIME, jobCategoryId: ENGINEER })],
});
// posting Not: onBoth advertises on A and B, onlyA on A only
const onBoth = corporate({
  name: '両方掲載',
  postings: [posting({ mediaId: MEDIUM_A }), posting({ mediaId: MEDIUM_B })],
});
const onlyA = corporate({ name: 'A媒体のみ', postings: [posting({ mediaId: MEDIUM_A })] });
// substring matching
const tokyo = corporate({ name: '東京都庁サービス', cityName: '新宿区' });
const abc = corporate({ name: 'abc商事', cityName: '港区' });
const kana = corporate({ name: 'ｶﾌﾞｼｷｶﾞｲｼｬﾃｽﾄ', cityName: '北区' });
// detail text window
const recentKotlin = corporate({
  name: '最近Kotlin',
  postings: [posting({ description: 'Kotlinでの開発経験', descriptionCollectedAt: daysAgo(5) })],
});
const oldKotlin = corporate({
  name: '古いKotlin',
  postings: [posting({ description: 'Kotlinでの開発経験', descriptionCollectedAt: daysAgo(45) })],
});

const jobRecent = job({
  title: '最近の求人',
  description: 'Kotlin と Go の開発',
  descriptionCollectedAt: daysAgo(3),
});
const jobOld = job({ title: '古い求人', description: 'Kotlin の保守', descriptionCollectedAt: daysAgo(40) });
const jobScript = job({
  title: 'スクリプト求人',
  description: '歓迎: <script>alert("x")</script> と Rust の経験 & 熱意',
  descriptionCollectedAt: daysAgo(2),
});
const jobMany = job({
  title: '多数一致',
  description: Array.from({ length: 12 }, (_, i) => `段落${i}では設計を担当します。`).join(
    'ーーーーーーーーーーーーーーーーーーーーーーーーーーーーーーーーーーーーーーーーーー',
  ),
  descriptionCollectedAt: daysAgo(1),
});
const jobNoText = job({ title: '本文なし' });
// bounds: late evening of 31 March in Japan is 31 March, although it is 14:30 UTC
const jobLateMarch = job({ title: '三月末', jobCreatedAt: '2025-03-31T23:30:00+09:00', salaryMin: 200_000 });

const groupsFixture = [mixed, fullTimeEngineer, onBoth, onlyA, tokyo, abc, kana, recentKotlin, oldKotlin];

beforeAll(async () => {
  services = await setUpServices('search-semantics');
  await indexFixture(services.opensearch, services.config.indexPrefix, {
    corporates: groupsFixture,
    jobs: [jobRecent, jobOld, jobScript, jobMany, jobNoText, jobLateMarch],
  });
});
afterAll(async () => {
  await services?.close();
});

async function companyNames(body: Record<string, unknown>): Promise<string[]> {
  const { results } = await searchCorporates(services, { limit: 100, ...body });
  return results.map((record) => String(record.name)).sort();
}

async function jobTitles(body: Record<string, unknown>): Promise<string[]> {
  const { results } = await searchJobs(services, { limit: 100, ...body });
  return results.map((record) => String(record.title)).sort();
}

describe('same-posting rule (company search)', () => {
  it('needs ONE posting to satisfy all positive posting conditions together', async () => {
    expect(await companyNames({ jobEmploymentTypeIdOr: [FULL_TIME], jobCategoryIdOr: [ENGINEER] })).toEqual([
      '正社員技術',
    ]);
  });

  it('applies across the flat and nested forms alike', async () => {
    expect(
      await companyNames({
        jobEmploymentTypeIdOr: [FULL_TIME],
        filters: { jobCategoryId: { any: [ENGINEER] } },
      }),
    ).toEqual(['正社員技術']);
  });

  it('finds both conditions on different postings only when they are asked separately per group', async () => {
    expect(
      await companyNames({
        filterGroups: [{ jobEmploymentTypeId: { any: [PART_TIME] } }, { jobCategoryId: { any: [ENGINEER] } }],
        filters: { jobEmploymentTypeId: { any: [FULL_TIME] } },
      }),
    ).toEqual(['正社員技術']);
  });

  it('excludes a company having ANY posting matching a …Not condition', async () => {
    expect(await companyNames({ jobMediaIdOr: [MEDIUM_A], jobMediaIdNot: [MEDIUM_B] })).toEqual([
      'A媒体のみ',
    ]);
    expect(await companyNames({ jobMediaIdOr: [MEDIUM_A] })).toEqual(['A媒体のみ', '両方掲載']);
  });
});

describe('substring matching', () => {
  it('finds a Japanese substring inside a name', async () => {
    expect(await companyNames({ corporateNamePartialMatchOr: ['京都庁'] })).toEqual(['東京都庁サービス']);
  });

  it('matches a 1-character query', async () => {
    expect(await companyNames({ cityNamePartialMatchOr: ['港'] })).toEqual(['abc商事']);
    expect(await companyNames({ corporateNamePartialMatchOr: ['庁'] })).toEqual(['東京都庁サービス']);
  });

  it('folds width and case: ＡＢＣ = ABC = abc', async () => {
    for (const query of ['ＡＢＣ', 'ABC', 'abc', 'Ａbc'])
      expect(await companyNames({ corporateNamePartialMatchOr: [query] }), query).toEqual(['abc商事']);
  });

  it('folds half-width katakana: カブシキガイシャ finds ｶﾌﾞｼｷｶﾞｲｼｬ', async () => {
    expect(await companyNames({ corporateNamePartialMatchOr: ['カブシキガイシャ'] })).toEqual([
      'ｶﾌﾞｼｷｶﾞｲｼｬﾃｽﾄ',
    ]);
  });

  it('does not match characters that are present but apart', async () => {
    expect(await companyNames({ corporateNamePartialMatchOr: ['東庁'] })).toEqual([]);
  });

  it('keeps exact name conditions exact: a part of the name is no match', async () => {
    expect(await companyNames({ corporateNameOr: ['東京都庁'] })).toEqual([]);
    expect(await companyNames({ corporateNameOr: ['東京都庁サービス'] })).toEqual(['東京都庁サービス']);
  });

  it('folds exact names as the contains filters do: width, case, half-width kana', async () => {
    for (const query of ['ABC商事', 'ＡＢＣ商事', 'abc商事', 'Ａbc商事'])
      expect(await companyNames({ corporateNameOr: [query] }), query).toEqual(['abc商事']);
    expect(await companyNames({ corporateNameOr: ['カブシキガイシャテスト'] })).toEqual(['ｶﾌﾞｼｷｶﾞｲｼｬﾃｽﾄ']);
    const others = await companyNames({
      corporateNameNot: ['ＡＢＣ商事'],
      corporateNamePartialMatchOr: ['商事'],
    });
    expect(others.length).toBeGreaterThan(0);
    expect(others).not.toContain('abc商事');
  });
});

describe('detail text: only text collected within the last month', () => {
  it('job search sees recent text and not older text', async () => {
    expect(await jobTitles({ jobDescriptionPartialMatchOr: ['kotlin'] })).toEqual(['最近の求人']);
  });

  it('company search sees recent posting text only', async () => {
    expect(await companyNames({ jobDescriptionPartialMatchOr: ['Kotlin'] })).toEqual(['最近Kotlin']);
    expect(await companyNames({ filters: { jobDescription: { allContains: ['Kotlin', '開発'] } } })).toEqual([
      '最近Kotlin',
    ]);
  });

  it('old text neither matches nor excludes', async () => {
    const titles = await jobTitles({ jobDescriptionPartialMatchNot: ['Kotlin'] });
    expect(titles).toContain('古い求人');
    expect(titles).not.toContain('最近の求人');
  });
});

describe('bounds are inclusive', () => {
  it('counts whole days in Japan time', async () => {
    expect(await jobTitles({ jobCreatedAtFrom: '2025-03-31', jobCreatedAtTo: '2025-03-31' })).toEqual([
      '三月末',
    ]);
    expect(await jobTitles({ jobCreatedAtTo: '2025-03-30' })).not.toContain('三月末');
    expect(await jobTitles({ jobCreatedAtFrom: '2025-04-01' })).not.toContain('三月末');
  });

  it('includes the bound itself in numeric ranges', async () => {
    expect(await jobTitles({ salaryMin: 200_000, salaryMax: 200_000 })).toEqual(['三月末']);
    expect(await jobTitles({ salaryMin: 200_001 })).toEqual([]);
  });
});

describe('filterGroups', () => {
  it('matches filters AND at least one group', async () => {
    expect(
      await companyNames({
        corporateNamePartialMatchOr: ['商事', 'サービス'],
        filterGroups: [{ cityName: { anyContains: ['港'] } }, { cityName: { anyContains: ['新宿'] } }],
      }),
    ).toEqual(['abc商事', '東京都庁サービス']);
    expect(
      await companyNames({
        corporateNamePartialMatchOr: ['商事'],
        filterGroups: [{ cityName: { anyContains: ['港'] } }, { cityName: { anyContains: ['新宿'] } }],
      }),
    ).toEqual(['abc商事']);
  });
});

describe('descriptionSnippets', () => {
  async function snippetsOf(title: string, body: Record<string, unknown> = {}): Promise<string[]> {
    const { results } = await searchJobs(services, { jobTitleOr: [title], ...body });
    expect(results).toHaveLength(1);
    return results[0]?.descriptionSnippets as string[];
  }

  it('marks the matched words and escapes every other character', async () => {
    const [snippet, ...rest] = await snippetsOf('スクリプト求人', { jobDescriptionPartialMatchOr: ['rust'] });
    expect(rest).toEqual([]);
    expect(snippet).toContain('<mark>Rust</mark>');
    expect(snippet).toContain('&lt;script&gt;');
    expect(snippet).toContain('&amp;');
    expect(snippet?.replace(/<\/?mark>/g, '')).not.toMatch(/[<>]/);
  });

  it('gives at most 5 snippets', async () => {
    const snippets = await snippetsOf('多数一致', { jobDescriptionPartialMatchOr: ['設計'] });
    expect(snippets.length).toBeGreaterThan(1);
    expect(snippets.length).toBeLessThanOrEqual(5);
    for (const snippet of snippets) expect(snippet).toContain('<mark>設計</mark>');
  });

  it('highlights only detail-text conditions', async () => {
    const snippets = await snippetsOf('スクリプト求人', { jobTitlePartialMatchOr: ['スクリプト'] });
    expect(snippets).toHaveLength(1);
    expect(snippets[0]).not.toContain('<mark>');
  });

  it('without a detail-text condition gives the escaped opening of the text', async () => {
    const [opening] = await snippetsOf('スクリプト求人');
    expect(opening?.startsWith('歓迎: &lt;script&gt;')).toBe(true);
    expect(opening).not.toContain('<mark>');
  });

  it('is [] when the posting has no text', async () => {
    expect(await snippetsOf('本文なし')).toEqual([]);
  });

  it('is never in company results, and the job record carries no description', async () => {
    const { results } = await searchJobs(services, { jobTitleOr: ['スクリプト求人'] });
    expect(results[0]).not.toHaveProperty('description');
    expect(results[0]).not.toHaveProperty('corporate');
    // a company search with a matching detail-text condition: the company is found, and no
    // record carries snippets, a description or the postings it was found by
    const companies = await searchCorporates(services, {
      limit: 100,
      jobDescriptionPartialMatchOr: ['Kotlin'],
    });
    expect(companies.results.map((record) => record.name)).toEqual(['最近Kotlin']);
    for (const record of companies.results) {
      for (const field of ['descriptionSnippets', 'description', 'postings'])
        expect(record).not.toHaveProperty(field);
    }
  });
});

describe('requests the compiler refuses (400 with field and reason)', () => {
  it.each([
    [{ unknownField: 1 }, 'unknownField', 'is not a field of this request'],
    [
      { filters: { prefectureId: { all: [1] } } },
      'filters.prefectureId.all',
      'is not a condition of prefectureId; prefectureId takes: any, none',
    ],
    [{ filters: { nope: true } }, 'filters.nope', 'is not a field of this request'],
    [{ filterGroups: [{ nope: { any: [1] } }] }, 'filterGroups[0].nope', 'is not a field of this request'],
    [{ prefectureIdOr: ['13'] }, 'prefectureIdOr[0]', 'must be an integer'],
    [{ foundedAtFrom: '2020/01/01' }, 'foundedAtFrom', 'must be a date YYYY-MM-DD'],
    [{ corporateNumberOr: ['123'] }, 'corporateNumberOr[0]', 'must be a 13-digit corporate number'],
    [{ corporateTypeOr: ['kk'] }, 'corporateTypeOr[0]', 'must be one of:'],
    [{ limit: 0 }, 'limit', 'must be at least 1'],
    [{ limit: 1001 }, 'limit', 'must be at most 1000'],
    [{ offset: -1 }, 'offset', 'must be at least 0'],
    [{ sort: { field: 'name' } }, 'sort.order', 'is required'],
    [{ sort: { field: 'salaryMin', order: 'asc' } }, 'sort.field', 'must be one of:'],
    [{ offset: 5, cursor: '*' }, 'offset', 'cannot be combined with cursor'],
    [{ cursor: '' }, 'cursor', 'must not be empty'],
    [
      { employeeCountMin: 10, employeeCountMax: 5 },
      'employeeCountMin',
      'must not be greater than employeeCountMax',
    ],
    [{ prefectureIdOr: [] }, 'prefectureIdOr', 'must not be empty'],
  ])('%j -> %s', async (body, field, reason) => {
    const error = await rejection(searchCorporates(services, body));
    expect(error.status).toBe(400);
    expect(error.errors).toEqual(
      expect.arrayContaining([{ field, reason: expect.stringContaining(reason) }]),
    );
  });

  it('refuses a job-search field in company search and the other way round', async () => {
    expect((await rejection(searchCorporates(services, { salaryMin: 1 }))).errors?.[0]?.field).toBe(
      'salaryMin',
    );
    expect((await rejection(searchJobs(services, { jobSalaryMin: 1 }))).errors?.[0]?.field).toBe(
      'jobSalaryMin',
    );
  });

  it('accepts offset + limit exactly at the window', async () => {
    const { results } = await searchCorporates(services, { offset: 9000, limit: 1000 });
    expect(results).toEqual([]);
  });
});
