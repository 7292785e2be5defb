/**
 * GET /rest/v1/corporates/suggest through the real app on the real engine and Redis, over the
 * companies of test/fixtures/match/companies.ts: prefixes of the name keys typed as kanji, kana
 * or Latin, best first; free; a rate limit of its own that leaves the searches' alone.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLimits, type Limits } from '../../src/limits/limits.js';
import type { Services } from '../../src/services.js';
import { companies, company, indexCompanies, indexSources, spellings } from '../fixtures/match/companies.js';
import { setUpServices } from '../support/env.js';
import {
  queryTotal,
  search,
  startLimitsTestApp,
  type TestApp,
  userHeaders,
} from '../support/limits-test-app.js';

interface Suggestion {
  corporateNumber: string;
  name: string;
  furigana: string | null;
  prefectureId: number | null;
  cityName: string | null;
  formerName: string | null;
  foundBy: 'prefix' | 'formerName' | 'nearName';
}

/**
 * One name key written six ways (six names), and another key one character from it, whose
 * corporate number sorts after all of theirs (so the near search's first names are all the first
 * key's: numberOf gives each serial its check digit first).
 */
const midori = [
  company(23, { name: 'ミドリ化成株式会社', prefectureId: 13, cityName: '港区' }),
  company(24, { name: '合同会社ミドリ化成', prefectureId: 27, cityName: '堺市' }),
  company(26, { name: '株式会社ミドリ化成', prefectureId: 13, cityName: '港区' }),
  company(27, { name: 'ミドリ化成合同会社', prefectureId: 13, cityName: '港区' }),
  company(28, { name: '有限会社ミドリ化成', prefectureId: 13, cityName: '港区' }),
  company(29, { name: 'ミドリ化成有限会社', prefectureId: 13, cityName: '港区' }),
];
const midoriKagaku = company(25, { name: 'ミドリ化学株式会社', prefectureId: 13, cityName: '港区' });

let services: Services;
let limits: Limits;
let app: TestApp;
/** The searches 1 per (widened) window, suggest 3. */
let narrow: TestApp;
let narrowLimits: Limits;

beforeAll(async () => {
  services = await setUpServices('suggest');
  limits = createLimits({
    redis: services.redis,
    keyPrefix: services.config.redisPrefix,
    config: { ratePerSecond: 1_000_000, suggestRatePerSecond: 1_000_000, searchCost: 1 },
  });
  await indexCompanies(services.opensearch, services.config.indexPrefix);
  await indexSources(services.opensearch, services.config.indexPrefix, [...midori, midoriKagaku]);
  const deps = {
    limits,
    opensearch: services.opensearch,
    indexPrefix: services.config.indexPrefix,
    seed: false,
  };
  app = await startLimitsTestApp(deps);
  narrowLimits = createLimits({
    redis: services.redis,
    keyPrefix: `${services.config.redisPrefix}narrow:`,
    config: { ratePerSecond: 1, suggestRatePerSecond: 3, rateWindowSeconds: 60, searchCost: 1 },
  });
  narrow = await startLimitsTestApp({ ...deps, limits: narrowLimits });
});
afterAll(async () => {
  await Promise.all([app?.close(), narrow?.close()]);
  await services?.close();
});

async function suggest(query: Record<string, string>, target = app, user = 'typist') {
  const res = await fetch(`${target.url}/rest/v1/corporates/suggest?${new URLSearchParams(query)}`, {
    headers: await userHeaders(user),
  });
  return {
    status: res.status,
    headers: res.headers,
    body: (await res.json()) as { suggestions: Suggestion[] },
  };
}

async function numbersFor(q: string, limit?: number): Promise<string[]> {
  const res = await suggest(limit === undefined ? { q } : { q, limit: String(limit) });
  expect({ q, status: res.status, body: res.status === 200 ? undefined : res.body }).toEqual({
    q,
    status: 200,
    body: undefined,
  });
  return res.body.suggestions.map((s) => s.corporateNumber);
}

const n = Object.fromEntries(
  Object.entries(companies).map(([key, company]) => [key, company.corporateNumber]),
) as Record<keyof typeof companies, string>;

describe('suggestions', () => {
  it('a prefix typed in kana: shorter names first', async () => {
    expect(await numbersFor('マルカ')).toEqual([n.maruka, n.marukaService]);
  });

  it('the exact key first, whatever its length', async () => {
    expect(await numbersFor('株式会社マルカ物流')).toEqual([n.maruka, n.marukaService]);
    expect(await numbersFor('マルカ物流サービス')).toEqual([n.marukaService]);
  });

  it('typed in Latin, full-width or half-width, any case; with or without the legal form', async () => {
    for (const q of ['nova', 'ＮＯＶＡ', 'NoVa sys', '㈱nova']) expect(await numbersFor(q)).toEqual([n.nova]);
  });

  it('every spelling of a name suggests its company', async () => {
    for (const { written, of } of spellings) expect(await numbersFor(written)).toContain(n[of]);
  });

  it('same key, same length: name order, then corporate number', async () => {
    expect(await numbersFor('サクラ')).toEqual([n.sakuraTokyo, n.sakuraOsaka].sort());
  });

  it('in kanji', async () => {
    expect(await numbersFor('日本')).toEqual([n.generic]);
  });

  it('limit, and the record shape (no internal key fields)', async () => {
    expect(await numbersFor('マルカ', 1)).toEqual([n.maruka]);
    const res = await suggest({ q: 'マルカ物流', limit: '1' });
    expect(res.body.suggestions).toEqual([
      {
        corporateNumber: n.maruka,
        name: 'マルカ物流株式会社',
        furigana: 'マルカブツリュウ',
        prefectureId: 14,
        cityName: '横浜市中区',
        // found by its current name
        formerName: null,
        foundBy: 'prefix',
      },
    ]);
  });

  it('a mistyped prefix: when no key starts with it, the companies most like it', async () => {
    // 流 typed 留: no key starts with マルカ物留サ; both マルカ names hold most of its grams
    expect((await numbersFor('マルカ物留サ')).slice(0, 2).sort()).toEqual([n.maruka, n.marukaService].sort());
    // a Latin name with a letter wrong
    expect((await numbersFor('novq system'))[0]).toBe(n.nova);
    // a prefix one edit away: a character wrong, one too many, one left out (here a gram or two
    // shared would find them too; in a large register one shared gram ranks them nowhere); one
    // company per name (the two 株式会社サクラ精機 and the two アオイ工業株式会社 are namesakes:
    // the first by corporate number stands for each)
    for (const typed of ['サクヨ精', 'サククラ精', 'サラ精機', 'アオエ工'])
      expect(await numbersFor(typed), typed).toEqual([
        (typed.startsWith('ア') ? [n.aoiShibuya, n.aoiNerima] : [n.sakuraTokyo, n.sakuraOsaka]).sort()[0],
      ]);
    // one wrong in a long prefix, and in a Latin one: the company whose key starts one edit away
    // first, before names only alike (by grams alone the shorter マルカ物流 came first)
    expect((await numbersFor('マルカ物留サービ'))[0]).toBe(n.marukaService);
    expect((await numbersFor('nova sysyems'))[0]).toBe(n.nova);
    // one company per name key, not one per name: ミドリ化成's six spellings are one place,
    // the first by corporate number, and ミドリ化学 has the next
    const firstMidori = midori.map((entry) => entry.corporateNumber).sort()[0];
    // said to be names like the text, not names it starts
    const alike = await suggest({ q: 'ミドリ化戎' });
    expect(alike.body.suggestions.map((entry) => entry.foundBy)).toEqual(['nearName', 'nearName']);
    expect(await numbersFor('ミドリ化戎')).toEqual([firstMidori, midoriKagaku.corporateNumber]);
    expect(await numbersFor('ミドリ化戎', 1)).toEqual([firstMidori]);
    // three names are read a place: for two places the six of one key, so the list is shorter
    // than asked (ミドリ化学's corporate number sorts after all six)
    expect(midori.every((entry) => entry.corporateNumber < midoriKagaku.corporateNumber)).toBe(true);
    expect(await numbersFor('ミドリ化戎', 2)).toEqual([firstMidori]);
    expect(await numbersFor('ミドリ化戎', 3)).toEqual([firstMidori, midoriKagaku.corporateNumber]);
    // nothing like it: nothing (too short to be looked up by grams, or no grams shared)
    expect(await numbersFor('ゾゾ')).toEqual([]);
    expect(await numbersFor('ヴェルトハイム')).toEqual([]);
  });

  it('a reading typed in kana finds the companies whose reading it begins', async () => {
    // a kana-only query has a reading key (src/names/keys.ts queryKeys), matched against the
    // furigana マルカブツリュウ and マルカブツリュウサービス
    expect(await numbersFor('マルカブツ')).toEqual([n.maruka, n.marukaService]);
  });

  it('a text that folds to nothing suggests nothing, without asking the engine', async () => {
    const before = await queryTotal(services.opensearch, services.config.indexPrefix);
    expect(await numbersFor('株式会社')).toEqual([]);
    expect(await queryTotal(services.opensearch, services.config.indexPrefix)).toBe(before);
  });

  it.each([
    ['q', {}],
    ['q', { q: '' }],
    ['limit', { q: 'マルカ', limit: '21' }],
    ['limit', { q: 'マルカ', limit: 'ten' }],
    ['size', { q: 'マルカ', size: '3' }],
  ])('a bad query is a 400 naming %s', async (field, query) => {
    const res = await suggest(query as Record<string, string>);
    expect(res.status).toBe(400);
    expect(
      (res.body as unknown as { errors: Array<{ field: string }> }).errors.map((e) => e.field),
    ).toContain(field);
  });
});

describe('price and rate limit', () => {
  it('is free: no credit reserved or charged, even with a zero balance', async () => {
    const res = await suggest({ q: 'マルカ' }, app, 'penniless');
    expect(res.status).toBe(200);
    expect(res.headers.get('x-credits-remaining')).toBeNull();
    expect(await limits.ledger.balance('penniless')).toBe(0);
  });

  it('has a budget of its own: suggest runs out alone, and the searches are left theirs', async () => {
    await narrowLimits.ledger.grant('typing', 10);
    await narrowLimits.ledger.grant('other-typist', 10);
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await suggest({ q: 'マ' }, narrow, 'typing')).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const first = await suggest({ q: 'マ' }, narrow, 'other-typist');
    expect(first.headers.get('x-ratelimit-limit')).toBe('3');
    // the one search of the window is still there after the suggestions ran out
    const searched = await search(narrow.url, 'typing');
    expect(searched.status).toBe(200);
    expect(searched.headers.get('x-ratelimit-limit')).toBe('1');
    // and a spent search budget leaves suggest alone
    expect((await search(narrow.url, 'other-typist')).status).toBe(200);
    expect((await search(narrow.url, 'other-typist')).status).toBe(429);
    expect((await suggest({ q: 'マ' }, narrow, 'other-typist')).status).toBe(200);
  });
});
