/**
 * The filter compiler's less travelled paths, asserted exactly (test/search/compile-kinds.test.ts and
 * test/search/compile-search.test.ts hold the worked examples): the folded exact name, name-key
 * prefixes, the posting queries the jobs-first overflow is keyed by, the overflow's query
 * shape, `fields` and snippets, and the errors a catalogue mistake raises. Written against the
 * mutants Stryker left alive (docs/mutation.md).
 */
import { describe, expect, it } from 'vitest';
import { corporateSearch, jobSearch } from '../../src/catalogue/searches.js';
import {
  compileConditions,
  compileQuery,
  type PostingOverflow,
  postingQueries,
  postingQueryKey,
} from '../../src/search/compile-query.js';
import { compileSearch } from '../../src/search/compile-search.js';
import { compileSort } from '../../src/search/compile-sort.js';
import { parseSearchRequest } from '../../src/search/parse-request.js';

const plan = (body: Record<string, unknown>) => parseSearchRequest(corporateSearch, body);
const nested = (query: unknown) => ({ nested: { path: 'postings', query, score_mode: 'none' } });
const title = (text: string) => ({ match_phrase: { 'postings.title.substring': text } });

describe('kinds', () => {
  it('an exact name asks the folded sub-field and the field as written', () => {
    expect(compileQuery(plan({ corporateNameOr: ['㈱ABC', 'x'] }))).toEqual({
      bool: {
        filter: [
          {
            bool: {
              should: [{ terms: { 'name.folded': ['㈱ABC', 'x'] } }, { terms: { name: ['㈱ABC', 'x'] } }],
              minimum_should_match: 1,
            },
          },
        ],
      },
    });
  });

  it('a name-key prefix is folded as the key was, deduplicated; a text that folds to nothing names no prefix', () => {
    expect(compileQuery(plan({ furiganaPrefixOr: ['マルカ', 'まるか', ' '] }))).toEqual({
      bool: { filter: [{ prefix: { readingKey: 'まるか' } }] },
    });
    expect(compileQuery(plan({ furiganaPrefixOr: ['マルカ', 'サクラ'] }))).toEqual({
      bool: {
        filter: [
          {
            bool: {
              should: [{ prefix: { readingKey: 'まるか' } }, { prefix: { readingKey: 'さくら' } }],
              minimum_should_match: 1,
            },
          },
        ],
      },
    });
    expect(compileQuery(plan({ furiganaPrefixOr: ['　', 'ー'] }))).toEqual({
      bool: { filter: [{ match_none: {} }] },
    });
  });
});

describe('posting queries (the keys of the jobs-first answers)', () => {
  it('positives together per group, each excluding condition alone, deduplicated', () => {
    const p = plan({
      jobTitlePartialMatchNot: ['派遣'],
      filterGroups: [
        { jobTitle: { anyContains: ['営業'] } },
        { jobTitle: { anyContains: ['営業'] }, prefectureId: { any: [13] } },
        { jobTitle: { anyContains: ['設計'] }, jobMediaId: { any: [4] } },
      ],
    });
    const queries = postingQueries(p);
    expect(queries.map(({ conditions, excluding }) => [conditions.map((c) => c.value), excluding])).toEqual([
      [[['営業']], false],
      [[['派遣']], true],
      [[['設計'], [4]], false],
    ]);
    expect(queries[0]?.key).toBe(postingQueryKey(queries[0]?.conditions ?? []));
    expect(new Set(queries.map((q) => q.key)).size).toBe(3);
    expect(JSON.parse(queries[0]?.key ?? '')).toEqual([
      { field: 'postings.title.substring', kind: 'contains', op: 'anyContains', value: ['営業'] },
    ]);
  });

  it('company conditions are not posting queries; no group: the top level', () => {
    expect(postingQueries(plan({ prefectureIdOr: [13] }))).toEqual([]);
    const p = plan({ jobTitlePartialMatchNot: ['派遣'] });
    expect(postingQueries(p).map((q) => q.excluding)).toEqual([true]);
    expect(postingQueryKey([])).toBe('[]');
  });
});

describe('the nested limit overflow', () => {
  const p = plan({ jobTitlePartialMatchOr: ['営業'], jobTitlePartialMatchNot: ['派遣'] });
  const [positive, excluding] = postingQueries(p);
  const overflow: PostingOverflow = {
    companies: ['8000000000001', '8000000000002'],
    matches: new Map([
      [positive?.key ?? '', ['8000000000001']],
      [excluding?.key ?? '', ['8000000000002']],
    ]),
  };
  const either = (query: unknown, matched: string[]) => ({
    bool: {
      should: [
        {
          bool: {
            filter: [nested(query)],
            must_not: [{ terms: { corporateNumber: ['8000000000001', '8000000000002'] } }],
          },
        },
        { terms: { corporateNumber: matched } },
      ],
      minimum_should_match: 1,
    },
  });

  it('companies past the limit answer from the jobs index, the others from their nested postings', () => {
    expect(compileQuery(p, overflow)).toEqual({
      bool: {
        filter: [either({ bool: { filter: [title('営業')] } }, ['8000000000001'])],
        must_not: [either(title('派遣'), ['8000000000002'])],
      },
    });
  });

  it('no company past the limit: the nested query alone', () => {
    expect(compileQuery(p, { companies: [], matches: new Map() })).toEqual(compileQuery(p));
    expect(compileQuery(p)).toEqual({
      bool: { filter: [nested({ bool: { filter: [title('営業')] } })], must_not: [nested(title('派遣'))] },
    });
  });

  it('a posting query without its answer is a programming error, not a wrong result', () => {
    expect(() => compileQuery(p, { companies: ['8000000000001'], matches: new Map() })).toThrow(
      'posting query without a jobs-first answer',
    );
  });

  it('exclusions alone: must_not only; nothing: match_all', () => {
    expect(compileConditions(plan({ prefectureIdNot: [13] }).conditions)).toEqual({
      bool: { must_not: [{ terms: { prefectureId: [13] } }] },
    });
    expect(compileConditions([])).toEqual({ match_all: {} });
  });
});

describe('the search request', () => {
  it('carries the engine timeout and the task cancellation', () => {
    const request = compileSearch(corporateSearch, plan({}), 'p-');
    expect(request).toMatchObject({ timeout: '5s', cancel_after_time_interval: '8s' });
  });

  it('fields: the records fetched without the snippets; snippets alone fetch no record', () => {
    const withTitle = parseSearchRequest(jobSearch, {
      fields: ['title', 'descriptionSnippets'],
      jobDescriptionPartialMatchOr: ['設計'],
    });
    const both = compileSearch(jobSearch, withTitle, 'p-').body as Record<string, unknown>;
    expect(both.docvalue_fields).toEqual([
      'compactRecord',
      'corporateName',
      { field: 'updatedAt', format: 'epoch_millis' },
    ]);
    expect(both.highlight).toBeDefined();
    const onlySnippets = parseSearchRequest(jobSearch, {
      fields: ['descriptionSnippets'],
      jobDescriptionPartialMatchOr: ['設計'],
    });
    const body = compileSearch(jobSearch, onlySnippets, 'p-').body as Record<string, unknown>;
    expect(body).toMatchObject({ _source: false, stored_fields: ['_none_'] });
    expect(body.docvalue_fields).toBeUndefined();
    expect(body.highlight).toBeDefined();
    const noSnippets = parseSearchRequest(jobSearch, {
      fields: ['title'],
      jobDescriptionPartialMatchOr: ['設計'],
    });
    expect(
      (compileSearch(jobSearch, noSnippets, 'p-').body as Record<string, unknown>).highlight,
    ).toBeUndefined();
  });

  it('snippets without a positive detail-text condition: the opening doc values, no highlight', () => {
    const bodyOf = (request: Record<string, unknown>) =>
      compileSearch(jobSearch, parseSearchRequest(jobSearch, request), 'p-').body as Record<string, unknown>;
    for (const request of [
      {},
      { jobDescriptionPartialMatchNot: ['派遣'] },
      { fields: ['title', 'descriptionSnippets'] },
    ]) {
      const body = bodyOf(request);
      expect(body.highlight, JSON.stringify(request)).toBeUndefined();
      expect(body.docvalue_fields).toEqual([
        'compactRecord',
        'corporateName',
        { field: 'updatedAt', format: 'epoch_millis' },
        'descriptionOpening',
      ]);
    }
    // the snippets alone: the opening, no record
    const alone = bodyOf({ fields: ['descriptionSnippets'] });
    expect(alone).toMatchObject({
      _source: false,
      stored_fields: ['_none_'],
      docvalue_fields: ['descriptionOpening'],
    });
    expect(alone.highlight).toBeUndefined();
    // no snippets asked: no opening either
    expect(bodyOf({ fields: ['title'] }).docvalue_fields).not.toContain('descriptionOpening');
    // a detail-text condition: the highlighter as before, no opening
    const highlighted = bodyOf({ jobDescriptionPartialMatchOr: ['設計'] });
    expect(highlighted.highlight).toBeDefined();
    expect(highlighted.docvalue_fields).not.toContain('descriptionOpening');
  });

  it('facets become aggregations', () => {
    const withFacets = compileSearch(corporateSearch, plan({ facets: ['prefectureId'] }), 'p-');
    expect(Object.keys((withFacets.body as { aggs?: object }).aggs ?? {})).not.toEqual([]);
    expect((compileSearch(corporateSearch, plan({}), 'p-').body as { aggs?: object }).aggs).toBeUndefined();
  });

  it('a sort field missing from the catalogue is a programming error naming it', () => {
    expect(() => compileSort(corporateSearch.sort, { field: 'nope', order: 'asc' })).toThrow(
      'sort field nope is not in the catalogue',
    );
  });
});
