/**
 * The indexer on the real engine: NDJSON in, documents that match the strict mappings out,
 * rejected records reported with their reason, company rebuilds and fan-out.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileDeadLetter, MemoryDeadLetter } from '../../indexer/dead-letter.js';
import { indexNames } from '../../indexer/index-names.js';
import { ingestFiles } from '../../indexer/ingest.js';
import { IngestPipeline } from '../../indexer/pipeline.js';
import { rebuildCompanies } from '../../indexer/rebuild.js';
import type { Services } from '../../src/services.js';
import { corporate, job, numbers } from '../fixtures/indexer/records.js';
import { setUpServices } from '../support/env.js';

const now = new Date('2026-11-21T12:00:00Z');
const fixture = path.join(import.meta.dirname, '..', 'fixtures', 'indexer', 'small.ndjson');
let services: Services;
let names: ReturnType<typeof indexNames>;

type Source = Record<string, unknown>;

function mappingKeys(file: string): string[] {
  const mapping = JSON.parse(
    readFileSync(path.join(import.meta.dirname, '..', '..', 'mappings', file), 'utf8'),
  ) as {
    mappings: { properties: Record<string, unknown> };
  };
  return Object.keys(mapping.mappings.properties).sort();
}

async function refresh(): Promise<void> {
  await services.opensearch.indices.refresh({ index: Object.values(names).join(',') });
}

async function get(index: string, id: string): Promise<Source | undefined> {
  const { body } = await services.opensearch.get({ index, id }, { ignore: [404] });
  return (body as { found?: boolean; _source?: Source }).found
    ? (body as { _source: Source })._source
    : undefined;
}

async function searchIds(index: string, query: unknown): Promise<string[]> {
  const { body } = await services.opensearch.search({
    index,
    body: { query, sort: [{ _id: 'asc' }], size: 100 } as never,
  });
  return body.hits.hits.map((hit) => String(hit._id));
}

/** Records through the pipeline, then the rebuild of the companies they touched. */
async function ingest(records: unknown[]) {
  const deadLetter = new MemoryDeadLetter();
  const pipeline = new IngestPipeline({
    client: services.opensearch,
    indexPrefix: services.config.indexPrefix,
    deadLetter,
    now: () => now,
  });
  for (const record of records) await pipeline.add(record, 'test');
  await pipeline.flush();
  await rebuildCompanies(services.opensearch, services.config.indexPrefix, pipeline.touched, { now });
  await refresh();
  return { report: pipeline.report, deadLetter };
}

beforeAll(async () => {
  services = await setUpServices('indexer', { redisUrl: undefined });
  names = indexNames(services.config.indexPrefix);
});

afterAll(async () => {
  await services.close();
});

// One index set, step by step: the round trip loads small.ndjson, the company rebuild then
// follows one company's life (postings added, updated, renamed, deleted) on top of it; each
// step starts from the state the one before left, so they keep their order under
// --sequence.shuffle. The file shares nothing with other files (its own prefixes).
describe('the indexer on one index set', { shuffle: false }, () => {
  describe('ingest -> search round trip', () => {
    it('indexes an NDJSON file, reports per type and lists the bad lines with their reasons', async () => {
      const deadLetterFile = path.join(mkdtempSync(path.join(os.tmpdir(), 'dead-letter-')), 'dl.ndjson');
      const result = await ingestFiles([fixture], {
        client: services.opensearch,
        indexPrefix: services.config.indexPrefix,
        deadLetter: new FileDeadLetter(deadLetterFile),
        now: () => now,
      });
      await refresh();
      expect(result.report).toEqual({
        corporate: { read: 2, indexed: 2, rejected: 0 },
        job: { read: 5, indexed: 3, rejected: 2 },
        delete_job: { read: 1, indexed: 1, rejected: 0 },
      });
      const dead = readFileSync(deadLetterFile, 'utf8')
        .trim()
        .split('\n')
        .map(
          (line) => JSON.parse(line) as { source: string; reason: string; key: string; reasons: unknown[] },
        );
      expect(dead.map((entry) => [entry.source, entry.reason])).toEqual([
        ['small.ndjson:6', 'salaryMin: must be integer,null'],
        ['small.ndjson:8', 'corporateNumber: must be a 13-digit corporate number with a valid check digit'],
      ]);
      expect(dead.map((entry) => entry.reasons)).toEqual([
        [{ field: 'salaryMin', reason: 'must be integer,null' }],
        [
          {
            field: 'corporateNumber',
            reason: 'must be a 13-digit corporate number with a valid check digit',
          },
        ],
      ]);

      // substring search over the indexed text, the way the search API queries it
      expect(await searchIds(names.jobs, { match_phrase: { 'title.substring': 'ピッキング' } })).toEqual([
        'G000001',
      ]);
      expect(await searchIds(names.jobs, { match_phrase: { description: 'フォークリフト' } })).toEqual([
        'G000001',
      ]);
      expect(await searchIds(names.jobs, { match_phrase: { 'corporateName.substring': 'ガンマ' } })).toEqual([
        'G000001',
        'G000002',
      ]);
      expect(await searchIds(names.corporates, { term: { 'markets.code': 'tse_standard' } })).toEqual([
        numbers.gamma,
      ]);
      expect(
        await searchIds(names.corporates, {
          nested: { path: 'postings', query: { match_phrase: { 'postings.description': 'ルート配送' } } },
        }),
      ).toEqual([numbers.gamma]);
    });

    it('writes documents with exactly the mapped fields, names resolved from the masters', async () => {
      const company = await get(names.corporates, numbers.gamma);
      // every mapped field but those only the registry import writes (indexer/registry/), and
      // those only the public-records imports write (indexer/invoice/, indexer/gbizinfo/)
      const registryOnly = [
        'registry',
        'closed',
        'closedOn',
        'closeReason',
        'successorCorporateNumber',
        'registeredOn',
        'englishName',
        'formerNames',
        'formerNameKeys',
        'invoice',
        'invoiceRecord',
        'invoiceUpdatedOn',
        'subsidies',
        'subsidiesRecord',
        'procurement',
        'procurementRecord',
        'certifications',
        'certificationsRecord',
        'awards',
        'awardsRecord',
        'workplace',
        'workplaceRecord',
      ];
      expect(Object.keys(company ?? {}).sort()).toEqual(
        mappingKeys('corporates.json').filter((field) => !registryOnly.includes(field)),
      );
      expect(company).toMatchObject({
        name: 'ガンマ物流株式会社',
        prefectureName: '大阪府',
        industryCategoryName: '運輸業，郵便業',
        markets: [{ code: 'tse_standard', exchangeCode: 'tse', name: '東証スタンダード' }],
        paidMedias: [{ mediaId: 8, mediaName: 'タウンワーク' }],
        furigana: null,
        // 梅田３－１－１ and 梅田3丁目1番1号 are one place
        workLocationCount: 1,
        aggregates: { postingCount: 2, jobSalaryMinMax: 3_800_000, jobCreatedAtMax: '2026-11-20T00:00:00Z' },
      });
      const posting = await get(names.jobs, 'G000001');
      expect(Object.keys(posting ?? {}).sort()).toEqual(mappingKeys('jobs.json'));
      expect(Object.keys((posting?.corporate as Source) ?? {}).sort()).toEqual(
        Object.keys(
          (
            JSON.parse(
              readFileSync(path.join(import.meta.dirname, '..', '..', 'mappings', 'jobs.json'), 'utf8'),
            ) as {
              mappings: { properties: { corporate: { properties: Source } } };
            }
          ).mappings.properties.corporate.properties,
        ).sort(),
      );
      expect(posting).toMatchObject({
        corporateName: 'ガンマ物流株式会社',
        mediaName: 'タウンワーク',
        employmentTypeName: 'アルバイト・パート',
        corporate: { name: 'ガンマ物流株式会社', prefectureName: '大阪府', workLocationCount: 1 },
      });
      const detail = await get(names.jobDetails, 'G000001');
      expect(Object.keys(detail ?? {}).sort()).toEqual(mappingKeys('job-details.json'));
      expect(detail?.description).toContain('フォークリフト');
    });

    it('gives the same documents when the same file is ingested again', async () => {
      const before = await get(names.jobs, 'G000002');
      const counts = async () =>
        Promise.all(
          Object.values(names).map(async (index) => (await services.opensearch.count({ index })).body.count),
        );
      const countsBefore = await counts();
      const result = await ingestFiles([fixture], {
        client: services.opensearch,
        indexPrefix: services.config.indexPrefix,
        deadLetter: new MemoryDeadLetter(),
        now: () => now,
      });
      await refresh();
      expect(result.report.job).toEqual({ read: 5, indexed: 3, rejected: 2 });
      expect(await counts()).toEqual(countsBefore);
      expect(await get(names.jobs, 'G000002')).toEqual(before);
      expect(result.rebuild.fannedOut).toBe(0);
    });
  });

  describe('a bad record never stops its batch', () => {
    it('dead-letters schema, master and engine rejections with their reasons while the rest lands', async () => {
      const good1 = job({ corporateNumber: numbers.beta });
      const good2 = job({ corporateNumber: numbers.beta });
      const { report, deadLetter } = await ingest([
        corporate({ corporateNumber: numbers.beta, name: 'ベータ工業株式会社' }),
        good1,
        job({ corporateNumber: numbers.beta, salaryMin: 'many' as never }),
        job({ corporateNumber: numbers.beta, mediaId: 999 }),
        // passes the schema, but an integer field cannot hold it: OpenSearch rejects the item
        job({ corporateNumber: numbers.beta, id: 'ENGINE-REJECT', hiringPlanMin: 3_000_000_000 }),
        job({ corporateNumber: numbers.beta, unknownField: 1 } as never),
        good2,
      ]);
      expect(report.job).toEqual({ read: 6, indexed: 2, rejected: 4 });
      const reasons = deadLetter.entries.map((entry) => entry.reason);
      expect(reasons[0]).toBe('salaryMin: must be integer,null');
      expect(reasons[1]).toBe('unknownField: unknown field');
      expect(reasons[2]).toBe('mediaId: 999 is not in the media master');
      expect(reasons[3]).toMatch(/^rejected by OpenSearch: mapper_parsing_exception: .*hiringPlanMin/);
      expect(deadLetter.entries[3]?.key).toBe('ENGINE-REJECT');
      expect(await get(names.jobs, good1.id)).toBeDefined();
      expect(await get(names.jobs, good2.id)).toBeDefined();
      expect(await get(names.jobs, 'ENGINE-REJECT')).toBeUndefined();
      expect((await get(names.corporates, numbers.beta))?.aggregates).toMatchObject({ postingCount: 2 });
    });

    it('dead-letters a record with every problem it has, each naming its field', async () => {
      const { title: _title, ...untitled } = job({ corporateNumber: numbers.beta });
      const { report, deadLetter } = await ingest([
        corporate({ corporateNumber: numbers.beta, name: 'ベータ工業株式会社' }),
        { ...untitled, salaryMin: 'many', unknownField: 1 },
        job({ corporateNumber: numbers.beta, mediaId: 999, jobCategoryId: 4242 }),
      ]);
      expect(report.job).toMatchObject({ read: 2, rejected: 2 });
      expect(deadLetter.entries.map((entry) => entry.reasons)).toEqual([
        expect.arrayContaining([
          { field: 'title', reason: 'is required' },
          { field: 'salaryMin', reason: 'must be integer,null' },
          { field: 'unknownField', reason: 'unknown field' },
        ]),
        [
          {
            field: 'jobSubCategoryId',
            reason: '101 is not a subcategory of jobCategoryId 4242 in the job-categories master',
          },
          { field: 'mediaId', reason: '999 is not in the media master' },
          { field: 'jobCategoryId', reason: '4242 is not in the job-categories master' },
        ],
      ]);
      expect(deadLetter.entries[0]?.reasons).toHaveLength(3);
      // the one-line `reason` of before, every problem in it
      expect(deadLetter.entries[1]?.reason).toBe(
        'jobSubCategoryId: 101 is not a subcategory of jobCategoryId 4242 in the job-categories master; ' +
          'mediaId: 999 is not in the media master; jobCategoryId: 4242 is not in the job-categories master',
      );
    });

    it('rejects a posting whose company is not indexed, naming the fix', async () => {
      const { deadLetter } = await ingest([job({ corporateNumber: '7010401000005' })]);
      expect(deadLetter.entries.map((entry) => entry.reason)).toEqual([
        'corporateNumber: company 7010401000005 is not indexed; ingest its corporate record first',
      ]);
    });
  });

  describe('company rebuild', () => {
    const at = (city: string | null, address: string | null) => ({
      kind: 'onsite' as const,
      prefectureId: 13,
      cityName: city,
      address,
    });
    const p = {
      full: job({
        workLocation: at('渋谷区', '道玄坂１丁目２番地３号'),
        salaryMin: 3_000_000,
        hiringPlanMin: 1,
      }),
      dashes: job({ workLocation: at('渋谷区', '道玄坂 1-2-3'), jobCreatedAt: '2026-11-10T00:00:00Z' }),
      minus: job({ workLocation: at('渋谷区', '道玄坂1−2−3'), jobDeadlineOn: '2027-01-31' }),
      shinjuku: job({ workLocation: at('新宿区', '西新宿二丁目8番1号'), hiringPlanMin: 7 }),
      shinjukuAgain: job({ workLocation: at('新宿区', '西新宿2-8-1'), jobOpenedOn: '2026-11-05' }),
      remote: job({ workLocation: { kind: 'remote' } }),
      client: job({
        workLocation: { kind: 'client_site', prefectureId: 13, cityName: '港区', address: '芝公園4-2-8' },
      }),
      oneOff: job({
        workLocation: { kind: 'one_off', prefectureId: 13, cityName: '港区', address: '海岸1-1-1' },
      }),
      noStreet: job({ workLocation: at('品川区', null) }),
      noCity: job({ workLocation: at(null, '1-2-3') }),
      none: job({ workLocation: null, salaryMin: null }),
    };

    it('counts distinct normalised on-site addresses and skips remote, client site, one-off and thin ones', async () => {
      const { deadLetter } = await ingest([corporate(), ...Object.values(p)]);
      expect(deadLetter.entries).toEqual([]);
      const company = await get(names.corporates, numbers.alpha);
      expect(company?.workLocationCount).toBe(2);
      expect(company?.aggregates).toEqual({
        jobCreatedAtMax: '2026-11-10T00:00:00Z',
        jobOpenedOnMax: '2026-11-05',
        jobDeadlineOnMax: '2027-01-31',
        jobSalaryMinMax: 4_000_000,
        jobHiringPlanMinMax: 7,
        postingCount: 11,
        postingsTruncated: false,
      });
      expect(((company?.postings ?? []) as Source[]).map((posting) => posting.id).sort()).toEqual(
        Object.values(p)
          .map((posting) => posting.id)
          .sort(),
      );
      expect((await get(names.jobs, p.remote.id))?.corporate).toMatchObject({ workLocationCount: 2 });
    });

    it('recomputes after a posting update and carries the new count to every posting', async () => {
      await ingest([
        { ...p.shinjuku, workLocation: at('港区', '芝公園四丁目2番8号'), hiringPlanMin: 1 },
        { ...p.dashes, salaryMin: 9_000_000, jobCreatedAt: '2026-11-18T00:00:00Z' },
      ]);
      const company = await get(names.corporates, numbers.alpha);
      // 道玄坂, 西新宿 (still p.shinjukuAgain), 芝公園
      expect(company?.workLocationCount).toBe(3);
      expect(company?.aggregates).toMatchObject({
        jobSalaryMinMax: 9_000_000,
        jobCreatedAtMax: '2026-11-18T00:00:00Z',
        // the 7 moved away with the update; the others plan 1 or 2
        jobHiringPlanMinMax: 2,
        postingCount: 11,
      });
      const copies = await searchIds(names.jobs, { term: { 'corporate.workLocationCount': 3 } });
      expect(copies).toHaveLength(11);
    });

    it('gives 0 and empty aggregates to a company without countable postings', async () => {
      await ingest([
        corporate({ corporateNumber: numbers.delta, name: '合同会社デルタ' }),
        job({
          corporateNumber: numbers.delta,
          workLocation: { kind: 'remote' },
          salaryMin: null,
          hiringPlanMin: null,
        }),
      ]);
      const company = await get(names.corporates, numbers.delta);
      expect(company?.workLocationCount).toBe(0);
      expect(company?.aggregates).toMatchObject({ postingCount: 2, jobSalaryMinMax: null });
    });

    it('fans a company rename out to its postings', async () => {
      await ingest([corporate({ name: '株式会社アルファホールディングス' })]);
      expect(
        await searchIds(names.jobs, { match_phrase: { 'corporateName.substring': 'アルファ商事' } }),
      ).toEqual([]);
      const renamed = await searchIds(names.jobs, {
        term: { 'corporate.name': '株式会社アルファホールディングス' },
      });
      expect(renamed).toHaveLength(11);
      expect((await get(names.jobs, p.full.id))?.corporateName).toBe('株式会社アルファホールディングス');
      // the rename kept the aggregates
      expect((await get(names.corporates, numbers.alpha))?.aggregates).toMatchObject({ postingCount: 11 });
    });

    it('deletes a posting (both copies) and rebuilds its company; deletes a company with its postings', async () => {
      const { report } = await ingest([{ type: 'delete_job', id: p.none.id }]);
      expect(report.delete_job).toEqual({ read: 1, indexed: 1, rejected: 0 });
      expect(await get(names.jobs, p.none.id)).toBeUndefined();
      expect(await get(names.jobDetails, p.none.id)).toBeUndefined();
      expect((await get(names.corporates, numbers.alpha))?.aggregates).toMatchObject({ postingCount: 10 });

      await ingest([{ type: 'delete_corporate', corporateNumber: numbers.delta }]);
      expect(await get(names.corporates, numbers.delta)).toBeUndefined();
      expect(await searchIds(names.jobs, { term: { corporateNumber: numbers.delta } })).toEqual([]);
      expect(await searchIds(names.jobDetails, { term: { corporateNumber: numbers.delta } })).toEqual([]);
    });

    it('applies a master record to the records after it', async () => {
      // a company of its own (check digit 5), so the other tests' counts do not depend on this one
      const epsilon = corporate({ corporateNumber: '5010401000007', name: '株式会社イプシロン' });
      const renamed = job({ corporateNumber: epsilon.corporateNumber, mediaId: 3 });
      const media = JSON.parse(
        readFileSync(path.join(import.meta.dirname, '..', '..', 'data', 'masters', 'media.json'), 'utf8'),
      ).items as Array<{ id: number; name: string }>;
      await ingest([
        {
          type: 'master',
          master: 'media',
          items: media.map((item) => (item.id === 3 ? { ...item, name: 'doda X' } : item)),
        },
        epsilon,
        renamed,
      ]);
      expect((await get(names.jobs, renamed.id))?.mediaName).toBe('doda X');
    });
  });
});
