/**
 * The NTA corporate-number import (indexer/registry/) on the fixtures in the published format
 * (test/fixtures/registry/, written by build-fixtures.ts): the reader and the row checks alone,
 * then through the real engine: a full file and a diff give the expected companies (read from
 * the index and found by the company search, which reads the compact record copy), the
 * Shift_JIS file gives the same companies but for its substituted kanji, a second load writes
 * nothing, a run stopped part-way (an injected stop, the CLI killed) resumes from its
 * checkpoint to the same end, rejected rows
 * carry every reason, and the job-postings pipeline's fields survive a registry rename, whose
 * postings then carry the new name with a moved `updatedAt` (a mirror's `updatedAtFrom`).
 */
import { spawn } from 'node:child_process';
import {
  createWriteStream,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corporateCheckDigit } from '../../indexer/corporate-number.js';
import { MemoryDeadLetter } from '../../indexer/dead-letter.js';
import { indexNames } from '../../indexer/index-names.js';
import { IngestPipeline } from '../../indexer/pipeline.js';
import { rebuildCompanies } from '../../indexer/rebuild.js';
import { kindToCorporateType, validateRow } from '../../indexer/registry/format.js';
import {
  checkpointFile,
  emptySummary,
  fileIdentity,
  InjectedStop,
  importRegistryFile,
  importRegistryFiles,
  type RegistrySummary,
} from '../../indexer/registry/import.js';
import { toRegistryChange } from '../../indexer/registry/map.js';
import { ZipWriter } from '../../indexer/registry/zip-writer.js';
import { jobSearch } from '../../src/catalogue/searches.js';
import { nameKey } from '../../src/names/keys.js';
import { runMatch } from '../../src/names/match.js';
import { dropIndices, indexName } from '../../src/opensearch/indices.js';
import { projectRoot } from '../../src/project-root.js';
import { parseSearchRequest } from '../../src/search/parse-request.js';
import { runPlanBytes, searchCorporates, searchJobs } from '../../src/search/run-search.js';
import type { Services } from '../../src/services.js';
import { detectEncoding, parseCsv } from '../../src/text/csv.js';
import { corporate, job } from '../fixtures/indexer/records.js';
import { companies, number, substitutions } from '../fixtures/registry/build-fixtures.js';
import { columnIndex, registryRow } from '../fixtures/registry/columns.js';
import { runCommand, runToEnd } from '../support/child-runs.js';
import { setUpServices, uniquePrefix } from '../support/env.js';

const fixtures = path.join(import.meta.dirname, '..', 'fixtures', 'registry');
const fullUtf8 = path.join(fixtures, 'full_20261031_utf8.csv');
const fullSjis = path.join(fixtures, 'full_20261031_sjis.csv');
const diff = path.join(fixtures, 'diff_20261102_utf8.csv');

type Doc = Record<string, unknown>;

/** The fields a registry load decides: the owned ones, their labels and `registry`. */
const registryView = [
  'name',
  'furigana',
  'corporateType',
  'corporateTypeLabel',
  'postalCode',
  'prefectureId',
  'prefectureName',
  'cityName',
  'streetAddress',
  'registry',
];

const clock = () => new Date('2026-11-03T01:00:00.000Z');
/** When the job-postings pipeline wrote its company and postings: a day before the import. */
const pipelineClock = () => new Date('2026-11-02T01:00:00.000Z');
const stateDirs: string[] = [];
function stateDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'registry-state-'));
  stateDirs.push(dir);
  return dir;
}

async function load(
  services: Services,
  files: string[],
  options: Partial<Parameters<typeof importRegistryFile>[1]>,
) {
  const deadLetter = new MemoryDeadLetter();
  const result = await importRegistryFiles(files, {
    client: services.opensearch,
    indexPrefix: services.config.indexPrefix,
    deadLetter,
    stateDir: options.stateDir ?? stateDir(),
    now: clock,
    batchSize: 7,
    ...options,
  });
  await services.opensearch.indices.refresh({ index: indexNames(services.config.indexPrefix).corporates });
  return { ...result, deadLetter };
}

/** Every company of the index: `_source` (without the postings) with its sequence number. */
async function allCompanies(services: Services): Promise<Map<string, Doc & { _seq: number }>> {
  const { body } = await services.opensearch.search({
    index: indexNames(services.config.indexPrefix).corporates,
    body: {
      size: 100,
      seq_no_primary_term: true,
      query: { match_all: {} },
      _source: { excludes: ['postings', 'compactRecord'] },
    },
  });
  return new Map(
    body.hits.hits.map((hit) => [
      hit._id as string,
      { ...(hit._source as Doc), _seq: hit._seq_no as number },
    ]),
  );
}

function view(doc: Doc | undefined): Doc {
  return Object.fromEntries(registryView.map((field) => [field, doc?.[field] ?? null]));
}

const summary = (counts: Partial<RegistrySummary>): RegistrySummary => ({ ...emptySummary(), ...counts });

describe('the reader: RFC 4180 and the two encodings', () => {
  it('quoted fields keep commas, doubled quotes and line breaks; CRLF ends a record', () => {
    const records = parseCsv('"1","有限会社""ふじ"",商会","a\r\nb",plain,""\r\n"2",x\n');
    expect(records.map((record) => record.fields)).toEqual([
      ['1', '有限会社"ふじ",商会', 'a\r\nb', 'plain', ''],
      ['2', 'x'],
    ]);
    expect(records.every((record) => record.problem === undefined)).toBe(true);
  });

  it('a broken quoting is returned with the problem, and the next record is read', () => {
    const records = parseCsv('"1","ab"c","d"\n"2","ok"\n');
    expect(records[0]?.problem).toBe('text after a closing quote');
    expect(records[1]).toEqual({ fields: ['2', 'ok'], number: 2 });
    const unclosed = parseCsv('"1","never closed\n');
    expect(unclosed[0]?.problem).toBe('unclosed quote');
  });

  it('detects UTF-8 and Shift_JIS from the bytes', () => {
    expect(detectEncoding(readFileSync(fullUtf8))).toBe('utf8');
    expect(detectEncoding(readFileSync(fullSjis))).toBe('sjis');
    // a multi-byte character cut at the end of the sample is still UTF-8
    expect(detectEncoding(readFileSync(fullUtf8).subarray(0, 200))).toBe('utf8');
  });
});

describe('row checks and the mapping', () => {
  const valid = () => {
    const [record] = parseCsv(readFileSync(fullUtf8, 'utf8'));
    return [...(record?.fields ?? [])];
  };

  it('a published row is valid; each broken column is named, all of them at once', () => {
    expect(validateRow(valid()).ok).toBe(true);
    const broken = valid();
    broken[1] = `${(Number(broken[1]?.[0]) % 9) + 1}${broken[1]?.slice(1)}`; // check digit
    broken[2] = '02';
    broken[4] = '2026-02-30';
    broken[8] = '999';
    broken[13] = '48';
    broken[15] = '100-0005';
    broken[19] = '12';
    broken[20] = '1234567890123';
    const check = validateRow(broken);
    expect(check.ok).toBe(false);
    expect(check.ok ? [] : check.reasons.map((reason) => reason.split(':')[0])).toEqual([
      'corporateNumber',
      'process',
      'updateDate',
      'kind',
      'prefectureCode',
      'postCode',
      'closeCause',
      'successorCorporateNumber',
    ]);
    expect(validateRow(valid().slice(0, 29))).toEqual({
      ok: false,
      reasons: ['row has 29 columns, expected 30'],
    });
  });

  it('kind -> corporateType for every published kind; prefecture code, postal code, furigana', () => {
    for (const [kind, type] of Object.entries(kindToCorporateType)) {
      const fields = valid();
      fields[columnIndex('法人種別')] = kind;
      const check = validateRow(fields);
      if (!check.ok) throw new Error(check.reasons.join('; '));
      const change = toRegistryChange(check.row);
      expect(change.action === 'upsert' && change.fields.corporateType).toBe(type);
    }
    const check = validateRow(valid());
    if (!check.ok) throw new Error('fixture row invalid');
    expect(toRegistryChange(check.row)).toMatchObject({
      action: 'upsert',
      fields: { prefectureId: 13, postalCode: '100-0005', furigana: null, cityName: '千代田区' },
      registry: { assignmentDate: '2015-10-05', enName: 'ABC Shoji Co., Ltd.', closed: false },
    });
  });
});

describe('through the engine', () => {
  let services: Services;
  let sjis: Services;
  let crash: Services;
  let first: Awaited<ReturnType<typeof load>>;
  let state: string;
  const phone = '03-9999-0000';

  beforeAll(async () => {
    [services, sjis, crash] = await Promise.all([
      setUpServices('registry'),
      setUpServices('registry-sjis'),
      setUpServices('registry-crash'),
    ]);
    // the job-postings pipeline knows one company first, with what only it has, and a posting
    const pipeline = new IngestPipeline({
      client: services.opensearch,
      indexPrefix: services.config.indexPrefix,
      deadLetter: new MemoryDeadLetter(),
      now: pipelineClock,
    });
    await pipeline.add(
      corporate({
        corporateNumber: companies.renamed,
        name: '株式会社旧名商店',
        phoneNumber: phone,
        websiteUrl: 'https://kyumei.example.jp',
        employeeCount: 42,
        totalAdCost: 1_500_000,
      }),
    );
    await pipeline.add(job({ id: 'REG1', corporateNumber: companies.renamed }));
    await pipeline.add(job({ id: 'REG2', corporateNumber: companies.renamed, mediaId: 1 }));
    await pipeline.flush();
    expect(pipeline.report.job?.indexed).toBe(2);
    await rebuildCompanies(services.opensearch, services.config.indexPrefix, pipeline.touched, {
      now: pipelineClock(),
    });
    state = stateDir();
    first = await load(services, [fullUtf8, diff], { stateDir: state });
  }, 120_000);

  afterAll(async () => {
    await Promise.all([services?.close(), sjis?.close(), crash?.close()]);
    for (const dir of stateDirs) rmSync(dir, { recursive: true, force: true });
  });

  it('a full file then a diff: the summary counts each kind of row', () => {
    expect(first.files.map((file) => file.summary)).toEqual([
      // 20 valid rows: 18 written (the company of the postings pipeline included), 1 closed, 1 hidden
      summary({ read: 23, upserted: 18, closed: 1, hidden: 1, rejected: 3 }),
      // renamed, corrected, new; closure and merger; restoration; deletion; the history row
      summary({ read: 8, upserted: 3, closed: 2, restored: 1, deleted: 1, superseded: 1 }),
    ]);
  });

  it('gives the expected companies in the index', async () => {
    const docs = await allCompanies(services);
    const expected = Object.entries(companies)
      .filter(([key]) => !['deleted', 'hidden'].includes(key))
      .map(([, number]) => number)
      .sort();
    expect([...docs.keys()].sort()).toEqual(expected);
    const get = (number: string) => docs.get(number) as Doc;
    expect(get(companies.renamed)).toMatchObject({
      name: '株式会社新名ホールディングス',
      furigana: 'シンメイホールディングス',
      registry: { process: '11', updateDate: '2026-11-02', closed: false },
    });
    expect(get(companies.closing).registry).toMatchObject({
      closed: true,
      closeDate: '2026-10-30',
      closeCause: '01',
    });
    expect(get(companies.absorbed).registry).toMatchObject({
      closed: true,
      closeCause: '11',
      successorCorporateNumber: companies.abcBefore,
    });
    expect(get(companies.restored).registry).toMatchObject({
      closed: false,
      closeDate: null,
      closeCause: null,
    });
    // the correction row (correct=1, latest=1) is the company's current address
    expect(get(companies.corrected).streetAddress).toBe('丸の内２丁目２－２');
    expect(get(companies.quoted).name).toBe('有限会社"ふじ",商会');
    expect(get(companies.foreign)).toMatchObject({
      corporateType: 'foreign_company',
      prefectureId: null,
      prefectureName: null,
      streetAddress: 'アメリカ合衆国カリフォルニア州',
      registry: { enName: 'XYZ Inc.' },
    });
    expect(get(companies.nta)).toMatchObject({
      corporateType: 'national_org',
      corporateTypeLabel: '国の機関',
    });
    expect(
      ['abcBefore', 'abcAfter', 'yoshida', 'gomei', 'goshi', 'godo', 'other', 'newInDiff'].map(
        (key) => get(companies[key as keyof typeof companies]).corporateType,
      ),
    ).toEqual([
      'kabushiki_gaisha',
      'kabushiki_gaisha',
      'yugen_gaisha',
      'gomei_gaisha',
      'goshi_gaisha',
      'godo_gaisha',
      'other',
      'godo_gaisha',
    ]);
    expect(get(companies.newInDiff)).toMatchObject({
      prefectureId: 14,
      prefectureName: '神奈川県',
      postalCode: '220-0012',
    });
  });

  it('the company search finds them by their new names, spellings and prefectures', async () => {
    const find = async (body: Doc) =>
      (await searchCorporates(services, { limit: 100, ...body })).results
        .map((row) => row.corporateNumber)
        .sort();
    expect(await find({ corporateNameOr: ['株式会社新名ホールディングス'] })).toEqual([companies.renamed]);
    expect(await find({ corporateNameOr: ['株式会社旧名商店'] })).toEqual([]);
    // the same name in two prefectures: two companies, told apart by the prefecture
    expect(await find({ corporateNameOr: ['株式会社みどり食品'] })).toEqual(
      [companies.midoriHokkaido, companies.midoriFukuoka].sort(),
    );
    expect(await find({ corporateNameOr: ['株式会社みどり食品'], prefectureIdOr: [40] })).toEqual([
      companies.midoriFukuoka,
    ]);
    // full-width Latin as published, found with half-width letters (the analyzer folds NFKC)
    expect(await find({ corporateNamePartialMatchOr: ['ABC商事'] })).toEqual(
      [companies.abcBefore, companies.abcAfter].sort(),
    );
    expect(await find({ corporateNameOr: ['株式会社かくれんぼ'] })).toEqual([]);
    const [renamed] = (await searchCorporates(services, { corporateNumberOr: [companies.renamed] })).results;
    expect(renamed).toMatchObject({ name: '株式会社新名ホールディングス', phoneNumber: phone });
  });

  it('a closed company is never a match by its name, only by its corporate number', async () => {
    const docs = await allCompanies(services);
    const closing = docs.get(companies.closing) as Doc;
    const [byName, byNumber] = await runMatch(services, {
      records: [
        { name: String(closing.name) },
        { name: String(closing.name), corporateNumber: companies.closing },
      ],
    });
    expect(byName?.match).toBeNull();
    expect(byName?.candidates.map((candidate) => candidate.corporateNumber)).toContain(companies.closing);
    expect(byNumber?.match?.corporateNumber).toBe(companies.closing);
  });

  it("a rename moves the company's name keys too (what match and suggest compare)", async () => {
    const { body } = await services.opensearch.get({
      index: indexName(services.config.indexPrefix, 'corporates'),
      id: companies.renamed,
    });
    const stored = body._source as Doc;
    expect(stored.nameKey).toBe(nameKey('株式会社新名ホールディングス'));
    expect(stored.nameKey).not.toBe(nameKey('株式会社旧名商店'));
  });

  it("the postings pipeline's fields survive the registry rename, and its postings carry the new name", async () => {
    const doc = (await allCompanies(services)).get(companies.renamed) as Doc;
    expect(doc).toMatchObject({
      phoneNumber: phone,
      websiteUrl: 'https://kyumei.example.jp',
      employeeCount: 42,
      totalAdCost: 1_500_000,
      industryCategoryId: 9,
      aggregates: { postingCount: 2 },
    });
    const names = indexNames(services.config.indexPrefix);
    await services.opensearch.indices.refresh({ index: names.jobs });
    const { body } = await services.opensearch.get({ index: names.jobs, id: 'REG1' });
    const posting = body._source as Doc;
    expect(posting.corporateName).toBe('株式会社新名ホールディングス');
    expect(posting.corporate).toMatchObject({ name: '株式会社新名ホールディングス', phoneNumber: phone });
  });

  it("a rename moves its postings' updatedAt: a mirror syncing by updatedAtFrom gets them with the new name", async () => {
    const names = indexNames(services.config.indexPrefix);
    await services.opensearch.indices.refresh({ index: names.jobs });
    // a mirror's last sync: after the postings were written, just before the import renamed their company
    const lastSync = new Date(clock().getTime() - 60_000).toISOString();
    const body = {
      updatedAtFrom: lastSync,
      corporateNumberOr: [companies.renamed],
      fields: ['id', 'corporateName', 'updatedAt'],
      sort: { field: 'updatedAt', order: 'asc' },
    };
    const expected = [
      { id: 'REG1', corporateName: '株式会社新名ホールディングス', updatedAt: clock().toISOString() },
      { id: 'REG2', corporateName: '株式会社新名ホールディングス', updatedAt: clock().toISOString() },
    ];
    const byId = (rows: Doc[]) => [...rows].sort((a, b) => String(a.id).localeCompare(String(b.id)));
    // records as objects (exports, tools) and as the text spliced from the copies (the HTTP answer)
    expect(byId((await searchJobs(services, body)).results)).toEqual(expected);
    const text = (await runPlanBytes(services, jobSearch, parseSearchRequest(jobSearch, body))).toString(
      'utf8',
    );
    expect(byId((JSON.parse(text) as { results: Doc[] }).results)).toEqual(expected);
    // and without the selection: the whole record, spliced, carries both
    const { fields: _selection, ...wholeBody } = body;
    const whole = JSON.parse(
      (await runPlanBytes(services, jobSearch, parseSearchRequest(jobSearch, wholeBody))).toString('utf8'),
    ) as { results: Doc[] };
    expect(byId(whole.results).map((row) => [row.corporateName, row.updatedAt])).toEqual(
      expected.map((row) => [row.corporateName, row.updatedAt]),
    );
  });

  it('rejected rows go to the dead letters with every reason, and the run goes on', () => {
    const entries = first.deadLetter.entries;
    expect(entries.map((entry) => entry.source)).toEqual([
      'full_20261031_utf8.csv:21',
      'full_20261031_utf8.csv:22',
      'full_20261031_utf8.csv:23',
    ]);
    expect(entries[0]?.reason).toBe('corporateNumber: must be 13 digits with a valid check digit');
    const reasons = (entries[1]?.record as { reasons: string[] } | undefined)?.reasons ?? [];
    expect(reasons.map((reason) => reason.split(':')[0])).toEqual([
      'process',
      'updateDate',
      'kind',
      'prefectureCode',
    ]);
    expect(entries[1]?.reason).toBe(reasons.join('; '));
    expect(entries[1]?.key).toBe(number('010401000031'));
    expect(entries[2]?.reason).toBe('row has 29 columns, expected 30');
  });

  it('a second load changes nothing: a loaded file is skipped, and read again it writes nothing', async () => {
    const before = await allCompanies(services);
    const again = await load(services, [fullUtf8, diff], { stateDir: state });
    expect(again.files.map((file) => file.alreadyLoaded)).toEqual([true, true]);
    const reread = await load(services, [fullUtf8, diff], { stateDir: state, restart: true });
    expect(reread.total).toMatchObject({ upserted: 0, closed: 0, restored: 0, deleted: 0, rejected: 3 });
    // the full file is older than the diff for the companies the diff changed; the deleted
    // company is not brought back
    expect(reread.files[0]?.summary).toMatchObject({ unchanged: 13, older: 6 });
    const after = await allCompanies(services);
    expect([...after.keys()].sort()).toEqual([...before.keys()].sort());
    for (const [number, doc] of before) expect(after.get(number)?._seq, number).toBe(doc._seq);
  });

  it('the Shift_JIS file gives the same companies, but for the substituted kanji', async () => {
    const result = await load(sjis, [fullSjis, diff], {});
    expect(result.files[0]?.encoding).toBe('sjis');
    expect(result.files.map((file) => file.summary)).toEqual(first.files.map((file) => file.summary));
    const fromUtf8 = await allCompanies(services);
    const fromSjis = await allCompanies(sjis);
    expect([...fromSjis.keys()].sort()).toEqual([...fromUtf8.keys()].sort());
    const substitute = (name: unknown) =>
      String(name).replace(/髙|𠮷/gu, (kanji) => substitutions[kanji] ?? kanji);
    for (const [number, doc] of fromUtf8) {
      const expected = view(doc);
      if (number === companies.takahashi || number === companies.yoshida) {
        expect(fromSjis.get(number)?.name).not.toBe(expected.name);
        expected.name = substitute(expected.name);
      }
      expect(view(fromSjis.get(number)), number).toEqual(expected);
    }
    expect(fromSjis.get(companies.takahashi)?.name).toBe('株式会社高橋製作所');
  });

  it('a run stopped part-way resumes after its last committed record and ends the same', async () => {
    const dir = stateDir();
    const options = { stateDir: dir, batchSize: 5 };
    const deadLetter = new MemoryDeadLetter();
    const common = {
      client: crash.opensearch,
      indexPrefix: crash.config.indexPrefix,
      deadLetter,
      now: clock,
      ...options,
    };
    await expect(importRegistryFile(fullUtf8, { ...common, stopAtRecord: 23 })).rejects.toBeInstanceOf(
      InjectedStop,
    );
    const saved = JSON.parse(readFileSync(checkpointFile(dir, (await fileIdentity(fullUtf8)).path), 'utf8'));
    // batches of 5: records 1-20 are committed, 21 and 22 were read but not written
    expect(saved).toMatchObject({ committedRecord: 20, done: false, encoding: 'utf8' });
    expect(deadLetter.entries).toHaveLength(0);
    const resumed = await importRegistryFile(fullUtf8, common);
    expect(resumed.resumedAfter).toBe(20);
    expect(resumed.summary).toEqual(first.files[0]?.summary);
    await importRegistryFile(diff, common);
    await crash.opensearch.indices.refresh({ index: indexNames(crash.config.indexPrefix).corporates });
    // each rejected row once: the rows after the checkpoint were read again, not the ones before
    expect(deadLetter.entries.map((entry) => entry.source)).toEqual(
      first.deadLetter.entries.map((entry) => entry.source),
    );
    const straight = await allCompanies(services);
    const stopped = await allCompanies(crash);
    expect([...stopped.keys()].sort()).toEqual([...straight.keys()].sort());
    for (const [number, doc] of straight) expect(view(stopped.get(number)), number).toEqual(view(doc));
  });

  it("a write of former names or of the register's dates alone keeps the company's postings' detail text (the company is rebuilt)", async () => {
    const other = await setUpServices('registry-history-only');
    try {
      await load(other, [fullUtf8], {});
      const pipeline = new IngestPipeline({
        client: other.opensearch,
        indexPrefix: other.config.indexPrefix,
        deadLetter: new MemoryDeadLetter(),
      });
      const collected = new Date(Date.now() - 2 * 86_400_000).toISOString();
      await pipeline.add(
        job({
          corporateNumber: companies.abcBefore,
          description: '倉庫の棚卸しと検品',
          descriptionCollectedAt: collected,
        }),
      );
      await pipeline.flush();
      await rebuildCompanies(other.opensearch, other.config.indexPrefix, pipeline.touched, {});
      await other.opensearch.indices.refresh({ index: indexNames(other.config.indexPrefix).corporates });
      const byText = { jobDescriptionPartialMatchOr: ['棚卸し'] };
      const found = async () =>
        (await searchCorporates(other, byText)).results.map((record) => record.corporateNumber);
      expect(await found()).toEqual([companies.abcBefore]);
      // a name the company had before, in a file of its own: only the former names are written
      const history = registryRow({
        sequenceNumber: '1',
        corporateNumber: companies.abcBefore,
        process: '01',
        correct: '0',
        updateDate: '2015-10-05',
        changeDate: '2015-10-05',
        name: '株式会社ＡＢＣ旧商事',
        kind: '301',
        prefectureName: '東京都',
        cityName: '千代田区',
        streetNumber: '丸の内１丁目１－１',
        prefectureCode: '13',
        cityCode: '101',
        postCode: '1000005',
        assignmentDate: '2015-10-05',
        latest: '0',
        hihyoji: '0',
      });
      const file = path.join(stateDir(), 'history_only_utf8.csv');
      writeFileSync(file, `${history.map((field) => `"${field}"`).join(',')}\r\n`);
      await load(other, [file], {});
      const [company] = (await searchCorporates(other, { corporateNumberOr: [companies.abcBefore] })).results;
      expect(company?.name).toBe('株式会社ＡＢＣ商事');
      expect(await found()).toEqual([companies.abcBefore]);
      // the current row again, changed only in the register's own dates: the same fields the
      // company carries, a newer `registry` object written, the postings kept again
      const current = parseCsv(readFileSync(fullUtf8, 'utf8'))[0]?.fields ?? [];
      const dated = current.map((field, i) => (i === columnIndex('更新年月日') ? '2026-11-05' : field));
      const later = path.join(stateDir(), 'dated_utf8.csv');
      writeFileSync(later, `${dated.map((field) => `"${field}"`).join(',')}\r\n`);
      expect((await load(other, [later], {})).total).toMatchObject({ upserted: 1 });
      expect(await found()).toEqual([companies.abcBefore]);
    } finally {
      await other.close();
    }
  });

  it('npm run import:registry: the summary, exit 2 for rejected rows, a loaded file skipped the next time', async () => {
    const prefix = uniquePrefix('registry-cli');
    const dir = stateDir();
    const run = () =>
      runCommand(
        'indexer/bin/import-registry.ts',
        ['--state-dir', dir, '--dead-letter', path.join(dir, 'dead.ndjson'), fullSjis, diff],
        { opensearchUrl: services.config.opensearchUrl, indexPrefix: prefix },
      );
    try {
      const first = run();
      expect(first.status, first.stderr).toBe(2);
      expect(first.stdout).toContain(
        'read 31, upserted 21, closed 3, restored 1, deleted 1, unchanged 0, rejected 3',
      );
      const lines = readFileSync(path.join(dir, 'dead.ndjson'), 'utf8').trim().split('\n');
      expect(lines.map((line) => JSON.parse(line).source)).toEqual([
        'full_20261031_sjis.csv:21',
        'full_20261031_sjis.csv:22',
        'full_20261031_sjis.csv:23',
      ]);
      const second = run();
      expect(second.status, second.stderr).toBe(0);
      expect(second.stdout).toContain('loaded before');
      expect(second.stdout).toContain('read 0, upserted 0');
    } finally {
      await dropIndices(services.opensearch, prefix);
    }
  });

  it('the CLI killed part-way (SIGKILL) resumes from its checkpoint and ends with every company', async () => {
    const prefix = uniquePrefix('registry-kill');
    const dir = stateDir();
    const rows = 3000;
    const file = path.join(dir, 'big_utf8.csv');
    const [template] = parseCsv(readFileSync(fullUtf8, 'utf8'));
    const lines = Array.from({ length: rows }, (_, i) => {
      const fields = [...(template?.fields ?? [])];
      const base = `0104${String(i).padStart(8, '0')}`;
      fields[0] = String(i + 1);
      fields[1] = `${corporateCheckDigit(base)}${base}`;
      fields[6] = `株式会社テスト${i}`;
      return fields.map((field) => `"${field.replaceAll('"', '""')}"`).join(',');
    });
    writeFileSync(file, `${lines.join('\r\n')}\r\n`);
    const checkpoint = checkpointFile(dir, path.resolve(file));
    const start = () =>
      // node with tsx's loader, not the tsx wrapper: one process, so the kill reaches the importer itself
      spawn(
        process.execPath,
        ['--import', 'tsx', 'indexer/bin/import-registry.ts', '--batch-size', '20', '--state-dir', dir, file],
        {
          cwd: projectRoot,
          stdio: ['ignore', 'pipe', 'pipe'],
          env: {
            ...process.env,
            OPENSEARCH_URL: services.config.opensearchUrl,
            INDEX_PREFIX: prefix,
            REDIS_URL: '',
          },
        },
      );
    try {
      const child = start();
      const killed = runToEnd(child);
      // kill it once a few batches are committed
      for (let waited = 0; waited < 120_000; waited += 25) {
        if (existsSync(checkpoint) && JSON.parse(readFileSync(checkpoint, 'utf8')).committedRecord >= 200)
          break;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      child.kill('SIGKILL');
      const first = await killed;
      expect(first.code, first.stderr).toBeNull();
      const saved = JSON.parse(readFileSync(checkpoint, 'utf8'));
      expect(saved.done).toBe(false);
      expect(saved.committedRecord).toBeGreaterThanOrEqual(200);
      expect(saved.committedRecord).toBeLessThan(rows);

      const second = await runToEnd(start());
      expect(second.code, second.stderr).toBe(0);
      expect(second.stdout).toMatch(/resumedAfter/);
      // the counts are the whole file's: the part before the kill and the rest
      const total = second.stdout.match(/read (\d+), upserted (\d+),.* unchanged (\d+), rejected (\d+)/);
      expect(Number(total?.[1])).toBe(rows);
      expect(Number(total?.[2]) + Number(total?.[3])).toBe(rows);
      expect(Number(total?.[4])).toBe(0);
      const index = indexNames(prefix).corporates;
      await services.opensearch.indices.refresh({ index });
      const { body } = await services.opensearch.count({ index });
      expect(body.count).toBe(rows);
      const { body: last } = await services.opensearch.get({
        index,
        id: lines.at(-1)?.split(',')[1]?.replaceAll('"', '') ?? '',
      });
      expect((last._source as Doc).name).toBe(`株式会社テスト${rows - 1}`);
    } finally {
      await dropIndices(services.opensearch, prefix);
    }
  }, 300_000);

  it('a zip as published: its CSV entries in name order, stopped part-way and resumed, the same companies as the CSV', async () => {
    const dir = stateDir();
    const archive = path.join(dir, 'registry_20261102.zip');
    const zip = new ZipWriter(createWriteStream(archive));
    // written out of order, with a file that is not a CSV: the entries are read by name
    await zip.add('2_diff.csv', [readFileSync(diff)]);
    await zip.add('readme.txt', [Buffer.from('not a CSV')]);
    await zip.add('1_full.csv', [readFileSync(fullUtf8)]);
    await zip.finish();
    const zipped = await setUpServices('registry-zip');
    try {
      const deadLetter = new MemoryDeadLetter();
      const common = {
        client: zipped.opensearch,
        indexPrefix: zipped.config.indexPrefix,
        deadLetter,
        stateDir: dir,
        now: clock,
        batchSize: 5,
      };
      await expect(importRegistryFiles([archive], { ...common, stopAtRecord: 12 })).rejects.toBeInstanceOf(
        InjectedStop,
      );
      // the checkpoint names the archive and the entry; batches of 5: records 1-10 are written
      const saved = JSON.parse(
        readFileSync(checkpointFile(dir, `${path.resolve(archive)}!1_full.csv`), 'utf8'),
      );
      expect(saved).toMatchObject({ committedRecord: 10, done: false, encoding: 'utf8' });
      const resumed = await importRegistryFiles([archive], common);
      expect(resumed.files.map((file) => [path.basename(file.file), file.resumedAfter])).toEqual([
        ['registry_20261102.zip!1_full.csv', 10],
        ['registry_20261102.zip!2_diff.csv', 0],
      ]);
      expect(resumed.files.map((file) => file.summary)).toEqual(first.files.map((file) => file.summary));
      // each rejected row once, named by archive, entry and record
      expect(deadLetter.entries.map((entry) => entry.source)).toEqual(
        first.deadLetter.entries.map(
          (entry) => `registry_20261102.zip!1_${(entry.source ?? '').replace(/^full_20261031_utf8/, 'full')}`,
        ),
      );
      await zipped.opensearch.indices.refresh({ index: indexNames(zipped.config.indexPrefix).corporates });
      const straight = await allCompanies(services);
      const fromZip = await allCompanies(zipped);
      expect([...fromZip.keys()].sort()).toEqual([...straight.keys()].sort());
      for (const [number, doc] of straight) expect(view(fromZip.get(number)), number).toEqual(view(doc));
      const again = await importRegistryFiles([archive], common);
      expect(again.files.map((file) => file.alreadyLoaded)).toEqual([true, true]);
    } finally {
      await zipped.close();
    }
  }, 120_000);

  it('npm run import:registry -: a file piped on standard input is read (and never resumed)', async () => {
    const prefix = uniquePrefix('registry-stdin');
    const dir = stateDir();
    try {
      const run = runCommand(
        'indexer/bin/import-registry.ts',
        ['--state-dir', dir, '--dead-letter', path.join(dir, 'dead.ndjson'), '-'],
        { opensearchUrl: services.config.opensearchUrl, indexPrefix: prefix, input: readFileSync(fullSjis) },
      );
      expect(run.status, run.stderr).toBe(2);
      expect(run.stdout).toContain(
        'read 23, upserted 18, closed 1, restored 0, deleted 0, unchanged 0, rejected 3',
      );
      expect(run.stdout).toContain('sjis');
      const lines = readFileSync(path.join(dir, 'dead.ndjson'), 'utf8').trim().split('\n');
      expect(lines.map((line) => JSON.parse(line).source)).toEqual(['stdin:21', 'stdin:22', 'stdin:23']);
      expect(readdirSync(dir).filter((file) => file.endsWith('.json'))).toEqual([]);
    } finally {
      await dropIndices(services.opensearch, prefix);
    }
  }, 120_000);
});
