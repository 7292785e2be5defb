/**
 * Search answers spliced from the record copies' JSON text (src/search/record-text.ts) are the
 * bytes the object path writes (`JSON.stringify` of the records `_source` gives), for companies
 * and jobs, every sort in both orders, selections of fields, cursor pages and facets, over HTTP
 * too, with texts that need escaping (quotes, backslashes, control characters, a key-like
 * text), emoji and U+2028/U+2029. Also: copies of the earlier layout (the picked fields' JSON,
 * as written before the copies were the record's text) are answered the same, and one
 * `npm run backfill` rewrites them.
 */
import fc from 'fast-check';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backfillCopies } from '../../ops/backfill-copies.js';
import { createApiKey, keyStoreFor } from '../../src/auth/key-admin.js';
import { recordFieldNames } from '../../src/catalogue/record-fields.js';
import { corporateSearch, jobSearch } from '../../src/catalogue/searches.js';
import { corporateSort, jobSort } from '../../src/catalogue/sort-fields.js';
import { createApp } from '../../src/http/app.js';
import { indexName } from '../../src/opensearch/indices.js';
import { parseSearchRequest } from '../../src/search/parse-request.js';
import { answerBytes, type ByteText, defineLayout, writeCopy } from '../../src/search/record-text.js';
import {
  corporateRecordOf,
  corporateRecordTexts,
  isCurrentCopy,
  jobRecordOf,
  jobRecordTexts,
  selectFields,
  toCompactJobRecord,
  toCompactRecord,
  toCorporateRecord,
  toJobRecord,
} from '../../src/search/records.js';
import { runPlan, runPlanBytes } from '../../src/search/run-search.js';
import type { Services } from '../../src/services.js';
import { corporate, type Doc, indexFixture, job } from '../fixtures/search/docs.js';
import { setUpServices } from '../support/env.js';
import { propertyParams } from '../support/fast-check.js';
import { recordsFromSource } from '../support/source-records.js';

/** Texts a splice could get wrong: escapes, a key-like text, emoji, the line separators. */
const awkward = [
  'quote " and backslash \\ and \\"',
  '改行\nタブ\t制御\u0001\u001f',
  'line\u2028paragraph\u2029sep',
  'emoji 😀🏢👩‍💻 and 𠮷野家',
  ',"summary":"x","updatedAt":null,"_layout":"0"}',
  '<script>&amp;</script>',
  '',
];
const awkwardAt = (i: number) => awkward[i % awkward.length] as string;

/** A record's text from the byte text the splice writes (what the answer's bytes decode to). */
const textOf = (bytes: ByteText) => answerBytes(bytes).toString('utf8');

/** The earlier layout's copy: base64 JSON of the raw fields (what the indexer wrote before). */
function earlierCopy(doc: Doc, leaveOut: string[]): string {
  const fields = (doc.id === undefined ? recordFieldNames.corporates : recordFieldNames.jobs).filter(
    (field) => !leaveOut.includes(field),
  );
  const copy = Object.fromEntries(fields.map((field) => [field, doc[field] ?? null]));
  return Buffer.from(JSON.stringify(copy), 'utf8').toString('base64');
}

describe('a record spliced from its copy is the record parsed from it (no engine)', () => {
  const text = fc.oneof(fc.string({ unit: 'binary' }), fc.constantFrom(...awkward));
  const company = fc.record({
    name: text,
    summary: fc.option(text),
    employeeCount: fc.option(fc.integer()),
    capitalMillionYen: fc.option(fc.double({ noNaN: true, noDefaultInfinity: true })),
    markets: fc.array(fc.record({ exchangeCode: text, code: text, name: text }), { maxLength: 3 }),
    paidMedias: fc.array(fc.record({ mediaName: text, mediaId: fc.nat() }), { maxLength: 2 }),
    closed: fc.option(fc.boolean()),
    updatedAt: fc.option(fc.constantFrom('2026-11-01T09:00:00+09:00', '2026-11-21T03:00:00.000Z')),
  });
  const selection = (names: readonly string[]) =>
    fc.option(fc.subarray([...names, 'notAField']), { nil: undefined });

  it('companies: every selection, any texts, the rebuild moving workLocationCount and updatedAt', () => {
    fc.assert(
      fc.property(
        company,
        selection(recordFieldNames.corporates),
        fc.option(fc.nat()),
        fc.option(fc.constantFrom(Date.parse('2026-11-01T00:00:00Z'), Date.parse('2026-11-21T03:00:00Z'))),
        (fields, chosen, count, millis) => {
          const doc = { corporateNumber: '1010001000001', ...fields };
          const live = {
            ...(count === null ? {} : { workLocationCount: [count] }),
            ...(millis === null ? {} : { updatedAt: [String(millis)] }),
          };
          const hit = { fields: { compactRecord: [toCompactRecord(doc)], ...live } };
          const before = {
            fields: { compactRecord: [earlierCopy(doc, ['workLocationCount'])], ...live },
          };
          const expected = JSON.stringify(selectFields(corporateRecordOf(before), chosen));
          expect(textOf(corporateRecordTexts(chosen)(hit))).toBe(expected);
          expect(JSON.stringify(selectFields(corporateRecordOf(hit), chosen))).toBe(expected);
        },
      ),
      propertyParams(300),
    );
  });

  it('jobs: every selection, any texts, the fan-out moving corporateName and updatedAt, snippets', () => {
    fc.assert(
      fc.property(
        fc.record({
          title: text,
          workLocation: fc.option(fc.record({ address: text, kind: text })),
          updatedAt: fc.option(fc.constantFrom('2026-11-01T09:00:00+09:00', '2026-11-21T03:00:00.000Z')),
        }),
        selection(recordFieldNames.jobs),
        fc.option(text),
        fc.option(fc.constantFrom(Date.parse('2026-11-01T00:00:00Z'), Date.parse('2026-11-21T03:00:00Z'))),
        fc.array(text, { maxLength: 6 }),
        (fields, chosen, corporateName, millis, snippets) => {
          const doc = { id: 'J-1', corporateNumber: '1010001000001', ...fields };
          const live = {
            ...(corporateName === null ? {} : { corporateName: [corporateName] }),
            ...(millis === null ? {} : { updatedAt: [String(millis)] }),
          };
          const highlight = snippets.length > 0 ? { description: snippets } : undefined;
          const hit = { fields: { compactRecord: [toCompactJobRecord(doc)], ...live }, highlight };
          const before = {
            fields: {
              compactRecord: [earlierCopy(doc, ['corporateName', 'descriptionSnippets'])],
              ...live,
            },
            highlight,
          };
          const expected = JSON.stringify(selectFields(jobRecordOf(before), chosen));
          expect(textOf(jobRecordTexts(chosen)(hit))).toBe(expected);
          // the doc value wins: the instant the fan-out wrote, the copy's own text while it is that instant
          if (millis !== null && (chosen === undefined || chosen.includes('updatedAt'))) {
            const answered = JSON.parse(expected).updatedAt as string;
            expect(Date.parse(answered)).toBe(millis);
            if (fields.updatedAt !== null && Date.parse(fields.updatedAt) === millis)
              expect(answered).toBe(fields.updatedAt);
          }
        },
      ),
      propertyParams(300),
    );
  });

  it('a layout refuses what the splice could not cut: a field not ASCII, a nested key found first, _layout', () => {
    expect(() => defineLayout(['id', '名前'], {}, {}, {})).toThrow('field 名前 is not ASCII');
    expect(() => defineLayout(['id', 'list', 'name'], {}, {}, { list: ['name'] })).toThrow(
      'list.name would be taken for the top-level name',
    );
    expect(() => defineLayout(['id', '_layout'], {}, {}, {})).toThrow('a record field is named _layout');
    expect(defineLayout(['id', 'name'], {}, {}, {}).stored).toEqual(['id', 'name']);
  });

  it('a posting copy written before updatedAt was checked is of the current layout (no backfill)', () => {
    const before = defineLayout(
      recordFieldNames.jobs,
      { corporateName: () => 'null', descriptionSnippets: () => '[]' },
      {},
      { workLocation: ['kind', 'prefectureId', 'cityName', 'address'] },
    );
    const record = toJobRecord({ id: 'J-1', corporateNumber: '1010001000001', title: awkwardAt(0) });
    const copy = Buffer.from(writeCopy(before, record), 'utf8').toString('base64');
    expect(isCurrentCopy('jobs', copy)).toBe(true);
    expect(copy).toBe(toCompactJobRecord(record));
  });

  it('a copy of another field list (a field added since) is parsed, not spliced', () => {
    const doc = { corporateNumber: '1010001000001', name: awkwardAt(4) };
    const written = Buffer.from(toCompactRecord(doc), 'base64').toString('utf8');
    const edited = written.replace(/,"englishName":null/, '').replace(/"_layout":"\w+"/, '"_layout":"0"');
    const stale = Buffer.from(edited, 'utf8').toString('base64');
    const hit = { fields: { compactRecord: [stale], workLocationCount: [2] } };
    const text = textOf(corporateRecordTexts(undefined)(hit));
    expect(JSON.parse(text).englishName).toBeNull();
    expect(text).toBe(JSON.stringify(toCorporateRecord({ ...doc, workLocationCount: 2 })));
  });
});

let services: Services;

/** A generated data set: varied values, awkward texts, absent values, postings with text. */
function dataSet(): { corporates: Doc[]; jobs: Doc[] } {
  const day = (i: number) =>
    `2026-${String((i % 12) + 1).padStart(2, '0')}-${String((i % 27) + 1).padStart(2, '0')}`;
  const corporates = Array.from({ length: 30 }, (_, i) =>
    corporate({
      name: `会社${i} ${awkwardAt(i)}`,
      furigana: i % 4 === 0 ? null : `かいしゃ${awkwardAt(i + 1)}`,
      employeeCount: i % 5 === 0 ? undefined : (i * 37) % 500,
      capitalMillionYen: i % 3 === 0 ? undefined : i * 1.25,
      totalAdCost: i % 6 === 0 ? undefined : i * 1000,
      employeeDiff6mMin: i - 15,
      employeeDiff12m: i % 2 === 0 ? undefined : 15 - i,
      foundedAt: i % 7 === 0 ? undefined : day(i),
      phoneNumber: i % 2 === 0 ? `03-0000-${String(i).padStart(4, '0')}` : undefined,
      fax: i % 3 === 0 ? `03-1111-${i}` : undefined,
      email: i % 4 === 1 ? `info${i}@example.jp` : undefined,
      websiteUrl: i % 5 === 2 ? `https://example.jp/${i}` : undefined,
      summary: i % 3 === 1 ? `概要 ${awkwardAt(i + 2)}` : undefined,
      markets: i % 4 === 2 ? [{ exchangeCode: 'T', code: 'tse_prime', name: `東証${awkwardAt(i)}` }] : [],
      paidMedias: i % 3 === 2 ? [{ mediaName: awkwardAt(i + 3), mediaId: i }] : [],
      workLocationCount: i % 4,
      updatedAt: i % 2 === 0 ? '2026-11-21T03:00:00.000Z' : '2026-11-01T09:00:00+09:00',
      closed: i % 10 === 9 ? false : undefined,
      englishName: i % 5 === 4 ? `Company ${awkwardAt(i)}` : undefined,
      aggregates: i % 4 === 3 ? {} : { jobCreatedAtMax: day(i), jobSalaryMinMax: i * 10000, postingCount: 1 },
    }),
  );
  const collectedAt = new Date().toISOString();
  const jobs = Array.from({ length: 40 }, (_, i) => {
    const owner = corporates[i % corporates.length] as Doc;
    return job({
      corporateNumber: owner.corporateNumber,
      corporateName: owner.name,
      title: `職種${i} ${awkwardAt(i + 4)}`,
      mediaId: (i % 3) + 1,
      salaryMin: i % 5 === 0 ? undefined : 200000 + i * 1000,
      salaryMax: i % 4 === 0 ? undefined : 300000 + i * 500,
      hiringPlanMin: i % 3 === 0 ? undefined : i,
      jobCreatedAt: `${day(i)}T09:00:00+09:00`,
      jobOpenedOn: i % 2 === 0 ? day(i + 1) : undefined,
      jobDeadlineOn: i % 3 === 0 ? day(i + 2) : undefined,
      contactEmail: i % 2 === 1 ? `job${i}@example.jp` : undefined,
      contactPhoneNumber: i % 4 === 0 ? `06-${i}` : undefined,
      workLocation: i % 5 === 0 ? undefined : { kind: 'onsite', prefectureId: 13, address: awkwardAt(i) },
      updatedAt: '2026-11-21T03:00:00.000Z',
      description: `ルート営業 ${awkwardAt(i)} の募集です。`,
      descriptionCollectedAt: collectedAt,
      corporate: { corporateNumber: owner.corporateNumber, name: owner.name, markets: [], paidMedias: [] },
    });
  });
  return { corporates, jobs };
}

type Catalogue = typeof corporateSearch | typeof jobSearch;

/**
 * The spliced answer is canonical JSON (`runPlan` parses it, so writing that again gives the
 * same bytes), and its records are the oracle's, built from `_source` (the check that can fail
 * on a wrong splice).
 */
async function expectSameAnswer(search: Catalogue, body: Record<string, unknown>): Promise<void> {
  const plan = parseSearchRequest(search, body);
  const text = (await runPlanBytes(services, search, plan, { userId: 'u' })).toString('utf8');
  const answer = await runPlan(services, search, plan, { userId: 'u' });
  // a cursor is new on each call: the spliced answer's own is put in the expected text
  const cursor = 'nextCursor' in answer ? { nextCursor: JSON.parse(text).nextCursor } : {};
  // (the data sets hold more than one page of every cursor search here)
  if (body.cursor !== undefined) expect(typeof cursor.nextCursor).toBe('string');
  expect(text).toBe(JSON.stringify({ ...answer, ...cursor }));
  expect(JSON.stringify(answer.results)).toBe(
    JSON.stringify(await recordsFromSource(services, search, body)),
  );
}

const selections = {
  corporates: [
    undefined,
    ['corporateNumber'],
    ['englishName'],
    ['workLocationCount'],
    ['updatedAt'],
    ['name', 'markets', 'workLocationCount', 'summary', 'updatedAt', 'closed'],
    ['paidMedias', 'corporateNumber', 'fax'],
    [...recordFieldNames.corporates],
  ],
  jobs: [
    undefined,
    ['id'],
    ['corporateName'],
    ['descriptionSnippets'],
    ['updatedAt', 'title', 'corporateName', 'descriptionSnippets'],
    ['workLocation', 'corporateNumber', 'shortId'],
    [...recordFieldNames.jobs],
  ],
};

function bodies(search: Catalogue): Record<string, unknown>[] {
  const sort = search === jobSearch ? jobSort : corporateSort;
  const chosen = search === jobSearch ? selections.jobs : selections.corporates;
  const sorts = Object.keys(sort.fields).flatMap((field) =>
    (['asc', 'desc'] as const).map((order) => ({ limit: 100, sort: { field, order } })),
  );
  const picked = chosen.map((fields) => ({
    limit: 100,
    includeTotalResults: true,
    ...(fields ? { fields } : {}),
  }));
  return [...sorts, ...picked, { limit: 7, offset: 5 }];
}

describe('search answers spliced from stored text, on the engine', () => {
  beforeAll(async () => {
    services = await setUpServices('record-text');
    await indexFixture(services.opensearch, services.config.indexPrefix, dataSet());
  });
  afterAll(async () => {
    await services?.close();
  });

  it('companies: every sort both ways, selections, paging', async () => {
    for (const body of bodies(corporateSearch)) await expectSameAnswer(corporateSearch, body);
  });

  it('jobs: every sort both ways, selections, paging, detail-text snippets', async () => {
    for (const body of bodies(jobSearch)) await expectSameAnswer(jobSearch, body);
    await expectSameAnswer(jobSearch, { limit: 100, jobDescriptionPartialMatchOr: ['ルート営業'] });
  });

  it('over HTTP: the same bytes and type as res.json, with and without an Idempotency-Key', async () => {
    const app = createApp(services);
    const store = keyStoreFor(services.redis, services.config.redisPrefix);
    const { key } = await createApiKey(store, { userId: 'text-user' });
    await services.limits.ledger.grant('text-user', 100);
    const cases = [
      [corporateSearch, '/rest/v1/corporates/search', { limit: 30, includeTotalResults: true }],
      [
        jobSearch,
        '/rest/v1/jobs/search',
        { limit: 40, fields: ['title', 'corporateName', 'descriptionSnippets'] },
      ],
    ] as const;
    for (const [search, path, body] of cases) {
      const send = () => request(app).post(path).set('X-API-Key', key);
      const plain = await send().send(body).expect(200);
      const kept = await send().set('Idempotency-Key', `text-${search.index}`).send(body).expect(200);
      expect(plain.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(kept.headers['content-type']).toBe(plain.headers['content-type']);
      expect(plain.text).toBe(kept.text);
      expect(plain.text).toBe(
        JSON.stringify(await runPlan(services, search, parseSearchRequest(search, body))),
      );
    }
  });

  it('cursor pages and facets', async () => {
    await expectSameAnswer(corporateSearch, { cursor: '*', limit: 4, fields: ['name', 'updatedAt'] });
    await expectSameAnswer(jobSearch, { cursor: '*', limit: 4 });
    await expectSameAnswer(corporateSearch, { limit: 10, facets: ['prefectureId'] });
  });
});

describe('copies of the earlier layout (picked fields, written before the text copies)', {
  shuffle: false,
}, () => {
  let prefix: string;

  beforeAll(async () => {
    services = await setUpServices('record-text-earlier', { redisUrl: undefined });
    prefix = services.config.indexPrefix;
    const { corporates, jobs } = dataSet();
    const operations = [
      ...corporates.flatMap((doc) => [
        { index: { _index: indexName(prefix, 'corporates'), _id: doc.corporateNumber as string } },
        { ...doc, compactRecord: earlierCopy(doc, ['workLocationCount']) },
      ]),
      ...jobs.flatMap((doc) => [
        { index: { _index: indexName(prefix, 'jobs'), _id: doc.id as string } },
        { ...doc, compactRecord: earlierCopy(doc, ['corporateName', 'descriptionSnippets']) },
      ]),
    ];
    const { body } = await services.opensearch.bulk(
      { refresh: true, body: operations },
      { timeoutMs: 60_000 },
    );
    expect(body.errors).toBe(false);
  });
  afterAll(async () => {
    await services?.close();
  });

  it('are answered as before (parsed, not spliced)', async () => {
    expect(await textCopies()).toEqual({ jobs: 0, corporates: 0 });
    await expectSameAnswers();
  });

  it('npm run backfill rewrites them as the current text, once', async () => {
    const first = await backfillCopies(services.opensearch, prefix);
    expect([first.jobs.written, first.corporates.written]).toEqual([40, 30]);
    await services.opensearch.indices.refresh({ index: `${prefix}*` });
    expect(await textCopies()).toEqual({ jobs: 40, corporates: 30 });
    await expectSameAnswers();
    const second = await backfillCopies(services.opensearch, prefix);
    expect([second.jobs.written, second.corporates.written]).toEqual([0, 0]);
  }, 120_000);

  async function expectSameAnswers(): Promise<void> {
    for (const body of bodies(corporateSearch).slice(0, 6)) await expectSameAnswer(corporateSearch, body);
    for (const body of bodies(jobSearch).slice(-4)) await expectSameAnswer(jobSearch, body);
  }

  /** Documents whose copy (as a search reads it, from doc values) is the current text. */
  async function textCopies(): Promise<Record<'jobs' | 'corporates', number>> {
    const counts = { jobs: 0, corporates: 0 };
    for (const index of ['jobs', 'corporates'] as const) {
      const { body } = await services.opensearch.search({
        index: indexName(prefix, index),
        body: { size: 100, _source: false, docvalue_fields: ['compactRecord'] },
      });
      for (const hit of body.hits.hits) {
        const copy = hit.fields?.compactRecord?.[0];
        if (typeof copy === 'string' && isCurrentCopy(index, copy)) counts[index] += 1;
      }
    }
    return counts;
  }
});
