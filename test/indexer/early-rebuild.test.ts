/**
 * The file load's early rebuilds on the real engine (indexer/run-postings.ts): on a load into
 * an empty `jobs` index, each company is rebuilt as soon as its last record is written, from
 * the postings the load wrote, and it must end exactly as the rebuild from the index leaves
 * it: the same `_source` of every company and posting, and the same nested detail text (kept
 * out of `_source`, so counted through a search).
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { API } from '@opensearch-project/opensearch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryDeadLetter } from '../../indexer/dead-letter.js';
import { indexNames } from '../../indexer/index-names.js';
import { ingestFiles } from '../../indexer/ingest.js';
import { rebuildCompanies } from '../../indexer/rebuild.js';
import { scan } from '../../ops/engine/scan.js';
import { generateDataSet } from '../../sample-data/index.js';
import type { Services } from '../../src/services.js';
import { setUpServices } from '../support/env.js';

let services: Services;
let names: ReturnType<typeof indexNames>;
let dir: string;
let files: string[];
const now = new Date('2026-04-01T03:00:00Z');
const companies = 30;

beforeAll(async () => {
  services = await setUpServices('early-rebuild');
  names = indexNames(services.config.indexPrefix);
  dir = mkdtempSync(path.join(tmpdir(), 'early-rebuild-'));
  const generated = await generateDataSet({
    companies,
    jobs: 400,
    seed: 11,
    now: new Date('2026-04-01T00:00:00Z'),
    outDir: dir,
  });
  files = [generated.corporates, generated.jobs];
});
afterAll(async () => {
  await services.close();
  rmSync(dir, { recursive: true, force: true });
});

async function sources(index: string, key: string): Promise<Map<string, string>> {
  await services.opensearch.indices.refresh({ index });
  const found = new Map<string, string>();
  for await (const page of scan(services.opensearch, {
    index,
    query: { match_all: {} },
    sort: [{ [key]: 'asc' }],
  }))
    for (const hit of page) found.set(hit.id, JSON.stringify(hit.source));
  return found;
}

/** Nested postings with their detail text, per company: the text is indexed, not in `_source`. */
async function nestedText(): Promise<Record<string, number>> {
  const { body } = await services.opensearch.search({
    index: names.corporates,
    body: {
      size: 0,
      // the typings of a terms aggregation leave out `field`
      aggs: {
        companies: {
          terms: { field: 'corporateNumber', size: 1000 },
          aggs: {
            postings: {
              nested: { path: 'postings' },
              aggs: { withText: { filter: { exists: { field: 'postings.description' } } } },
            },
          },
        },
      },
    } as API.Search_RequestBody,
  });
  const buckets = (
    body.aggregations as {
      companies: {
        buckets: Array<{ key: string; postings: { doc_count: number; withText: { doc_count: number } } }>;
      };
    }
  ).companies.buckets;
  return Object.fromEntries(
    buckets.map((bucket) => [
      bucket.key,
      bucket.postings.withText.doc_count * 100_000 + bucket.postings.doc_count,
    ]),
  );
}

async function state() {
  return {
    corporates: await sources(names.corporates, 'corporateNumber'),
    jobs: await sources(names.jobs, 'id'),
    text: await nestedText(),
  };
}

describe('early rebuilds of a file load', { shuffle: false }, () => {
  it('rebuild every company of a fresh load during it, into the documents the rebuild from the index writes', async () => {
    const deadLetter = new MemoryDeadLetter();
    // small batches: many rounds, so companies complete while later records are still written
    const result = await ingestFiles(files, {
      client: services.opensearch,
      indexPrefix: services.config.indexPrefix,
      deadLetter,
      batchSize: 25,
      now: () => now,
    });
    expect(deadLetter.entries).toEqual([]);
    expect(result.rebuiltDuringLoad).toBe(companies);
    expect(result.rebuild).toMatchObject({ rebuilt: companies, missing: 0, fannedOut: 0, failures: [] });
    const early = await state();
    expect(early.corporates.size).toBe(companies);
    expect(Object.values(early.text).some((count) => count >= 100_000)).toBe(true);

    const fromIndex = await rebuildCompanies(
      services.opensearch,
      services.config.indexPrefix,
      early.corporates.keys(),
      {
        now,
      },
    );
    expect(fromIndex).toMatchObject({ rebuilt: companies, fannedOut: 0, failures: [] });
    expect(await state()).toEqual(early);
  });

  it('rebuild from the index after a load into indices that already hold postings', async () => {
    const before = await state();
    const result = await ingestFiles(files, {
      client: services.opensearch,
      indexPrefix: services.config.indexPrefix,
      deadLetter: new MemoryDeadLetter(),
      batchSize: 25,
      now: () => now,
    });
    expect(result.rebuiltDuringLoad).toBe(0);
    expect(result.rebuild).toMatchObject({ rebuilt: companies, fannedOut: 0, failures: [] });
    expect(await state()).toEqual(before);
  });
});
