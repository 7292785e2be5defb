/**
 * The fields a watched query reads and the records cut to them (src/saved-searches/query-fields.ts),
 * without an engine: what a compiled query names, as the percolated record holds it; what a cut
 * keeps, drops and keeps once. test/saved-searches/percolation-cut.test.ts checks on the engine
 * that cut records match as whole ones do.
 */
import { describe, expect, it } from 'vitest';
import { cutForPercolation, queryFieldsOf } from '../../src/saved-searches/query-fields.js';

describe('the fields a query reads', () => {
  it('names top-level fields, sub-fields and object fields by the record field that holds them', () => {
    const query = {
      bool: {
        filter: [
          { terms: { prefectureId: [13] } },
          { match_phrase: { 'name.substring': 'テスト' } },
          { range: { 'hiringActivity.openPostings': { gte: 1 } } },
          { multi_match: { query: 'x', fields: ['cityName^2'] } },
          { exists: { field: 'websiteHost' } },
        ],
        must_not: [{ term: { closed: true } }],
      },
    };
    expect(queryFieldsOf(query, 'corporates')).toEqual([
      'cityName',
      'closed',
      'hiringActivity',
      'name',
      'prefectureId',
      'websiteHost',
    ]);
  });

  it("names a nested field's item fields, or all of them when it names none", () => {
    const media = {
      nested: { path: 'postings', query: { terms: { 'postings.title.substring': ['営業'] } } },
    };
    expect(queryFieldsOf(media, 'corporates')).toEqual(['postings', 'postings.title']);
    const any = { nested: { path: 'postings', query: { match_all: {} } } };
    expect(queryFieldsOf(any, 'corporates')).toEqual(['postings', 'postings.*']);
  });

  it('leaves out strings that are no field, and gives every field to a query with a script', () => {
    expect(queryFieldsOf({ term: { prefectureName: '東京都' } }, 'corporates')).toEqual(['prefectureName']);
    expect(queryFieldsOf({ script: { script: { source: "doc['x'].value > 1" } } }, 'corporates')).toEqual([
      '*',
    ]);
    expect(queryFieldsOf({ term: { mediaId: 3 } }, 'jobs')).toEqual(['mediaId']);
  });
});

describe('a record cut to the fields', () => {
  const record = {
    corporateNumber: '1010001000001',
    name: '株式会社テスト',
    prefectureId: 13,
    hiringActivity: { openPostings: 2, media: [{ mediaId: 3 }] },
    postings: [
      { id: 'p1', title: '営業', mediaId: 3 },
      { id: 'p2', title: '事務', mediaId: 3 },
      { id: 'p3', title: '営業' },
    ],
  };

  it('keeps the fields named, objects whole, and nested items cut and once', () => {
    const fields = new Set(['prefectureId', 'hiringActivity', 'postings', 'postings.mediaId']);
    expect(cutForPercolation(record, fields)).toEqual({
      prefectureId: 13,
      hiringActivity: record.hiringActivity,
      postings: [{ mediaId: 3 }, {}],
    });
  });

  it('keeps nested items whole when a query names none of their fields, and the record whole for `*`', () => {
    expect(cutForPercolation(record, new Set(['postings', 'postings.*']))).toEqual({
      postings: record.postings,
    });
    expect(cutForPercolation(record, new Set(['*']))).toBe(record);
    expect(cutForPercolation(record, new Set())).toEqual({});
  });

  it('keeps the items of an object list that is not nested whole', () => {
    const listed = { markets: [{ code: 'tse_prime', name: 'プライム' }], prefectureId: 13 };
    const fields = new Set(queryFieldsOf({ terms: { 'markets.code': ['tse_prime'] } }, 'corporates'));
    expect(fields).toEqual(new Set(['markets']));
    expect(cutForPercolation(listed, fields)).toEqual({ markets: listed.markets });
  });
});
