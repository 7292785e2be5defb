/**
 * The name keys in the corporates index: computed by the indexer's transform with
 * src/names/keys.ts, written by the real pipeline, and internal (never in a Corporate
 * record, nor in the compact copy searches read).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadMasters } from '../../indexer/masters.js';
import { derivedReading, nameKeyFields, prepareDerivedReadings } from '../../indexer/name-keys.js';
import { toCorporateFields } from '../../indexer/transform.js';
import { backfillCopies } from '../../ops/backfill-copies.js';
import { recordFieldNames } from '../../src/catalogue/record-fields.js';
import { toMatchCard } from '../../src/names/card.js';
import { nameKey, readingKey, romajiKey, spokenKey } from '../../src/names/keys.js';
import { indexName } from '../../src/opensearch/indices.js';
import type { Services } from '../../src/services.js';
import { companies, indexCompanies, numberOf, spellings } from '../fixtures/match/companies.js';
import { corporate, indexFixture } from '../fixtures/search/docs.js';
import { setUpServices } from '../support/env.js';

const keyFields = [
  'nameKey',
  'spokenKey',
  'readingKey',
  'romajiKey',
  'readingSource',
  'nameKeyLength',
  'phoneKey',
  'websiteHost',
];
let services: Services;

beforeAll(async () => {
  services = await setUpServices('name-key-index', { redisUrl: undefined });
  await indexCompanies(services.opensearch, services.config.indexPrefix);
});
afterAll(async () => {
  await services?.close();
});

describe('the transform', () => {
  const masters = loadMasters();

  it('writes the name key, and the reading key from the furigana (readingSource registry)', () => {
    const fields = toCorporateFields(companies.maruka, masters);
    expect(fields.nameKey).toBe(nameKey('マルカ物流株式会社'));
    expect(fields.readingKey).toBe(readingKey('マルカブツリュウ'));
    expect(fields.readingSource).toBe('registry');
    expect(fields.nameKeyLength).toBe([...nameKey('マルカ物流株式会社')].length);
  });

  it('gives every written spelling of a name the key of the registered name', () => {
    for (const { written, of } of spellings)
      expect({ written, key: nameKey(written) }).toEqual({
        written,
        key: toCorporateFields(companies[of], masters).nameKey,
      });
  });

  it('without furigana: a reading derived from the name, marked derived, the pipeline loads the analyser', async () => {
    await prepareDerivedReadings();
    expect(derivedReading('アオイ工業株式会社')).toBe('アオイコウギョウカブシキガイシャ');
    expect(toCorporateFields(companies.aoiShibuya, masters)).toMatchObject({
      readingKey: readingKey('アオイコウギョウ'),
      romajiKey: romajiKey('アオイコウギョウ'),
      readingSource: 'derived',
    });
    // the registry's furigana wins over the analyser's guess
    expect(toCorporateFields(companies.maruka, masters).readingSource).toBe('registry');
  });

  it('a name with a word the dictionary cannot read has no derived reading', async () => {
    await prepareDerivedReadings();
    expect(nameKeyFields('株式会社NOVA Systems', null)).toMatchObject({
      readingKey: null,
      readingSource: null,
    });
  });

  it('stores a name that folds to nothing as null, never ""', () => {
    expect(nameKeyFields('株式会社', null)).toEqual({
      nameKey: null,
      spokenKey: null,
      readingKey: null,
      romajiKey: null,
      readingSource: null,
      nameKeyLength: null,
    });
  });
});

describe('the index', () => {
  it('holds the keys the pipeline computed', async () => {
    const { body } = await services.opensearch.get({
      index: indexName(services.config.indexPrefix, 'corporates'),
      id: numberOf(5),
    });
    expect(body._source).toMatchObject({
      nameKey: nameKey('マルカ物流'),
      spokenKey: spokenKey('マルカ物流'),
      readingKey: readingKey('マルカブツリュウ'),
      readingSource: 'registry',
    });
  });

  it('keeps them out of the Corporate record and its compact copy', async () => {
    for (const field of keyFields) expect(recordFieldNames.corporates).not.toContain(field);
    const { body } = await services.opensearch.get({
      index: indexName(services.config.indexPrefix, 'corporates'),
      id: numberOf(5),
    });
    const copy = JSON.parse(
      Buffer.from(String((body._source as { compactRecord: string }).compactRecord), 'base64').toString(),
    );
    for (const field of keyFields) expect(Object.keys(copy)).not.toContain(field);
  });
});

describe('npm run backfill', () => {
  it("gives the current fold's keys to companies without them or with stale ones, once", async () => {
    const prefix = services.config.indexPrefix;
    const index = indexName(prefix, 'corporates');
    // written before the fields existed, and written by an older fold
    const without = corporate({
      corporateNumber: numberOf(101),
      name: '株式会社ヒカリ電機',
      furigana: 'ヒカリデンキ',
    });
    const stale = corporate({
      corporateNumber: numberOf(102),
      name: 'ミドリ化学株式会社',
      nameKey: 'ミドリ化学株式会社',
      nameKeyLength: 9,
    });
    await indexFixture(services.opensearch, prefix, { corporates: [without, stale] });
    const first = await backfillCopies(services.opensearch, prefix);
    expect(first.keys).toEqual({ written: 2, changed: 0, failed: 0 });
    await services.opensearch.indices.refresh({ index });
    for (const doc of [without, stale]) {
      const { body } = await services.opensearch.get({ index, id: doc.corporateNumber as string });
      expect(body._source).toMatchObject(nameKeyFields(doc.name as string, (doc.furigana as string) ?? null));
      // and the match card of those keys (src/names/card.ts)
      expect(body._source?.matchCard).toBe(toMatchCard(body._source as Record<string, unknown>));
    }
    const again = await backfillCopies(services.opensearch, prefix);
    expect(again.keys).toEqual({ written: 0, changed: 0, failed: 0 });
  });
});
