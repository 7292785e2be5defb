/**
 * `furiganaPrefixOr` of company search on the real engine, over the companies of
 * test/fixtures/match/companies.ts indexed by the real indexer: the reading key starts with a
 * typed prefix, folded as the key is. Holds for the first-cut key and the full one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLimits, type Limits } from '../../src/limits/limits.js';
import type { Services } from '../../src/services.js';
import { companies, indexCompanies } from '../fixtures/match/companies.js';
import { setUpServices } from '../support/env.js';
import { search, startLimitsTestApp, type TestApp } from '../support/limits-test-app.js';

let services: Services;
let limits: Limits;
let app: TestApp;

beforeAll(async () => {
  services = await setUpServices('furigana-prefix');
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
  await limits.ledger.grant('reader', 1000);
});
afterAll(async () => {
  await app?.close();
  await services?.close();
});

async function numbers(body: Record<string, unknown>): Promise<string[]> {
  const res = await search(app.url, 'reader', { body: { ...body, fields: ['corporateNumber'] } });
  expect(res.status).toBe(200);
  const { results } = (await res.json()) as { results: Array<{ corporateNumber: string }> };
  return results.map((record) => record.corporateNumber).sort();
}

const n = Object.fromEntries(
  Object.entries(companies).map(([key, company]) => [key, company.corporateNumber]),
) as Record<keyof typeof companies, string>;

describe('furiganaPrefixOr', () => {
  it('keeps the companies whose reading starts with one of the prefixes', async () => {
    expect(await numbers({ furiganaPrefixOr: ['マルカ'] })).toEqual([n.maruka, n.marukaService].sort());
    expect(await numbers({ furiganaPrefixOr: ['マルカブツリュウサ', 'サクラ'] })).toEqual(
      [n.marukaService, n.sakuraTokyo, n.sakuraOsaka].sort(),
    );
  });

  it('folds the prefix as the key: width and spaces', async () => {
    expect(await numbers({ furiganaPrefixOr: ['ﾏﾙｶ ﾌﾞﾂ'] })).toEqual([n.maruka, n.marukaService].sort());
  });

  it('a company without furigana is found by the reading derived from its name', async () => {
    // アオイ工業 has no furigana: the indexer read it アオイコウギョウ (readingSource derived)
    expect(await numbers({ furiganaPrefixOr: ['アオイ'] })).toEqual([n.aoiShibuya, n.aoiNerima].sort());
  });

  it('never keeps a company without a reading, nor for a prefix that folds to nothing', async () => {
    // 株式会社NOVA Systems has no furigana, and Latin words have no derived reading
    expect(await numbers({ furiganaPrefixOr: ['ノ'] })).toEqual([]);
    expect(await numbers({ furiganaPrefixOr: ['ノバ'] })).toEqual([]);
    expect(await numbers({ furiganaPrefixOr: [' '] })).toEqual([]);
  });

  it('combines with the other filters (AND), nested form too', async () => {
    expect(await numbers({ furiganaPrefixOr: ['サクラ'], prefectureIdOr: [27] })).toEqual([n.sakuraOsaka]);
    expect(
      await numbers({ filters: { furiganaPrefix: { any: ['サクラ'] }, prefectureId: { any: [13] } } }),
    ).toEqual([n.sakuraTokyo]);
  });

  it('is a 400 naming the field for a bad value', async () => {
    const res = await search(app.url, 'reader', { body: { furiganaPrefixOr: [''] } });
    expect(res.status).toBe(400);
    const { errors } = (await res.json()) as { errors: Array<{ field: string }> };
    expect(errors.map((e) => e.field)).toContain('furiganaPrefixOr[0]');
  });
});
