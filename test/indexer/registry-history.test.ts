/**
 * What the corporate-number registry adds beyond the companies themselves, through the real
 * engine on the fixtures of test/fixtures/registry/ (build-fixtures.ts): former names (kept by
 * the import, found by match and suggest, answered with the current name), closed companies in
 * the records and left out of searches, counts, facets, exports and job searches unless
 * `includeClosed`, and the two feeds writing one company (the postings pipeline leaves the
 * registry's name and address alone on a company the registry has written).
 *
 * The files load in their order: full_20261031 and diff_20261102 first, then diff_20261104
 * (the later hard cases) for the second half; the Shift_JIS twin of diff_20261104 into an
 * index of its own.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planBatch } from '../../indexer/batch-plan.js';
import { MemoryDeadLetter } from '../../indexer/dead-letter.js';
import { indexNames } from '../../indexer/index-names.js';
import { loadMasters } from '../../indexer/masters.js';
import { IngestPipeline } from '../../indexer/pipeline.js';
import { rebuildCompanies } from '../../indexer/rebuild.js';
import { formerNameKeysOf, formerNamesOf, type NameRow } from '../../indexer/registry/former-names.js';
import { importRegistryFiles } from '../../indexer/registry/import.js';
import { writeBulkChunked } from '../../ops/engine/bulk.js';
import { corporateSearch } from '../../src/catalogue/searches.js';
import { companyOfCard, toMatchCard } from '../../src/names/card.js';
import { nameKey } from '../../src/names/keys.js';
import { runMatch } from '../../src/names/match.js';
import { suggestCorporates } from '../../src/names/suggest.js';
import { bootstrapIndices, dropIndices } from '../../src/opensearch/indices.js';
import { indexDefinitions } from '../../src/opensearch/mappings.js';
import { parseSearchRequest } from '../../src/search/parse-request.js';
import { compileWithOverflow, countPlan, searchCorporates, searchJobs } from '../../src/search/run-search.js';
import type { Services } from '../../src/services.js';
import { corporate, job } from '../fixtures/indexer/records.js';
import { companies, later } from '../fixtures/registry/build-fixtures.js';
import { setUpServices, uniquePrefix } from '../support/env.js';

type Doc = Record<string, unknown>;

const fixtures = path.join(import.meta.dirname, '..', 'fixtures', 'registry');
const file = (name: string) => path.join(fixtures, name);
const clock = () => new Date('2026-11-05T01:00:00.000Z');
const stateDirs: string[] = [];

/** Batches of 5 split a company's history row from its current row now and then (diff_20261104). */
async function load(services: Services, files: string[], batchSize = 5) {
  const stateDir = mkdtempSync(path.join(tmpdir(), 'registry-history-'));
  stateDirs.push(stateDir);
  const result = await importRegistryFiles(files.map(file), {
    client: services.opensearch,
    indexPrefix: services.config.indexPrefix,
    deadLetter: new MemoryDeadLetter(),
    stateDir,
    now: clock,
    batchSize,
  });
  const names = indexNames(services.config.indexPrefix);
  await services.opensearch.indices.refresh({ index: [names.corporates, names.jobs] });
  return result;
}

async function stored(services: Services, number: string): Promise<Doc> {
  const { body } = await services.opensearch.get({
    index: indexNames(services.config.indexPrefix).corporates,
    id: number,
    _source_excludes: ['postings'],
  });
  return body._source as Doc;
}

const decodeCopy = (copy: unknown): Doc =>
  JSON.parse(Buffer.from(String(copy), 'base64').toString('utf8')) as Doc;

async function numbersOf(services: Services, body: Doc): Promise<string[]> {
  const { results } = await searchCorporates(services, { limit: 100, ...body });
  return results.map((record) => String(record.corporateNumber)).sort();
}

const phone = '03-1234-0000';

let services: Services;
let sjis: Services;

beforeAll(async () => {
  [services, sjis] = await Promise.all([
    setUpServices('registry-history'),
    setUpServices('registry-history-sjis'),
  ]);
  // the postings pipeline knows two companies first, each with a posting
  const pipeline = new IngestPipeline({
    client: services.opensearch,
    indexPrefix: services.config.indexPrefix,
    deadLetter: new MemoryDeadLetter(),
    now: clock,
  });
  await pipeline.add(
    corporate({ corporateNumber: companies.renamed, name: '株式会社旧名商店', phoneNumber: phone }),
  );
  await pipeline.add(job({ id: 'HIST-OPEN', corporateNumber: companies.renamed }));
  await pipeline.add(corporate({ corporateNumber: companies.closing, name: '株式会社たたみ屋' }));
  await pipeline.add(job({ id: 'HIST-CLOSED', corporateNumber: companies.closing }));
  await pipeline.flush();
  await rebuildCompanies(services.opensearch, services.config.indexPrefix, pipeline.touched, {
    now: clock(),
  });
  await Promise.all([
    load(services, ['full_20261031_utf8.csv', 'diff_20261102_utf8.csv']),
    load(sjis, ['full_20261031_sjis.csv', 'diff_20261102_utf8.csv', 'diff_20261104_sjis.csv']),
  ]);
}, 180_000);

afterAll(async () => {
  await Promise.all([services?.close(), sjis?.close()]);
  for (const dir of stateDirs) rmSync(dir, { recursive: true, force: true });
});

describe('former names from rows (pure)', () => {
  const row = (name: string, changeDate: string, more: Partial<NameRow> = {}): NameRow => ({
    name,
    changeDate,
    updateDate: '2026-11-04',
    correction: false,
    history: false,
    ...more,
  });
  const registered = { name: 'A社', registry: {}, formerNames: [{ name: '古い社', until: '2020-01-01' }] };

  it('the stored name the registry wrote, replaced by a row, stopped on that row’s change date', () => {
    expect(formerNamesOf([row('B社', '2026-11-03')], registered, 'B社')).toEqual([
      { name: 'A社', until: '2026-11-03' },
      { name: '古い社', until: '2020-01-01' },
    ]);
    // a name the postings pipeline wrote is not one the company had
    expect(formerNamesOf([row('B社', '2026-11-03')], { name: '(株)A社' }, 'B社')).toEqual([]);
  });

  it('history rows in file order; a renamed-back name is not former; the later date wins', () => {
    const rows = [
      row('A社', '2019-01-01', { history: true }),
      row('B社', '2024-05-01', { history: true }),
      row('A社', '2026-11-01'),
    ];
    expect(formerNamesOf(rows, registered, 'A社')).toEqual([
      { name: 'B社', until: '2026-11-01' },
      { name: '古い社', until: '2020-01-01' },
    ]);
    expect(formerNamesOf([row('C社', '2026-01-01', { history: true })], registered, 'A社')).toEqual([
      { name: 'C社', until: '2026-11-04' },
      { name: '古い社', until: '2020-01-01' },
    ]);
  });

  it('a correction replaces an error, not a name', () => {
    const fix = row('B社', '2026-11-03', { correction: true });
    expect(formerNamesOf([fix], registered, 'B社')).toEqual([{ name: '古い社', until: '2020-01-01' }]);
    expect(formerNamesOf([row('A誤', '2026-11-01', { history: true }), fix], undefined, 'B社')).toEqual([]);
  });

  it('keys only where the current key differs', () => {
    expect(formerNameKeysOf([{ name: '有限会社さくら', until: '2026-11-01' }], 'さくら株式会社')).toBeNull();
    expect(
      formerNameKeysOf([{ name: '株式会社ひかり電機', until: '2026-11-01' }], '株式会社ひかりテック'),
    ).toEqual([nameKey('ひかり電機')]);
  });
});

// a story in two steps on one index: the checks of the first file and diff, then
// diff_20261104 loaded on top of them; in a shuffled run the steps keep their order
describe('the register loaded file by file', { shuffle: false }, () => {
  describe('after the full file and diff_20261102', () => {
    it('a closed company carries closed, closedOn, closeReason and its successor in the record', async () => {
      const { results } = await searchCorporates(services, {
        includeClosed: true,
        corporateNumberOr: [companies.closing, companies.absorbed, companies.restored],
      });
      const close = (record: Doc) => ({
        corporateNumber: record.corporateNumber,
        closed: record.closed,
        closedOn: record.closedOn,
        closeReason: record.closeReason,
        successorCorporateNumber: record.successorCorporateNumber,
      });
      expect(
        results.map(close).sort((a, b) => String(a.corporateNumber).localeCompare(String(b.corporateNumber))),
      ).toEqual(
        [
          {
            corporateNumber: companies.closing,
            closed: true,
            closedOn: '2026-10-30',
            closeReason: 'liquidationCompleted',
            successorCorporateNumber: null,
          },
          {
            corporateNumber: companies.absorbed,
            closed: true,
            closedOn: '2026-11-01',
            closeReason: 'dissolvedByMerger',
            successorCorporateNumber: companies.abcBefore,
          },
          // closed in the full file, restored in the diff
          {
            corporateNumber: companies.restored,
            closed: false,
            closedOn: null,
            closeReason: null,
            successorCorporateNumber: null,
          },
        ].sort((a, b) => a.corporateNumber.localeCompare(b.corporateNumber)),
      );
    });

    it('the record shows the assignment date as registeredOn and the English name as englishName', async () => {
      const { results } = await searchCorporates(services, {
        corporateNumberOr: [companies.abcBefore, companies.takahashi],
      });
      const shown = results
        .map((record: Doc) => ({
          corporateNumber: record.corporateNumber,
          registeredOn: record.registeredOn,
          englishName: record.englishName,
        }))
        .sort((a, b) => String(a.corporateNumber).localeCompare(String(b.corporateNumber)));
      expect(shown).toEqual(
        [
          {
            corporateNumber: companies.abcBefore,
            registeredOn: '2015-10-05',
            englishName: 'ABC Shoji Co., Ltd.',
          },
          { corporateNumber: companies.takahashi, registeredOn: '2019-04-01', englishName: null },
        ].sort((a, b) => a.corporateNumber.localeCompare(b.corporateNumber)),
      );
    });

    it('company search, count, facets and the export request leave closed companies out unless includeClosed', async () => {
      const three = { corporateNumberOr: [companies.closing, companies.absorbed, companies.restored] };
      expect(await numbersOf(services, three)).toEqual([companies.restored]);
      expect(await numbersOf(services, { ...three, includeClosed: false })).toEqual([companies.restored]);
      expect(await numbersOf(services, { ...three, includeClosed: true })).toEqual(
        [companies.closing, companies.absorbed, companies.restored].sort(),
      );
      // the nested form and a filter group say the same
      expect(await numbersOf(services, { ...three, filters: { includeClosed: true } })).toHaveLength(3);
      expect(await numbersOf(services, { ...three, filterGroups: [{ includeClosed: true }] })).toHaveLength(
        3,
      );

      const count = (body: Doc) =>
        countPlan(services, corporateSearch, parseSearchRequest(corporateSearch, body));
      expect(await count(three)).toBe(1);
      expect(await count({ ...three, includeClosed: true })).toBe(3);

      const tokyo = async (body: Doc) => {
        const { facets } = await searchCorporates(services, { ...body, facets: ['prefectureId'], limit: 1 });
        return facets?.prefectureId?.find((bucket) => bucket.value === 13)?.count;
      };
      expect(await tokyo(three)).toBe(1);
      expect(await tokyo({ ...three, includeClosed: true })).toBe(3);

      // an export pages through this very request (src/search/export.ts)
      const exported = async (body: Doc) => {
        const request = await compileWithOverflow(
          services,
          corporateSearch,
          parseSearchRequest(corporateSearch, body),
          undefined,
        );
        const { body: answer } = await services.opensearch.search({
          ...request,
          body: { ...(request.body as Doc), size: 100 },
        } as Parameters<typeof services.opensearch.search>[0]);
        return answer.hits.hits.length;
      };
      expect(await exported(three)).toBe(1);
      expect(await exported({ ...three, includeClosed: true })).toBe(3);
    });

    it("job search leaves out the postings of closed companies unless includeClosed; the posting's company copy says closed", async () => {
      const ids = async (body: Doc) =>
        (await searchJobs(services, { limit: 100, ...body })).results.map((record) => record.id).sort();
      expect(await ids({})).toEqual(['HIST-OPEN']);
      expect(await ids({ includeClosed: true })).toEqual(['HIST-CLOSED', 'HIST-OPEN']);
      const { body } = await services.opensearch.get({
        index: indexNames(services.config.indexPrefix).jobs,
        id: 'HIST-CLOSED',
      });
      expect((body._source as Doc).corporate).toMatchObject({
        closed: true,
        closeReason: 'liquidationCompleted',
      });
    });

    it('a rename keeps the earlier name with the day it stopped, and its name key apart', async () => {
      const doc = await stored(services, companies.renamed);
      expect(doc.name).toBe('株式会社新名ホールディングス');
      expect(doc.formerNames).toEqual([{ name: '株式会社旧名商店', until: '2026-11-01' }]);
      expect(doc.formerNameKeys).toEqual([nameKey('株式会社旧名商店')]);
    });

    it('match finds a company by its former name, answers with the current name and says so', async () => {
      const [byOld, byCurrent] = await runMatch(services, {
        records: [{ name: '㈱旧名商店', prefectureId: 13 }, { name: '株式会社新名ホールディングス' }],
      });
      expect(byOld?.match).toMatchObject({
        corporateNumber: companies.renamed,
        name: '株式会社新名ホールディングス',
        matchedOn: ['formerName', 'prefecture'],
      });
      expect(byCurrent?.match?.matchedOn).toEqual(['name']);
    });

    it('suggest finds a company by the start of its former name and names that name; closed companies are left out', async () => {
      const [renamed] = await suggestCorporates(services, '旧名');
      expect(renamed).toMatchObject({
        corporateNumber: companies.renamed,
        name: '株式会社新名ホールディングス',
        formerName: '株式会社旧名商店',
        foundBy: 'formerName',
      });
      const [current] = await suggestCorporates(services, '新名');
      expect(current).toMatchObject({
        corporateNumber: companies.renamed,
        formerName: null,
        foundBy: 'prefix',
      });
      expect(await suggestCorporates(services, 'たたみ')).toEqual([]);
    });

    it("a pipeline record of a registry company keeps the registry's name and address, and updates the rest", async () => {
      const before = await stored(services, companies.renamed);
      const pipeline = new IngestPipeline({
        client: services.opensearch,
        indexPrefix: services.config.indexPrefix,
        deadLetter: new MemoryDeadLetter(),
        now: clock,
      });
      // the postings' feed still knows the old name and another address
      await pipeline.add(
        corporate({
          corporateNumber: companies.renamed,
          name: '株式会社旧名商店',
          furigana: 'キュウメイショウテン',
          prefectureId: 27,
          cityName: '大阪市北区',
          phoneNumber: '06-5555-0000',
          employeeCount: 77,
        }),
      );
      await pipeline.add(job({ id: 'HIST-OPEN', corporateNumber: companies.renamed, title: '再掲載' }));
      await pipeline.flush();
      await rebuildCompanies(services.opensearch, services.config.indexPrefix, pipeline.touched, {
        now: clock(),
      });
      const names = indexNames(services.config.indexPrefix);
      await services.opensearch.indices.refresh({ index: [names.corporates, names.jobs] });
      const after = await stored(services, companies.renamed);
      for (const field of [
        'name',
        'furigana',
        'prefectureId',
        'prefectureName',
        'cityName',
        'nameKey',
        'readingKey',
      ])
        expect(after[field], field).toEqual(before[field]);
      expect(after).toMatchObject({ phoneNumber: '06-5555-0000', employeeCount: 77 });
      // the compact copy the searches read was written with the registry's name
      expect(decodeCopy(after.compactRecord)).toMatchObject({
        name: '株式会社新名ホールディングス',
        phoneNumber: '06-5555-0000',
      });
      // and the match card with them (the registry's name, the feed's phone)
      expect(after.matchCard).toBe(toMatchCard(after));
      expect(companyOfCard(String(after.matchCard), [], false)).toMatchObject({
        name: '株式会社新名ホールディングス',
        phone: '0655550000',
      });
      const [record] = (await searchCorporates(services, { corporateNumberOr: [companies.renamed] })).results;
      expect(record).toMatchObject({
        name: '株式会社新名ホールディングス',
        prefectureId: 13,
        phoneNumber: '06-5555-0000',
      });
      const [posting] = (await searchJobs(services, { corporateNumberOr: [companies.renamed] })).results;
      expect(posting).toMatchObject({
        id: 'HIST-OPEN',
        title: '再掲載',
        corporateName: '株式会社新名ホールディングス',
      });
    });
  });

  describe('after diff_20261104', () => {
    beforeAll(async () => {
      // one batch: each history row with its company's current row (the Shift_JIS index, loaded
      // in batches of 5, has them apart)
      await load(services, ['diff_20261104_utf8.csv'], 1000);
    }, 60_000);

    it('a second rename adds the name it replaces; both former names are found, newest first', async () => {
      const doc = await stored(services, companies.renamed);
      expect(doc.name).toBe('株式会社三代目ホールディングス');
      // the registry's update wrote the match card of the new name
      expect(doc.matchCard).toBe(toMatchCard(doc));
      expect(doc.formerNames).toEqual([
        { name: '株式会社新名ホールディングス', until: '2026-11-04' },
        { name: '株式会社旧名商店', until: '2026-11-01' },
      ]);
      const results = await runMatch(services, {
        records: [{ name: '新名ホールディングス' }, { name: '旧名商店' }],
      });
      expect(results.map((result) => result.match?.name)).toEqual([
        '株式会社三代目ホールディングス',
        '株式会社三代目ホールディングス',
      ]);
    });

    it('a rename arriving from the registry while the postings feed re-sends the company keeps the new name, on the company and its postings', async () => {
      // what the pipeline read of the company before the registry's rename landed: the old name
      const stale = new Map([[companies.renamed, { name: '株式会社新名ホールディングス' }]]);
      const plan = planBatch(
        [
          corporate({
            corporateNumber: companies.renamed,
            name: '株式会社新名ホールディングス',
            phoneNumber: phone,
          }),
        ],
        {
          names: indexNames(services.config.indexPrefix),
          masters: loadMasters(),
          now: clock(),
          workLocationCounts: new Map(),
          deferMissingCompany: false,
        },
        { cached: new Map(), indexed: new Map(), jobOwners: new Map(), registered: stale },
      );
      expect(await writeBulkChunked(services.opensearch, plan.ops)).toEqual([]);
      await rebuildCompanies(services.opensearch, services.config.indexPrefix, [companies.renamed], {
        now: clock(),
      });
      const names = indexNames(services.config.indexPrefix);
      await services.opensearch.indices.refresh({ index: [names.corporates, names.jobs] });
      const doc = await stored(services, companies.renamed);
      expect(doc).toMatchObject({ name: '株式会社三代目ホールディングス', phoneNumber: phone });
      // the copy written with the stale name is dropped: searches read `_source` until the next write
      expect(doc.compactRecord).toBeUndefined();
      expect(doc.matchCard).toBeUndefined();
      const [record] = (await searchCorporates(services, { corporateNumberOr: [companies.renamed] })).results;
      expect(record?.name).toBe('株式会社三代目ホールディングス');
      const [posting] = (await searchJobs(services, { corporateNumberOr: [companies.renamed] })).results;
      expect(posting?.corporateName).toBe('株式会社三代目ホールディングス');
    });

    it('every company the register created or changed carries the match card of its fields, beside its copy', async () => {
      const { body } = await services.opensearch.search({
        index: indexNames(services.config.indexPrefix).corporates,
        body: { query: { exists: { field: 'registry' } }, size: 1000, _source: { excludes: ['postings'] } },
      });
      const docs = body.hits.hits.map((hit) => hit._source as Doc);
      expect(docs.length).toBeGreaterThan(5);
      for (const doc of docs)
        expect({ number: doc.corporateNumber, card: doc.matchCard }).toEqual({
          number: doc.corporateNumber,
          // none only where the copy was dropped with it (a stale feed write, above)
          card: doc.compactRecord === undefined ? undefined : toMatchCard(doc),
        });
    });

    it('a rename away from an old kanji: the history row gives the former name, found by its substitute spelling too', async () => {
      const doc = await stored(services, companies.takahashi);
      expect(doc.formerNames).toEqual([{ name: '株式会社髙橋製作所', until: '2026-11-04' }]);
      const [substitute] = await runMatch(services, { records: [{ name: '高橋製作所株式会社' }] });
      expect(substitute?.match).toMatchObject({
        corporateNumber: companies.takahashi,
        name: '株式会社タカハシ',
      });
      expect(substitute?.match?.matchedOn).toContain('formerName');
    });

    it('the Shift_JIS file keeps the substituted former name, with the same name key', async () => {
      const [utf8, shiftJis] = await Promise.all([
        stored(services, companies.takahashi),
        stored(sjis, companies.takahashi),
      ]);
      expect(shiftJis.formerNames).toEqual([{ name: '株式会社高橋製作所', until: '2026-11-04' }]);
      expect(shiftJis.formerNameKeys).toEqual(utf8.formerNameKeys);
      const [match] = await runMatch(sjis, { records: [{ name: '株式会社髙橋製作所' }] });
      expect(match?.match?.corporateNumber).toBe(companies.takahashi);
      // batches of 5 put the history row of the corrected name in a batch before its current row
      for (const number of [companies.renamed, companies.corrected, later.hikariTokyo]) {
        const [one, other] = await Promise.all([stored(services, number), stored(sjis, number)]);
        expect(other.formerNames, number).toEqual(one.formerNames);
      }
    });

    it('a legal form changed and moved keeps the old name but no former key: the current key already matches', async () => {
      const doc = await stored(services, later.formMoved);
      expect(doc.formerNames).toEqual([{ name: '有限会社さくら工房', until: '2026-11-03' }]);
      expect(doc.formerNameKeys ?? null).toBeNull();
      const [old] = await runMatch(services, { records: [{ name: '有限会社さくら工房' }] });
      expect(old?.match).toMatchObject({ corporateNumber: later.formMoved, matchedOn: ['name'] });
    });

    it("a former name is never a stronger match than another company's current name", async () => {
      const [anywhere, inTokyo] = await runMatch(services, {
        records: [{ name: '株式会社ひかり電機' }, { name: '株式会社ひかり電機', prefectureId: 13 }],
      });
      // the company that has the name today is the match; the one that had it is a candidate below it
      expect(anywhere?.match?.corporateNumber).toBe(later.hikariOsaka);
      expect(
        anywhere?.candidates.map((candidate) => [candidate.corporateNumber, candidate.matchedOn]),
      ).toEqual([
        [later.hikariOsaka, ['name']],
        [later.hikariTokyo, ['formerName']],
      ]);
      // Tokyo rules the current holder out, yet the former holder is not made certain by it
      expect(inTokyo?.match).toBeNull();
      expect(inTokyo?.candidates[0]).toMatchObject({
        corporateNumber: later.hikariTokyo,
        name: '株式会社ひかりテック',
        matchedOn: ['formerName', 'prefecture'],
      });
      const suggested = await suggestCorporates(services, 'ひかり電機');
      expect(suggested.map((item) => [item.corporateNumber, item.formerName])).toEqual([
        [later.hikariOsaka, null],
        [later.hikariTokyo, '株式会社ひかり電機'],
      ]);
    });

    it('a corrected name (correct=1) is not a former name, with or without the history row of the wrong state', async () => {
      const [withHistory, without] = await Promise.all([
        stored(services, companies.corrected),
        stored(services, companies.newInDiff),
      ]);
      expect(withHistory.name).toBe('株式会社直し');
      expect(withHistory.formerNames).toEqual([]);
      expect(without.name).toBe('シンキ合同会社');
      expect(without.formerNames).toEqual([]);
    });

    it('a merger annulled reopens the company; a trade name erased closes it without a cause', async () => {
      const { results } = await searchCorporates(services, {
        includeClosed: true,
        corporateNumberOr: [companies.absorbed, later.erased],
      });
      const byNumber = new Map(results.map((record) => [record.corporateNumber, record]));
      expect(byNumber.get(companies.absorbed)).toMatchObject({
        closed: false,
        closedOn: null,
        closeReason: null,
        successorCorporateNumber: null,
      });
      expect(byNumber.get(later.erased)).toMatchObject({ closed: true, closeReason: 'tradeNameErased' });
      expect(await numbersOf(services, { corporateNumberOr: [companies.absorbed, later.erased] })).toEqual([
        companies.absorbed,
      ]);
    });
  });
});

describe('the mapping additions', () => {
  const closeFields = ['closed', 'closedOn', 'closeReason', 'successorCorporateNumber'];

  it("reach an index created before them when a writer starts, inside the jobs' company copy too", {
    timeout: 300_000,
  }, async () => {
    const prefix = uniquePrefix('registry-old');
    const client = services.opensearch;
    type Properties = Record<string, { properties?: Record<string, unknown> }>;
    const without = (properties: Properties, fields: string[]) =>
      Object.fromEntries(Object.entries(properties).filter(([field]) => !fields.includes(field)));
    try {
      // the two indices that gained fields; the writer's start creates the others
      for (const def of indexDefinitions().filter(({ name }) => ['corporates', 'jobs'].includes(name))) {
        let properties = def.mappings.properties as Properties;
        if (def.name === 'corporates')
          properties = without(properties, [...closeFields, 'formerNames', 'formerNameKeys']);
        if (def.name === 'jobs')
          properties = {
            ...properties,
            corporate: { properties: without(properties.corporate?.properties as Properties, closeFields) },
          };
        await client.indices.create(
          {
            index: `${prefix}${def.name}-v${def.version}`,
            body: {
              settings: def.settings,
              mappings: { ...def.mappings, properties },
              aliases: { [`${prefix}${def.name}`]: {} },
            } as never,
          },
          // a busy shared engine can take longer than the client's default to create an index
          { timeoutMs: 120_000, maxRetries: 0 },
        );
      }
      const mapped = async (index: string) => {
        const { body } = await client.indices.getMapping({ index: `${prefix}${index}` });
        const [only] = Object.values(body as Record<string, { mappings: { properties: Properties } }>);
        return only?.mappings.properties ?? {};
      };
      expect(Object.keys((await mapped('jobs')).corporate?.properties ?? {})).not.toContain('closed');
      await bootstrapIndices(client, prefix, undefined, { addNewFields: true });
      const corporates = await mapped('corporates');
      for (const field of [...closeFields, 'formerNames', 'formerNameKeys'])
        expect(corporates).toHaveProperty(field);
      expect(Object.keys((await mapped('jobs')).corporate?.properties ?? {})).toEqual(
        expect.arrayContaining(closeFields),
      );
    } finally {
      await dropIndices(client, prefix);
    }
  });
});
