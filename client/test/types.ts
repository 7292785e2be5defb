/**
 * Type tests of the client, checked by `tsc` (npm run typecheck) and by
 * test/client/client-types.test.ts, which also compiles this file with the `@ts-expect-error` lines
 * left bare to show each of them is a real compile error. Never run, only compiled.
 */
import { expectTypeOf } from 'vitest';
import {
  type Corporate,
  type CorporateSearchRequest,
  createCorpsearchClient,
  type IndexedMatchResult,
  type Job,
  type JobSearchRequest,
  type MasterName,
  type MatchCandidate,
  type MatchProgress,
  type MatchRecord,
  type Suggestion,
} from '../src/index.js';

const api = createCorpsearchClient({ baseUrl: 'http://127.0.0.1:8080', apiKey: 'unused' });

export async function typeTests(): Promise<void> {
  // a correct body, nested and flat forms
  const good: CorporateSearchRequest = {
    limit: 10,
    filters: { prefectureId: { any: [13] }, employeeCount: { min: 50 } },
    filterGroups: [{ mediaId: { any: [3] } }],
    prefectureIdOr: [27],
    sort: { field: 'employeeCount', order: 'desc' },
  };
  const page = await api.searchCorporates(good);
  expectTypeOf(page.results).toEqualTypeOf<Corporate[]>();
  expectTypeOf(page.totalResults).toEqualTypeOf<number | null>();
  expectTypeOf<Corporate['corporateNumber']>().toEqualTypeOf<string>();
  expectTypeOf<MasterName>().toEqualTypeOf<
    | 'prefectures'
    | 'industries'
    | 'business-types'
    | 'media'
    | 'job-categories'
    | 'markets'
    | 'employment-types'
    | 'government-bodies'
    | 'certification-kinds'
    | 'award-kinds'
  >();
  for await (const job of api.eachJob({ filters: { mediaId: { any: [3] } } })) {
    expectTypeOf(job).toEqualTypeOf<Job>();
  }
  // a saved search keeps any search body; a webhook's answer holds its secret
  const saved = await api.saveSearch({ name: '東京', search: 'corporates', body: { prefectureIdOr: [13] } });
  const hook = await api.createWebhook({ savedSearchId: saved.id, url: 'https://hooks.example.jp/x' });
  expectTypeOf(hook.secret).toEqualTypeOf<string>();
  // with `fields`, the records carry only those fields, and the type says so
  const narrow = await api.searchCorporates({ fields: ['corporateNumber', 'name'] });
  expectTypeOf(narrow.results).toEqualTypeOf<Pick<Corporate, 'corporateNumber' | 'name'>[]>();
  // employeeCount was not asked for
  // @ts-expect-error
  narrow.results[0]?.employeeCount;
  for await (const job of api.eachJob({ fields: ['title'] })) {
    expectTypeOf(job).toEqualTypeOf<Pick<Job, 'title'>>();
  }

  // match: records of any number, an array or an async iterable; typed results with their index
  const rows: MatchRecord[] = [{ name: 'マルカ物流', prefectureId: 14, phoneNumber: '045-000-0000' }];
  const summary = await api.match(rows, {
    maxCredits: 10,
    chunkSize: 500,
    onProgress: (progress) => expectTypeOf(progress).toEqualTypeOf<MatchProgress>(),
  });
  expectTypeOf(summary.results).toEqualTypeOf<IndexedMatchResult[]>();
  expectTypeOf<IndexedMatchResult['index']>().toEqualTypeOf<number>();
  expectTypeOf<IndexedMatchResult['match']>().toEqualTypeOf<MatchCandidate | null>();
  expectTypeOf(summary.creditsCharged).toEqualTypeOf<number>();
  async function* fromFile(): AsyncGenerator<MatchRecord> {
    yield { name: 'サクラ精機' };
  }
  for await (const result of api.eachMatch(fromFile(), { total: 1 })) {
    expectTypeOf(result.overMaxCredits).toEqualTypeOf<boolean>();
  }
  const { suggestions } = await api.suggest('マルカ', { limit: 5 });
  expectTypeOf(suggestions).toEqualTypeOf<Suggestion[]>();

  // readonly lists (`as const`, ReadonlyArray) wherever a request takes a list of values
  const kanto = [13, 14] as const;
  const logistics: readonly string[] = ['物流', '運輸'];
  await api.searchCorporates({
    prefectureIdOr: kanto,
    corporateNamePartialMatchOr: logistics,
    filters: { prefectureId: { any: kanto }, corporateName: { anyContains: ['物流'] as const } },
    filterGroups: [{ jobMediaId: { any: [3] as const } }] as const,
    facets: ['prefectureId', 'jobMediaId'] as const,
    fields: ['corporateNumber', 'name'] as const,
  });
  await api.countJobs({ filters: { jobDescription: { anyContains: ['未経験歓迎'] as const } } });
  await api.exportCorporates({ prefectureIdOr: kanto, fields: ['corporateNumber'] as const, maxCredits: 5 });
  for await (const job of api.eachJob({ filters: { mediaId: { any: [3, 5] as const } } })) void job;
  await api.match([{ name: 'マルカ物流', prefectureId: 14 }] as const);

  // EXPECT-ERROR const-value: an `as const` list of names where the filter takes master ids
  // @ts-expect-error
  await api.searchCorporates({ filters: { prefectureId: { any: ['Tokyo'] as const } } });

  // EXPECT-ERROR const-facet: an `as const` list naming a facet that does not exist
  // @ts-expect-error
  await api.searchCorporates({ facets: ['prefecture'] as const });

  // EXPECT-ERROR const-flat: an `as const` list of ids where a flat filter takes text
  // @ts-expect-error
  await api.searchCorporates({ corporateNamePartialMatchOr: kanto });

  // EXPECT-ERROR match-name: a match record without a name
  // @ts-expect-error
  await api.match([{ prefectureId: 13 }]);

  // EXPECT-ERROR match-field: a field a match record does not have
  // @ts-expect-error
  await api.match([{ name: 'マルカ物流', prefecture: 14 }]);

  // EXPECT-ERROR match-prefecture: a prefecture name where the id goes
  // @ts-expect-error
  await api.match([{ name: 'マルカ物流', prefectureId: '神奈川県' }]);

  // EXPECT-ERROR suggest-limit: a limit as text
  // @ts-expect-error
  await api.suggest('マルカ', { limit: '5' });

  // EXPECT-ERROR misspelt: a misspelt filter name (prefectureID for prefectureId)
  // @ts-expect-error
  await api.searchCorporates({ filters: { prefectureID: { any: [13] } } });

  // EXPECT-ERROR flat: a misspelt flat filter name
  // @ts-expect-error
  await api.searchCorporates({ prefectureIdOrr: [13] });

  // EXPECT-ERROR op: an operator the filter does not have
  // @ts-expect-error
  await api.searchCorporates({ filters: { prefectureId: { contains: [13] } } });

  // EXPECT-ERROR value: a string where the filter takes master ids
  // @ts-expect-error
  await api.searchCorporates({ filters: { prefectureId: { any: ['Tokyo'] } } });

  // EXPECT-ERROR sort: a sort field of the other search
  const badSort: JobSearchRequest = {
    // @ts-expect-error
    sort: { field: 'employeeCount', order: 'asc' },
  };
  void badSort;
}
