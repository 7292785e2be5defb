/** The whole search request: sort, paging, totals, guards, highlighting (inline snapshots). */
import { describe, expect, it } from 'vitest';
import { corporateSearch, jobSearch } from '../../src/catalogue/searches.js';
import { compileSearch } from '../../src/search/compile-search.js';
import { compileSort } from '../../src/search/compile-sort.js';
import { parseSearchRequest } from '../../src/search/parse-request.js';

describe('compileSort', () => {
  it('sorts a company aggregate by its maximum, missing last, then the corporate number', () => {
    expect(
      compileSort(corporateSearch.sort, { field: 'jobSalaryMin', order: 'desc' }),
    ).toMatchInlineSnapshot(`
      [
        {
          "aggregates.jobSalaryMinMax": {
            "missing": "_last",
            "order": "desc",
          },
        },
        {
          "corporateNumber": {
            "order": "asc",
          },
        },
      ]
    `);
  });

  it('resolves the employeeDiff6m alias', () => {
    expect(compileSort(corporateSearch.sort, { field: 'employeeDiff6m', order: 'asc' })).toEqual(
      compileSort(corporateSearch.sort, { field: 'employeeDiff6mMin', order: 'asc' }),
    );
  });

  it('sorts job search by a linked-company field, then the job id', () => {
    expect(
      compileSort(jobSearch.sort, { field: 'corporateEmployeeCount', order: 'asc' }),
    ).toMatchInlineSnapshot(`
      [
        {
          "corporate.employeeCount": {
            "missing": "_last",
            "order": "asc",
          },
        },
        {
          "id": {
            "order": "asc",
          },
        },
      ]
    `);
  });
});

describe('compileSearch', () => {
  it('company search with defaults', () => {
    expect(
      compileSearch(corporateSearch, parseSearchRequest(corporateSearch, {}), 'p-'),
    ).toMatchInlineSnapshot(`
      {
        "allow_partial_search_results": false,
        "body": {
          "_source": false,
          "docvalue_fields": [
            "compactRecord",
            "workLocationCount",
            "hiringActivityRecord",
            "invoiceRecord",
            "subsidiesRecord",
            "procurementRecord",
            "certificationsRecord",
            "awardsRecord",
            "workplaceRecord",
            {
              "field": "updatedAt",
              "format": "epoch_millis",
            },
          ],
          "from": 0,
          "query": {
            "bool": {
              "must_not": [
                {
                  "term": {
                    "closed": true,
                  },
                },
              ],
            },
          },
          "size": 25,
          "sort": [
            {
              "name": {
                "missing": "_last",
                "order": "asc",
              },
            },
            {
              "corporateNumber": {
                "order": "asc",
              },
            },
          ],
          "stored_fields": [
            "_none_",
          ],
          "track_total_hits": true,
        },
        "cancel_after_time_interval": "8s",
        "index": "p-corporates",
        "timeout": "5s",
      }
    `);
  });

  it('job search without totals, highlighting the detail-text condition only', () => {
    const plan = parseSearchRequest(jobSearch, {
      jobDescriptionPartialMatchAnd: ['Ｊａｖａ', '設計'],
      jobTitlePartialMatchOr: ['エンジニア'],
      includeTotalResults: false,
      offset: 50,
      limit: 10,
    });
    expect(compileSearch(jobSearch, plan, 'p-')).toMatchInlineSnapshot(`
      {
        "allow_partial_search_results": false,
        "body": {
          "_source": false,
          "docvalue_fields": [
            "compactRecord",
            "corporateName",
            {
              "field": "updatedAt",
              "format": "epoch_millis",
            },
          ],
          "from": 50,
          "highlight": {
            "encoder": "html",
            "fields": {
              "description": {
                "fragment_size": 120,
                "highlight_query": {
                  "bool": {
                    "minimum_should_match": 1,
                    "should": [
                      {
                        "match_phrase": {
                          "description": "Ｊａｖａ",
                        },
                      },
                      {
                        "match_phrase": {
                          "description": "設計",
                        },
                      },
                    ],
                  },
                },
                "no_match_size": 160,
                "number_of_fragments": 5,
                "type": "unified",
              },
            },
            "post_tags": [
              "</mark>",
            ],
            "pre_tags": [
              "<mark>",
            ],
          },
          "query": {
            "bool": {
              "filter": [
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
                              "bool": {
                                "filter": [
                                  {
                                    "match_phrase": {
                                      "description": "Ｊａｖａ",
                                    },
                                  },
                                  {
                                    "match_phrase": {
                                      "description": "設計",
                                    },
                                  },
                                ],
                              },
                            },
                          ],
                        },
                      },
                      {
                        "match_phrase": {
                          "title.substring": "エンジニア",
                        },
                      },
                    ],
                  },
                },
              ],
              "must_not": [
                {
                  "term": {
                    "corporate.closed": true,
                  },
                },
              ],
            },
          },
          "size": 10,
          "sort": [
            {
              "jobCreatedAt": {
                "missing": "_last",
                "order": "desc",
              },
            },
            {
              "id": {
                "order": "asc",
              },
            },
          ],
          "stored_fields": [
            "_none_",
          ],
          "track_total_hits": false,
        },
        "cancel_after_time_interval": "8s",
        "index": "p-jobs",
        "timeout": "5s",
      }
    `);
  });
});
