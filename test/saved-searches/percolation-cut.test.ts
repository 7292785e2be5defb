/**
 * Records percolated cut to the fields the watched queries read (src/saved-searches/query-fields.ts)
 * match exactly the searches they match whole, on the real engine: for every filter of both
 * searches, in every request form (test/fixtures/search/filter-cases.ts), its saved query
 * checked against two records cut to that query's own fields and whole; records with more
 * postings than the fixture's, some equal once cut, so that items dropped or kept once are
 * exercised. Then the percolation as the rebuild runs it: the records it sends are cut; the
 * fields of queries kept before the set existed are read from the index first; and a query
 * registered while a percolation is under way, with a field the set did not hold, is still
 * matched (the records go again whole).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corporateSearch, jobSearch, type SearchCatalogue } from '../../src/catalogue/searches.js';
import type { Engine } from '../../src/opensearch/engine.js';
import { indexName } from '../../src/opensearch/indices.js';
import { cutForPercolation, QueryFields, queryFieldsOf } from '../../src/saved-searches/query-fields.js';
import type { SavedSearchKind } from '../../src/saved-searches/store.js';
import { percolate, queriesIndexes, registerQuery, unregisterQuery } from '../../src/saved-searches/watch.js';
import { compileSearch } from '../../src/search/compile-search.js';
import { parseSearchRequest } from '../../src/search/parse-request.js';
import type { Services } from '../../src/services.js';
import { type Doc, posting } from '../fixtures/search/docs.js';
import { filterFixtures } from '../fixtures/search/filter-cases.js';
import { setUpServices } from '../support/env.js';

let services: Services;
let prefix: string;

beforeAll(async () => {
  services = await setUpServices('percolation-cut');
  prefix = services.config.indexPrefix;
});
afterAll(async () => {
  await services?.close();
});

/** A company record with two more postings: a copy of its first but for the id, and one with no field a filter sets. */
function withMorePostings(doc: Doc): Doc {
  const postings = (doc.postings as Doc[] | undefined) ?? [];
  if (postings.length === 0) return doc;
  return { ...doc, postings: [...postings, { ...postings[0], id: `${postings[0]?.id}-again` }, posting()] };
}

interface Case {
  id: string;
  query: unknown;
  fields: Set<string>;
  a: Doc;
  b: Doc;
  request: unknown;
}

function casesOf(search: SearchCatalogue, kind: SavedSearchKind): Case[] {
  return filterFixtures(search).flatMap((fixture, f) =>
    fixture.cases.map((filterCase, c) => {
      const plan = parseSearchRequest(search, filterCase.request);
      const query = (compileSearch(search, plan, prefix).body as { query: unknown }).query;
      const [a, b] =
        kind === 'corporates'
          ? [withMorePostings(fixture.a), withMorePostings(fixture.b)]
          : [fixture.a, fixture.b];
      return {
        id: `ss_cut_${kind}_${f}_${c}`,
        query,
        fields: new Set(queryFieldsOf(query, kind)),
        a: a as Doc,
        b: b as Doc,
        request: filterCase.request,
      };
    }),
  );
}

async function putQueries(client: Engine, kind: SavedSearchKind, cases: Case[]): Promise<void> {
  const index = indexName(prefix, queriesIndexes[kind]);
  const { body } = await client.bulk(
    {
      refresh: true,
      body: cases.flatMap((c) => [
        { index: { _index: index, _id: c.id } },
        { savedSearchId: c.id, userId: 'cut', watchFields: [], query: c.query },
      ]) as never,
    },
    { timeoutMs: 60_000 },
  );
  expect(body.errors, JSON.stringify(body.items.find((item) => Object.values(item)[0]?.error))).toBe(false);
}

/** Which of the two records a saved query matches, the records sent as given. */
async function slotsOf(
  client: Engine,
  kind: SavedSearchKind,
  id: string,
  documents: Doc[],
): Promise<number[]> {
  const { body } = await client.search({
    index: indexName(prefix, queriesIndexes[kind]),
    body: {
      size: 1,
      query: {
        bool: {
          filter: [{ term: { savedSearchId: id } }],
          must: [{ percolate: { field: 'query', documents } }],
        },
      },
    },
  });
  const hit = (body.hits.hits as Array<{ fields?: Record<string, number[]> }>)[0];
  return hit ? [...(hit.fields?._percolator_document_slot ?? [])].sort() : [];
}

describe.each([
  ['company', corporateSearch, 'corporates'],
  ['job', jobSearch, 'jobs'],
] as const)('%s searches percolated cut', (_label, search, kind) => {
  it('match what they match whole, filter by filter', async () => {
    const cases = casesOf(search, kind);
    await putQueries(services.opensearch, kind, cases);
    let matched = 0;
    try {
      for (const c of cases) {
        const whole = await slotsOf(services.opensearch, kind, c.id, [c.a, c.b]);
        const cut = await slotsOf(services.opensearch, kind, c.id, [
          cutForPercolation(c.a, c.fields),
          cutForPercolation(c.b, c.fields),
        ]);
        expect(cut, `${JSON.stringify(c.request)} cut to ${[...c.fields].join(', ')}`).toEqual(whole);
        matched += whole.length;
      }
    } finally {
      await services.opensearch.deleteByQuery({
        index: indexName(prefix, queriesIndexes[kind]),
        refresh: true,
        body: { query: { prefix: { savedSearchId: 'ss_cut_' } } },
      });
    }
    // the cases pick A, B or both: most queries match something, so equal answers are not empty ones
    expect(matched).toBeGreaterThan(cases.length / 2);
  }, 120_000);
});

describe('the percolation with the watched queries fields', () => {
  const company = withMorePostings({
    corporateNumber: '9800000000001',
    name: '切り出し株式会社',
    prefectureId: 13,
    employeeCount: 120,
    postings: [{ id: 'cut-p1', title: '営業', mediaId: 3, salaryMin: 4_000_000 }],
  });
  /** A set of its own (a Redis prefix no other test uses). */
  const freshPrefix = () => `${services.config.redisPrefix}cut-${Math.random().toString(36).slice(2)}:`;
  const register = (fields: QueryFields, savedSearchId: string, query: unknown) =>
    registerQuery(
      services.opensearch,
      prefix,
      { savedSearchId, userId: 'cut', watchFields: [], query },
      { fields },
    );
  const ids = (matches: Awaited<ReturnType<typeof percolate>>) =>
    (matches[0] ?? [])
      .map((match) => match.savedSearchId)
      .filter((id) => id.startsWith('ss_cutw_'))
      .sort();

  it('sends the records cut, reading the fields of queries kept before the set existed', async () => {
    const fields = new QueryFields(services.redis as never, freshPrefix());
    // put straight into the index: kept before the set existed
    const index = indexName(prefix, queriesIndexes.corporates);
    await services.opensearch.index({
      index,
      id: 'ss_cutw_media',
      refresh: true,
      body: {
        savedSearchId: 'ss_cutw_media',
        userId: 'cut',
        watchFields: [],
        query: { nested: { path: 'postings', query: { term: { 'postings.mediaId': 3 } } } },
      },
    });
    const sent: unknown[] = [];
    const client = new Proxy(services.opensearch, {
      get(target, key, receiver) {
        if (key !== 'search') return Reflect.get(target, key, receiver);
        return (params: { body?: { query?: { percolate?: { documents?: unknown[] } } } }) => {
          const documents = params.body?.query?.percolate?.documents;
          if (documents) sent.push(...documents);
          return target.search(params as never);
        };
      },
    });
    try {
      expect(await fields.read('corporates')).toBeUndefined();
      expect(ids(await percolate(client, prefix, [company], { fields }))).toEqual(['ss_cutw_media']);
      const known = await fields.read('corporates');
      expect(known?.has('postings.mediaId')).toBe(true);
      // no query reads the name: it was not sent; each posting kept for its medium alone, the copy once
      expect(sent).toHaveLength(1);
      expect(sent[0]).not.toHaveProperty('name');
      expect((sent[0] as Doc).postings).toEqual([{ mediaId: 3 }, {}]);
    } finally {
      await unregisterQuery(services.opensearch, prefix, 'ss_cutw_media');
    }
  });

  it('matches a query registered meanwhile with a field the set did not hold', async () => {
    const redisPrefix = freshPrefix();
    const fields = new QueryFields(services.redis as never, redisPrefix);
    await register(fields, 'ss_cutw_prefecture', { term: { prefectureId: 13 } });
    // the set is read, then (before the engine answers) a search reading another field comes in
    class Meanwhile extends QueryFields {
      override async read(kind: SavedSearchKind) {
        const known = await super.read(kind);
        await register(fields, 'ss_cutw_headcount', { range: { employeeCount: { gte: 100 } } });
        return known;
      }
    }
    const racing = new Meanwhile(services.redis as never, redisPrefix);
    try {
      await fields.fillFrom((async function* () {})(), 'corporates');
      expect([...((await fields.read('corporates')) ?? [])]).not.toContain('employeeCount');
      expect(ids(await percolate(services.opensearch, prefix, [company], { fields: racing }))).toEqual([
        'ss_cutw_headcount',
        'ss_cutw_prefecture',
      ]);
    } finally {
      await unregisterQuery(services.opensearch, prefix, 'ss_cutw_prefecture');
      await unregisterQuery(services.opensearch, prefix, 'ss_cutw_headcount');
    }
  });
});
