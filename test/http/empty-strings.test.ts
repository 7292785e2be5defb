/**
 * A source "" in an optional text field is stored as null, so "has a phone number" means the
 * same in every filter: the company's phone (company and job search) and the posting's contact
 * phone (the nested flag in company search, presence in job search).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryDeadLetter } from '../../indexer/dead-letter.js';
import { indexNames } from '../../indexer/index-names.js';
import { IngestPipeline } from '../../indexer/pipeline.js';
import { rebuildCompanies } from '../../indexer/rebuild.js';
import { searchCorporates, searchJobs } from '../../src/search/run-search.js';
import type { Services } from '../../src/services.js';
import { corporate, job, numbers } from '../fixtures/indexer/records.js';
import { setUpServices } from '../support/env.js';

let services: Services;
const withPhone = numbers.alpha;
const emptyPhone = numbers.beta;
const mine = { corporateNumberOr: [withPhone, emptyPhone] };
const phoned = job({ corporateNumber: withPhone, contactPhoneNumber: '03-0000-0000', title: '電話あり' });
const unphoned = job({
  corporateNumber: emptyPhone,
  contactPhoneNumber: '',
  contactEmail: ' ',
  title: '電話なし',
  workLocation: { kind: 'onsite', prefectureId: 13, cityName: '', address: '' },
});

beforeAll(async () => {
  services = await setUpServices('empty-strings');
  const deadLetter = new MemoryDeadLetter();
  const pipeline = new IngestPipeline({
    client: services.opensearch,
    indexPrefix: services.config.indexPrefix,
    deadLetter,
  });
  await pipeline.add(corporate({ corporateNumber: withPhone, phoneNumber: '03-1234-5678' }));
  await pipeline.add(corporate({ corporateNumber: emptyPhone, phoneNumber: '', fax: '', websiteUrl: '' }));
  await pipeline.flush();
  await pipeline.add(phoned);
  await pipeline.add(unphoned);
  await pipeline.flush();
  expect(deadLetter.entries).toEqual([]);
  await services.opensearch.indices.refresh({ index: indexNames(services.config.indexPrefix).jobs });
  await rebuildCompanies(services.opensearch, services.config.indexPrefix, [withPhone, emptyPhone]);
  // the searches below must see every write: the rebuild's own, and the records' in all indices
  await services.opensearch.indices.refresh({ index: `${services.config.indexPrefix}*` });
});
afterAll(async () => {
  await services?.close();
});

async function companies(body: Record<string, unknown>): Promise<string[]> {
  const { results } = await searchCorporates(services, { ...mine, ...body });
  return results.map((record) => String(record.corporateNumber)).sort();
}

async function jobs(body: Record<string, unknown>): Promise<string[]> {
  const { results } = await searchJobs(services, { corporateNumberOr: mine.corporateNumberOr, ...body });
  return results.map((record) => String(record.title)).sort();
}

describe('empty optional texts are null', () => {
  it('stores "" and white space as null, in the company, the posting and its work location', async () => {
    const names = indexNames(services.config.indexPrefix);
    const { body: company } = await services.opensearch.get({ index: names.corporates, id: emptyPhone });
    expect(company._source).toMatchObject({ phoneNumber: null, fax: null, websiteUrl: null });
    const { body: posting } = await services.opensearch.get({ index: names.jobs, id: unphoned.id });
    expect(posting._source).toMatchObject({ contactPhoneNumber: null, contactEmail: null });
    expect(JSON.stringify(posting._source)).not.toContain('""');
  });

  it('"has a phone" means the same in every filter', async () => {
    expect(await companies({ hasCorporatePhone: true })).toEqual([withPhone]);
    expect(await companies({ hasCorporatePhone: false })).toEqual([emptyPhone]);
    expect(await companies({ jobHasContactPhone: true })).toEqual([withPhone]);
    expect(await companies({ jobHasContactPhone: false })).toEqual([emptyPhone]);
    expect(await jobs({ hasContactPhone: true })).toEqual(['電話あり']);
    expect(await jobs({ hasContactPhone: false })).toEqual(['電話なし']);
    expect(await jobs({ corporateHasCorporatePhone: true })).toEqual(['電話あり']);
    expect(await jobs({ corporateHasCorporatePhone: false })).toEqual(['電話なし']);
    expect(await jobs({ hasContactEmail: false })).toEqual(['電話なし']);
  });
});
