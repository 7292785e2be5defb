/**
 * gBizINFO's files (indexer/gbizinfo/: subsidies, procurement, certifications, awards,
 * workplace figures) on the fixtures in their
 * download form (test/fixtures/gbizinfo/, written by build-fixtures.ts), over the registry
 * fixtures' companies: the row checks alone, then through the real engine: the file gives each
 * company its summary (the record's `subsidies`, `procurement`, `certifications`, `awards`,
 * `workplace`), the filters, facets and sorts
 * find them, the Shift_JIS file gives the same, the next day's whole file changes, adds and
 * clears summaries, a file loaded again is skipped, a stopped run resumes, and the command
 * reports and exits 2 for a rejected row.
 */
import { createWriteStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryDeadLetter } from '../../indexer/dead-letter.js';
import { bodyIdOf, checkHeader, dayOf, kindFormats, yenOf } from '../../indexer/gbizinfo/format.js';
import { importRecordFile, RecordImportStopped } from '../../indexer/gbizinfo/import.js';
import { figureOf } from '../../indexer/gbizinfo/workplace.js';
import { indexNames } from '../../indexer/index-names.js';
import { importRegistryFiles } from '../../indexer/registry/import.js';
import { ZipWriter } from '../../indexer/registry/zip-writer.js';
import { dropIndices } from '../../src/opensearch/indices.js';
import { searchCorporates } from '../../src/search/run-search.js';
import type { Services } from '../../src/services.js';
import {
  award,
  certification,
  certificationHeader,
  csv,
  subsidy,
  subsidyHeader,
  workplace,
  workplaceHeader,
} from '../fixtures/gbizinfo/build-fixtures.js';
import { companies } from '../fixtures/registry/build-fixtures.js';
import { runCommand } from '../support/child-runs.js';
import { setUpServices, uniquePrefix } from '../support/env.js';

const fixtures = path.join(import.meta.dirname, '..', 'fixtures', 'gbizinfo');
const subsidiesUtf8 = path.join(fixtures, 'Hojokinjoho_20261031_utf8.csv');
const subsidiesSjis = path.join(fixtures, 'Hojokinjoho_20261031_sjis.csv');
const nextDay = path.join(fixtures, 'Hojokinjoho_20261101_utf8.csv');
const procurementFile = path.join(fixtures, 'Chotatsujoho_20261031_utf8.csv');
const registryFull = path.join(import.meta.dirname, '..', 'fixtures', 'registry', 'full_20261031_utf8.csv');

type Doc = Record<string, unknown>;
const stateDirs: string[] = [];
function stateDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'gbizinfo-state-'));
  stateDirs.push(dir);
  return dir;
}

describe('row checks', () => {
  it('days, yen and bodies as the files write them', () => {
    expect(dayOf('2025/7/1')).toBe('2025-07-01');
    expect(dayOf('2024-03-29')).toBe('2024-03-29');
    expect(dayOf('2024-02-30')).toBeUndefined();
    expect(dayOf('令和6年3月29日')).toBeUndefined();
    expect(yenOf('12,500,000')).toBe(12_500_000);
    expect(yenOf('3500000円')).toBe(3_500_000);
    expect(yenOf('-5')).toBeUndefined();
    expect(yenOf('1.5')).toBeUndefined();
    // the longest listed name in the text; a bureau is its ministry; an agency is itself
    expect(bodyIdOf('国土交通省関東地方整備局')).toBe(12);
    expect(bodyIdOf('中小企業庁')).toBe(29);
    expect(bodyIdOf('防衛装備庁')).toBe(43);
    expect(bodyIdOf('独立行政法人農畜産業振興機構')).toBe(999);
    // names as long: the one written last (the agency after its ministry)
    expect(bodyIdOf('経済産業省 中小企業庁')).toBe(29);
  });

  it('a row is checked whole; a header that is not the kind’s is refused by name', () => {
    const row = subsidy(companies.abcBefore, '2024-03-29', '補助金', '1,000', '経済産業省');
    const check = kindFormats.subsidies.check;
    expect(check(row)).toEqual({
      ok: true,
      corporateNumber: companies.abcBefore,
      row: {
        on: '2024-03-29',
        amountYen: 1000,
        bodyId: 11,
        title: '補助金',
      },
    });
    const broken = subsidy('1234567890123', '2024-13-01', '補助金', 'abc', '経済産業省');
    const checked = check(broken);
    expect(checked.ok ? [] : checked.reasons.map((reason) => reason.split(':')[0])).toEqual([
      '法人番号',
      '認定日',
      '金額',
    ]);
    expect(check(row.slice(0, 7))).toEqual({
      ok: false,
      reasons: ['row has 7 columns, expected 8'],
    });
    expect(checkHeader('subsidies', ['\uFEFF法人番号', ...subsidyHeader.slice(1)])).toBeUndefined();
    expect(checkHeader('subsidies', ['法人番号', '法人名'])).toMatch(/not a gBizINFO subsidies file/);
    // a procurement file has as many columns, starting the same: every name is compared
    expect(
      checkHeader('subsidies', [
        '法人番号',
        '法人名',
        '本社所在地',
        '受注日',
        '事業名',
        '金額',
        '府省',
        '備考',
      ]),
    ).toMatch(/not a gBizINFO subsidies file/);
  });
});

describe('certifications, awards and workplace rows', () => {
  it('a certification or award is the longest kind its title names; 999 for one the master lacks', () => {
    const check = kindFormats.certifications.check;
    const row = (title: string, expires = '') =>
      certification(companies.abcBefore, '2024-04-01', title, expires, '厚生労働省');
    const kindOf = (title: string) => {
      const checked = check(row(title));
      return checked.ok ? (checked.row as { kindId: number }).kindId : undefined;
    };
    expect(kindOf('くるみん認定')).toBe(3);
    expect(kindOf('プラチナくるみん認定')).toBe(4);
    expect(kindOf('トライくるみん')).toBe(5);
    expect(kindOf('ＤＸ認定事業者')).toBe(16);
    expect(kindOf('女性の活躍推進に関する状況等が優良な事業主の認定')).toBe(1);
    expect(kindOf('〇〇県の認定')).toBe(999);
    // a kind's name before another kind's official wording written after it
    expect(kindOf('プラチナくるみん認定（子育てサポート企業）')).toBe(4);
    expect(kindOf('トライくるみん（子育てサポート企業）')).toBe(5);
    expect(kindOf('プラチナえるぼし（女性の活躍推進に関する状況等が優良な事業主の特例認定）')).toBe(2);
    // the official wording alone names its kind
    expect(kindOf('子育てサポート企業として厚生労働大臣の認定')).toBe(3);
    expect(check(row('くるみん', '2027/3/31'))).toMatchObject({
      ok: true,
      row: { expiresOn: '2027-03-31', bodyId: 9 },
    });
    const broken = check(certification('1234567890123', '', '', 'soon', ''));
    expect(broken.ok ? [] : broken.reasons.map((reason) => reason.split(':')[0])).toEqual([
      '法人番号',
      '有効期限',
      '届出・認定等',
    ]);
    const awardCheck = kindFormats.awards.check(
      award(companies.abcBefore, '2024-01-20', '第10回ものづくり日本大賞', '経済産業省'),
    );
    expect(awardCheck).toMatchObject({
      ok: true,
      row: { kindId: 1, on: '2024-01-20', expiresOn: null, bodyId: 11 },
    });
  });

  it("a company's certifications: counted all, kinds ascending, the latest 50 kept, latest first", () => {
    const format = kindFormats.certifications;
    const summary = format.empty();
    for (let day = 1; day <= 60; day++) {
      const checked = format.check(
        certification(
          companies.abcBefore,
          `2024-01-${String(((day - 1) % 28) + 1).padStart(2, '0')}`,
          day % 2 ? 'くるみん' : 'えるぼし',
          '',
          '',
        ),
      );
      if (checked.ok) format.add(summary, checked.row);
    }
    const undated = format.check(certification(companies.abcBefore, '', 'もにす', '', ''));
    if (undated.ok) format.add(summary, undated.row);
    const items = summary.items as Array<{ on: string | null; kindId: number }>;
    expect(summary).toMatchObject({ count: 61, kindIds: [1, 3, 7], latestOn: '2024-01-28' });
    expect(items).toHaveLength(50);
    expect(items[0]?.on).toBe('2024-01-28');
    // the latest 50: days 28 to 5 twice, then two of the three rows of day 4
    expect(items.at(-1)?.on).toBe('2024-01-04');
    expect(items.filter((item) => item.on === '2024-01-04')).toHaveLength(2);
    // the undated row is the first to go
    expect(items.some((item) => item.on === null)).toBe(false);
    expect(items.map((item) => item.on)).toEqual([...items.map((item) => item.on)].sort().reverse());
  });

  it('workplace figures: units and gaps as written, shares from counts, bounds checked', () => {
    expect(figureOf('41.3歳')).toBe(41.3);
    expect(figureOf('１２．５％')).toBe(12.5);
    expect(figureOf('1,204人')).toBe(1204);
    expect(figureOf('-')).toBeNull();
    expect(figureOf('')).toBeNull();
    expect(figureOf('四十')).toBeUndefined();
    const check = kindFormats.workplace.check;
    expect(
      check(
        workplace(companies.abcBefore, {
          age: '41.25',
          womenManagers: '1',
          managers: '3',
          menEligible: '4',
          menTaking: '6',
        }),
      ),
    ).toMatchObject({
      ok: true,
      row: {
        averageAge: 41.3,
        femaleManagerPercent: 33.3,
        femaleOfficerPercent: null,
        // leave taken for a child born the year before counts too: past 100 is kept
        maleChildcareLeavePercent: 150,
      },
    });
    // 23 of 80 is 28.75: half up to 28.8 (a float product would give 28.7)
    expect(check(workplace(companies.abcBefore, { womenManagers: '23', managers: '80' }))).toMatchObject({
      ok: true,
      row: { femaleManagerPercent: 28.8 },
    });
    const broken = check(
      workplace(companies.abcBefore, { age: '130', women: '101', womenManagers: '1.5', managers: '3' }),
    );
    expect(broken.ok ? [] : broken.reasons.map((reason) => reason.split(':')[0])).toEqual([
      '従業員の平均年齢',
      '労働者に占める女性労働者の割合',
      '女性管理職人数',
    ]);
    // the download's full-width brackets are the same header
    expect(checkHeader('workplace', workplaceHeader)).toBeUndefined();
    const format = kindFormats.workplace;
    const summary = format.empty();
    const first = check(workplace(companies.abcBefore, { age: '40' }));
    if (first.ok) expect(format.add(summary, first.row)).toBeUndefined();
    if (first.ok) expect(format.add(summary, first.row)).toMatch(/a second row of the company/);
    expect(summary).toMatchObject({ figures: 1, averageAge: 40 });
  });
});

// its tests follow one index set from load to load, in order
describe('through the engine', { shuffle: false }, () => {
  let services: Services;
  let first: Awaited<ReturnType<typeof importRecordFile>>;
  let firstDeadLetters: MemoryDeadLetter;

  const load = (target: Services, kind: 'subsidies' | 'procurement', file: string, options: Doc = {}) => {
    const deadLetter = new MemoryDeadLetter();
    return importRecordFile(kind, file, {
      client: target.opensearch,
      indexPrefix: target.config.indexPrefix,
      deadLetter,
      stateDir: stateDir(),
      batchSize: 2,
      ...options,
    }).then(async (summary) => {
      await target.opensearch.indices.refresh({ index: indexNames(target.config.indexPrefix).corporates });
      return { summary, deadLetter };
    });
  };

  async function records(target: Services): Promise<Map<string, Doc>> {
    const { results } = await searchCorporates(target, { limit: 100, includeClosed: true });
    return new Map(results.map((record) => [String(record.corporateNumber), record as Doc]));
  }

  async function find(target: Services, body: Doc): Promise<string[]> {
    const { results } = await searchCorporates(target, { limit: 100, includeClosed: true, ...body });
    return results.map((record) => String(record.corporateNumber)).sort();
  }

  async function registered(label: string): Promise<Services> {
    const target = await setUpServices(label);
    await importRegistryFiles([registryFull], {
      client: target.opensearch,
      indexPrefix: target.config.indexPrefix,
      deadLetter: new MemoryDeadLetter(),
      stateDir: stateDir(),
    });
    return target;
  }

  beforeAll(async () => {
    services = await registered('gbizinfo');
    const loaded = await load(services, 'subsidies', subsidiesUtf8);
    first = loaded.summary;
    firstDeadLetters = loaded.deadLetter;
  }, 120_000);

  afterAll(async () => {
    await services?.close();
    for (const dir of stateDirs) rmSync(dir, { recursive: true, force: true });
  });

  it('the file: rows summed per company, the broken row dead-lettered, a company not held counted', () => {
    expect(first).toMatchObject({
      read: 7,
      companies: 5,
      set: 4,
      unchanged: 0,
      cleared: 0,
      noCompany: 1,
      rejected: 1,
    });
    expect(firstDeadLetters.entries.map((entry) => [entry.source, entry.type])).toEqual([
      ['Hojokinjoho_20261031_utf8.csv:7', 'gbizinfo-subsidies'],
    ]);
  });

  it("each company's record: count, total, latest day, bodies; null where the file has no row", async () => {
    const byNumber = await records(services);
    expect(byNumber.get(companies.abcBefore)?.subsidies).toEqual({
      count: 2,
      totalYen: 16_000_000,
      latestOn: '2025-07-01',
      bodyIds: [11, 29],
    });
    expect(byNumber.get(companies.takahashi)?.subsidies).toEqual({
      count: 1,
      totalYen: 0,
      latestOn: '2023-12-15',
      bodyIds: [12],
    });
    expect(byNumber.get(companies.midoriHokkaido)?.subsidies).toMatchObject({ bodyIds: [999] });
    expect(byNumber.get(companies.yoshida)?.subsidies).toBeNull();
    expect(byNumber.get(companies.abcBefore)?.procurement).toBeNull();
  });

  it('the filters, a facet and a sort', async () => {
    const withAny = [
      companies.abcBefore,
      companies.takahashi,
      companies.midoriHokkaido,
      companies.renamed,
    ].sort();
    expect(await find(services, { hasSubsidies: true })).toEqual(withAny);
    expect((await find(services, { hasSubsidies: false })).some((number) => withAny.includes(number))).toBe(
      false,
    );
    expect(await find(services, { subsidyCountMin: 2 })).toEqual([companies.abcBefore]);
    expect(await find(services, { subsidyTotalYenMin: 800_000, subsidyTotalYenMax: 1_000_000 })).toEqual(
      [companies.midoriHokkaido, companies.renamed].sort(),
    );
    // the latest day: abcBefore's is 2025-07-01, so its 2024 subsidy does not bring it in
    expect(
      await find(services, { subsidyLatestOnFrom: '2024-01-01', subsidyLatestOnTo: '2024-12-31' }),
    ).toEqual([companies.midoriHokkaido]);
    expect(await find(services, { subsidyBodyIdOr: [29] })).toEqual([companies.abcBefore]);
    expect(await find(services, { hasSubsidies: true, subsidyBodyIdNot: [11, 999] })).toEqual(
      [companies.takahashi, companies.renamed].sort(),
    );
    const { facets } = await searchCorporates(services, {
      hasSubsidies: true,
      limit: 1,
      facets: ['subsidyBodyId'],
    });
    const buckets = (facets as Record<string, Array<{ value: unknown; count: number; name?: string }>>)
      .subsidyBodyId;
    expect(buckets?.find((bucket) => bucket.value === 29)).toMatchObject({ count: 1, name: '中小企業庁' });
    expect(buckets?.find((bucket) => bucket.value === 999)).toMatchObject({ count: 1, name: 'その他' });
    const { results } = await searchCorporates(services, {
      hasSubsidies: true,
      sort: { field: 'subsidyTotalYen', order: 'desc' },
      limit: 2,
    });
    expect(results.map((record) => record.corporateNumber)).toEqual([
      companies.abcBefore,
      companies.midoriHokkaido,
    ]);
  });

  it('the Shift_JIS file gives the same summaries', async () => {
    const other = await registered('gbizinfo-sjis');
    try {
      const { summary } = await load(other, 'subsidies', subsidiesSjis);
      expect(summary).toMatchObject({ read: 7, set: 4, rejected: 1 });
      const [mine, theirs] = await Promise.all([records(services), records(other)]);
      for (const [number, record] of mine)
        expect(theirs.get(number)?.subsidies, number).toEqual(record.subsidies);
    } finally {
      await other.close();
    }
  });

  it('read again for every two companies (bounded memory): the same summaries, a stop resumed', async () => {
    const other = await registered('gbizinfo-passes');
    try {
      const dir = stateDir();
      await expect(
        load(other, 'subsidies', subsidiesUtf8, {
          stateDir: dir,
          companiesPerPass: 2,
          stopAfterCompanies: 4,
        }),
      ).rejects.toBeInstanceOf(RecordImportStopped);
      const { summary, deadLetter } = await load(other, 'subsidies', subsidiesUtf8, {
        stateDir: dir,
        companiesPerPass: 2,
      });
      expect(summary).toMatchObject({ read: 7, companies: 5, set: 4, noCompany: 1, rejected: 1 });
      // the rejected row was dead-lettered once, by the run that stopped
      expect(deadLetter.entries).toHaveLength(0);
      const [mine, theirs] = await Promise.all([records(services), records(other)]);
      for (const [number, record] of mine)
        expect(theirs.get(number)?.subsidies, number).toEqual(record.subsidies);
    } finally {
      await other.close();
    }
  });

  it('a run stopped part-way resumes after its last batch; a file loaded to its end is skipped', async () => {
    const other = await registered('gbizinfo-resume');
    try {
      const dir = stateDir();
      await expect(
        load(other, 'subsidies', subsidiesUtf8, { stateDir: dir, stopAfterCompanies: 2 }),
      ).rejects.toBeInstanceOf(RecordImportStopped);
      const resumed = await load(other, 'subsidies', subsidiesUtf8, { stateDir: dir });
      // the two companies written before the stop are not read again
      expect(resumed.summary).toMatchObject({
        companies: 5,
        set: 4,
        unchanged: 0,
        noCompany: 1,
        rejected: 1,
      });
      // the broken row was dead-lettered by the run that stopped, not again
      expect(resumed.deadLetter.entries).toHaveLength(0);
      const [mine, theirs] = await Promise.all([records(services), records(other)]);
      for (const [number, record] of mine)
        expect(theirs.get(number)?.subsidies, number).toEqual(record.subsidies);
      expect((await load(other, 'subsidies', subsidiesUtf8, { stateDir: dir })).summary.alreadyLoaded).toBe(
        1,
      );
    } finally {
      await other.close();
    }
  });

  it("the next day's whole file: a company gone is cleared, a changed one set, the same ones unchanged", async () => {
    const { summary } = await load(services, 'subsidies', nextDay);
    expect(summary).toMatchObject({ read: 5, companies: 4, set: 2, unchanged: 2, cleared: 1 });
    const byNumber = await records(services);
    expect(byNumber.get(companies.takahashi)?.subsidies).toBeNull();
    expect(byNumber.get(companies.midoriHokkaido)?.subsidies).toMatchObject({ totalYen: 1_500_000 });
    expect(byNumber.get(companies.yoshida)?.subsidies).toMatchObject({ count: 1, bodyIds: [29] });
    expect(await find(services, { hasSubsidies: true })).toEqual(
      [companies.abcBefore, companies.midoriHokkaido, companies.yoshida, companies.renamed].sort(),
    );
  });

  it('procurement: its own field, beside the subsidies, which it leaves alone', async () => {
    const { summary } = await load(services, 'procurement', procurementFile);
    expect(summary).toMatchObject({ read: 3, companies: 2, set: 2, cleared: 0 });
    const byNumber = await records(services);
    expect(byNumber.get(companies.abcAfter)?.procurement).toEqual({
      count: 2,
      totalYen: 14_000_000,
      latestOn: '2025-02-01',
      bodyIds: [2, 14],
    });
    expect(byNumber.get(companies.quoted)?.procurement).toMatchObject({ bodyIds: [12] });
    expect(byNumber.get(companies.abcBefore)?.subsidies).toMatchObject({ count: 2 });
    expect(
      await find(services, { procurementBodyIdOr: [14], procurementLatestOnFrom: '2025-01-01' }),
    ).toEqual([companies.abcAfter]);
    expect(await find(services, { hasProcurement: true, hasSubsidies: true })).toEqual([]);
  });

  it('npm run import:gbizinfo: the summary, exit 2 for the rejected row', async () => {
    const dir = stateDir();
    const prefix = uniquePrefix('gbizinfo-cli');
    const run = runCommand(
      'indexer/bin/import-gbizinfo.ts',
      [
        '--kind',
        'subsidies',
        '--state-dir',
        dir,
        '--dead-letter',
        path.join(dir, 'dead.ndjson'),
        subsidiesUtf8,
      ],
      { opensearchUrl: services.config.opensearchUrl, indexPrefix: prefix },
    );
    expect(run.status, run.stderr).toBe(2);
    // an empty index: no company is held
    expect(run.stdout).toContain(
      'read 7, companies 5, set 0, unchanged 0, cleared 0, no company 5, rejected 1',
    );
    expect(readFileSync(path.join(dir, 'dead.ndjson'), 'utf8').trim().split('\n')).toHaveLength(1);
    await dropIndices(services.opensearch, prefix);
  });

  it('npm run import:gbizinfo with a REDIS_URL that does not answer: refused before any write', async () => {
    const dir = stateDir();
    const prefix = uniquePrefix('gbizinfo-no-redis');
    const run = runCommand(
      'indexer/bin/import-gbizinfo.ts',
      ['--kind', 'subsidies', '--state-dir', dir, subsidiesUtf8],
      // a loopback port nothing listens on
      { opensearchUrl: services.config.opensearchUrl, indexPrefix: prefix, redisUrl: 'redis://127.0.0.1:9' },
    );
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('REDIS_URL is set but Redis does not answer');
    // no line per reconnection attempt
    expect(run.stderr).not.toContain('Unhandled error event');
    const { body } = await services.opensearch.count({ index: indexNames(prefix).corporates });
    expect(body.count).toBe(0);
    await dropIndices(services.opensearch, prefix);
  });

  it('a file that is empty, only a header, of the other kind, or a zip of two is refused before any write', async () => {
    const dir = stateDir();
    const before = await records(services);
    const empty = path.join(dir, 'empty.csv');
    writeFileSync(empty, '');
    const headerOnly = path.join(dir, 'header.csv');
    writeFileSync(headerOnly, `\uFEFF${csv(subsidyHeader, [])}`);
    const archive = path.join(dir, 'two.zip');
    const zip = new ZipWriter(createWriteStream(archive));
    await zip.add('a.csv', [readFileSync(nextDay)]);
    await zip.add('b.csv', [readFileSync(nextDay)]);
    await zip.finish();
    await expect(load(services, 'subsidies', empty)).rejects.toThrow(/empty, not a gBizINFO subsidies file/);
    await expect(load(services, 'subsidies', headerOnly)).rejects.toThrow(/no valid row/);
    await expect(load(services, 'subsidies', procurementFile)).rejects.toThrow(
      /not a gBizINFO subsidies file/,
    );
    await expect(load(services, 'subsidies', archive)).rejects.toThrow(/one CSV expected, found more/);
    expect(await records(services)).toEqual(before);
  });

  it('a file far smaller than what the index holds clears nothing, unless allowed', async () => {
    const dir = stateDir();
    const small = path.join(dir, 'small.csv');
    writeFileSync(
      small,
      `\uFEFF${csv(subsidyHeader, [subsidy(companies.renamed, '2025-01-10', '補助金', '800,000', '厚生労働省')])}`,
    );
    const held = await find(services, { hasSubsidies: true });
    expect(held.length).toBeGreaterThan(2);
    const guarded = await load(services, 'subsidies', small);
    expect(guarded.summary).toMatchObject({ companies: 1, cleared: 0, sweepSkipped: 1 });
    expect(await find(services, { hasSubsidies: true })).toEqual(held);
    const allowed = await load(services, 'subsidies', small, { allowShrink: true, restart: true });
    expect(allowed.summary).toMatchObject({ cleared: held.length - 1 });
    expect(await find(services, { hasSubsidies: true })).toEqual([companies.renamed]);
  });
});

// its tests follow one index set from load to load, in order
describe('certifications, awards and workplace through the engine', { shuffle: false }, () => {
  let services: Services;
  const loads: Record<string, Awaited<ReturnType<typeof importRecordFile>>> = {};
  const deadLetters = new MemoryDeadLetter();

  beforeAll(async () => {
    services = await setUpServices('gbizinfo-listed');
    const options = {
      client: services.opensearch,
      indexPrefix: services.config.indexPrefix,
      deadLetter: deadLetters,
      stateDir: stateDir(),
    };
    await importRegistryFiles([registryFull], { ...options, deadLetter: new MemoryDeadLetter() });
    // the subsidies first: the other kinds leave them alone
    await importRecordFile('subsidies', subsidiesUtf8, options);
    loads.certifications = await importRecordFile(
      'certifications',
      path.join(fixtures, 'Todokedejoho_20261031_utf8.csv'),
      options,
    );
    loads.awards = await importRecordFile(
      'awards',
      path.join(fixtures, 'Hyoshojoho_20261031_sjis.csv'),
      options,
    );
    loads.workplace = await importRecordFile(
      'workplace',
      path.join(fixtures, 'Shokubajoho_20261031_utf8.csv'),
      options,
    );
    await services.opensearch.indices.refresh({ index: indexNames(services.config.indexPrefix).corporates });
  }, 120_000);

  afterAll(async () => {
    await services?.close();
  });

  const find = async (body: Doc) => {
    const { results } = await searchCorporates(services, { limit: 100, includeClosed: true, ...body });
    return results.map((record) => String(record.corporateNumber)).sort();
  };
  const record = async (number: string) => {
    const { results } = await searchCorporates(services, {
      corporateNumberOr: [number],
      includeClosed: true,
    });
    return results[0] as Doc;
  };

  it('each file: its rows per company, the broken ones dead-lettered with the kind', () => {
    expect(loads.certifications).toMatchObject({ read: 6, companies: 3, set: 3, rejected: 1 });
    expect(loads.awards).toMatchObject({ read: 3, companies: 2, set: 2, rejected: 0 });
    expect(loads.workplace).toMatchObject({ read: 5, companies: 3, set: 3, rejected: 2 });
    // more than 1 % of the rows refused: the sweep is skipped (nothing was held before anyway)
    expect([
      loads.certifications?.sweepSkipped,
      loads.workplace?.sweepSkipped,
      loads.awards?.sweepSkipped,
    ]).toEqual([1, 1, undefined]);
    expect(deadLetters.entries.map((entry) => [entry.type, entry.source]).sort()).toEqual(
      [
        ['gbizinfo-certifications', 'Todokedejoho_20261031_utf8.csv:7'],
        ['gbizinfo-subsidies', 'Hojokinjoho_20261031_utf8.csv:7'],
        ['gbizinfo-workplace', 'Shokubajoho_20261031_utf8.csv:5'],
        ['gbizinfo-workplace', 'Shokubajoho_20261031_utf8.csv:6'],
      ].sort(),
    );
  });

  it('the records: kinds with dates, figures to one decimal, null where the file has no row', async () => {
    const abc = await record(companies.abcBefore);
    expect(abc.certifications).toEqual({
      count: 3,
      kindIds: [4, 9, 10],
      latestOn: '2025-03-10',
      items: [
        {
          kindId: 9,
          title: '健康経営優良法人2025（中小規模法人部門）',
          on: '2025-03-10',
          expiresOn: '2026-03-31',
          bodyId: 11,
        },
        { kindId: 4, title: 'プラチナくるみん認定', on: '2023-04-01', expiresOn: null, bodyId: 9 },
        { kindId: 10, title: '経営革新計画の承認', on: null, expiresOn: null, bodyId: 999 },
      ],
    });
    expect(abc.awards).toMatchObject({ count: 1, kindIds: [1], latestOn: '2024-01-20' });
    expect(abc.workplace).toEqual({
      figures: 7,
      averageAge: 41.3,
      averageTenureYears: 12.4,
      overtimeHoursPerMonth: 18.3,
      femaleWorkerPercent: 35,
      femaleManagerPercent: 12.5,
      femaleOfficerPercent: 14.3,
      maleChildcareLeavePercent: 45,
    });
    expect(abc.subsidies).toMatchObject({ count: 2 });
    // 0 women of 0 managers: no share (null), not 0 and not a figure given
    expect((await record(companies.takahashi)).workplace).toMatchObject({
      figures: 1,
      averageAge: 38,
      overtimeHoursPerMonth: null,
      femaleManagerPercent: null,
    });
    const renamed = await record(companies.renamed);
    expect(renamed.workplace).toMatchObject({ figures: 0, averageAge: null, femaleManagerPercent: null });
    const yoshida = await record(companies.yoshida);
    expect([yoshida.certifications, yoshida.awards, yoshida.workplace]).toEqual([null, null, null]);
    // the Shift_JIS award file: names read right
    expect((await record(companies.midoriHokkaido)).awards).toMatchObject({
      kindIds: [6, 999],
      items: [{ title: 'なでしこ銘柄' }, { title: '〇〇市優良企業表彰' }],
    });
  });

  it('filters, facets and sorts on kinds and figures', async () => {
    expect(await find({ hasCertifications: true })).toEqual(
      [companies.abcBefore, companies.takahashi, companies.renamed].sort(),
    );
    expect(await find({ certificationKindIdOr: [4, 16] })).toEqual(
      [companies.abcBefore, companies.takahashi].sort(),
    );
    expect(await find({ hasCertifications: true, certificationKindIdNot: [999] })).toEqual(
      [companies.abcBefore, companies.takahashi].sort(),
    );
    expect(await find({ certificationCountMin: 2 })).toEqual([companies.abcBefore]);
    expect(
      await find({ certificationLatestOnFrom: '2024-01-01', certificationLatestOnTo: '2024-12-31' }),
    ).toEqual([companies.takahashi]);
    expect(await find({ awardKindIdOr: [6] })).toEqual([companies.midoriHokkaido]);
    expect(await find({ hasAwards: true, awardLatestOnFrom: '2025-01-01' })).toEqual([
      companies.midoriHokkaido,
    ]);
    expect(await find({ hasWorkplace: true })).toEqual(
      [companies.abcBefore, companies.takahashi, companies.renamed].sort(),
    );
    // bounds inclusive at one decimal; a figure not given never matches
    expect(await find({ workplaceAverageAgeMin: 41.3 })).toEqual([companies.abcBefore]);
    expect(await find({ workplaceAverageAgeMax: 41.3 })).toEqual(
      [companies.abcBefore, companies.takahashi].sort(),
    );
    expect(
      await find({ workplaceFemaleManagerPercentMin: 12.5, workplaceFemaleManagerPercentMax: 12.5 }),
    ).toEqual([companies.abcBefore]);
    expect(await find({ workplaceFemaleManagerPercentMax: 100 })).toEqual([companies.abcBefore]);
    expect(
      await find({ workplaceOvertimeHoursMax: 18.3, workplaceMaleChildcareLeavePercentMin: 45 }),
    ).toEqual([companies.abcBefore]);
    const { facets } = await searchCorporates(services, {
      hasCertifications: true,
      limit: 1,
      facets: ['certificationKindId', 'awardKindId'],
    });
    const buckets = facets as Record<string, Array<{ value: unknown; count: number; name?: string }>>;
    expect(buckets.certificationKindId?.find((bucket) => bucket.value === 4)).toMatchObject({
      count: 1,
      name: 'プラチナくるみん',
    });
    expect(buckets.awardKindId?.find((bucket) => bucket.value === 1)).toMatchObject({
      count: 1,
      name: 'ものづくり日本大賞',
    });
    const { results } = await searchCorporates(services, {
      hasWorkplace: true,
      sort: { field: 'workplaceAverageAge', order: 'asc' },
      limit: 3,
    });
    // ascending, the company without the figure last
    expect(results.map((result) => result.corporateNumber)).toEqual([
      companies.takahashi,
      companies.abcBefore,
      companies.renamed,
    ]);
  });
  it("a kind's next whole file: a company it lacks is cleared, one with fewer rows shrinks", async () => {
    const dir = stateDir();
    const options = {
      client: services.opensearch,
      indexPrefix: services.config.indexPrefix,
      deadLetter: new MemoryDeadLetter(),
      stateDir: dir,
    };
    const certifications = path.join(dir, 'Todokedejoho.csv');
    writeFileSync(
      certifications,
      `\uFEFF${csv(certificationHeader, [
        certification(companies.abcBefore, '2023-04-01', 'プラチナくるみん認定', '', '厚生労働省'),
        certification(companies.takahashi, '2024/6/1', 'ＤＸ認定事業者', '2026/5/31', '経済産業省'),
      ])}`,
    );
    const workplaces = path.join(dir, 'Shokubajoho.csv');
    writeFileSync(
      workplaces,
      `\uFEFF${csv(workplaceHeader, [
        workplace(companies.abcBefore, { age: '42.0' }),
        workplace(companies.takahashi, { age: '38.0', overtime: '-', womenManagers: '0', managers: '0' }),
      ])}`,
    );
    const certified = await importRecordFile('certifications', certifications, options);
    const figures = await importRecordFile('workplace', workplaces, options);
    await services.opensearch.indices.refresh({ index: indexNames(services.config.indexPrefix).corporates });
    expect(certified).toMatchObject({ companies: 2, set: 1, unchanged: 1, cleared: 1, rejected: 0 });
    expect(figures).toMatchObject({ companies: 2, set: 1, unchanged: 1, cleared: 1, rejected: 0 });
    const abc = await record(companies.abcBefore);
    expect(abc.certifications).toMatchObject({ count: 1, kindIds: [4], latestOn: '2023-04-01' });
    expect((abc.certifications as { items: unknown[] }).items).toHaveLength(1);
    expect(abc.workplace).toMatchObject({ figures: 1, averageAge: 42, femaleManagerPercent: null });
    const renamed = await record(companies.renamed);
    expect([renamed.certifications, renamed.workplace]).toEqual([null, null]);
    expect(await find({ hasWorkplace: true })).toEqual([companies.abcBefore, companies.takahashi].sort());
    expect(await find({ hasCertifications: true })).toEqual(
      [companies.abcBefore, companies.takahashi].sort(),
    );
    // the awards and subsidies, other kinds, are as they were
    expect(await find({ hasAwards: true })).toEqual([companies.abcBefore, companies.midoriHokkaido].sort());
    expect(abc.subsidies).toMatchObject({ count: 2 });
  });
});
