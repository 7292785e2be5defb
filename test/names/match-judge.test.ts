/**
 * The judge of POST /corporates/match (src/names/judge.ts, docs/names.md): spellings the key
 * equality of the first version missed, similar names as candidates, the legal form and the
 * evidence as features, the confidence and `minConfidence`. The companies are this file's own;
 * every expectation is written from docs/api.md's rules, not computed with the product's code.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createLimits, type Limits } from '../../src/limits/limits.js';
import { createLogger } from '../../src/logger.js';
import { defaultMinConfidence } from '../../src/names/judge.js';
import { runMatch } from '../../src/names/match.js';
import type { Services } from '../../src/services.js';
import { company, indexSources } from '../fixtures/match/companies.js';
import { setUpServices } from '../support/env.js';
import { search, startLimitsTestApp, type TestApp } from '../support/limits-test-app.js';

const companies = {
  abc: company(101, { name: 'エービーシー・テクノロジーズ株式会社', prefectureId: 13, cityName: '港区' }),
  daiichi: company(102, { name: '株式会社第一精工', prefectureId: 27, cityName: '大阪市北区' }),
  school: company(103, { name: '学校法人桜ヶ丘学園', prefectureId: 13, cityName: '世田谷区' }),
  schoolCompany: company(104, { name: '株式会社桜ヶ丘学園', prefectureId: 13, cityName: '町田市' }),
  mitsuwa: company(105, {
    name: '株式会社ミツワ電機',
    prefectureId: 23,
    cityName: '名古屋市中区',
    phoneNumber: '052-111-2222',
    websiteUrl: 'https://www.mitsuwa-denki.example.jp/',
  }),
  ks: company(106, { name: 'ケー・アンド・エス株式会社', prefectureId: 40, cityName: '福岡市博多区' }),
  holdings: company(107, {
    name: 'グローバルホールディングス株式会社',
    prefectureId: 13,
    cityName: '千代田区',
  }),
  longName: company(112, { name: `株式会社${`ミツワ電機${'東西南北春夏秋冬'.repeat(8)}`.slice(0, 63)}` }),
  // three namesakes and a name a character apart: the candidates of a common name
  tokai13: company(108, { name: '株式会社東海電設', prefectureId: 13, cityName: '港区' }),
  tokai14: company(109, { name: '株式会社東海電設', prefectureId: 14, cityName: '横浜市西区' }),
  tokai27: company(110, { name: '有限会社東海電設', prefectureId: 27, cityName: '大阪市北区' }),
  tokaiNear: company(111, { name: '株式会社東海雷設', prefectureId: 13, cityName: '港区' }),
};
const numbers = Object.fromEntries(
  Object.entries(companies).map(([key, c]) => [key, c.corporateNumber]),
) as Record<keyof typeof companies, string>;

interface Candidate {
  corporateNumber: string;
  confidence: number;
  score: number;
  matchedOn: string[];
  features: Array<{ id: string; value: boolean | number }>;
}
interface Result {
  match: Candidate | null;
  candidates: Candidate[];
}

let services: Services;
let limits: Limits;
let app: TestApp;

beforeAll(async () => {
  services = await setUpServices('match-judge');
  limits = createLimits({
    redis: services.redis,
    keyPrefix: services.config.redisPrefix,
    config: { ratePerSecond: 1_000_000 },
  });
  await indexSources(services.opensearch, services.config.indexPrefix, Object.values(companies));
  app = await startLimitsTestApp({
    limits,
    opensearch: services.opensearch,
    indexPrefix: services.config.indexPrefix,
    seed: false,
  });
  await limits.ledger.grant('judge', 1_000_000);
});
afterAll(async () => {
  await app?.close();
  await services?.close();
});

async function post(body: unknown) {
  const res = await search(app.url, 'judge', { path: '/rest/v1/corporates/match', body });
  return { status: res.status, body: (await res.json()) as { results: Result[]; errors?: unknown } };
}

async function one(record: Record<string, unknown>, extra: Record<string, unknown> = {}): Promise<Result> {
  const { status, body } = await post({ records: [record], ...extra });
  expect(status).toBe(200);
  return body.results[0] as Result;
}

const feature = (candidate: Candidate | null | undefined, id: string) =>
  candidate?.features.find((entry) => entry.id === id)?.value;

describe('spellings the key equality missed', () => {
  it('Latin letters and English words for the katakana the register writes', async () => {
    for (const name of ['ABC Technologies Inc.', 'ＡＢＣテクノロジーズ', 'ABCテクノロジーズ株式会社']) {
      const result = await one({ name });
      expect({ name, match: result.match?.corporateNumber }).toEqual({ name, match: numbers.abc });
      expect(result.match?.matchedOn).toContain('spokenName');
      expect(feature(result.match, 'spokenKey')).toBe(true);
      expect(feature(result.match, 'nameKey')).toBe(false);
    }
  });

  it('a symbol said as a word, kanji numerals as digits', async () => {
    expect((await one({ name: 'K&S株式会社' })).match?.corporateNumber).toBe(numbers.ks);
    expect((await one({ name: '第1精工' })).match?.corporateNumber).toBe(numbers.daiichi);
    expect((await one({ name: 'Global Holdings' })).match?.corporateNumber).toBe(numbers.holdings);
  });

  it('a corporate number written with hyphens, spaces, full-width digits or a T decides', async () => {
    const digits = numbers.mitsuwa;
    for (const written of [
      `${digits.slice(0, 4)}-${digits.slice(4, 8)}-${digits.slice(8, 12)}-${digits.slice(12)}`,
      `${digits.slice(0, 1)} ${digits.slice(1, 5)} ${digits.slice(5, 9)} ${digits.slice(9)}`,
      digits.replace(/\d/g, (d) => String.fromCharCode(0xff10 + Number(d))),
      `T${digits}`,
    ]) {
      const result = await one({ name: '名前の違う会社', corporateNumber: written });
      expect({ written, match: result.match?.corporateNumber }).toEqual({ written, match: numbers.mitsuwa });
    }
  });
});

describe('similar names are candidates, never a match on the name alone', () => {
  it.each([
    ['mistyped by a character', 'ミツワ雷機'],
    ['shortened by a word', 'ミツワ'],
    ['lengthened by a word', 'ミツワ電機製作所'],
    ['a character dropped', 'ミツ電機'],
  ])('%s: %s', async (_, name) => {
    const result = await one({ name });
    expect(result.match).toBeNull();
    expect(result.candidates.map((c) => c.corporateNumber)).toContain(numbers.mitsuwa);
    const candidate = result.candidates.find((c) => c.corporateNumber === numbers.mitsuwa);
    expect(candidate?.matchedOn).toContain('nearName');
    expect(feature(candidate, 'similarity')).toBeGreaterThan(0.3);
    expect(feature(candidate, 'similarity')).toBeLessThan(1);
  });

  it('a name as long as a record may hold (500 characters) is answered: its grams from its head', async () => {
    // all its 2-3 character grams would pass the engine's clause limit (1,024): 503 before
    const long = `ミツワ電機${'東西南北春夏秋冬'.repeat(62)}`.slice(0, 500);
    const { status, body } = await post({ records: [{ name: long }, { name: 'ミツワ電機' }] });
    expect(status).toBe(200);
    expect(body.results[0]?.match).toBeNull();
    expect(body.results[1]?.match?.corporateNumber).toBe(numbers.mitsuwa);
    // its grams from its head (gramKeyLength): a similar name of 64 characters is found from it
    const near = await one({ name: `ミツワ電機${'東西南北春夏秋冬'.repeat(8)}`.slice(0, 64) });
    expect(near.candidates.map((c) => c.corporateNumber)).toContain(numbers.longName);
  });

  it('namesakes that fill the candidates leave no room for a similar name: it is not searched', async () => {
    // the 有限会社 is a namesake the record does not contradict (a business form); the near
    // name is a character apart
    const namesakes = [numbers.tokai13, numbers.tokai14, numbers.tokai27].sort();
    const msearch = vi.spyOn(services.opensearch, 'msearch');
    // the msearches that ask for similar names (the key lookups are msearches too)
    const similarSearches = () =>
      msearch.mock.calls.filter(([params]) => JSON.stringify(params).includes('.grams')).length;
    try {
      const three = await one({ name: '東海電設株式会社' }, { candidates: 3 });
      expect(three.match).toBeNull();
      expect(three.candidates.map((c) => c.corporateNumber).sort()).toEqual(namesakes);
      // the similar names' msearch is not sent
      expect(msearch).toHaveBeenCalled();
      expect(similarSearches()).toBe(0);
      // one more candidate than namesakes: the similar name is searched, and ranks below them
      const four = await one({ name: '東海電設株式会社' }, { candidates: 4 });
      expect(similarSearches()).toBe(1);
      expect(
        four.candidates
          .map((c) => c.corporateNumber)
          .slice(0, 3)
          .sort(),
      ).toEqual(namesakes);
      expect(four.candidates[3]?.corporateNumber).toBe(numbers.tokaiNear);
    } finally {
      msearch.mockRestore();
    }
  });

  it('... until the evidence makes it certain: the phone or the website with the prefecture', async () => {
    const byPhone = await one({ name: 'ミツワ雷機', prefectureId: 23, phoneNumber: '052-111-2222' });
    expect(byPhone.match?.corporateNumber).toBe(numbers.mitsuwa);
    expect(byPhone.match?.matchedOn).toEqual(['nearName', 'prefecture', 'phone']);
    const byWebsite = await one({
      name: 'ミツワ雷機',
      address: '愛知県名古屋市中区',
      websiteUrl: 'mitsuwa-denki.example.jp',
    });
    expect(byWebsite.match?.corporateNumber).toBe(numbers.mitsuwa);
  });

  it('another kanji of the same reading (電気 for 電機) is the same name said: matched on the reading', async () => {
    // the record's name mixes kana and kanji: its reading is derived (src/names/evidence.ts) and
    // meets the company's; no company has the name as written
    const result = await one({ name: 'ミツワ電気' });
    expect(result.match?.corporateNumber).toBe(numbers.mitsuwa);
    expect(result.match?.matchedOn).toEqual(['reading']);
  });

  it('a reading dictionary that fails to load costs the derived reading, not the request', async () => {
    const lines: string[] = [];
    const ctx = {
      opensearch: services.opensearch,
      config: services.config,
      logger: createLogger('info', { write: (line: string) => lines.push(line) }),
    };
    const results = await runMatch(
      ctx,
      { records: [{ name: 'ミツワ電気' }, { name: 'ミツワ電機' }] },
      { readingAnalyser: () => Promise.reject(new Error('dictionary gone')) },
    );
    // the homophone needs the reading; the name as registered does not
    expect(results.map((result) => result.match?.corporateNumber ?? null)).toEqual([null, numbers.mitsuwa]);
    expect(lines.join('')).toContain('matching without derived readings');
    expect(lines.join('')).not.toContain('dictionary gone');
  });

  it('the phone alone brings a company in as a candidate, whatever the name', async () => {
    const result = await one({ name: 'まったく別の名前', phoneNumber: '052-111-2222' });
    expect(result.match).toBeNull();
    expect(result.candidates[0]?.corporateNumber).toBe(numbers.mitsuwa);
    expect(result.candidates[0]?.matchedOn).toEqual(['phone']);
    // a name that shares nothing with the company's: the phone alone stays under the default
    // lowest confidence of a match
    expect(result.candidates[0]?.confidence).toBeLessThan(defaultMinConfidence);
  });

  it('a phone and the prefecture beside a name that shares nothing with the company: a candidate, not a match', async () => {
    // the weights rate an agreeing phone highly (the evaluation never shares one between
    // companies): the confidence may pass 0.9, the match is still withheld (mayMatch)
    const result = await one({ name: 'まったく別の名前', phoneNumber: '052-111-2222', prefectureId: 23 });
    expect(result.match).toBeNull();
    expect(result.candidates[0]?.corporateNumber).toBe(numbers.mitsuwa);
    expect(result.candidates[0]?.matchedOn).toEqual(['prefecture', 'phone']);
    // the weights alone would have made it the match: the rule withholds it
    expect(result.candidates[0]?.confidence).toBeGreaterThanOrEqual(defaultMinConfidence);
  });
});

describe('the legal form is evidence', () => {
  it('学校法人 and 株式会社 of one core name: the form decides', async () => {
    const school = await one({ name: '学校法人 桜ヶ丘学園' });
    expect(school.match?.corporateNumber).toBe(numbers.school);
    expect(feature(school.match, 'legalForm')).toBe(true);
    const disagreeing = school.candidates.find((c) => c.corporateNumber === numbers.schoolCompany);
    expect(feature(disagreeing, 'legalForm')).toBe(false);
    expect(disagreeing?.confidence).toBeLessThan(0.5);
    expect((await one({ name: '㈱桜ヶ丘学園' })).match?.corporateNumber).toBe(numbers.schoolCompany);
  });

  it('without a form in the record: the two are rivals, neither is matched', async () => {
    const result = await one({ name: '桜ヶ丘学園' });
    expect(result.match).toBeNull();
    expect(result.candidates.map((c) => c.corporateNumber).sort()).toEqual(
      [numbers.school, numbers.schoolCompany].sort(),
    );
    for (const candidate of result.candidates) expect(feature(candidate, 'rivals')).toBe(1);
  });

  it('business forms do not disagree: a 有限会社 in the list for a 株式会社 today', async () => {
    const result = await one({ name: '有限会社ミツワ電機' });
    expect(result.match?.corporateNumber).toBe(numbers.mitsuwa);
    expect(feature(result.match, 'legalForm')).toBeUndefined();
  });
});

describe('confidence and minConfidence', () => {
  it('every candidate has its confidence, score the same, and the features compared', async () => {
    const result = await one({ name: '株式会社ミツワ電機', prefectureId: 23 });
    const match = result.match as Candidate;
    expect(match.confidence).toBeGreaterThanOrEqual(0.9);
    expect(match.score).toBe(match.confidence);
    expect(match.features.map((f) => f.id)).toEqual([
      'nameKey',
      'spokenKey',
      'reading',
      'romaji',
      'formerName',
      'similarity',
      'legalForm',
      'prefecture',
      'closed',
      'rivals',
      'outranked',
    ]);
  });

  it('a higher minConfidence withholds a match the default gives; a lower one cannot go under 0.5', async () => {
    const record = { name: 'ABC Technologies' };
    const byDefault = await one(record);
    expect(byDefault.match?.corporateNumber).toBe(numbers.abc);
    const confidence = byDefault.match?.confidence as number;
    expect((await one(record, { minConfidence: Math.min(1, confidence + 0.01) })).match).toBeNull();
    expect((await one(record, { minConfidence: confidence })).match?.corporateNumber).toBe(numbers.abc);
    const low = await post({ records: [record], minConfidence: 0.3 });
    expect(low.status).toBe(400);
    expect(JSON.stringify(low.body)).toContain('minConfidence');
  });
});
