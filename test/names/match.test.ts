/**
 * POST /rest/v1/corporates/match through the real app on the real engine and Redis, over the
 * companies of test/fixtures/match/companies.ts indexed by the real indexer: `match` only when
 * one company remains after the evidence, candidates with their reasons otherwise, and the 400s.
 * Written to hold for the first-cut name key and for the full one (src/names/keys.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backfillCopies } from '../../ops/backfill-copies.js';
import { createLimits, type Limits } from '../../src/limits/limits.js';
import { evidenceOf } from '../../src/names/evidence.js';
import { foundUnder, lookUpKeys } from '../../src/names/lookup.js';
import { runMatch } from '../../src/names/match.js';
import { indexName } from '../../src/opensearch/indices.js';
import type { Services } from '../../src/services.js';
import { companies, indexCompanies, numberOf, spellings } from '../fixtures/match/companies.js';
import { setUpServices } from '../support/env.js';
import { queryTotal, search, startLimitsTestApp, type TestApp } from '../support/limits-test-app.js';

interface Candidate {
  corporateNumber: string;
  name: string;
  confidence: number;
  score: number;
  features: Array<{ id: string; value: boolean | number }>;
  matchedOn: string[];
}
interface Result {
  match: Candidate | null;
  candidates: Candidate[];
  overMaxCredits: boolean;
}

let services: Services;
let limits: Limits;
let app: TestApp;

beforeAll(async () => {
  services = await setUpServices('match');
  limits = createLimits({
    redis: services.redis,
    keyPrefix: services.config.redisPrefix,
    config: { ratePerSecond: 1_000_000 },
  });
  await indexCompanies(services.opensearch, services.config.indexPrefix);
  app = await startLimitsTestApp({
    limits,
    opensearch: services.opensearch,
    indexPrefix: services.config.indexPrefix,
    seed: false,
  });
  await limits.ledger.grant('matcher', 1_000_000);
});
afterAll(async () => {
  await app?.close();
  await services?.close();
});

async function match(body: unknown, user = 'matcher') {
  const res = await search(app.url, user, { path: '/rest/v1/corporates/match', body });
  return { status: res.status, body: (await res.json()) as { results: Result[]; errors?: unknown } };
}

async function one(record: Record<string, unknown>): Promise<Result> {
  const { status, body } = await match({ records: [record] });
  expect(status).toBe(200);
  return body.results[0] as Result;
}

const numbers = Object.fromEntries(
  Object.entries(companies).map(([key, company]) => [key, company.corporateNumber]),
) as Record<keyof typeof companies, string>;

describe('a match is the one company left', () => {
  it.each(spellings)(
    '"$written" is $of (name keys equal, the only company of that name)',
    async ({ written, of }) => {
      const result = await one({ name: written });
      expect(result.match?.corporateNumber).toBe(numbers[of]);
      expect(result.match?.matchedOn).toContain('name');
      expect(result.match?.confidence).toBeGreaterThanOrEqual(0.9);
      expect(result.match?.score).toBe(result.match?.confidence);
      expect(result.candidates[0]?.corporateNumber).toBe(numbers[of]);
    },
  );

  it('the same name in two prefectures: no match without evidence, both candidates', async () => {
    const result = await one({ name: 'サクラ精機' });
    expect(result.match).toBeNull();
    expect(result.candidates.map((c) => c.corporateNumber).sort()).toEqual(
      [numbers.sakuraTokyo, numbers.sakuraOsaka].sort(),
    );
    for (const candidate of result.candidates) expect(candidate.matchedOn).toEqual(['name']);
  });

  it('... a prefectureId leaves one', async () => {
    const result = await one({ name: '㈱サクラ精機', prefectureId: 27 });
    expect(result.match?.corporateNumber).toBe(numbers.sakuraOsaka);
    expect(result.match?.matchedOn).toEqual(['name', 'prefecture']);
  });

  it('... so does an address naming the prefecture (and the city after it)', async () => {
    const result = await one({ name: 'サクラ精機', address: '〒105-0011 東京都港区芝公園4-2-8' });
    expect(result.match?.corporateNumber).toBe(numbers.sakuraTokyo);
    expect(result.match?.matchedOn).toEqual(['name', 'prefecture', 'address']);
  });

  it('evidence that contradicts the only company of that name leaves it a candidate', async () => {
    const result = await one({ name: 'マルカ物流', prefectureId: 13 });
    expect(result.match).toBeNull();
    // the only company of the name comes first; companies of similar names may follow it
    expect(result.candidates[0]?.corporateNumber).toBe(numbers.maruka);
    expect(result.candidates[0]?.matchedOn).toEqual(['name']);
    expect(result.candidates[0]?.confidence).toBeLessThan(0.5);
    expect(result.candidates[0]?.features).toContainEqual({ id: 'prefecture', value: false });
    // a prefectureId and an address naming another prefecture contradict each other: no match
    const both = await one({ name: 'マルカ物流', prefectureId: 14, address: '東京都港区' });
    expect(both.match).toBeNull();
  });

  it('the same name twice in one prefecture is never guessed', async () => {
    const result = await one({ name: 'アオイ工業', prefectureId: 13 });
    expect(result.match).toBeNull();
    expect(result.candidates.map((c) => c.corporateNumber).sort()).toEqual(
      [numbers.aoiShibuya, numbers.aoiNerima].sort(),
    );
  });

  it('... unless the phone digits, the city or the website single one out', async () => {
    const byPhone = await one({
      name: 'アオイ工業株式会社',
      prefectureId: 13,
      phoneNumber: '(03) 3333 4444',
    });
    expect(byPhone.match?.corporateNumber).toBe(numbers.aoiNerima);
    expect(byPhone.match?.matchedOn).toEqual(['name', 'prefecture', 'phone']);
    const byCity = await one({ name: 'アオイ工業', address: '東京都渋谷区道玄坂1-2-3' });
    expect(byCity.match?.corporateNumber).toBe(numbers.aoiShibuya);
    expect(byCity.match?.matchedOn).toEqual(['name', 'prefecture', 'address']);
    // a phone neither has: still two
    expect((await one({ name: 'アオイ工業', phoneNumber: '03-9999-9999' })).match).toBeNull();
  });

  it('phone (+81 form) and website host (case, www., path) are compared as digits and hosts', async () => {
    const byPhone = await one({ name: 'NOVA Systems', phoneNumber: '+81 3-5555-6666' });
    expect(byPhone.match?.matchedOn).toEqual(['name', 'phone']);
    const byHost = await one({ name: 'nova systems', websiteUrl: 'HTTP://NOVA-SYSTEMS.example.jp' });
    expect(byHost.match?.matchedOn).toEqual(['name', 'website']);
  });

  it('a valid corporate number decides alone; one no company has contradicts the name', async () => {
    const byNumber = await one({ name: 'どこかの会社', corporateNumber: numbers.aoiNerima });
    expect(byNumber.match?.corporateNumber).toBe(numbers.aoiNerima);
    expect(byNumber.match?.matchedOn).toEqual(['corporateNumber']);
    const unknown = await one({ name: 'マルカ物流', corporateNumber: numberOf(999_999) });
    expect(unknown.match).toBeNull();
    expect(unknown.candidates[0]?.corporateNumber).toBe(numbers.maruka);
    // a wrong check digit is not evidence: the name decides
    const wrongCheck = `${(Number(numbers.maruka[0]) % 9) + 1}${numbers.maruka.slice(1)}`;
    const invalid = await one({ name: 'マルカ物流', corporateNumber: wrongCheck });
    expect(invalid.match?.corporateNumber).toBe(numbers.maruka);
    expect(invalid.match?.matchedOn).toEqual(['name']);
  });

  it('a name that folds to nothing or to a generic word matches nothing', async () => {
    for (const name of ['株式会社', '㈱', '株式会社日本', '日本', '商事株式会社']) {
      const result = await one({ name, prefectureId: 13 });
      expect({ name, result }).toEqual({
        name,
        result: { match: null, candidates: [], overMaxCredits: false },
      });
    }
  });

  it('near names (the company name starts with the record) are candidates, never the match', async () => {
    const result = await one({ name: 'マルカ物', prefectureId: 14 });
    expect(result.match).toBeNull();
    expect(result.candidates.map((c) => c.corporateNumber)).toEqual([numbers.maruka, numbers.marukaService]);
    for (const candidate of result.candidates) expect(candidate.matchedOn[0]).toBe('nearName');
    // however likely the first is (its confidence may pass minConfidence), a near name alone is
    // never the match: nothing but the name, and that only similar
    // a name one character longer than one company's and a prefix of another's: both near, no match
    const alone = await one({ name: 'マルカ物流サ' });
    expect(alone.match).toBeNull();
    expect(alone.candidates.map((c) => [c.corporateNumber, c.matchedOn[0]]).sort()).toEqual(
      [
        [numbers.maruka, 'nearName'],
        [numbers.marukaService, 'nearName'],
      ].sort(),
    );
    // an equal key wins: the longer name is not offered beside it
    const exact = await one({ name: 'マルカ物流' });
    expect(exact.candidates.map((c) => c.corporateNumber)).toEqual([numbers.maruka]);
  });

  it('a name typed as its reading is matched on the reading', async () => {
    // a kana-only query has a reading key (src/names/keys.ts queryKeys), which the company's
    // furigana マルカブツリュウ gives too
    const result = await one({ name: 'マルカブツリュウ' });
    expect(result.match?.corporateNumber).toBe(numbers.maruka);
    expect(result.match?.matchedOn).toContain('reading');
  });
});

describe('the request', () => {
  it('answers one result per record, in input order, `candidates` at most', async () => {
    const { status, body } = await match({
      records: [
        { name: 'サクラ精機', prefectureId: 13 },
        { name: '株式会社' },
        { name: 'アオイ工業' },
        { name: 'マルカ物流' },
      ],
      candidates: 1,
    });
    expect(status).toBe(200);
    expect(body.results.map((r) => r.match?.corporateNumber ?? null)).toEqual([
      numbers.sakuraTokyo,
      null,
      null,
      numbers.maruka,
    ]);
    expect(body.results.map((r) => r.candidates.length)).toEqual([1, 0, 1, 1]);
  });

  it('looks the whole request up in a few engine queries, not one per record', async () => {
    // with addresses: ~200 kB, past the 100 kB of the other routes
    const records = Array.from({ length: 1000 }, (_, i) => ({
      name: (spellings[i % spellings.length] as { written: string }).written,
      address: `山下町${i}番地 マリンタワービルディング${i}階 営業部 御中 (本社は別)`,
    }));
    expect(Buffer.byteLength(JSON.stringify({ records }))).toBeGreaterThan(100_000);
    const before = await queryTotal(services.opensearch, services.config.indexPrefix);
    const { status, body } = await match({ records });
    expect(status).toBe(200);
    expect(body.results).toHaveLength(1000);
    expect(body.results.every((r) => r.match !== null)).toBe(true);
    expect((await queryTotal(services.opensearch, services.config.indexPrefix)) - before).toBeLessThanOrEqual(
      2,
    );
  });

  it('a company without its match card (written before it) is read field by field, to the same answer', async () => {
    const index = indexName(services.config.indexPrefix, 'corporates');
    const carded = async () =>
      (await services.opensearch.count({ index, body: { query: { exists: { field: 'matchCard' } } } })).body
        .count;
    const records = [
      ...spellings.map(({ written }) => ({ name: written })),
      { name: 'マルカ物流', phone: '046-123-4567' },
      { name: 'アオイ工業', prefectureId: 13 },
      { name: 'マルカ物' },
    ];
    expect(await carded()).toBe(Object.keys(companies).length);
    const withCards = await runMatch(services, { records, candidates: 5 });
    await services.opensearch.updateByQuery({
      index,
      refresh: true,
      body: {
        query: { match_all: {} },
        script: { source: "ctx._source.remove('matchCard')", lang: 'painless' },
      },
    });
    try {
      expect(await carded()).toBe(0);
      expect(await runMatch(services, { records, candidates: 5 })).toEqual(withCards);
      expect(withCards.filter((result) => result.match).length).toBeGreaterThan(spellings.length / 2);
    } finally {
      await backfillCopies(services.opensearch, services.config.indexPrefix);
      await services.opensearch.indices.refresh({ index });
    }
    expect(await carded()).toBe(Object.keys(companies).length);
  });

  // a search's hits mix companies with and without a readable card: the search is asked again
  // with the corporate numbers, the ones without a card read by number, and each answer keeps
  // its companies in their places
  it.each([
    ['without a card', "ctx._source.remove('matchCard')"],
    [
      'with a card of another layout',
      `ctx._source.matchCard = '${Buffer.from('["c0"]').toString('base64')}'`,
    ],
  ])('every other company %s: the same answers as with all cards', async (_, script) => {
    const index = indexName(services.config.indexPrefix, 'corporates');
    const records = [
      ...spellings.map(({ written }) => ({ name: written })),
      { name: 'マルカ物流', phone: '046-123-4567' },
      { name: 'アオイ工業', prefectureId: 13 },
      { name: 'マルカ物' },
      { name: 'アオイ工' },
    ];
    const withCards = await runMatch(services, { records, candidates: 5 });
    const every = Object.values(companies)
      .map((company) => company.corporateNumber)
      .sort();
    const damaged = every.filter((_, at) => at % 2 === 0);
    await services.opensearch.updateByQuery({
      index,
      refresh: true,
      body: { query: { terms: { corporateNumber: damaged } }, script: { source: script, lang: 'painless' } },
    });
    try {
      expect(await runMatch(services, { records, candidates: 5 })).toEqual(withCards);
      const shown = new Set(withCards.flatMap((result) => result.candidates.map((c) => c.corporateNumber)));
      // the damage reached companies the answers show, and left others as they were
      expect(damaged.filter((number) => shown.has(number)).length).toBeGreaterThan(2);
      expect(
        every.filter((number) => shown.has(number) && !damaged.includes(number)).length,
      ).toBeGreaterThanOrEqual(2);
    } finally {
      await backfillCopies(services.opensearch, services.config.indexPrefix);
      await services.opensearch.indices.refresh({ index });
    }
  });

  it('a body over 1 MB is a 413 that says so', async () => {
    const records = Array.from({ length: 1000 }, () => ({
      name: 'あ'.repeat(200),
      address: 'い'.repeat(300),
    }));
    const res = await match({ records });
    expect(res.status).toBe(413);
    expect((res.body as unknown as { message: string }).message).toContain('1mb');
  });

  it.each([
    [
      'records[3].name',
      { records: [{ name: 'a' }, { name: 'b' }, { name: 'c' }, { prefectureId: 13 }] },
      'is required',
    ],
    [
      'records[1].fax',
      { records: [{ name: 'a' }, { name: 'b', fax: '03' }] },
      'is not a field of this request',
    ],
    ['records[0].prefectureId', { records: [{ name: 'a', prefectureId: 48 }] }, 'must be at most 47'],
    ['records (none)', { records: [] }, undefined],
    ['records (1,001)', { records: Array.from({ length: 1001 }, () => ({ name: 'a' })) }, undefined],
    ['candidates', { records: [{ name: 'a' }], candidates: 11 }, 'must be at most 10'],
    ['records (missing)', { names: ['a'] }, 'is required'],
  ])('a bad body is a 400 naming %s', async (label, body, reason) => {
    const field = label.split(' ')[0] as string;
    const before = await queryTotal(services.opensearch, services.config.indexPrefix);
    const res = await match(body);
    expect(res.status).toBe(400);
    const errors = (res.body as unknown as { errors: Array<{ field: string; reason: string }> }).errors;
    expect(errors.map((e) => e.field)).toContain(field);
    if (reason) expect(errors.find((e) => e.field === field)?.reason).toMatch(reason);
    expect(await queryTotal(services.opensearch, services.config.indexPrefix)).toBe(before);
  });
});

describe('the companies filed under each key', () => {
  it('a company two searches of the request find is filed once under each of its keys', async () => {
    // サクラ精機 asked everywhere (no prefecture), and the Tokyo company's corporate number asked
    // in Tokyo: two searches, both find the Tokyo company
    const evidence = [
      { name: 'サクラ精機' },
      { name: '株式会社', prefectureId: 13, corporateNumber: numbers.sakuraTokyo },
    ].map(evidenceOf);
    const found = await lookUpKeys(services, evidence, 100);
    const under = (field: Parameters<typeof foundUnder>[1], value: string | undefined) =>
      foundUnder(found, field, value).map((company) => company.corporateNumber);
    expect(under('nameKey', evidence[0]?.keys.name).sort()).toEqual(
      [numbers.sakuraTokyo, numbers.sakuraOsaka].sort(),
    );
    expect(under('spokenKey', evidence[0]?.keys.spoken).sort()).toEqual(
      [numbers.sakuraTokyo, numbers.sakuraOsaka].sort(),
    );
    expect(under('corporateNumber', numbers.sakuraTokyo)).toEqual([numbers.sakuraTokyo]);
  });
});

describe('a lookup that returns fewer companies than share the keys', () => {
  const request = {
    records: [
      { name: 'マルカ物流' },
      { name: 'サクラ精機', prefectureId: 13 },
      { name: 'アオイ工業', prefectureId: 13, phoneNumber: '03-1111-2222' },
    ],
  };

  it('is made key by key, and only the records of a key that still overflows go unmatched', async () => {
    const whole = await runMatch(services, request);
    expect(whole.map((r) => r.match?.corporateNumber ?? null)).toEqual([
      numbers.maruka,
      numbers.sakuraTokyo,
      numbers.aoiShibuya,
    ]);
    // 5 companies share the request's keys: a lookup of 2 overflows, and each key on its own fits
    const byKey = await runMatch(services, request, { lookupSize: 2 });
    expect(byKey.map((r) => r.match?.corporateNumber ?? null)).toEqual([
      numbers.maruka,
      numbers.sakuraTokyo,
      numbers.aoiShibuya,
    ]);
    // a lookup of 1: サクラ精機 asked in Tokyo only is one company; アオイ工業 has two in Tokyo
    // and still overflows: it decides nothing, though its phone would have
    const cut = await runMatch(services, request, { lookupSize: 1 });
    expect(cut.map((r) => r.match?.corporateNumber ?? null)).toEqual([
      numbers.maruka,
      numbers.sakuraTokyo,
      null,
    ]);
  });

  it("a record's prefecture limits its lookup: namesakes elsewhere are no candidates, whatever the lookup's size", async () => {
    for (const options of [{ lookupSize: 2 }, {}]) {
      const [sakura] = (await runMatch(services, request, options)).slice(1);
      expect(sakura?.candidates.map((c) => c.corporateNumber)).toEqual([numbers.sakuraTokyo]);
    }
    // without a prefecture, both namesakes
    const [alone] = await runMatch(services, { records: [{ name: 'サクラ精機' }] });
    expect(alone?.candidates.map((c) => c.corporateNumber).sort()).toEqual(
      [numbers.sakuraTokyo, numbers.sakuraOsaka].sort(),
    );
  });

  it("a record's answer is the one it gets alone, whatever the records beside it", async () => {
    const tokyo = { name: 'サクラ精機', prefectureId: 13 };
    // a prefecture where no サクラ精機 is: alone, every company of the name (contradicted)
    const kanagawa = { name: 'サクラ精機', prefectureId: 14 };
    const alone = async (record: typeof tokyo) => (await runMatch(services, { records: [record] }))[0];
    const [tokyoAlone, kanagawaAlone] = [await alone(tokyo), await alone(kanagawa)];
    expect(tokyoAlone?.candidates.map((c) => c.corporateNumber)).toEqual([numbers.sakuraTokyo]);
    expect(kanagawaAlone?.candidates.map((c) => c.corporateNumber).sort()).toEqual(
      [numbers.sakuraTokyo, numbers.sakuraOsaka].sort(),
    );
    // beside a record of the name without a prefecture (the key asked everywhere), and beside
    // one of another prefecture (the key asked in both), each answer is the same as alone
    for (const beside of [[{ name: 'サクラ精機' }], [tokyo], [{ name: 'サクラ精機' }, tokyo]]) {
      const [first, ...rest] = await runMatch(services, { records: [tokyo, kanagawa, ...beside] });
      expect(first, JSON.stringify(beside)).toEqual(tokyoAlone);
      expect(rest[0], JSON.stringify(beside)).toEqual(kanagawaAlone);
    }
  });
});
