/**
 * The rebuild after a public-record import's writes (the invoice register, gBizINFO): which
 * companies are rebuilt (./rebuild.ts), and with what. A company with postings is always
 * rebuilt (a partial update drops their detail text, mappings/corporates.json). When the import
 * is given the saved searches' membership (REDIS_URL set) and some company search is watched,
 * every company it wrote is rebuilt with the watch, so a company that enters or leaves a saved
 * search, or changes a watched field, by its public records alone is reported like any other
 * change (docs/api.md, "What changed in a saved search"). Whether anything is watched is read
 * once per import.
 *
 *   const after = new RecordRebuild({ client, indexPrefix, watch })
 *   await after.rebuild(['8010001000001', '9010401000011'], new Set(['8010001000001']))
 */
import type { OpenSearchClient } from '../src/opensearch/client.js';
import type { Membership } from '../src/saved-searches/membership.js';
import { watchedSearchCounts } from '../src/saved-searches/watch.js';
import { rebuildCompanies, throwOnFailures } from './rebuild.js';

export interface RecordRebuildOptions {
  client: OpenSearchClient;
  indexPrefix: string;
  /** the saved searches' membership: present, every written company is watched */
  watch?: Membership;
  now?: () => Date;
}

export class RecordRebuild {
  private watching: Promise<boolean> | undefined;

  constructor(private readonly options: RecordRebuildOptions) {}

  /** Whether this import reports its writes to the watched saved searches. */
  isWatching(): Promise<boolean> {
    const { watch, client, indexPrefix } = this.options;
    this.watching ??= watch
      ? watchedSearchCounts(client, indexPrefix).then((counts) => counts.corporates > 0 || counts.jobs > 0)
      : Promise.resolve(false);
    return this.watching;
  }

  /** `written`: the companies whose record changed; `withPostings`: those of them that have postings. */
  async rebuild(written: Iterable<string>, withPostings: ReadonlySet<string>): Promise<void> {
    const watching = await this.isWatching();
    const numbers = [...written].filter((number) => watching || withPostings.has(number));
    if (numbers.length === 0) return;
    const { client, indexPrefix, watch, now } = this.options;
    throwOnFailures(
      await rebuildCompanies(client, indexPrefix, numbers, {
        refresh: false,
        now: now?.() ?? new Date(),
        ...(watching && watch ? { watch } : {}),
      }),
    );
  }
}
