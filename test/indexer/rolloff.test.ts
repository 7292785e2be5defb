/**
 * Roll-off on the real engine: a posting whose text was collected more than a month ago leaves
 * detail-text search (jobs and the company's nested copy) while job-details keeps the text.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryDeadLetter } from '../../indexer/dead-letter.js';
import { indexNames } from '../../indexer/index-names.js';
import { IngestPipeline } from '../../indexer/pipeline.js';
import { rebuildCompanies } from '../../indexer/rebuild.js';
import { rollOff } from '../../indexer/rolloff.js';
import type { Services } from '../../src/services.js';
import { corporate, job, numbers } from '../fixtures/indexer/records.js';
import { setUpServices } from '../support/env.js';

let services: Services;
let names: ReturnType<typeof indexNames>;
/** What detail-text search found right after indexing, before any roll-off. */
let before: { olderJobs: string[]; olderCompanies: string[]; newerCompanies: string[] };
let firstRollOff: ReturnType<typeof rollOff> | undefined;
/** The roll-off of 2026-12-10, run once whichever test asks first (tests run in any order). */
function rolledOff(): ReturnType<typeof rollOff> {
  firstRollOff ??= rollOff(services.opensearch, services.config.indexPrefix, {
    now: new Date('2026-12-10T08:00:00Z'),
    batchSize: 1,
  }).then(async (result) => {
    await services.opensearch.indices.refresh({ index: Object.values(names).join(',') });
    return result;
  });
  return firstRollOff;
}
const ingestedAt = new Date('2026-11-21T12:00:00Z');
const older = job({
  description: '旧テキストには溶接ロボットの保守が含まれます。',
  descriptionCollectedAt: '2026-11-05T00:00:00Z',
});
const newer = job({
  description: '新テキストには旋盤オペレーターの募集が含まれます。',
  descriptionCollectedAt: '2026-11-20T00:00:00Z',
});

async function jobsMatching(text: string): Promise<string[]> {
  const { body } = await services.opensearch.search({
    index: names.jobs,
    body: { query: { match_phrase: { description: text } } } as never,
  });
  return body.hits.hits.map((hit) => String(hit._id));
}

async function companiesMatching(text: string): Promise<string[]> {
  const { body } = await services.opensearch.search({
    index: names.corporates,
    body: {
      query: { nested: { path: 'postings', query: { match_phrase: { 'postings.description': text } } } },
    } as never,
  });
  return body.hits.hits.map((hit) => String(hit._id));
}

beforeAll(async () => {
  services = await setUpServices('rolloff', { redisUrl: undefined });
  names = indexNames(services.config.indexPrefix);
  const pipeline = new IngestPipeline({
    client: services.opensearch,
    indexPrefix: services.config.indexPrefix,
    deadLetter: new MemoryDeadLetter(),
    now: () => ingestedAt,
  });
  for (const record of [corporate(), older, newer]) await pipeline.add(record);
  await pipeline.flush();
  await rebuildCompanies(services.opensearch, services.config.indexPrefix, pipeline.touched, {
    now: ingestedAt,
  });
  await services.opensearch.indices.refresh({ index: Object.values(names).join(',') });
  before = {
    olderJobs: await jobsMatching('溶接ロボット'),
    olderCompanies: await companiesMatching('溶接ロボット'),
    newerCompanies: await companiesMatching('旋盤オペレーター'),
  };
});

afterAll(async () => {
  await services.close();
});

describe('roll-off', () => {
  it('finds both texts before the older one leaves the window', () => {
    expect(before).toEqual({
      olderJobs: [older.id],
      olderCompanies: [numbers.alpha],
      newerCompanies: [numbers.alpha],
    });
  });

  it('removes the searchable copy of texts collected more than a month ago, in bounded batches', async () => {
    // 2026-12-10: the window starts 2026-11-10, so the text of 11-05 is out and that of 11-20 stays
    expect(await rolledOff()).toEqual({ postings: 1, companies: [numbers.alpha], failures: 0 });

    expect(await jobsMatching('溶接ロボット')).toEqual([]);
    expect(await jobsMatching('旋盤オペレーター')).toEqual([newer.id]);
    expect(await companiesMatching('溶接ロボット')).toEqual([]);
    expect(await companiesMatching('旋盤オペレーター')).toEqual([numbers.alpha]);

    const { body: posting } = await services.opensearch.get({ index: names.jobs, id: older.id });
    expect(posting._source).toMatchObject({
      description: null,
      descriptionCollectedAt: '2026-11-05T00:00:00Z',
    });
  });

  it('leaves job-details untouched: the detail endpoint still has the text', async () => {
    await rolledOff();
    const { body } = await services.opensearch.get({ index: names.jobDetails, id: older.id });
    expect(body._source).toMatchObject({ id: older.id, description: older.description });
  });

  it('has nothing left to do on a second run', async () => {
    await rolledOff();
    const result = await rollOff(services.opensearch, services.config.indexPrefix, {
      now: new Date('2026-12-10T08:00:00Z'),
    });
    expect(result.postings).toBe(0);
  });
});
