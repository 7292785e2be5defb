/**
 * What follows a public-record import's writes (the invoice register, gBizINFO). A company with
 * postings is always rebuilt (./rebuild.ts): a partial update drops their detail text
 * (mappings/corporates.json). When the import is given the saved searches' membership
 * (REDIS_URL set) and a company search is watched, the rebuild runs with the watch (on the
 * companies only: the postings' company copy carries no public record, so no job search can
 * change), and every other company it wrote is percolated as it now is, its sightings recorded
 * (./sightings.ts; no rebuild: with no postings there is nothing to rebuild), so a company that
 * enters or leaves a saved search, or changes a watched field, by its public records alone is
 * reported like any other change (docs/api.md, "What changed in a saved search").
 * Whether a search is watched is read for each batch (one small request), so a search saved
 * during a long import is fed from the next batch on.
 *
 *   const after = new RecordRebuild({ client, indexPrefix, watch })
 *   await after.rebuild(['8010001000001', '9010401000011'], new Set(['8010001000001']))
 */

import { compactRecordField } from '../src/catalogue/record-fields.js';
import { getSources } from '../src/opensearch/documents.js';
import type { Engine } from '../src/opensearch/engine.js';
import type { Membership } from '../src/saved-searches/membership.js';
import { watchedSearchCounts } from '../src/saved-searches/watch.js';
import { indexNames } from './index-names.js';
import { rebuildChunkSize, rebuildCompanies, throwOnFailures } from './rebuild.js';
import { recordSightings } from './sightings.js';
import type { Doc } from './transform.js';

export interface RecordRebuildOptions {
  client: Engine;
  indexPrefix: string;
  /** the saved searches' membership: present, the companies written are reported to them */
  watch?: Membership;
  now?: () => Date;
}

export class RecordRebuild {
  constructor(private readonly options: RecordRebuildOptions) {}

  /** The watched searches of each kind (none without a membership). */
  private watchedCounts(): Promise<{ corporates: number; jobs: number }> {
    const { watch, client, indexPrefix } = this.options;
    return watch ? watchedSearchCounts(client, indexPrefix) : Promise.resolve({ corporates: 0, jobs: 0 });
  }

  /** `written`: the companies whose record changed; `withPostings`: those of them that have postings. */
  async rebuild(written: Iterable<string>, withPostings: ReadonlySet<string>): Promise<void> {
    const { client, indexPrefix, watch, now } = this.options;
    const counts = await this.watchedCounts();
    // the postings' company copy carries no public record: only company searches can change
    const watching = watch !== undefined && counts.corporates > 0;
    const at = now?.() ?? new Date();
    if (withPostings.size > 0)
      throwOnFailures(
        await rebuildCompanies(client, indexPrefix, [...withPostings], {
          refresh: false,
          now: at,
          ...(watching ? { watch, watchPostings: false } : {}),
        }),
      );
    if (!watch || counts.corporates === 0) return;
    const others = [...written].filter((number) => !withPostings.has(number));
    const index = indexNames(indexPrefix).corporates;
    // as many a request as the rebuild's chunk: a percolation costs about the same for 200 or 1,000
    for (let start = 0; start < others.length; start += rebuildChunkSize) {
      const docs = await getSources<Doc>(client, index, others.slice(start, start + rebuildChunkSize), {
        excludes: ['postings', compactRecordField, 'hiringActivityRecord', 'matchCard'],
      });
      const companies = docs.flatMap((doc) => (doc.source ? [doc.source] : []));
      await recordSightings(client, indexPrefix, watch, companies, at);
    }
  }
}
