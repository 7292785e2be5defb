/**
 * One worked example per filter kind: request -> OpenSearch DSL, as inline snapshots. The
 * integration tests (test/search/search-*.test.ts) show the same queries doing the right thing on
 * the real engine.
 */
import { describe, expect, it } from 'vitest';
import { corporateSearch, jobSearch, type SearchCatalogue } from '../../src/catalogue/searches.js';
import { compileQuery } from '../../src/search/compile-query.js';
import { parseSearchRequest } from '../../src/search/parse-request.js';

function queryOf(search: SearchCatalogue, body: Record<string, unknown>) {
  return compileQuery(parseSearchRequest(search, body));
}

describe('one compiler per kind', () => {
  it('ids: terms, Not under must_not', () => {
    expect(
      queryOf(corporateSearch, { prefectureIdOr: [13, 14], industryCategoryIdNot: [3] }),
    ).toMatchInlineSnapshot(`
      {
        "bool": {
          "filter": [
            {
              "terms": {
                "prefectureId": [
                  13,
                  14,
                ],
              },
            },
          ],
          "must_not": [
            {
              "terms": {
                "industryCategoryId": [
                  3,
                ],
              },
            },
          ],
        },
      }
    `);
  });

  it('exact: terms on the keyword field (enums, codes, names)', () => {
    expect(
      queryOf(corporateSearch, { corporateTypeOr: ['kabushiki_gaisha'], marketCodeNot: ['tse_growth'] }),
    ).toMatchInlineSnapshot(`
      {
        "bool": {
          "filter": [
            {
              "terms": {
                "corporateType": [
                  "kabushiki_gaisha",
                ],
              },
            },
          ],
          "must_not": [
            {
              "terms": {
                "markets.code": [
                  "tse_growth",
                ],
              },
            },
          ],
        },
      }
    `);
  });

  it('contains: match_phrase on the 1-2 gram sub-field, the text as written (the analyzer folds it)', () => {
    expect(
      queryOf(corporateSearch, {
        corporateNamePartialMatchOr: ['ＡＢＣ', '商事'],
        cityNamePartialMatchNot: ['港'],
      }),
    ).toMatchInlineSnapshot(`
      {
        "bool": {
          "filter": [
            {
              "bool": {
                "minimum_should_match": 1,
                "should": [
                  {
                    "match_phrase": {
                      "name.substring": "ＡＢＣ",
                    },
                  },
                  {
                    "match_phrase": {
                      "name.substring": "商事",
                    },
                  },
                ],
              },
            },
          ],
          "must_not": [
            {
              "match_phrase": {
                "cityName.substring": "港",
              },
            },
          ],
        },
      }
    `);
  });

  it('contains with And (summary)', () => {
    expect(queryOf(corporateSearch, { summaryPartialMatchAnd: ['物流', 'ＩＴ'] })).toMatchInlineSnapshot(`
      {
        "bool": {
          "filter": [
            {
              "bool": {
                "filter": [
                  {
                    "match_phrase": {
                      "summary": "物流",
                    },
                  },
                  {
                    "match_phrase": {
                      "summary": "ＩＴ",
                    },
                  },
                ],
              },
            },
          ],
        },
      }
    `);
  });

  it('detailText: the one-month window is part of the condition', () => {
    expect(
      queryOf(jobSearch, { jobDescriptionPartialMatchOr: ['Java'], jobDescriptionPartialMatchNot: ['派遣'] }),
    ).toMatchInlineSnapshot(`
      {
        "bool": {
          "filter": [
            {
              "bool": {
                "filter": [
                  {
                    "range": {
                      "descriptionCollectedAt": {
                        "gte": "now-1M/d",
                        "time_zone": "Asia/Tokyo",
                      },
                    },
                  },
                  {
                    "match_phrase": {
                      "description": "Java",
                    },
                  },
                ],
              },
            },
          ],
          "must_not": [
            {
              "bool": {
                "filter": [
                  {
                    "range": {
                      "descriptionCollectedAt": {
                        "gte": "now-1M/d",
                        "time_zone": "Asia/Tokyo",
                      },
                    },
                  },
                  {
                    "match_phrase": {
                      "description": "派遣",
                    },
                  },
                ],
              },
            },
          ],
        },
      }
    `);
  });

  it('range: inclusive numeric bounds; at-least is a lower bound', () => {
    expect(
      queryOf(jobSearch, { salaryMin: 3_000_000, salaryMax: 6_000_000, hiringPlanMinAtLeast: 2 }),
    ).toMatchInlineSnapshot(`
      {
        "bool": {
          "filter": [
            {
              "range": {
                "salaryMin": {
                  "gte": 3000000,
                },
              },
            },
            {
              "range": {
                "salaryMin": {
                  "lte": 6000000,
                },
              },
            },
            {
              "range": {
                "hiringPlanMin": {
                  "gte": 2,
                },
              },
            },
          ],
        },
      }
    `);
  });

  it('dateRange: whole Japanese days, inclusive', () => {
    expect(
      queryOf(corporateSearch, { foundedAtFrom: '2000-01-01', foundedAtTo: '2009-12-31' }),
    ).toMatchInlineSnapshot(`
      {
        "bool": {
          "filter": [
            {
              "range": {
                "foundedAt": {
                  "gte": "2000-01-01||/d",
                  "time_zone": "Asia/Tokyo",
                },
              },
            },
            {
              "range": {
                "foundedAt": {
                  "lte": "2009-12-31||/d",
                  "time_zone": "Asia/Tokyo",
                },
              },
            },
          ],
        },
      }
    `);
  });

  it('presence: exists / not exists', () => {
    expect(queryOf(corporateSearch, { hasCorporatePhone: true, hasFax: false })).toMatchInlineSnapshot(`
      {
        "bool": {
          "filter": [
            {
              "exists": {
                "field": "phoneNumber",
              },
            },
            {
              "bool": {
                "must_not": [
                  {
                    "exists": {
                      "field": "fax",
                    },
                  },
                ],
              },
            },
          ],
        },
      }
    `);
  });

  it('flag: true / not true', () => {
    expect(
      queryOf(corporateSearch, { hasDispatchLicense: true, hasRecruitmentLicense: false }),
    ).toMatchInlineSnapshot(`
      {
        "bool": {
          "filter": [
            {
              "term": {
                "hasDispatchLicense": true,
              },
            },
            {
              "bool": {
                "must_not": [
                  {
                    "term": {
                      "hasRecruitmentLicense": true,
                    },
                  },
                ],
              },
            },
          ],
        },
      }
    `);
  });

  it('validOn: a day, or today (true) and its complement (false)', () => {
    expect(queryOf(corporateSearch, { invoiceRegisteredOn: '2024-04-01' })).toMatchInlineSnapshot(`
      {
        "bool": {
          "filter": [
            {
              "bool": {
                "filter": [
                  {
                    "range": {
                      "invoice.registeredOn": {
                        "lte": "2024-04-01||/d",
                        "time_zone": "Asia/Tokyo",
                      },
                    },
                  },
                ],
                "must_not": [
                  {
                    "range": {
                      "invoice.endedOn": {
                        "lte": "2024-04-01||/d",
                        "time_zone": "Asia/Tokyo",
                      },
                    },
                  },
                ],
              },
            },
          ],
        },
      }
    `);
    expect(queryOf(corporateSearch, { invoiceRegistered: false })).toMatchInlineSnapshot(`
      {
        "bool": {
          "filter": [
            {
              "bool": {
                "must_not": [
                  {
                    "bool": {
                      "filter": [
                        {
                          "range": {
                            "invoice.registeredOn": {
                              "lte": "now/d",
                              "time_zone": "Asia/Tokyo",
                            },
                          },
                        },
                      ],
                      "must_not": [
                        {
                          "range": {
                            "invoice.endedOn": {
                              "lte": "now/d",
                              "time_zone": "Asia/Tokyo",
                            },
                          },
                        },
                      ],
                    },
                  },
                ],
              },
            },
          ],
        },
      }
    `);
  });

  it('listed: true / false / null (no condition)', () => {
    expect(queryOf(corporateSearch, { isListed: true })).toMatchInlineSnapshot(`
      {
        "bool": {
          "filter": [
            {
              "exists": {
                "field": "markets.code",
              },
            },
          ],
        },
      }
    `);
    expect(queryOf(corporateSearch, { isListed: false })).toMatchInlineSnapshot(`
      {
        "bool": {
          "filter": [
            {
              "bool": {
                "must_not": [
                  {
                    "exists": {
                      "field": "markets.code",
                    },
                  },
                ],
              },
            },
          ],
        },
      }
    `);
    expect(queryOf(corporateSearch, { isListed: null })).toMatchInlineSnapshot(`
      {
        "match_all": {},
      }
    `);
  });
});

describe('assembly', () => {
  it('postings: positives in ONE nested query, each Not its own must_not nested', () => {
    expect(
      queryOf(corporateSearch, {
        jobMediaIdOr: [1],
        jobEmploymentTypeIdOr: [2],
        jobMediaIdNot: [9],
        jobDescriptionPartialMatchOr: ['営業'],
      }),
    ).toMatchInlineSnapshot(`
      {
        "bool": {
          "filter": [
            {
              "nested": {
                "path": "postings",
                "query": {
                  "bool": {
                    "filter": [
                      {
                        "terms": {
                          "postings.mediaId": [
                            1,
                          ],
                        },
                      },
                      {
                        "terms": {
                          "postings.employmentTypeId": [
                            2,
                          ],
                        },
                      },
                      {
                        "bool": {
                          "filter": [
                            {
                              "range": {
                                "postings.descriptionCollectedAt": {
                                  "gte": "now-1M/d",
                                  "time_zone": "Asia/Tokyo",
                                },
                              },
                            },
                            {
                              "match_phrase": {
                                "postings.description": "営業",
                              },
                            },
                          ],
                        },
                      },
                    ],
                  },
                },
                "score_mode": "none",
              },
            },
          ],
          "must_not": [
            {
              "nested": {
                "path": "postings",
                "query": {
                  "terms": {
                    "postings.mediaId": [
                      9,
                    ],
                  },
                },
                "score_mode": "none",
              },
            },
          ],
        },
      }
    `);
  });

  it('job search: the linked company on the corporate object, aliases resolved', () => {
    expect(
      queryOf(jobSearch, {
        fundingSeriesOr: ['seed'],
        filters: { prefectureId: { any: [13] }, employeeDiff6m: { min: 5 } },
      }),
    ).toMatchInlineSnapshot(`
      {
        "bool": {
          "filter": [
            {
              "terms": {
                "corporate.fundingSeries": [
                  "seed",
                ],
              },
            },
            {
              "terms": {
                "corporate.prefectureId": [
                  13,
                ],
              },
            },
            {
              "range": {
                "corporate.employeeDiff6mMin": {
                  "gte": 5,
                },
              },
            },
          ],
        },
      }
    `);
  });

  it('flat and nested forms compile to the same query', () => {
    expect(queryOf(corporateSearch, { filters: { prefectureId: { any: [13] }, hasFax: true } })).toEqual(
      queryOf(corporateSearch, { prefectureIdOr: [13], hasFax: true }),
    );
  });

  it('filterGroups: each group with the top-level conditions, at least one must match', () => {
    expect(
      queryOf(corporateSearch, {
        prefectureIdOr: [13],
        filterGroups: [{ jobTitle: { anyContains: ['営業'] } }, { jobMediaId: { any: [4] } }],
      }),
    ).toMatchInlineSnapshot(`
      {
        "bool": {
          "minimum_should_match": 1,
          "should": [
            {
              "bool": {
                "filter": [
                  {
                    "terms": {
                      "prefectureId": [
                        13,
                      ],
                    },
                  },
                  {
                    "nested": {
                      "path": "postings",
                      "query": {
                        "bool": {
                          "filter": [
                            {
                              "match_phrase": {
                                "postings.title.substring": "営業",
                              },
                            },
                          ],
                        },
                      },
                      "score_mode": "none",
                    },
                  },
                ],
              },
            },
            {
              "bool": {
                "filter": [
                  {
                    "terms": {
                      "prefectureId": [
                        13,
                      ],
                    },
                  },
                  {
                    "nested": {
                      "path": "postings",
                      "query": {
                        "bool": {
                          "filter": [
                            {
                              "terms": {
                                "postings.mediaId": [
                                  4,
                                ],
                              },
                            },
                          ],
                        },
                      },
                      "score_mode": "none",
                    },
                  },
                ],
              },
            },
          ],
        },
      }
    `);
  });

  it('no condition: match_all', () => {
    expect(queryOf(jobSearch, {})).toMatchInlineSnapshot(`
      {
        "match_all": {},
      }
    `);
  });
});
