/**
 * What building a search answer from the record copies costs the API, the way it was built
 * before and the way it is now (docs/decisions/record-copies.md): for each
 * query of the mix, the engine's own answer (fetched once, from the bench indices) turned into
 * the API's response text both ways, timed in this process (CPU time):
 *
 *   before: base64 copy -> JSON.parse -> record object (pick) -> JSON.stringify -> UTF-8
 *   after:  base64 copy -> the record's bytes -> spliced into the response's bytes (byte text)
 *
 * The two texts are compared first: a difference stops the bench. And the engine's side of
 * the alternative, the text in a keyword field (`measureCopyFetch`).
 */
import { scan } from '../ops/engine/scan.js';
import { compactRecordField } from '../src/catalogue/record-fields.js';
import type { SearchCatalogue } from '../src/catalogue/searches.js';
import { corporateSearch, jobSearch } from '../src/catalogue/searches.js';
import type { Engine } from '../src/opensearch/engine.js';
import { indexName } from '../src/opensearch/indices.js';
import { indexDefinitions } from '../src/opensearch/mappings.js';
import { compileSearch } from '../src/search/compile-search.js';
import type { EngineHit } from '../src/search/paging/pit-search.js';
import { parseSearchRequest } from '../src/search/parse-request.js';
import type { SearchPlan } from '../src/search/plan.js';
import { answerBytes, type ByteText } from '../src/search/record-text.js';
import {
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
  /** The response's length in bytes (UTF-8). */
  responseBytes: number;
  /** CPU microseconds per search, median of 5 rounds. */
  beforeUs: number;
  afterUs: number;
}

/** The answer's bytes the way the API wrote them before: records as objects, JSON.stringify, UTF-8. */
function before(search: SearchCatalogue, plan: SearchPlan, hits: EngineHit[], total: number | null): Buffer {
  const toRecord = search === corporateSearch ? corporateRecordOf : jobRecordOf;
  const text = JSON.stringify({
    totalResults: total,
    results: hits.map((hit) => selectFields(toRecord(hit), plan.fields)),
  });
  return Buffer.from(text, 'utf8');
}

/** The answer's bytes as runPlanBytes builds them (src/search/run-search.ts `shapeAnswer`). */
function after(search: SearchCatalogue, plan: SearchPlan, hits: EngineHit[], total: number | null): Buffer {
  const toText = search === corporateSearch ? corporateRecordTexts(plan.fields) : jobRecordTexts(plan.fields);
  const text = `{"totalResults":${JSON.stringify(total)},"results":[${hits.map(toText).join(',')}]}`;
  return answerBytes(text as ByteText);
}

/**
 * CPU microseconds per call (this process's user + system time, which other work on a shared
 * machine moves less than the wall clock): the median of 5 rounds of `calls` calls.
 */
function timeUs(fn: () => Buffer, calls: number): number {
  const rounds: number[] = [];
  for (let round = 0; round < 5; round += 1) {
    const start = process.cpuUsage();
    for (let i = 0; i < calls; i += 1) fn();
    const used = process.cpuUsage(start);
    rounds.push((used.user + used.system) / calls);
  }
  return rounds.sort((a, b) => a - b)[2] as number;
}

export async function measureRecordText(
  client: Engine,
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
    const bytes = after(search, plan, hits, total);
    if (!before(search, plan, hits, total).equals(bytes))
      throw new Error(`${query.name}: the spliced answer differs`);
    rows.push({
      name: query.name,
      hits: hits.length,
      responseBytes: bytes.length,
      beforeUs: timeUs(() => before(search, plan, hits, total), 200),
      afterUs: timeUs(() => after(search, plan, hits, total), 200),
    });
  }
  return rows;
}

export interface CopyFetchRow {
  name: string;
  /** Engine `took`, median of 15 runs after 3, request cache off: binary base64 copies / keyword text. */
  binaryTookMs: number;
  keywordTookMs: number;
}

/**
 * The engine's side of storing the copy as text: each query of the mix on two copies of the
 * bench indices built alike (bulk pages of 500, merged to one segment), one with the copies as
 * they are (base64 in a binary field), one with their text in a keyword field (not indexed,
 * doc values); both deleted afterwards.
 */
export async function measureCopyFetch(
  client: Engine,
  indexPrefix: string,
  mix: readonly MixQuery[],
): Promise<CopyFetchRow[]> {
  const binaryPrefix = `${indexPrefix}binarycopy-`;
  const textPrefix = `${indexPrefix}keywordcopy-`;
  // by name: the engine refuses wildcard deletes (action.destructive_requires_name)
  const copies = [binaryPrefix, textPrefix].flatMap((prefix) =>
    ['corporates', 'jobs'].map((name) => indexName(prefix, name)),
  );
  const drop = () => client.indices.delete({ index: copies.join(','), ignore_unavailable: true });
  await drop();
  try {
    for (const name of ['corporates', 'jobs'] as const) {
      await copyIndex(client, indexPrefix, binaryPrefix, name, false);
      await copyIndex(client, indexPrefix, textPrefix, name, true);
    }
    const rows: CopyFetchRow[] = [];
    for (const query of mix) {
      const search = query.path.includes('corporates') ? corporateSearch : jobSearch;
      const plan = parseSearchRequest(search, query.body);
      const took = async (prefix: string) =>
        medianTook(client, compileSearch(search, { ...plan, offset: 0 }, prefix));
      rows.push({
        name: query.name,
        binaryTookMs: await took(binaryPrefix),
        keywordTookMs: await took(textPrefix),
      });
    }
    return rows;
  } finally {
    await drop();
  }
}

async function medianTook(client: Engine, request: ReturnType<typeof compileSearch>): Promise<number> {
  const times: number[] = [];
  for (let run = 0; run < 18; run += 1) {
    const { body } = await client.search({ ...request, request_cache: false });
    if (run >= 3) times.push(body.took);
  }
  return times.sort((a, b) => a - b)[Math.floor(times.length / 2)] as number;
}

/** `<prefix><name>` copied into `<target><name>`; `keyword`: its copies as text in a keyword. */
async function copyIndex(
  client: Engine,
  prefix: string,
  targetPrefix: string,
  name: 'corporates' | 'jobs',
  keyword: boolean,
): Promise<void> {
  const def = indexDefinitions().find((candidate) => candidate.name === name);
  if (!def) throw new Error(`no mappings/${name}.json`);
  // 10,922 UTF-16 units: at most 32,766 bytes, the most a keyword's doc value may hold
  const textField = { type: 'keyword', index: false, doc_values: true, ignore_above: 10922 };
  const properties = { ...def.mappings.properties, ...(keyword ? { [compactRecordField]: textField } : {}) };
  const target = indexName(targetPrefix, name);
  await client.indices.create({
    index: target,
    body: {
      settings: { ...def.settings, number_of_replicas: 0 },
      mappings: { ...def.mappings, properties },
    } as never,
  });
  const sort = [{ [name === 'jobs' ? 'id' : 'corporateNumber']: 'asc' as const }];
  const pages = scan<Record<string, unknown>>(client, {
    index: indexName(prefix, name),
    query: { match_all: {} },
    sort,
    pageSize: 500,
  });
  for await (const page of pages) {
    const body = page.flatMap((hit) => {
      const copy = hit.source[compactRecordField];
      const written =
        keyword && typeof copy === 'string' ? Buffer.from(copy, 'base64').toString('utf8') : copy;
      return [{ index: { _index: target, _id: hit.id } }, { ...hit.source, [compactRecordField]: written }];
    });
    const { body: answer } = await client.bulk({ body }, { timeoutMs: 120_000 });
    if (answer.errors) throw new Error(`copying ${name}: a document was refused`);
  }
  await client.indices.refresh({ index: target });
  await client.indices.forcemerge({ index: target, max_num_segments: 1 }, { timeoutMs: 600_000 });
}
