/**
 * Company rebuild: recomputes a company's `aggregates`, nested `postings` and
 * `workLocationCount` from its postings in the `jobs` index, brings its posting history up to
 * date and counts its hiring activity from it (./hiring-activity.ts), then brings the
 * `corporate` copy on each posting up to date where it differs (the fan-out of a company
 * change). Idempotent: running it twice on one day writes the same values.
 *
 * Past the nested-object limit of the corporates index (`index.mapping.nested_objects.limit`,
 * 50,000 in mappings/corporates.json, read from the live index), `postings` keeps the most
 * recent postings by jobCreatedAt and `aggregates.postingsTruncated` is set: company search
 * then answers posting conditions for that company from the jobs index
 * (src/search/posting-overflow.ts). The aggregates and workLocationCount still cover all.
 */

import { type BulkFailure, type BulkOp, writeBulkChunked } from '../ops/engine/bulk.js';
import { scan } from '../ops/engine/scan.js';
import { canonicalJson } from '../src/canonical-json.js';
import { compactRecordField } from '../src/catalogue/record-fields.js';
import { getSources } from '../src/opensearch/documents.js';
import type { Engine } from '../src/opensearch/engine.js';
import { mappingFields, nestedObjectsLimit } from '../src/opensearch/mappings.js';
import { withRetry } from '../src/opensearch/retry.js';
import type { Membership } from '../src/saved-searches/membership.js';
import { watchedSearchCounts } from '../src/saved-searches/watch.js';
import {
  activityFields,
  countActivity,
  fromHistoryDocument,
  type HistoryEntry,
  historyId,
  japanDay,
  reconcileHistory,
  toHistoryDocument,
} from './hiring-activity.js';
import { type IndexNames, indexNames } from './index-names.js';
import { percolateCompanies, recordJobSightings, recordPercolated, writtenDocs } from './sightings.js';
import type { WorkLocationSource } from './source-types.js';
import { corporateEmbedFields, type Doc, isRecent, toCorporateEmbed } from './transform.js';
import { countWorkLocations } from './work-location.js';

/** What the corporates index allows, else what its mapping file says. */
async function liveNestedLimit(client: Engine, index: string): Promise<number> {
  const setting = 'index.mapping.nested_objects.limit';
  const { body } = await withRetry(() =>
    client.indices.getSettings({ index, name: setting, flat_settings: true, include_defaults: true }),
  );
  for (const entry of Object.values(body as Record<string, { settings?: Doc; defaults?: Doc }>)) {
    const value = Number(entry.settings?.[setting] ?? entry.defaults?.[setting]);
    if (Number.isInteger(value) && value > 0) return value;
  }
  return nestedObjectsLimit('corporates');
}
const postingFields = mappingFields('corporates', 'postings');

/** The fields of a jobs document the rebuild reads (./run-postings.ts keeps the same ones). */
export const postingSourceFields = [
  'id',
  'corporateNumber',
  'corporateName',
  'title',
  'mediaId',
  'employmentTypeId',
  'jobCategoryId',
  'jobSubCategoryId',
  'salaryMin',
  'salaryMax',
  'hiringPlanMin',
  'jobCreatedAt',
  'jobOpenedOn',
  'jobDeadlineOn',
  'adPlan',
  'contactEmail',
  'contactPhoneNumber',
  'hasDispatchLicense',
  'hasRecruitmentLicense',
  'workLocation',
  'description',
  'descriptionCollectedAt',
  'corporate',
];

export interface PostingSource extends Doc {
  id: string;
  corporateNumber: string;
  workLocation?: WorkLocationSource | null;
  corporate?: Doc | null;
}

export interface RebuildResult {
  rebuilt: number;
  /** Companies asked for that have no corporates document (nothing to rebuild). */
  missing: number;
  /** Postings whose `corporate` copy was rewritten. */
  fannedOut: number;
  failures: BulkFailure<string>[];
}

/**
 * For the file importers, which rebuild the companies they wrote: a rebuild that failed stops
 * the run (its checkpoint does not move past the batch), rather than leaving a company whose
 * postings lost their detail text unnoticed.
 */
export function throwOnFailures(result: RebuildResult): RebuildResult {
  const [failure] = result.failures;
  if (failure)
    throw new Error(
      `OpenSearch did not accept a rebuild of ${result.failures.length} companies: ${failure.reason}`,
    );
  return result;
}

function maxBy(values: unknown[], toNumber: (value: string | number) => number): unknown {
  let best: unknown = null;
  let bestKey = Number.NEGATIVE_INFINITY;
  for (const value of values) {
    if (value === null || value === undefined) continue;
    const key = toNumber(value as string | number);
    if (Number.isFinite(key) && key > bestKey) {
      best = value;
      bestKey = key;
    }
  }
  return best;
}

const asTime = (value: string | number) => Date.parse(String(value));
const asNumber = (value: string | number) => Number(value);

export function computeAggregates(postings: PostingSource[], nestedLimit = Number.POSITIVE_INFINITY): Doc {
  const pick = (field: string) => postings.map((posting) => posting[field]);
  return {
    jobCreatedAtMax: maxBy(pick('jobCreatedAt'), asTime),
    jobOpenedOnMax: maxBy(pick('jobOpenedOn'), asTime),
    jobDeadlineOnMax: maxBy(pick('jobDeadlineOn'), asTime),
    jobSalaryMinMax: maxBy(pick('salaryMin'), asNumber),
    jobHiringPlanMinMax: maxBy(pick('hiringPlanMin'), asNumber),
    postingCount: postings.length,
    // search-only: posting conditions on this company are answered from the jobs index
    postingsTruncated: postings.length > nestedLimit,
  };
}

/** One nested posting of a corporates document; the text only while it is searchable. */
export function toNestedPosting(posting: PostingSource, now: Date): Doc {
  const recent = isRecent(posting.descriptionCollectedAt as string | null, now);
  const values: Doc = {
    ...posting,
    hasContactEmail: Boolean(posting.contactEmail),
    hasContactPhone: Boolean(posting.contactPhoneNumber),
    description: recent ? (posting.description ?? null) : null,
    descriptionCollectedAt: posting.descriptionCollectedAt ?? null,
  };
  return Object.fromEntries(postingFields.map((field) => [field, values[field] ?? null]));
}

function sameEmbed(a: Doc | null | undefined, b: Doc): boolean {
  if (!a) return false;
  return corporateEmbedFields.every((field) => canonicalJson(a[field]) === canonicalJson(b[field]));
}

/**
 * What the fan-out writes on a posting: the company copy, and when the company's name changed
 * (`corporateName` is a field of the Job record) the record's `updatedAt`, so a mirror syncing
 * by `updatedAtFrom` sees the rename. A change of the copy alone (a closure, a count) leaves the
 * Job record and its `updatedAt` as they were. Job searches read `corporateName` and
 * `updatedAt` from doc values (src/search/records.ts): the posting's record copy is not rewritten.
 */
function fanOutDoc(posting: PostingSource, embed: Doc, now: Date): Doc {
  const renamed = posting.corporateName !== embed.name;
  return {
    corporate: embed,
    corporateName: embed.name,
    ...(renamed ? { updatedAt: now.toISOString() } : {}),
  };
}

async function readPostings(
  client: Engine,
  names: IndexNames,
  corporateNumbers: string[],
): Promise<Map<string, PostingSource[]>> {
  const byCompany = new Map<string, PostingSource[]>(corporateNumbers.map((number) => [number, []]));
  const pages = scan<PostingSource>(client, {
    index: names.jobs,
    query: { terms: { corporateNumber: corporateNumbers } },
    sort: [{ corporateNumber: 'asc' }, { id: 'asc' }],
    source: postingSourceFields,
    pageSize: 5000,
  });
  for await (const hits of pages) {
    for (const { source: posting } of hits) byCompany.get(posting.corporateNumber)?.push(posting);
  }
  return byCompany;
}

/** One search answers a chunk's history when it holds fewer entries than this; else a scan. */
const historyPage = 10_000;

/**
 * The posting history of each company (./hiring-activity.ts), [] for one without any: one
 * search, or a scan when the chunk's companies have `historyPage` entries or more (a point in
 * time per chunk made the pipeline's ingestion 1.5 times as long: 47 s against 31 s for 50,000
 * postings). The caller refreshed the index, so a posting a rebuild opened a moment before is
 * seen and its close is not missed.
 */
async function readHistories(
  client: Engine,
  names: IndexNames,
  corporateNumbers: string[],
): Promise<Map<string, HistoryEntry[]>> {
  const byCompany = new Map<string, HistoryEntry[]>(corporateNumbers.map((number) => [number, []]));
  const query = { terms: { corporateNumber: corporateNumbers } };
  const add = (source: Doc) =>
    byCompany.get(String(source.corporateNumber))?.push(fromHistoryDocument(source));
  const { body } = await withRetry(() =>
    client.search({
      index: names.postingHistory,
      body: { query, size: historyPage, track_total_hits: false },
    }),
  );
  const hits = body.hits.hits as Array<{ _source?: Doc }>;
  if (hits.length < historyPage) {
    for (const hit of hits) if (hit._source) add(hit._source);
    return byCompany;
  }
  const pages = scan<Doc>(client, {
    index: names.postingHistory,
    query,
    sort: [{ id: 'asc' }],
    pageSize: 5000,
  });
  for await (const page of pages) for (const { source } of page) add(source);
  return byCompany;
}

/**
 * Companies rebuilt per round (read, written, percolated together). 1,000 rather than 200: the
 * percolation of a round costs about the same for 200 companies as for 1,000 (nearly every
 * watched search is a candidate for any round), so a rebuild of 5,000 companies with 10,000
 * watched searches took 27.5 s instead of 35.9 s (docs/bench.md, "Watched saved searches").
 */
export const rebuildChunkSize = 1000;

/** How `rebuildCompanies` runs. */
export interface RebuildOptions {
  now?: Date;
  refresh?: boolean;
  /**
   * Compact record copies to write with the rebuild, for companies without one (the
   * backfill, ../ops/backfill-copies.ts): in the same doc merge, so the company is never without
   * its nested detail text, and only while the document is still the one the copy was made
   * from (a changed one is a failure with `conflict: true`). `fields`: other fields written
   * the same way (the name keys, when the fold changed: ../ops/backfill-copies.ts).
   */
  copies?: ReadonlyMap<string, { copy?: string; fields?: Doc; seqNo: number; primaryTerm: number }>;
  /** Each company's postings as the scan of `jobs` would read them, known without it (./run-postings.ts). */
  postings?: ReadonlyMap<string, PostingSource[]>;
  /**
   * Where the watched saved searches' changes go (the worker's rebuilds): each rebuilt company,
   * and each of its postings, is percolated as it now is and its sightings recorded (./sightings.ts).
   */
  watch?: Membership;
  /**
   * false: the watch sees the companies only, not their postings (a public-records import:
   * the postings' company copy carries none of its fields, so no job search can change)
   */
  watchPostings?: boolean;
}

/** The membership for the companies' sightings and for their postings', each only when a search of its kind is watched. */
async function watchesOf(
  client: Engine,
  prefix: string,
  options: RebuildOptions,
): Promise<{ watch?: Membership; watchJobs?: Membership }> {
  if (!options.watch) return {};
  const watched = await watchedSearchCounts(client, prefix);
  return {
    ...(watched.corporates > 0 ? { watch: options.watch } : {}),
    ...(watched.jobs > 0 && options.watchPostings !== false ? { watchJobs: options.watch } : {}),
  };
}

/**
 * The round's companies as the writes will make them, percolated while they are written (the
 * percolator is given the documents, not read from the index); what it answers records the
 * sightings of those written, once the writes are answered.
 */
function percolatedBeside(
  client: Engine,
  prefix: string,
  watch: Membership,
  found: ReadonlyArray<{ id: string; source?: Doc }>,
  corporateOps: ReadonlyArray<BulkOp<string>>,
): (failures: ReadonlyArray<BulkFailure<string>>, now: Date) => Promise<void> {
  const sources = new Map(found.map((doc) => [doc.id, doc.source]));
  const intended = corporateOps.map((op) => ({ ...sources.get(op.id), ...(op.body as { doc: Doc }).doc }));
  const percolation = percolateCompanies(client, prefix, intended, watch.queryFields);
  // awaited after the writes; until then a failure is not an unhandled rejection
  percolation.catch(() => undefined);
  return async (failures, now) => {
    const matches = await percolation;
    const refused = new Set(failures.map((failure) => failure.op.id));
    const written = corporateOps.flatMap((op, i) => (refused.has(op.id) ? [] : [i]));
    await recordPercolated(
      watch,
      written.map((i) => intended[i] as Doc),
      written.map((i) => matches[i] ?? []),
      now,
    );
  };
}

/** Rebuilds the given companies, `rebuildChunkSize` at a time. */
export async function rebuildCompanies(
  client: Engine,
  prefix: string,
  corporateNumbers: Iterable<string>,
  options: RebuildOptions = {},
): Promise<RebuildResult> {
  const names = indexNames(prefix);
  const now = options.now ?? new Date();
  const today = japanDay(now);
  const result: RebuildResult = { rebuilt: 0, missing: 0, fannedOut: 0, failures: [] };
  const all = [...new Set(corporateNumbers)];
  if (all.length === 0) return result;
  if (options.refresh !== false)
    await withRetry(() => client.indices.refresh({ index: [names.jobs, names.postingHistory] }));
  const nestedLimit = await liveNestedLimit(client, names.corporates);
  const { watch, watchJobs } = await watchesOf(client, prefix, options);
  for (let start = 0; start < all.length; start += rebuildChunkSize) {
    const chunk = all.slice(start, start + rebuildChunkSize);
    // the round's three reads at once: none needs another's answer
    const [found, postingsByCompany, histories] = await Promise.all([
      getSources<Doc>(client, names.corporates, chunk, {
        excludes: ['postings', 'aggregates', 'hiringActivity', 'hiringActivityRecord', compactRecordField],
      }),
      options.postings ?? readPostings(client, names, chunk),
      readHistories(client, names, chunk),
    ]);
    const corporateOps: BulkOp<string>[] = [];
    const historyOps: BulkOp<string>[] = [];
    const jobOps: BulkOp<string>[] = [];
    for (const doc of found) {
      if (!doc.source) {
        result.missing++;
        continue;
      }
      const postings = postingsByCompany.get(doc.id) ?? [];
      const workLocationCount = countWorkLocations(postings.map((posting) => posting.workLocation));
      const newest = [...postings]
        .sort((a, b) => (asTime(String(b.jobCreatedAt)) || 0) - (asTime(String(a.jobCreatedAt)) || 0))
        .slice(0, nestedLimit);
      const backfill = options.copies?.get(doc.id);
      const history = reconcileHistory(histories.get(doc.id) ?? [], postings, today);
      for (const entry of history.changed)
        historyOps.push({
          action: 'index',
          index: names.postingHistory,
          id: historyId(doc.id, entry.postingId),
          ref: doc.id,
          body: toHistoryDocument(doc.id, entry),
        });
      corporateOps.push({
        action: 'update',
        index: names.corporates,
        id: doc.id,
        ref: doc.id,
        body: {
          doc: {
            aggregates: computeAggregates(postings, nestedLimit),
            postings: newest.map((posting) => toNestedPosting(posting, now)),
            workLocationCount,
            ...activityFields(countActivity(history.entries, today)),
            updatedAt: now.toISOString(),
            ...(backfill?.copy ? { [compactRecordField]: backfill.copy } : {}),
            ...(backfill?.fields ?? {}),
          },
        },
        ...(backfill ? { ifUnchanged: { seqNo: backfill.seqNo, primaryTerm: backfill.primaryTerm } } : {}),
      });
      const embed = toCorporateEmbed({ ...doc.source, workLocationCount });
      for (const posting of postings) {
        if (sameEmbed(posting.corporate, embed) && posting.corporateName === embed.name) continue;
        jobOps.push({
          action: 'update',
          index: names.jobs,
          id: posting.id,
          ref: doc.id,
          body: { doc: fanOutDoc(posting, embed, now) },
        });
      }
    }
    const sightings = watch ? percolatedBeside(client, prefix, watch, found, corporateOps) : undefined;
    // the history first: a company's counts never run ahead of the history they were made from
    result.failures.push(...(await writeBulkChunked(client, historyOps)));
    const corporateFailures = await writeBulkChunked(client, corporateOps);
    result.failures.push(...corporateFailures);
    const jobFailures = await writeBulkChunked(client, jobOps);
    result.failures.push(...jobFailures);
    if (watchJobs)
      await recordJobSightings(client, prefix, watchJobs, chunk, writtenDocs(jobOps, jobFailures), now);
    await sightings?.(corporateFailures, now);
    result.rebuilt += corporateOps.length;
    result.fannedOut += jobOps.length;
  }
  return result;
}
