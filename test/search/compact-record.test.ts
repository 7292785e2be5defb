/**
 * Company and job searches read each hit's record from its compact copy (binary doc values)
 * instead of `_source` (src/search/records.ts). Here, on the real engine, every answer is
 * compared with the one built from `_source` for the same documents, as text (byte for byte):
 * after the first ingest, after record updates (the doc merge and the versioned script), after
 * a rebuild (and its fan-out of a company's new name to its postings), after the roll-off of
 * the detail text, after a reindex, and for documents without a copy (written before the field).
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corporateCheckDigit } from '../../indexer/corporate-number.js';
import { indexNames } from '../../indexer/index-names.js';
import { rollOff } from '../../indexer/rolloff.js';
import type { SourceRecord } from '../../indexer/source-types.js';
import { backfillCopies } from '../../ops/backfill-copies.js';
import { reindexAll } from '../../ops/engine/reindex.js';
import { compactRecordField } from '../../src/catalogue/record-fields.js';
import { corporateSearch, jobSearch } from '../../src/catalogue/searches.js';
import { toMatchCard } from '../../src/names/card.js';
import { bootstrapIndices, dropIndices } from '../../src/opensearch/indices.js';
import { indexDefinitions } from '../../src/opensearch/mappings.js';
import { parseSearchRequest } from '../../src/search/parse-request.js';
import {
  compileWithOverflow,
  runPlanBytes,
  searchCorporates,
  searchJobs,
} from '../../src/search/run-search.js';
import type { Services } from '../../src/services.js';
import { corporate, job } from '../fixtures/indexer/records.js';
import { setUpServices, uniquePrefix } from '../support/env.js';
import { steppingClock, writeRecords } from '../support/pipeline-write.js';
import { recordsFromSource } from '../support/source-records.js';

let services: Services;
let names: ReturnType<typeof indexNames>;
const tick = steppingClock('2026-11-21T03:00:00.000Z');

const companies = Array.from({ length: 12 }, (_, i) => {
  const base = `5${String(i).padStart(11, '0')}`;
  return `${corporateCheckDigit(base)}${base}`;
});

/** Varied records: nulls, empty and full lists, versioned (script) and unversioned (doc merge). */
function record(i: number, overrides: Record<string, unknown> = {}): SourceRecord {
  return corporate({
    corporateNumber: companies[i],
    name: `株式会社テスト${i}`,
    ...(i % 3 === 0 ? { marketCodes: [], paidMediaIds: [] } : {}),
    ...(i % 4 === 1 ? { summary: undefined, capitalMillionYen: 12.5, furigana: undefined } : {}),
    ...(i % 2 === 0 ? { sourceUpdatedAt: tick().toISOString() } : {}),
    ...overrides,
  } as never);
}

const write = (records: SourceRecord[]) => writeRecords(services, records, tick);

async function refreshAll(): Promise<void> {
  await services.opensearch.indices.refresh({ index: Object.values(names).join(',') });
}

const searches: Record<string, unknown>[] = [
  { limit: 100 },
  { limit: 5, offset: 3, sort: { field: 'employeeCount', order: 'desc' } },
  { limit: 100, fields: ['corporateNumber', 'workLocationCount', 'updatedAt', 'markets'] },
  { limit: 100, filters: { jobMediaId: { any: [3] } } },
];

/** Every search answers exactly what `_source` gives, as JSON text; `copies` hits read the copy. */
async function expectSameAsSource(copies: number): Promise<void> {
  await expectSame(corporateSearch, searches, copies);
}

type Catalogue = typeof corporateSearch | typeof jobSearch;

async function hitsWithCopy(search: Catalogue, body: Record<string, unknown>): Promise<number> {
  const plan = parseSearchRequest(search, body);
  const request = await compileWithOverflow(services, search, plan, undefined);
  const { body: answer } = await services.opensearch.search(request);
  return answer.hits.hits.filter((hit) => typeof hit.fields?.[compactRecordField]?.[0] === 'string').length;
}

async function expectSame(
  search: Catalogue,
  bodies: Record<string, unknown>[],
  copies: number,
): Promise<void> {
  const run = search === jobSearch ? searchJobs : searchCorporates;
  for (const body of bodies) {
    const answer = await run(services, body);
    const expected = await recordsFromSource(services, search, body);
    expect(expected.length).toBeGreaterThan(0);
    expect(JSON.stringify(answer.results)).toBe(JSON.stringify(expected));
    // the HTTP answer, spliced from the copies' text, is canonical JSON (runPlan parses it; the
    // records were compared with the ones from _source above)
    expect((await runPlanBytes(services, search, parseSearchRequest(search, body))).toString('utf8')).toBe(
      JSON.stringify(answer),
    );
  }
  expect(await hitsWithCopy(search, { limit: 100 })).toBe(copies);
}

beforeAll(async () => {
  services = await setUpServices('compact-record', { redisUrl: undefined });
  names = indexNames(services.config.indexPrefix);
  await write([
    ...companies.map((_, i) => record(i)),
    ...companies.slice(0, 8).map((number, i) =>
      job({
        corporateNumber: number,
        mediaId: i % 2 === 0 ? 3 : 1,
        workLocation: { kind: 'onsite', prefectureId: 13 + (i % 3), cityName: '渋谷区', address: `${i}` },
      }),
    ),
  ]);
});

afterAll(async () => {
  await services.close();
});

// one story told in order: each test builds on the documents the one before it wrote (the copy
// counts change as records are updated, rebuilt, reindexed), so its tests keep their order
// when the suite runs shuffled (--sequence.shuffle)
describe('compact records, written and read in order', { shuffle: false }, () => {
  describe('company records from the compact copy', () => {
    it('are the records `_source` gives, after the first ingest', async () => {
      await expectSameAsSource(companies.length);
      const { results } = await searchCorporates(services, { limit: 100 });
      // the rebuilt fields come along: some companies have work locations, none a stale time
      expect(results.some((row) => (row.workLocationCount as number) > 0)).toBe(true);
      expect(results.every((row) => typeof row.updatedAt === 'string')).toBe(true);
    });

    it('follow record updates: the doc merge (no version) and the versioned script', async () => {
      await write([
        record(0, { name: '株式会社改名ゼロ', marketCodes: [], employeeCount: 9_999 }),
        record(1, { name: '株式会社改名イチ', paidMediaIds: [], summary: '新しい紹介文' }),
        record(2, { ceoName: null, fax: '03-0000-0000' }),
        // an older version than the stored one: the script leaves record and copy alone
        record(4, { name: '古い名前', sourceUpdatedAt: '2000-01-01T00:00:00.000Z' }),
      ]);
      await expectSameAsSource(companies.length);
      const names0 = (await searchCorporates(services, { limit: 100 })).results.map((row) => row.name);
      expect(names0).toContain('株式会社改名ゼロ');
      expect(names0).toContain('株式会社改名イチ');
      expect(names0).not.toContain('古い名前');
    });

    it('follow the rebuild (work locations, updatedAt) after postings arrive', async () => {
      const before = (await searchCorporates(services, { limit: 100 })).results;
      await write([
        job({
          corporateNumber: companies[10],
          workLocation: { kind: 'onsite', prefectureId: 27, cityName: '大阪市北区', address: '梅田1' },
        }),
        job({
          corporateNumber: companies[10],
          workLocation: { kind: 'onsite', prefectureId: 1, cityName: '札幌市中央区', address: '北1条' },
        }),
      ]);
      await expectSameAsSource(companies.length);
      const after = (await searchCorporates(services, { limit: 100 })).results;
      const row = (rows: typeof after) => rows.find((item) => item.corporateNumber === companies[10]);
      expect(row(after)?.workLocationCount).toBe(2);
      expect(row(after)?.updatedAt).not.toBe(row(before)?.updatedAt);
    });

    it('read documents without a copy from `_source`, alone or mixed with others on a page', async () => {
      // as a document written before the field existed
      for (const number of companies.slice(5, 8))
        await services.opensearch.update({
          index: names.corporates,
          id: number,
          refresh: true,
          body: { script: { source: `ctx._source.remove('${compactRecordField}')`, lang: 'painless' } },
        });
      await expectSameAsSource(companies.length - 3);
      const cursorPage = await searchCorporates(services, { cursor: '*', limit: 4 }, { userId: 'u' });
      expect(JSON.stringify(cursorPage.results)).toBe(
        JSON.stringify(await recordsFromSource(services, corporateSearch, { limit: 4 })),
      );
      // the next record write brings the copy back
      await write([record(5, { name: '株式会社戻り' })]);
      await expectSameAsSource(companies.length - 2);
    });

    it('survive a reindex: the copy travels in `_source`', async () => {
      await reindexAll(services.opensearch, services.config.indexPrefix, { suffix: 'compact' });
      await services.opensearch.indices.refresh({ index: names.corporates });
      await expectSameAsSource(companies.length - 2);
    });

    it('the field is added to an index created before it, when a writer starts', async () => {
      const prefix = uniquePrefix('compact-old');
      const client = services.opensearch;
      try {
        for (const def of indexDefinitions()) {
          const { [compactRecordField]: _copy, ...properties } = def.mappings.properties;
          await client.indices.create({
            index: `${prefix}${def.name}-v${def.version}`,
            body: {
              settings: def.settings,
              mappings: { ...def.mappings, properties },
              aliases: { [`${prefix}${def.name}`]: {} },
            } as never,
          });
        }
        const mapped = async () => {
          const { body } = await client.indices.getMapping({ index: `${prefix}corporates` });
          const [only] = Object.values(body as Record<string, { mappings: { properties: object } }>);
          return compactRecordField in (only?.mappings.properties ?? {});
        };
        // the API's start (read-only engine user) leaves mappings alone
        await bootstrapIndices(client, prefix);
        expect(await mapped()).toBe(false);
        await bootstrapIndices(client, prefix, undefined, { addNewFields: true });
        expect(await mapped()).toBe(true);
      } finally {
        await dropIndices(client, prefix);
      }
    });
  });

  describe('job records from the compact copy', () => {
    const jobSearches: Record<string, unknown>[] = [
      { limit: 100 },
      { limit: 5, offset: 2, sort: { field: 'salaryMin', order: 'desc' } },
      { limit: 100, fields: ['id', 'corporateName', 'workLocation', 'updatedAt'] },
      // the snippets come from the highlighter, which reads the text from `_source`
      { limit: 100, jobDescriptionPartialMatchOr: ['ルート営業'] },
      { limit: 100, jobDescriptionPartialMatchOr: ['ルート営業'], fields: ['descriptionSnippets'] },
    ];

    it('are the records `_source` gives, after the first ingest', async () => {
      await expectSame(jobSearch, jobSearches, await jobCount());
      const { results } = await searchJobs(services, {
        limit: 100,
        jobDescriptionPartialMatchOr: ['ルート営業'],
      });
      expect(results.length).toBeGreaterThan(0);
      expect(results.every((row) => (row.descriptionSnippets as string[]).length > 0)).toBe(true);
    });

    it("follow the rebuild's fan-out of a company's new name to its postings", async () => {
      await write([record(0, { name: '株式会社ジョブ改名' })]);
      await expectSame(jobSearch, jobSearches, await jobCount());
      const { results } = await searchJobs(services, { limit: 100 });
      expect(results.filter((row) => row.corporateName === '株式会社ジョブ改名').length).toBeGreaterThan(0);
    });

    it('follow the roll-off of the detail text (no snippets, the same records)', async () => {
      const searchable = jobSearches.slice(0, 3);
      await rollOff(services.opensearch, services.config.indexPrefix, {
        now: new Date('2027-06-01T00:00:00Z'),
      });
      await refreshAll();
      await expectSame(jobSearch, searchable, await jobCount());
    });

    it('read documents without a copy from `_source`, alone or mixed with others on a page', async () => {
      const { results } = await searchJobs(services, { limit: 3 });
      for (const row of results)
        await services.opensearch.update({
          index: names.jobs,
          id: String(row.id),
          refresh: true,
          body: { script: { source: `ctx._source.remove('${compactRecordField}')`, lang: 'painless' } },
        });
      await expectSame(jobSearch, jobSearches.slice(0, 3), (await jobCount()) - 3);
    });
  });

  describe('npm run backfill: copies for documents written before the field', () => {
    const stripCopy = { script: { source: `ctx._source.remove('${compactRecordField}')`, lang: 'painless' } };

    it('gives every posting and company its copy; companies keep their searchable detail text', async () => {
      const textSearch = { limit: 100, jobDescriptionPartialMatchOr: ['ルート営業'] };
      // a fresh company with a searchable posting, so the detail-text check has something to find
      await write([
        record(11, { name: '株式会社バックフィル' }),
        job({ corporateNumber: companies[11], description: 'ルート営業の担当者を募集します。' }),
      ]);
      const before = await recordsFromSource(services, corporateSearch, textSearch);
      expect(before.map((row) => row.corporateNumber)).toContain(companies[11]);
      for (const [index, query] of [
        [names.jobs, { match_all: {} }],
        [names.corporates, { match_all: {} }],
      ] as const)
        await services.opensearch.updateByQuery({
          index,
          refresh: true,
          conflicts: 'proceed',
          body: { query, ...stripCopy },
        });
      expect(await hitsWithCopy(jobSearch, { limit: 100 })).toBe(0);
      expect(await hitsWithCopy(corporateSearch, { limit: 100 })).toBe(0);

      const result = await backfillCopies(services.opensearch, services.config.indexPrefix, { pageSize: 5 });
      await refreshAll();
      expect(result.jobs).toEqual({ written: await jobCount(), changed: 0, failed: 0 });
      expect(result.corporates).toEqual({ written: companies.length, changed: 0, failed: 0 });
      await expectSame(
        jobSearch,
        [{ limit: 100 }, { limit: 100, fields: ['id', 'corporateName'] }],
        await jobCount(),
      );
      await expectSame(corporateSearch, [...searches, textSearch], companies.length);
      // the detail text is still in the nested postings (the rebuild wrote the copy)
      const after = await searchCorporates(services, textSearch);
      expect(after.results.map((row) => row.corporateNumber)).toContain(companies[11]);

      // nothing left: a second run writes nothing
      const again = await backfillCopies(services.opensearch, services.config.indexPrefix);
      expect(again.jobs.written + again.corporates.written).toBe(0);
    });

    it('gives every company its match card: a doc merge without postings, the rebuild with them', async () => {
      const textSearch = { limit: 100, jobDescriptionPartialMatchOr: ['ルート営業'] };
      await write([
        record(11, { name: '株式会社バックフィル' }),
        job({ corporateNumber: companies[11], description: 'ルート営業の担当者を募集します。' }),
      ]);
      const found = async () =>
        (await searchCorporates(services, textSearch)).results.map((row) => row.corporateNumber);
      expect(await found()).toContain(companies[11]);
      const stored = async () => {
        const { body } = await services.opensearch.search({
          index: names.corporates,
          body: { size: 100, query: { match_all: {} }, _source: { excludes: ['postings'] } },
        });
        return new Map(body.hits.hits.map((hit) => [hit._id, hit._source as Record<string, unknown>]));
      };
      // written before the card: the re-index from `_source` drops the postings' detail text too
      await services.opensearch.updateByQuery({
        index: names.corporates,
        refresh: true,
        conflicts: 'proceed',
        body: {
          query: { match_all: {} },
          script: { source: "ctx._source.remove('matchCard')", lang: 'painless' },
        },
      });
      expect(await found()).not.toContain(companies[11]);
      const before = await stored();
      const result = await backfillCopies(services.opensearch, services.config.indexPrefix, { pageSize: 5 });
      await refreshAll();
      expect(result.keys).toEqual({ written: companies.length, changed: 0, failed: 0 });
      const after = await stored();
      const withPostings = [...before.values()].filter(
        (doc) => ((doc.aggregates as { postingCount?: number } | undefined)?.postingCount ?? 0) > 0,
      );
      // both ways were taken
      expect(withPostings.length).toBeGreaterThan(0);
      expect(withPostings.length).toBeLessThan(after.size);
      for (const [id, doc] of after) {
        expect({ id, card: doc.matchCard }).toEqual({ id, card: toMatchCard(doc) });
        // the record did not change: only a company rebuilt (one with postings) shows a write
        const aggregates = before.get(id)?.aggregates as { postingCount?: number } | undefined;
        const rebuilt = (aggregates?.postingCount ?? 0) > 0;
        expect({ id, moved: doc.updatedAt !== before.get(id)?.updatedAt }).toEqual({ id, moved: rebuilt });
      }
      // the company with a posting went through its rebuild: its detail text is searchable again
      expect(await found()).toContain(companies[11]);
    });

    it('leaves a document written between its read and the copy alone (if_seq_no), counting it as changed', async () => {
      await services.opensearch.update({
        index: names.jobs,
        id: (await firstJobId()) as string,
        refresh: true,
        body: stripCopy,
      });
      // a client that writes the posting once more right after the backfill's read of it
      const client = services.opensearch;
      const proxied = new Proxy(client, {
        get(target, key, receiver) {
          if (key !== 'bulk') return Reflect.get(target, key, receiver);
          return async (...args: Parameters<typeof client.bulk>) => {
            const id = await firstJobId();
            await client.update({
              index: names.jobs,
              id: id as string,
              body: { doc: { adPlan: 'プレミアム' } },
            });
            return client.bulk(...args);
          };
        },
      }) as typeof client;
      const result = await backfillCopies(proxied, services.config.indexPrefix);
      // the postings stripped by the tests before this one get theirs; the one written meanwhile does not
      expect(result.jobs).toMatchObject({ changed: 1, failed: 0 });
    });
  });

  async function jobCount(): Promise<number> {
    const { body } = await services.opensearch.count({ index: names.jobs });
    return body.count;
  }

  async function firstJobId(): Promise<unknown> {
    const { body } = await services.opensearch.search({
      index: names.jobs,
      body: { size: 1, sort: [{ id: 'asc' }], _source: ['id'] },
    });
    return body.hits.hits[0]?._source?.id;
  }
});
