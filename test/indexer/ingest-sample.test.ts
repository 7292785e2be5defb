/** The start-up sample load (npm start): generated when missing, loaded only into empty indices. */
import { existsSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { indexNames } from '../../indexer/index-names.js';
import { loadSampleDataIfEmpty } from '../../indexer/sample-data.js';
import { bootstrapIndices, dropIndices } from '../../src/opensearch/indices.js';
import { searchCorporates } from '../../src/search/run-search.js';
import type { Services } from '../../src/services.js';
import { corporate, indexFixture } from '../fixtures/search/docs.js';
import { setUpServices, uniquePrefix } from '../support/env.js';

let services: Services;
const dir = mkdtempSync(path.join(os.tmpdir(), 'sample-'));
const size = { companies: 60, jobs: 400, seed: 7 };
const logger = pino({ level: 'silent' });

beforeAll(async () => {
  services = await setUpServices('sample', { redisUrl: undefined });
});

afterAll(async () => {
  await services.close();
});

describe('loadSampleDataIfEmpty', () => {
  it('generates the set and loads it into empty indices', async () => {
    const loaded = await loadSampleDataIfEmpty(services.opensearch, services.config.indexPrefix, logger, {
      size,
      dir,
    });
    expect(loaded).toBe(true);
    expect(existsSync(path.join(dir, 'jobs.ndjson'))).toBe(true);
    const names = indexNames(services.config.indexPrefix);
    expect((await services.opensearch.count({ index: names.corporates })).body.count).toBe(60);
    expect((await services.opensearch.count({ index: names.jobs })).body.count).toBe(400);
    expect((await services.opensearch.count({ index: names.jobDetails })).body.count).toBe(400);
    expect(existsSync(path.join(dir, 'dead-letter.ndjson'))).toBe(false);
    // invoice registrations for about 60 in 100 of them, most registered today
    const count = async (query: object) =>
      (await services.opensearch.count({ index: names.corporates, body: { query } })).body.count;
    const withRow = await count({ exists: { field: 'invoice.registrationNumber' } });
    expect(withRow).toBeGreaterThan(20);
    expect(withRow).toBeLessThan(55);
    const registeredNow = (
      await searchCorporates(services, { invoiceRegistered: true, limit: 1, includeTotalResults: true })
    ).totalResults;
    expect(registeredNow).toBeGreaterThan(withRow / 2);
    expect(registeredNow).toBeLessThan(withRow);
  });

  it('leaves indices that hold data alone', async () => {
    // its own prefix holding one company, whatever ran before: nothing is loaded over it
    const prefix = uniquePrefix('sample-held');
    await bootstrapIndices(services.opensearch, prefix);
    try {
      await indexFixture(services.opensearch, prefix, { corporates: [corporate()] });
      const otherDir = mkdtempSync(path.join(os.tmpdir(), 'sample-held-'));
      expect(await loadSampleDataIfEmpty(services.opensearch, prefix, logger, { size, dir: otherDir })).toBe(
        false,
      );
      expect((await services.opensearch.count({ index: indexNames(prefix).corporates })).body.count).toBe(1);
      expect(existsSync(path.join(otherDir, 'jobs.ndjson'))).toBe(false);
    } finally {
      await dropIndices(services.opensearch, prefix);
    }
  });
});
