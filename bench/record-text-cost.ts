/**
 * What building a search answer from the record copies costs the API, before and after the
 * copies became JSON text (docs/decisions, "Responses built from stored text"):
 * for each query of the mix, the engine's own answer (fetched once, from the bench indices)
 * turned into the API's response text both ways, timed in this process:
 *
 *   before: base64 copy -> Buffer -> JSON.parse -> record object (pick) -> JSON.stringify
 *   after:  JSON text copy -> spliced into the response text (src/search/record-text.ts)
 *
 * The two texts are compared first: a difference stops the bench.
 */
import type { SearchCatalogue } from '../src/catalogue/searches.js';
import { corporateSearch, jobSearch } from '../src/catalogue/searches.js';
import type { OpenSearchClient } from '../src/opensearch/client.js';
import { compileSearch } from '../src/search/compile-search.js';
import type { EngineHit } from '../src/search/paging/pit-search.js';
import { parseSearchRequest } from '../src/search/parse-request.js';
import type { SearchPlan } from '../src/search/plan.js';
import {
  compactRecordField,
  corporateRecordOf,
  corporateRecordTexts,
  jobRecordOf,
  jobRecordTexts,
  selectFields,
} from '../src/search/records.js';
import type { MixQuery } from './query-mix.js';

export interface RecordTextRow {
  name: string;
  hits: number;
  /** The response's length in UTF-16 units. */
  responseChars: number;
  /** Microseconds per search, median of 5 rounds. */
  beforeUs: number;
  afterUs: number;
}

/** The answer's text the way the API wrote it before: records as objects, JSON.stringify. */
function before(search: SearchCatalogue, plan: SearchPlan, hits: EngineHit[], total: number | null): string {
  const toRecord = search === corporateSearch ? corporateRecordOf : jobRecordOf;
  return JSON.stringify({
    totalResults: total,
    results: hits.map((hit) => selectFields(toRecord(hit), plan.fields)),
  });
}

/** The answer's text as runPlanText builds it (src/search/run-search.ts). */
function after(search: SearchCatalogue, plan: SearchPlan, hits: EngineHit[], total: number | null): string {
  const toText = search === corporateSearch ? corporateRecordTexts(plan.fields) : jobRecordTexts(plan.fields);
  return `{"totalResults":${JSON.stringify(total)},"results":[${hits.map(toText).join(',')}]}`;
}

/** The same hits with their copies as mapping version 1 stored them: base64 of the JSON. */
function asBase64(hits: EngineHit[]): EngineHit[] {
  return hits.map((hit) => {
    const copy = hit.fields?.[compactRecordField]?.[0];
    if (typeof copy !== 'string') return hit;
    const encoded = Buffer.from(copy, 'utf8').toString('base64');
    return { ...hit, fields: { ...hit.fields, [compactRecordField]: [encoded] } };
  });
}

/** Microseconds per call: the median of 5 rounds of `calls` calls. */
function timeUs(fn: () => string, calls: number): number {
  const rounds: number[] = [];
  for (let round = 0; round < 5; round += 1) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < calls; i += 1) fn();
    rounds.push(Number(process.hrtime.bigint() - start) / 1000 / calls);
  }
  return rounds.sort((a, b) => a - b)[2] as number;
}

export async function measureRecordText(
  client: OpenSearchClient,
  indexPrefix: string,
  mix: readonly MixQuery[],
): Promise<RecordTextRow[]> {
  const rows: RecordTextRow[] = [];
  for (const query of mix) {
    const search = query.path.includes('corporates') ? corporateSearch : jobSearch;
    const plan = parseSearchRequest(search, query.body);
    // the first page's hits (a deep offset's page is fetched the same way, from a point in time)
    const compiled = compileSearch(search, { ...plan, offset: 0 }, indexPrefix);
    const { body } = await client.search(compiled);
    const hits = (body.hits?.hits ?? []) as EngineHit[];
    const total = plan.includeTotalResults ? 0 : null;
    const old = asBase64(hits);
    const text = after(search, plan, hits, total);
    if (before(search, plan, old, total) !== text)
      throw new Error(`${query.name}: the spliced answer differs`);
    rows.push({
      name: query.name,
      hits: hits.length,
      responseChars: text.length,
      beforeUs: timeUs(() => before(search, plan, old, total), 200),
      afterUs: timeUs(() => after(search, plan, hits, total), 200),
    });
  }
  return rows;
}
