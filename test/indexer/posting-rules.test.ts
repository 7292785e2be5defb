/**
 * Search rules that had no test on the real engine: `…And` texts, posting `…Not` texts,
 * `allContains` across postings, detail text beside another posting condition, the one-month
 * window at its Japan-day boundary, From > To, a top-level bound against a group's bound,
 * filterGroups without totals in job search, and a posting flag `false` against null.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { searchCorporates, searchJobs } from '../../src/search/run-search.js';
import type { Services } from '../../src/services.js';
import { corporate, daysAgo, indexFixture, job, posting } from '../fixtures/search/docs.js';
import { setUpServices } from '../support/env.js';
import { clearOfJapanMidnight } from '../support/japan-day.js';
import { rejection } from '../support/rejection.js';

let services: Services;
const FULL_TIME = 1;
const PART_TIME = 2;

/**
 * The first instant the detail-text window still holds: the start of the Japan day one
 * calendar month before today's Japan date (a day past the month's end clamps to its last day).
 */
function windowStart(now = new Date()): number {
  const tokyo = new Date(now.getTime() + 9 * 3600_000);
  const year = tokyo.getUTCFullYear();
  const month = tokyo.getUTCMonth() - 1;
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  const day = Math.min(tokyo.getUTCDate(), lastDay);
  return Date.UTC(year, month, day) - 9 * 3600_000;
}

// the fixtures below sit on the engine's window edge, which moves at 00:00 in Japan
await clearOfJapanMidnight(5 * 60_000);

const onlyTokyo = corporate({ name: '東京商会', employeeCount: 80, summary: '東京の商社です' });
const both = corporate({ name: '東京サービス', employeeCount: 300, summary: '東京のサービス会社です' });
const mixedTitles = corporate({
  name: '二求人',
  employeeCount: 30,
  postings: [
    posting({ title: '営業アシスタント', employmentTypeId: FULL_TIME }),
    posting({ title: '経理スタッフ', employmentTypeId: PART_TIME }),
  ],
});
const splitText = corporate({
  name: '分割本文',
  postings: [
    posting({
      description: 'Kotlinの開発',
      descriptionCollectedAt: daysAgo(2),
      employmentTypeId: PART_TIME,
      title: '開発A',
    }),
    posting({
      description: 'Goの運用',
      descriptionCollectedAt: daysAgo(2),
      employmentTypeId: FULL_TIME,
      title: '運用B',
    }),
  ],
});
const atWindow = corporate({
  name: '境界内',
  postings: [
    posting({ description: '境界テスト', descriptionCollectedAt: new Date(windowStart()).toISOString() }),
  ],
});
const beforeWindow = corporate({
  name: '境界外',
  postings: [
    posting({
      description: '境界テスト',
      descriptionCollectedAt: new Date(windowStart() - 1000).toISOString(),
    }),
  ],
});
const licenseNull = corporate({
  name: '許可不明',
  postings: [posting({ title: '許可', hasDispatchLicense: null })],
});
const licenseTrue = corporate({
  name: '許可あり',
  postings: [posting({ title: '許可', hasDispatchLicense: true })],
});
const licenseFalse = corporate({
  name: '許可なし',
  postings: [posting({ title: '許可', hasDispatchLicense: false })],
});

const jobA = job({ title: '求人A', employmentTypeId: FULL_TIME, salaryMin: 300_000 });
const jobB = job({ title: '求人B', employmentTypeId: PART_TIME, salaryMin: 1_000 });
const jobC = job({ title: '求人C', employmentTypeId: PART_TIME, salaryMin: 500_000 });

beforeAll(async () => {
  services = await setUpServices('posting-rules');
  await indexFixture(services.opensearch, services.config.indexPrefix, {
    corporates: [
      onlyTokyo,
      both,
      mixedTitles,
      splitText,
      atWindow,
      beforeWindow,
      licenseNull,
      licenseTrue,
      licenseFalse,
    ],
    jobs: [jobA, jobB, jobC],
  });
});
afterAll(async () => {
  await services?.close();
});

async function names(body: Record<string, unknown>): Promise<string[]> {
  const { results } = await searchCorporates(services, { limit: 100, ...body });
  return results.map((record) => String(record.name)).sort();
}

describe('texts', () => {
  it('…And needs every term in the record: a record with only one of them is not found', async () => {
    expect(await names({ summaryPartialMatchAnd: ['東京', 'サービス'] })).toEqual(['東京サービス']);
    expect(await names({ summaryPartialMatchOr: ['東京', 'サービス'] })).toEqual([
      '東京サービス',
      '東京商会',
    ]);
    expect(await names({ jobDescriptionPartialMatchAnd: ['Kotlin', '開発'] })).toEqual(['分割本文']);
    expect(await names({ jobDescriptionPartialMatchAnd: ['Kotlin', '運用'] })).toEqual([]);
  });

  it('a posting …Not excludes a company with one matching and one non-matching posting (title, detail text)', async () => {
    expect(await names({ jobTitlePartialMatchOr: ['営業', '経理'] })).toEqual(['二求人']);
    expect(await names({ jobTitlePartialMatchOr: ['経理'], jobTitlePartialMatchNot: ['営業'] })).toEqual([]);
    expect(await names({ jobTitlePartialMatchOr: ['開発', '運用'] })).toEqual(['分割本文']);
    expect(
      await names({ jobTitlePartialMatchOr: ['運用'], jobDescriptionPartialMatchNot: ['Kotlin'] }),
    ).toEqual([]);
  });

  it('allContains split across two postings does not match', async () => {
    expect(await names({ filters: { jobDescription: { allContains: ['Kotlin', 'Go'] } } })).toEqual([]);
    expect(await names({ filters: { jobDescription: { allContains: ['Kotlin', '開発'] } } })).toEqual([
      '分割本文',
    ]);
  });

  it('detail text and another posting condition must hold on the same posting', async () => {
    expect(
      await names({ jobDescriptionPartialMatchOr: ['Kotlin'], jobEmploymentTypeIdOr: [PART_TIME] }),
    ).toEqual(['分割本文']);
    expect(
      await names({ jobDescriptionPartialMatchOr: ['Kotlin'], jobEmploymentTypeIdOr: [FULL_TIME] }),
    ).toEqual([]);
  });

  it('the one-month window starts at 00:00 Japan time of the day a month ago, to the second', async () => {
    expect(await names({ jobDescriptionPartialMatchOr: ['境界テスト'] })).toEqual(['境界内']);
  });
});

describe('bounds', () => {
  it('From after To is a 400 naming both fields', async () => {
    const error = await rejection(
      searchJobs(services, { jobCreatedAtFrom: '2025-04-01', jobCreatedAtTo: '2025-03-01' }),
    );
    expect(error.status).toBe(400);
    expect(error.errors).toEqual([
      { field: 'jobCreatedAtFrom', reason: expect.stringContaining('jobCreatedAtTo') },
    ]);
  });

  it('a top-level bound against a filterGroups bound: that group matches nothing, the others still do (200)', async () => {
    expect(await names({ employeeCountMin: 100, filterGroups: [{ employeeCount: { max: 50 } }] })).toEqual(
      [],
    );
    expect(
      await names({
        employeeCountMin: 100,
        filterGroups: [{ employeeCount: { max: 50 } }, { employeeCount: { max: 500 } }],
      }),
    ).toEqual(['東京サービス']);
  });
});

describe('job search', () => {
  it('filterGroups with includeTotalResults: false', async () => {
    const { results, totalResults } = await searchJobs(services, {
      includeTotalResults: false,
      jobTitleOr: ['求人A', '求人B', '求人C'],
      filterGroups: [{ employmentTypeId: { any: [FULL_TIME] } }, { salary: { min: 400_000 } }],
    });
    expect(totalResults).toBeNull();
    expect(results.map((record) => record.title).sort()).toEqual(['求人A', '求人C']);
  });
});

describe('posting flags', () => {
  it('false matches a posting whose flag is false or unknown (null), never one that is true', async () => {
    expect(await names({ jobTitlePartialMatchOr: ['許可'], jobHasDispatchLicense: false })).toEqual([
      '許可なし',
      '許可不明',
    ]);
    expect(await names({ jobTitlePartialMatchOr: ['許可'], jobHasDispatchLicense: true })).toEqual([
      '許可あり',
    ]);
  });
});
