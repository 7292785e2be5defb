/**
 * The question of docs/decisions/nested-postings.md: company search by detail text, two ways, on the same data.
 *  - nested: the project's way. The corporates document's nested postings carry the text of
 *    the last month; one query (what src/search compiles for `jobDescriptionPartialMatchOr`).
 *  - jobs-first: the text (and the other conditions on the same posting) is resolved on the
 *    `jobs` index first: a composite aggregation lists the matching companies, then the
 *    corporates index is asked for those corporate numbers (a `terms` query, at most
 *    index.max_terms_count = 65,536 of them).
 * Each case runs `runs` times one after another; both must find the same number of companies.
 */
import type { API } from '@opensearch-project/opensearch';
import { corporateSearch } from '../src/catalogue/searches.js';
import type { Engine } from '../src/opensearch/engine.js';
import { indexName } from '../src/opensearch/indices.js';
import { detailTextWindow } from '../src/search/compile-kinds.js';
import { compileSearch } from '../src/search/compile-search.js';
import { parseSearchRequest } from '../src/search/parse-request.js';
import { type LatencySummary, summarize } from './load.js';

interface StudyCase {
  name: string;
  text: string;
  /** Same-posting condition beside the text: employment type ids. */
  employmentTypeIds?: number[];
}

export interface StudyRow {
  name: string;
  companies: number;
  nestedMs: LatencySummary;
  jobsFirstMs: LatencySummary | null;
  jobsFirstNote?: string;
}

const cases: StudyCase[] = [
  { name: 'common word (賞与)', text: '賞与' },
  { name: 'medium word (コールセンター)', text: 'コールセンター' },
  { name: 'rare word (薬剤師)', text: '薬剤師' },
  {
    name: 'コールセンター + employment type 1 on the same posting',
    text: 'コールセンター',
    employmentTypeIds: [1],
  },
];

const maxTerms = 65_536;

async function timed<T>(work: () => Promise<T>): Promise<[T, number]> {
  const started = performance.now();
  const value = await work();
  return [value, performance.now() - started];
}

function nestedRequest(prefix: string, study: StudyCase): API.Search_Request {
  const body = {
    jobDescriptionPartialMatchOr: [study.text],
    ...(study.employmentTypeIds ? { jobEmploymentTypeIdOr: study.employmentTypeIds } : {}),
    limit: 25,
  };
  return compileSearch(corporateSearch, parseSearchRequest(corporateSearch, body), prefix);
}

type Query = NonNullable<NonNullable<API.Search_Request['body']>['query']>;

async function jobsFirst(client: Engine, prefix: string, study: StudyCase) {
  const filter: Query[] = [
    { range: { descriptionCollectedAt: { gte: detailTextWindow, time_zone: 'Asia/Tokyo' } } },
    { match_phrase: { description: study.text } },
  ];
  if (study.employmentTypeIds) filter.push({ terms: { employmentTypeId: study.employmentTypeIds } });
  const numbers: string[] = [];
  let after: Record<string, string> | undefined;
  for (;;) {
    const { body } = await client.search({
      index: indexName(prefix, 'jobs'),
      body: {
        size: 0,
        track_total_hits: false,
        query: { bool: { filter } },
        aggs: {
          companies: {
            composite: {
              size: 10_000,
              sources: [{ n: { terms: { field: 'corporateNumber' } } }],
              ...(after ? { after } : {}),
            },
          },
        },
      },
    });
    const agg = (
      body.aggregations as {
        companies: { buckets: Array<{ key: { n: string } }>; after_key?: Record<string, string> };
      }
    ).companies;
    for (const bucket of agg.buckets) numbers.push(bucket.key.n);
    if (agg.buckets.length < 10_000 || !agg.after_key) break;
    after = agg.after_key;
  }
  if (numbers.length > maxTerms) return { total: numbers.length, overLimit: true };
  const request = compileSearch(corporateSearch, parseSearchRequest(corporateSearch, { limit: 25 }), prefix);
  const { body } = await client.search({
    ...request,
    body: { ...request.body, query: { bool: { filter: [{ terms: { corporateNumber: numbers } }] } } },
  });
  const total = body.hits.total;
  return { total: typeof total === 'number' ? total : (total?.value ?? 0), overLimit: false };
}

export async function studyDetailText(client: Engine, prefix: string, runs: number): Promise<StudyRow[]> {
  const rows: StudyRow[] = [];
  for (const study of cases) {
    const nested: number[] = [];
    const first: number[] = [];
    let nestedTotal = 0;
    let firstTotal = 0;
    let overLimit = false;
    // one untimed round each to warm caches, then alternate so both see the same machine state
    for (let run = -1; run < runs; run++) {
      const [nestedResult, nestedMs] = await timed(() => client.search(nestedRequest(prefix, study)));
      const [firstResult, firstMs] = await timed(() => jobsFirst(client, prefix, study));
      if (run < 0) continue;
      nested.push(nestedMs);
      first.push(firstMs);
      const total = nestedResult.body.hits.total;
      nestedTotal = typeof total === 'number' ? total : (total?.value ?? 0);
      firstTotal = firstResult.total;
      overLimit = firstResult.overLimit;
    }
    if (!overLimit && nestedTotal !== firstTotal)
      throw new Error(`${study.name}: nested found ${nestedTotal} companies, jobs-first ${firstTotal}`);
    rows.push({
      name: study.name,
      companies: nestedTotal,
      nestedMs: summarize(nested),
      jobsFirstMs: overLimit ? null : summarize(first),
      ...(overLimit ? { jobsFirstNote: `${firstTotal} companies: past the terms limit` } : {}),
    });
  }
  return rows;
}
