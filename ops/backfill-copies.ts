/**
 * Backfill of the compact record copies (`compactRecord`, src/search/records.ts) for
 * documents written before the field existed. Searches answer such documents from `_source`,
 * correctly but with a second engine request for each page that holds one; this gives every
 * one of them its copy, so an upgraded deployment need not wait for each record to be sent
 * again. The same goes for copies in an older format (mapping version 1's base64, carried
 * over by a reindex, or written before a record field was added): searches parse those, and
 * this rewrites them as the current JSON text, which searches splice without parsing. A
 * posting written before the opening excerpt of its snippets (`descriptionOpening`,
 * src/search/opening.ts) gets it in the same pass: searches without a detail-text condition
 * otherwise ask the highlighter again for each page that holds one.
 *
 *   await backfillCopies(client, prefix)
 *   // { jobs: { written: 18200, changed: 3 }, corporates: { written: 1990, changed: 1 } }
 *
 * Each copy is written only while the document is still the one it was made from
 * (`if_seq_no`): a document written meanwhile got its copy from its writer, or (a company
 * rebuilt meanwhile) is picked up by the next run; both are counted as `changed`. A posting
 * takes a doc merge (its `_source` is whole). A company is written through its rebuild
 * (./rebuild.ts, `copies`): a doc merge of the company alone would re-index it from a
 * `_source` without the nested postings' detail text.
 *
 * Then the name and evidence keys (./name-keys.ts): every company whose stored keys differ from what the
 * fold (src/names/keys.ts) gives now gets them, the same way: companies written before the
 * fields, and all of them after the fold changed (match and suggest compare the keys of the
 * typed text, folded now, with these); and with them the match card (src/names/card.ts) of
 * those keys, to every company without one or with another. `keys` counts them.
 */
import { indexNames } from '../indexer/index-names.js';
import { evidenceKeyFields, nameKeyFields, prepareDerivedReadings } from '../indexer/name-keys.js';
import { rebuildCompanies } from '../indexer/rebuild.js';
import type { Doc } from '../indexer/transform.js';
import { compactRecordField, recordFieldNames } from '../src/catalogue/record-fields.js';
import { cardRecordFields, matchCardField, toMatchCard } from '../src/names/card.js';
import type { Engine } from '../src/opensearch/engine.js';
import { withRetry } from '../src/opensearch/retry.js';
import { descriptionOpening, openingField } from '../src/search/opening.js';
import { isCurrentCopy, toCompactJobRecord, toCompactRecord } from '../src/search/records.js';
import { type BulkOp, writeBulk } from './engine/bulk.js';
import { scan } from './engine/scan.js';

export interface BackfillCounts {
  /** Documents given their copy. */
  written: number;
  /** Documents written by someone else between the read and the copy's write (not written). */
  changed: number;
  /** Other failed writes (run again). */
  failed: number;
}

export interface BackfillResult {
  jobs: BackfillCounts;
  corporates: BackfillCounts;
  /** Companies given the name keys of the current fold. */
  keys: BackfillCounts;
}

/**
 * Documents whose copy is missing or not the current text: written before the field, by
 * mapping version 1 (base64, also what a reindex carried over) or before a record field was
 * added. The copy's format is not searchable, so every document is read and checked here.
 */
function lacksCurrentCopy(index: 'jobs' | 'corporates', hit: { source: Doc }): boolean {
  const copy = hit.source[compactRecordField];
  return typeof copy !== 'string' || !isCurrentCopy(index, copy);
}

/**
 * A posting written before the opening excerpt existed: no `descriptionOpening` at all in its
 * `_source` (null is written where the highlighter answers, and is not filled again).
 */
function lacksOpening(hit: { source: Doc }): boolean {
  return !(openingField in hit.source);
}

/** What a posting lacks: its copy, its opening excerpt, or both. */
function jobBackfill(hit: { source: Doc }): Doc {
  return {
    ...(lacksCurrentCopy('jobs', hit) ? { [compactRecordField]: toCompactJobRecord(hit.source) } : {}),
    ...(lacksOpening(hit)
      ? { [openingField]: descriptionOpening(hit.source.description as string | null) ?? null }
      : {}),
  };
}

interface BackfillOptions {
  pageSize?: number;
  now?: Date;
  onPage?: (index: 'jobs' | 'corporates' | 'keys', done: number) => void;
}

/** What the three passes share: where they read and write, and the counts they add to. */
interface BackfillPass {
  client: Engine;
  prefix: string;
  names: ReturnType<typeof indexNames>;
  pageSize: number;
  options: BackfillOptions;
  result: BackfillResult;
}

export async function backfillCopies(
  client: Engine,
  prefix: string,
  options: BackfillOptions = {},
): Promise<BackfillResult> {
  const names = indexNames(prefix);
  const pass: BackfillPass = {
    client,
    prefix,
    names,
    pageSize: options.pageSize ?? 1000,
    options,
    result: {
      jobs: { written: 0, changed: 0, failed: 0 },
      corporates: { written: 0, changed: 0, failed: 0 },
      keys: { written: 0, changed: 0, failed: 0 },
    },
  };
  await withRetry(() => client.indices.refresh({ index: `${names.jobs},${names.corporates}` }));
  await backfillJobCopies(pass);
  await backfillCompanyCopies(pass);
  if (pass.result.corporates.written > 0)
    await withRetry(() => client.indices.refresh({ index: names.corporates }));
  await backfillNameKeys(pass);
  return pass.result;
}

/**
 * Pass 1: each posting whose copy is missing or stale, or which has no opening excerpt, gets
 * them, if unchanged since read.
 */
async function backfillJobCopies({ client, names, pageSize, options, result }: BackfillPass): Promise<void> {
  const jobPages = scan<Doc>(client, {
    index: names.jobs,
    query: { match_all: {} },
    sort: [{ id: 'asc' }],
    source: [...recordFieldNames.jobs, compactRecordField, 'description', openingField],
    seqNoPrimaryTerm: true,
    pageSize,
  });
  for await (const page of jobPages) {
    const hits = page.filter((hit) => lacksCurrentCopy('jobs', hit) || lacksOpening(hit));
    if (hits.length === 0) continue;
    const ops: BulkOp<string>[] = hits.map((hit) => ({
      action: 'update',
      index: names.jobs,
      id: hit.id,
      ref: hit.id,
      body: { doc: jobBackfill(hit) },
      ifUnchanged: { seqNo: hit.seqNo ?? 0, primaryTerm: hit.primaryTerm ?? 0 },
    }));
    count(result.jobs, ops.length, await writeBulk(client, ops));
    options.onPage?.('jobs', result.jobs.written);
  }
}

/** Pass 2: each company whose copy is missing or stale is rebuilt with its new copy. */
async function backfillCompanyCopies(pass: BackfillPass): Promise<void> {
  const { client, names, pageSize } = pass;
  const companyPages = scan<Doc>(client, {
    index: names.corporates,
    query: { match_all: {} },
    sort: [{ corporateNumber: 'asc' }],
    source: [...recordFieldNames.corporates, compactRecordField],
    seqNoPrimaryTerm: true,
    // a rebuild reads each company's postings: pages of the rebuild's own chunk size
    pageSize: Math.min(pageSize, 200),
  });
  for await (const page of companyPages) {
    const hits = page.filter((hit) => lacksCurrentCopy('corporates', hit));
    if (hits.length === 0) continue;
    const copies = new Map(
      hits.map((hit) => [
        hit.id,
        { copy: toCompactRecord(hit.source), seqNo: hit.seqNo ?? 0, primaryTerm: hit.primaryTerm ?? 0 },
      ]),
    );
    await rebuildAndCount(pass, copies, 'corporates');
  }
}

/**
 * Pass 3: the name keys compared with those the pipeline writes, derived readings included,
 * and the match card (src/names/card.ts) with the card of those keys.
 */
async function backfillNameKeys(pass: BackfillPass): Promise<void> {
  const { client, names, pageSize } = pass;
  await prepareDerivedReadings();
  const keyFields = [...Object.keys(nameKeyFields('', null)), ...Object.keys(evidenceKeyFields(null, null))];
  const keyPages = scan<Doc>(client, {
    index: names.corporates,
    query: { match_all: {} },
    sort: [{ corporateNumber: 'asc' }],
    source: [...cardRecordFields, ...keyFields, matchCardField, 'aggregates.postingCount'],
    seqNoPrimaryTerm: true,
    pageSize: Math.min(pageSize, 200),
  });
  for await (const hits of keyPages) {
    const stale = new Map<string, { fields: Doc; seqNo: number; primaryTerm: number }>();
    for (const hit of hits) {
      const fresh = {
        ...nameKeyFields(String(hit.source.name ?? ''), hit.source.furigana as string | null),
        ...evidenceKeyFields(hit.source.phoneNumber as string | null, hit.source.websiteUrl as string | null),
      };
      const card = toMatchCard({ ...hit.source, ...fresh });
      const differs =
        hit.source[matchCardField] !== card ||
        Object.entries(fresh).some(([field, value]) => (hit.source[field] ?? null) !== value);
      if (differs)
        stale.set(hit.id, {
          fields: { ...fresh, [matchCardField]: card },
          seqNo: hit.seqNo ?? 0,
          primaryTerm: hit.primaryTerm ?? 0,
        });
    }
    if (stale.size === 0) continue;
    // a company without postings takes a doc merge: its `_source` is whole (only the nested
    // postings' detail text is left out of it); one with postings goes through its rebuild
    const postingsOf = (id: string) =>
      Number((hits.find((hit) => hit.id === id)?.source.aggregates as Doc | undefined)?.postingCount ?? 0);
    const merged = [...stale].filter(([id]) => postingsOf(id) === 0);
    for (const [id] of merged) stale.delete(id);
    if (merged.length > 0) await mergeAndCount(pass, merged);
    if (stale.size > 0) await rebuildAndCount(pass, stale, 'keys');
  }
}

/**
 * Writes the keys and card of companies without postings by a doc merge, each only while it
 * is still the document read (`if_seq_no`). Their `updatedAt` stays: neither is in the
 * record, so the change feed has nothing to list (a rebuild moves it, as it always does).
 */
async function mergeAndCount(
  { client, names, options, result }: BackfillPass,
  companies: Array<[string, { fields: Doc; seqNo: number; primaryTerm: number }]>,
): Promise<void> {
  const ops: BulkOp<string>[] = companies.map(([id, { fields, seqNo, primaryTerm }]) => ({
    action: 'update',
    index: names.corporates,
    id,
    ref: id,
    body: { doc: fields },
    ifUnchanged: { seqNo, primaryTerm },
  }));
  count(result.keys, ops.length, await writeBulk(client, ops));
  options.onPage?.('keys', result.keys.written);
}

/**
 * Rebuilds the given companies with what the pass brings them and counts the company writes;
 * the fan-out's posting updates are not what the pass writes, so their failures count apart.
 */
async function rebuildAndCount(
  { client, prefix, names, options, result }: BackfillPass,
  companies: ReadonlyMap<string, { copy?: string; fields?: Doc; seqNo: number; primaryTerm: number }>,
  counted: 'corporates' | 'keys',
): Promise<void> {
  const rebuilt = await rebuildCompanies(client, prefix, companies.keys(), {
    copies: companies,
    refresh: false,
    ...(options.now ? { now: options.now } : {}),
  });
  const companyFailures = rebuilt.failures.filter((failure) => failure.op.index === names.corporates);
  count(result[counted], rebuilt.rebuilt, companyFailures);
  result[counted].failed += rebuilt.failures.length - companyFailures.length;
  options.onPage?.(counted, result[counted].written);
}

function count(counts: BackfillCounts, sent: number, failures: { conflict?: boolean }[]): void {
  const changed = failures.filter((failure) => failure.conflict).length;
  counts.changed += changed;
  counts.failed += failures.length - changed;
  counts.written += sent - failures.length;
}
