/**
 * Where the company rebuild (./rebuild.ts) records which watched saved searches its companies,
 * and their postings, are in now: each record percolated as it now is against its kind's
 * watched queries (../src/saved-searches/watch.ts), the answers compared with the last ones
 * (../src/saved-searches/membership.ts), the differences appended to each search's changes.
 *
 * Postings are followed through their company: a posting written or deleted touches its
 * company, and a company change rewrites the company copy on its postings, so every change a
 * job search can see comes through a company's rebuild. Each rebuild percolates all the
 * company's postings (as the fan-out leaves them), which is also how a deleted one is found gone.
 *
 *   await recordSightings(client, prefix, watch, [companyDoc], now)
 *   await recordJobSightings(client, prefix, watch, ['1234567890123'], fannedOut, now)
 */
import type { BulkFailure, BulkOp } from '../ops/engine/bulk.js';
import { scan } from '../ops/engine/scan.js';
import type { OpenSearchClient } from '../src/opensearch/client.js';
import { type Membership, type Sighting, watchedValues } from '../src/saved-searches/membership.js';
import { percolate } from '../src/saved-searches/watch.js';
import { compactRecordField, toCorporateRecord, toJobRecord } from '../src/search/records.js';
import { indexNames } from './index-names.js';
import type { Doc } from './transform.js';

/** The partial documents of the update writes that were not refused, by document id. */
export function writtenDocs(
  ops: ReadonlyArray<BulkOp<string>>,
  failures: ReadonlyArray<BulkFailure<string>>,
) {
  const failed = new Set(failures.map((failure) => failure.op.id));
  return new Map(ops.filter((op) => !failed.has(op.id)).map((op) => [op.id, (op.body as { doc: Doc }).doc]));
}

/** Postings percolated per request (the percolator's answer names each one's slot). */
const postingsPerPercolation = 500;

/** The sightings of documents matched by the percolator, with their watched values. */
function sightingsOf(
  matches: ReadonlyArray<{ savedSearchId: string; watchFields: string[] }>,
  record: () => Doc,
): Sighting[] {
  let cached: Doc | undefined;
  return matches.map(({ savedSearchId, watchFields }) => {
    if (watchFields.length === 0) return { savedSearchId };
    cached ??= record();
    return { savedSearchId, values: watchedValues(cached, watchFields) };
  });
}

/** The companies as the rebuild wrote them: their company searches' changes recorded. */
export async function recordSightings(
  client: OpenSearchClient,
  prefix: string,
  watch: Membership,
  companies: Doc[],
  now: Date,
): Promise<void> {
  if (companies.length === 0) return;
  // only mapped fields go to the percolator; the binary copies are not needed to match
  const documents = companies.map(
    ({ compactRecord: _c, hiringActivityRecord: _h, matchCard: _m, ...doc }) => doc,
  );
  const matches = await percolate(client, prefix, documents);
  await watch.seen(
    companies.map((company, i) => ({
      corporateNumber: String(company.corporateNumber),
      sightings: sightingsOf(matches[i] ?? [], () => toCorporateRecord(company)),
    })),
    now,
  );
}

/**
 * Every posting of the given companies, as the rebuild left it (`fannedOut`: the company copy
 * written on a posting by this rebuild, by posting id), percolated against the job searches;
 * the changes recorded company by company.
 */
export async function recordJobSightings(
  client: OpenSearchClient,
  prefix: string,
  watch: Membership,
  corporateNumbers: readonly string[],
  fannedOut: ReadonlyMap<string, Doc>,
  now: Date,
): Promise<void> {
  if (corporateNumbers.length === 0) return;
  const pages = scan<Doc>(client, {
    index: indexNames(prefix).jobs,
    query: { terms: { corporateNumber: [...corporateNumbers] } },
    sort: [{ corporateNumber: 'asc' }, { id: 'asc' }],
    source: { excludes: [compactRecordField] },
    pageSize: postingsPerPercolation,
  });
  const jobsOf = new Map<string, Array<{ jobId: string; sightings: Sighting[] }>>(
    corporateNumbers.map((number) => [number, []]),
  );
  for await (const hits of pages) {
    const documents = hits.map(({ id, source }) => ({ ...source, ...fannedOut.get(id) }));
    const matches = await percolate(client, prefix, documents, { kind: 'jobs' });
    documents.forEach((document, i) => {
      const company = String(document.corporateNumber);
      jobsOf.get(company)?.push({
        jobId: String(document.id),
        sightings: sightingsOf(matches[i] ?? [], () => toJobRecord(document)),
      });
    });
  }
  await watch.seenJobs(
    [...jobsOf].map(([corporateNumber, jobs]) => ({ corporateNumber, jobs })),
    now,
  );
}
