/**
 * Where the company rebuild (./rebuild.ts) records which watched saved searches its companies,
 * and their postings, are in now: each record percolated as it now is against its kind's
 * watched queries (../src/saved-searches/watch.ts), the answers compared with the last ones
 * (../src/saved-searches/membership.ts), the differences appended to each search's changes.
 *
 * Postings are followed through their company: a posting written or deleted touches its
 * company, and a company change rewrites the company copy on its postings, so every change a
 * job search can see comes through a company's rebuild. The rebuild lists the company's
 * postings with their versions (`_seq_no`, and the day in Japan), percolates those whose
 * version is not the one last percolated (new, changed, given a new company copy, or not
 * percolated yet today), and finds a deleted one by its absence; so the cost follows the
 * postings that changed, plus each company's postings once a day.
 *
 *   await recordSightings(client, prefix, watch, [companyDoc], now)
 *   await recordJobSightings(client, prefix, watch, ['1234567890123'], fannedOut, now)
 */
import type { BulkFailure, BulkOp } from '../ops/engine/bulk.js';
import { scan } from '../ops/engine/scan.js';
import { compactRecordField } from '../src/catalogue/record-fields.js';
import { getSources } from '../src/opensearch/documents.js';
import type { Engine } from '../src/opensearch/engine.js';
import { type Membership, type Sighting, watchedValues } from '../src/saved-searches/membership.js';
import type { QueryFields } from '../src/saved-searches/query-fields.js';
import { percolate } from '../src/saved-searches/watch.js';
import { toCorporateRecord, toJobRecord } from '../src/search/records.js';
import { japanDay } from './hiring-activity.js';
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

/** Postings read and percolated per request (the percolator's answer names each one's slot). */
const postingsPerPercolation = 500;

/**
 * The sightings of documents matched by the percolator, with their watched values: computed
 * once per set of watched fields, and that one object handed to every search watching them (a
 * company is in hundreds of searches; the membership script sends and compares each distinct
 * values object once: ../src/saved-searches/membership.ts).
 */
function sightingsOf(
  matches: ReadonlyArray<{ savedSearchId: string; watchFields: string[] }>,
  record: () => Doc,
): Sighting[] {
  let cached: Doc | undefined;
  const byFields = new Map<string, Record<string, string>>();
  return matches.map(({ savedSearchId, watchFields }) => {
    if (watchFields.length === 0) return { savedSearchId };
    const key = watchFields.join('\n');
    let values = byFields.get(key);
    if (!values) {
      cached ??= record();
      values = watchedValues(cached, watchFields);
      byFields.set(key, values);
    }
    return { savedSearchId, values };
  });
}

/** The companies as the rebuild wrote them: their company searches' changes recorded. */
export async function recordSightings(
  client: Engine,
  prefix: string,
  watch: Membership,
  companies: Doc[],
  now: Date,
): Promise<void> {
  if (companies.length === 0) return;
  await recordPercolated(
    watch,
    companies,
    await percolateCompanies(client, prefix, companies, watch.queryFields),
    now,
  );
}

/** The watched company searches each company matches, in the companies' order. */
export async function percolateCompanies(
  client: Engine,
  prefix: string,
  companies: readonly Doc[],
  fields: QueryFields,
): Promise<Array<Array<{ savedSearchId: string; watchFields: string[] }>>> {
  if (companies.length === 0) return [];
  // only mapped fields go to the percolator; the binary copies are not needed to match
  const documents = companies.map(
    ({ compactRecord: _c, hiringActivityRecord: _h, matchCard: _m, ...doc }) => doc,
  );
  return percolate(client, prefix, documents, { fields });
}

/** The companies' sightings from their percolation (`percolateCompanies`), compared and recorded. */
export async function recordPercolated(
  watch: Membership,
  companies: readonly Doc[],
  matches: ReadonlyArray<ReadonlyArray<{ savedSearchId: string; watchFields: string[] }>>,
  now: Date,
): Promise<void> {
  if (companies.length === 0) return;
  await watch.seen(
    companies.map((company, i) => ({
      corporateNumber: String(company.corporateNumber),
      sightings: sightingsOf(matches[i] ?? [], () => toCorporateRecord(company)),
    })),
    now,
  );
}

/**
 * The postings of the given companies against the job searches: each one whose version
 * differs from the one last percolated (new, changed, or given a new company copy by this
 * rebuild: `fannedOut`, by posting id) read as it now is and percolated; the changes recorded
 * company by company, with every posting the company has now, so one it no longer has leaves
 * its searches. A company whose postings are all as last percolated, none gone, is skipped.
 */
export async function recordJobSightings(
  client: Engine,
  prefix: string,
  watch: Membership,
  corporateNumbers: readonly string[],
  fannedOut: ReadonlyMap<string, Doc>,
  now: Date,
): Promise<void> {
  if (corporateNumbers.length === 0) return;
  const jobsIndex = indexNames(prefix).jobs;
  // a version holds for its day: a search's condition relative to today (the one-month window
  // of a description condition) is checked again at the company's first rebuild of each day
  const day = japanDay(now);
  // every posting id of the companies with its version: no source read
  const present = new Map<string, Map<string, string>>(corporateNumbers.map((number) => [number, new Map()]));
  for await (const hits of scan<Doc>(client, {
    index: jobsIndex,
    query: { terms: { corporateNumber: [...corporateNumbers] } },
    sort: [{ corporateNumber: 'asc' }, { id: 'asc' }],
    source: ['corporateNumber'],
    seqNoPrimaryTerm: true,
    pageSize: 5000,
  }))
    for (const { id, source, seqNo, primaryTerm } of hits)
      present.get(String(source.corporateNumber))?.set(id, `${seqNo}:${primaryTerm}@${day}`);
  const percolated = await watch.jobVersions(corporateNumbers);
  const companyOf = new Map<string, string>();
  const toRead: string[] = [];
  for (const [company, postings] of present) {
    const last = percolated.get(company);
    for (const [id, version] of postings) {
      companyOf.set(id, company);
      if (fannedOut.has(id) || last?.get(id) !== version) toRead.push(id);
    }
  }
  const jobsOf = new Map<string, Array<{ jobId: string; version: string; sightings: Sighting[] }>>(
    corporateNumbers.map((number) => [number, []]),
  );
  for (let start = 0; start < toRead.length; start += postingsPerPercolation) {
    // read as they are now (a real-time read, this rebuild's company copies included)
    const read = await getSources<Doc>(
      client,
      jobsIndex,
      toRead.slice(start, start + postingsPerPercolation),
      {
        excludes: [compactRecordField],
      },
    );
    for (const { id, source } of read) if (!source) present.get(companyOf.get(id) as string)?.delete(id); // deleted since the scan: gone
    const found = read.filter((doc) => doc.source);
    const documents = found.map(({ id, source }) => ({ ...source, ...fannedOut.get(id) }));
    const matches = await percolate(client, prefix, documents, { kind: 'jobs', fields: watch.queryFields });
    found.forEach(({ id, version }, i) => {
      const document = documents[i] as Doc;
      jobsOf.get(String(document.corporateNumber))?.push({
        jobId: id,
        version: `${version}@${day}`,
        sightings: sightingsOf(matches[i] ?? [], () => toJobRecord(document)),
      });
    });
  }
  const companies = [...present].flatMap(([corporateNumber, postings]) => {
    const jobs = jobsOf.get(corporateNumber) ?? [];
    const gone = [...(percolated.get(corporateNumber)?.keys() ?? [])].some((id) => !postings.has(id));
    return jobs.length > 0 || gone ? [{ corporateNumber, present: [...postings.keys()], jobs }] : [];
  });
  await watch.seenJobs(companies, now);
}
