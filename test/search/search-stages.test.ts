/**
 * The search pipeline's stages (src/search/run-search.ts) one at a time, without servers:
 * resolve needs nothing for a search with no posting conditions, compile makes the one request
 * of what resolve decided, shape writes the answer's text from a page. The stages on the engine
 * are tested through the searches themselves (search-semantics, posting-overflow, cursors,
 * record-text).
 */
import { describe, expect, it } from 'vitest';
import { corporateSearch, jobSearch, type SearchCatalogue } from '../../src/catalogue/searches.js';
import { postingQueries } from '../../src/search/compile-query.js';
import { compileSearch } from '../../src/search/compile-search.js';
import { parseSearchRequest } from '../../src/search/parse-request.js';
import { compileResolved, type Executed, resolveSearch, shapeAnswer } from '../../src/search/run-search.js';

/** Services that fail the test when any part is read: the stage must not need them. */
const untouchable = new Proxy(
  {},
  {
    get(_target, property) {
      throw new Error(`the stage read services.${String(property)}`);
    },
  },
) as never;

describe('resolve', () => {
  it.each([
    ['a job search, a page by from/size', jobSearch, { corporatePrefectureIdOr: [13] }, true],
    [
      'a job search, a deep page',
      jobSearch,
      { corporatePrefectureIdOr: [13], jobTitlePartialMatchOr: ['営業'] },
      false,
    ],
    [
      'a company search with no posting condition, by from/size',
      corporateSearch,
      { prefectureIdOr: [13] },
      true,
    ],
    [
      'a company search with no posting condition, a deep page',
      corporateSearch,
      { prefectureIdOr: [13, 27] },
      false,
    ],
  ] as Array<[string, SearchCatalogue, Record<string, unknown>, boolean]>)(
    '%s: nothing to reckon with, and no engine or memory asked',
    async (_label, search, body, withinWindow) => {
      const plan = parseSearchRequest(search, body);
      expect(await resolveSearch(untouchable, search, plan, undefined, withinWindow)).toEqual({
        search,
        plan,
      });
    },
  );
});

describe('compile', () => {
  it('makes the request of the plan, with the jobs index answers resolve decided', () => {
    const plan = parseSearchRequest(corporateSearch, { jobTitlePartialMatchOr: ['営業'], limit: 5 });
    const plain = compileResolved({ search: corporateSearch, plan }, 't-');
    expect(plain.request).toEqual(compileSearch(corporateSearch, plan, 't-'));
    const [query] = postingQueries(plan);
    const overflow = {
      companies: ['8000000000001'],
      matches: new Map([[query?.key ?? '', ['8000000000001']]]),
    };
    const answered = compileResolved({ search: corporateSearch, plan, overflow }, 't-');
    expect(answered.request).toEqual(compileSearch(corporateSearch, plan, 't-', overflow));
    // the answers change the query: the marked company is decided by the jobs index
    expect(JSON.stringify(answered.request)).not.toBe(JSON.stringify(plain.request));
  });
});

describe('shape', () => {
  const posting = (id: string, title: string) => ({
    _source: { id, title, corporateNumber: '1010001000001', corporateName: '株式会社A', updatedAt: null },
  });

  it('writes the total, the records in page order with the fields asked, and the cursor', () => {
    const plan = parseSearchRequest(jobSearch, { cursor: '*', limit: 2, fields: ['title', 'id'] });
    const executed: Executed = {
      compiled: compileResolved({ search: jobSearch, plan }, 't-'),
      body: { hits: { total: { value: 7, relation: 'eq' }, hits: [] } } as never,
      hits: [posting('j2', '営業'), posting('j1', '経理')] as never,
      nextCursor: 'next-page',
    };
    expect(shapeAnswer(executed).toString('utf8')).toBe(
      JSON.stringify({
        totalResults: 7,
        results: [
          { id: 'j2', title: '営業' },
          { id: 'j1', title: '経理' },
        ],
        nextCursor: 'next-page',
      }),
    );
  });

  it('writes a null total when none was asked, and nothing after the results of a plain page', () => {
    const plan = parseSearchRequest(jobSearch, { includeTotalResults: false, fields: ['id'] });
    const executed: Executed = {
      compiled: compileResolved({ search: jobSearch, plan }, 't-'),
      body: { hits: { total: { value: 7, relation: 'eq' }, hits: [] } } as never,
      hits: [posting('j9', 'x')] as never,
    };
    expect(shapeAnswer(executed).toString('utf8')).toBe('{"totalResults":null,"results":[{"id":"j9"}]}');
  });

  it("writes a cursor search's last page with nextCursor null", () => {
    const plan = parseSearchRequest(jobSearch, { cursor: '*', fields: ['id'] });
    const executed: Executed = {
      compiled: compileResolved({ search: jobSearch, plan }, 't-'),
      body: { hits: { total: { value: 1, relation: 'eq' }, hits: [] } } as never,
      hits: [posting('j9', 'x')] as never,
      nextCursor: null,
    };
    expect(JSON.parse(shapeAnswer(executed).toString('utf8'))).toEqual({
      totalResults: 1,
      results: [{ id: 'j9' }],
      nextCursor: null,
    });
  });
});
