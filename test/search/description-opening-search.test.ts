/**
 * Job searches without a detail-text condition read `descriptionSnippets` from the opening
 * excerpt's doc values (src/search/opening.ts) and send no `highlight`; their answers are the
 * highlighter's, as before, on the real engine: after the ingest, for a text whose excerpt the
 * indexer leaves to the highlighter, after the roll-off, for postings written before the field
 * (an upgraded deployment), and after `npm run backfill` gives them the field.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corporateCheckDigit } from '../../indexer/corporate-number.js';
import { indexNames } from '../../indexer/index-names.js';
import { rollOff } from '../../indexer/rolloff.js';
import type { SourceRecord } from '../../indexer/source-types.js';
import { backfillCopies } from '../../ops/backfill-copies.js';
import { jobSearch } from '../../src/catalogue/searches.js';
import type { Engine } from '../../src/opensearch/engine.js';
import { descriptionOpening, openingField } from '../../src/search/opening.js';
import { parseSearchRequest } from '../../src/search/parse-request.js';
import { compileWithOverflow, searchJobs } from '../../src/search/run-search.js';
import { compileSnippetHighlight, toSnippets } from '../../src/search/snippets.js';
import type { Services } from '../../src/services.js';
import { corporate, job } from '../fixtures/indexer/records.js';
import { setUpServices } from '../support/env.js';
import { steppingClock, writeRecords } from '../support/pipeline-write.js';

let services: Services;
let names: ReturnType<typeof indexNames>;
const tick = steppingClock('2026-11-21T03:00:00.000Z');
const base = '600000000001';
const company = `${corporateCheckDigit(base)}${base}`;

const long = `【仕事内容】<b>法人営業</b> & "提案" '企画' / ${'既存顧客へのルート営業をお任せします。'.repeat(8)}`;
const texts = ['短い本文です。', long, `  前後に空白  \n`, undefined];

/** Every engine search the API sends, as sent. */
const sent: Record<string, unknown>[] = [];

/** The engine, recording each search's request on its way. */
function recording(client: Engine): Engine {
  return new Proxy(client, {
    get(target, property) {
      if (property === 'search')
        return (request: Record<string, unknown>, options?: unknown) => {
          sent.push(request);
          return target.search(request as never, options as never);
        };
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

const write = (records: SourceRecord[]) => writeRecords(services, records, tick);

async function refresh(): Promise<void> {
  await services.opensearch.indices.refresh({ index: names.jobs });
}

/** The snippets of each posting as the highlighter gives them: the request searches sent before. */
async function highlighterSnippets(body: Record<string, unknown>): Promise<Record<string, string[]>> {
  const plan = parseSearchRequest(jobSearch, body);
  const request = await compileWithOverflow(services, jobSearch, plan, undefined);
  const { docvalue_fields: _docvalues, ...rest } = request.body as Record<string, unknown>;
  const { body: answer } = await services.opensearch.search({
    ...request,
    body: { ...rest, docvalue_fields: ['id'], highlight: compileSnippetHighlight(plan) } as never,
  });
  return Object.fromEntries(
    answer.hits.hits.map((hit) => [
      String(hit.fields?.id?.[0]),
      toSnippets(hit.highlight as Record<string, string[]> | undefined),
    ]),
  );
}

/** The API's answer, its snippets by posting, and the engine searches it sent. */
async function apiSnippets(body: Record<string, unknown>) {
  sent.length = 0;
  const { results } = await searchJobs({ ...services, opensearch: recording(services.opensearch) }, body);
  const snippets = Object.fromEntries(results.map((row) => [String(row.id), row.descriptionSnippets]));
  return { snippets, requests: [...sent] };
}

const searches = [{ limit: 100 }, { limit: 100, fields: ['descriptionSnippets', 'id'] }];

/** The snippets asked alone (no record fetched): the same list, in the same order. */
async function expectSnippetsAlone(trips: number): Promise<void> {
  const body = { limit: 100, fields: ['descriptionSnippets'] };
  sent.length = 0;
  const { results } = await searchJobs({ ...services, opensearch: recording(services.opensearch) }, body);
  expect(sent.length).toBe(trips);
  expect(highlights(sent)[0]).toBe(false);
  const expected = await highlighterSnippets({ ...body, fields: ['descriptionSnippets', 'id'] });
  expect(results.map((row) => row.descriptionSnippets)).toEqual(Object.values(expected));
}

/** Both answers are the same; `trips`: how many engine searches the API sent for each. */
async function expectHighlighterAnswer(trips: number): Promise<Record<string, unknown>[]> {
  const requests: Record<string, unknown>[] = [];
  for (const body of searches) {
    const api = await apiSnippets(body);
    const expected = await highlighterSnippets(body);
    expect(Object.keys(expected).length).toBeGreaterThan(0);
    expect(api.snippets).toEqual(expected);
    expect(api.requests.length).toBe(trips);
    requests.push(...api.requests);
  }
  return requests;
}

const highlights = (requests: Record<string, unknown>[]) =>
  requests.map((request) => 'highlight' in (request.body as Record<string, unknown>));

async function storedOpenings(): Promise<Record<string, unknown>> {
  const { body } = await services.opensearch.search({
    index: names.jobs,
    body: { size: 100, _source: ['id', openingField] } as never,
  });
  return Object.fromEntries(
    body.hits.hits.map((hit) => {
      const source = hit._source as Record<string, unknown>;
      return [String(source.id), openingField in source ? source[openingField] : 'absent'];
    }),
  );
}

beforeAll(async () => {
  services = await setUpServices('opening-search', { redisUrl: undefined });
  names = indexNames(services.config.indexPrefix);
  await write([
    corporate({ corporateNumber: company }),
    ...texts.map((description, i) => job({ id: `P${i}`, corporateNumber: company, description })),
  ]);
});

afterAll(async () => {
  await services.close();
});

describe('snippets from the opening excerpt', { shuffle: false }, () => {
  it('are the highlighter’s, in one engine search that does not highlight', async () => {
    expect(await storedOpenings()).toEqual({
      P0: '短い本文です。',
      P1: descriptionOpening(long),
      P2: '前後に空白',
      P3: '',
    });
    const requests = await expectHighlighterAnswer(1);
    expect(highlights(requests)).toEqual([false, false]);
    await expectSnippetsAlone(1);
  });

  it('a text whose excerpt is left to the highlighter: the page is asked again, highlighted', async () => {
    const uncertain = `${'a'.repeat(158)}x-y.z Java`;
    expect(descriptionOpening(uncertain)).toBeUndefined();
    await write([job({ id: 'P4', corporateNumber: company, description: uncertain })]);
    expect((await storedOpenings()).P4).toBeNull();
    const requests = await expectHighlighterAnswer(2);
    expect(highlights(requests)).toEqual([false, true, false, true]);
    await expectSnippetsAlone(2);
  });

  it('a detail-text condition keeps the highlighter, its opening fallback included', async () => {
    sent.length = 0;
    const body = { limit: 100, jobDescriptionPartialMatchOr: ['ルート営業'] };
    const api = await apiSnippets(body);
    expect(api.snippets).toEqual(await highlighterSnippets(body));
    expect(highlights(api.requests)).toEqual([true]);
    expect(Object.values(api.snippets).some((snippets) => JSON.stringify(snippets).includes('<mark>'))).toBe(
      true,
    );
  });

  it('postings written before the field answer the same; npm run backfill gives them the field', async () => {
    // an upgraded deployment: the documents as the release before wrote them
    await services.opensearch.updateByQuery({
      index: names.jobs,
      refresh: true,
      body: { script: { source: `ctx._source.remove('${openingField}')` } } as never,
    });
    expect(Object.values(await storedOpenings())).toEqual(Array(5).fill('absent'));
    expect(highlights(await expectHighlighterAnswer(2))).toEqual([false, true, false, true]);
    const result = await backfillCopies(services.opensearch, services.config.indexPrefix);
    expect(result.jobs).toMatchObject({ written: 5, failed: 0 });
    await refresh();
    expect(await storedOpenings()).toEqual({
      P0: '短い本文です。',
      P1: descriptionOpening(long),
      P2: '前後に空白',
      P3: '',
      P4: null,
    });
    await expectHighlighterAnswer(2);
    // a second run finds nothing to fill (null is the highlighter's, not a missing field)
    expect((await backfillCopies(services.opensearch, services.config.indexPrefix)).jobs.written).toBe(0);
  });

  it('the roll-off clears the opening with the text: no snippets, and no second search', async () => {
    await rollOff(services.opensearch, services.config.indexPrefix, {
      now: new Date('2027-06-01T00:00:00Z'),
    });
    await refresh();
    expect(Object.values(await storedOpenings())).toEqual(Array(5).fill(''));
    const requests = await expectHighlighterAnswer(1);
    expect(highlights(requests)).toEqual([false, false]);
    const { snippets } = await apiSnippets({ limit: 100 });
    expect(Object.values(snippets)).toEqual(Array(5).fill([]));
  });
});
