/**
 * A saved search starts being watched when it is saved (./watch.ts, ./membership.ts): the
 * records in its results then (companies, or postings for a job search) are its members (no
 * change is reported for them), and its compiled query goes to its kind's percolator index,
 * so the worker's rebuilds report what enters, leaves or changes from then on. A search with
 * more than `SAVED_SEARCH_WATCH_MAX_RESULTS` (10,000) results when saved is kept but not
 * watched (the reason says so): narrow it to watch it.
 *
 *   await startWatching(services, 'u-1', saved, plan)
 *   // -> { watching: true, notWatchingReason: null }
 */
import type { Redis } from 'ioredis';
import { corporateSearch, jobSearch } from '../catalogue/searches.js';
import { withRetry } from '../opensearch/retry.js';
import { compileSearch } from '../search/compile-search.js';
import type { SearchPlan } from '../search/plan.js';
import { toCorporateRecord, toJobRecord } from '../search/records.js';
import type { Services } from '../services.js';
import { WebhookStore } from '../webhooks/store.js';
import { Membership, watchedValues } from './membership.js';
import type { SavedSearch } from './store.js';
import { registerQuery, unregisterQuery } from './watch.js';

type Doc = Record<string, unknown>;

/**
 * The Redis saved searches live in: the API's (REDIS_URL), else the match jobs' own
 * redis-server (`npm start` without REDIS_URL); undefined without either.
 */
export function savedSearchRedis(services: Services): Redis | undefined {
  return services.redis ?? services.matchJobs?.redis;
}

export function membershipOf(services: Services): Membership | undefined {
  const redis = savedSearchRedis(services);
  return redis ? new Membership(redis, services.config.redisPrefix) : undefined;
}

export async function startWatching(
  services: Services,
  userId: string,
  saved: SavedSearch,
  plan: SearchPlan,
  pageSize = 5000,
): Promise<Pick<SavedSearch, 'watching' | 'notWatchingReason'>> {
  const membership = membershipOf(services);
  if (!membership)
    return { watching: false, notWatchingReason: 'the service keeps no changes here (no Redis)' };
  const jobs = saved.search === 'jobs';
  const prefix = services.config.indexPrefix;
  const watchedResultsMax = services.config.savedSearchWatchMaxResults;
  const request = compileSearch(jobs ? jobSearch : corporateSearch, plan, prefix);
  const query = (request.body as Doc).query;
  const { body } = await withRetry(() =>
    services.opensearch.search({
      index: request.index,
      body: { query: query as never, size: 0, track_total_hits: watchedResultsMax + 1 },
    }),
  );
  const total = (body.hits.total as { value: number } | undefined)?.value ?? 0;
  if (total > watchedResultsMax)
    return {
      watching: false,
      notWatchingReason: `more than ${watchedResultsMax.toLocaleString('en')} ${jobs ? 'postings' : 'companies'} match it: narrow it to watch its changes`,
    };
  const toRecord = jobs ? toJobRecord : toCorporateRecord;
  const members: Array<{ corporateNumber: string; jobId: string; values?: Record<string, string> }> = [];
  // page by the record's key: a cap above the engine's result window (10,000) is read whole too
  const key = jobs ? 'id' : 'corporateNumber';
  let after: unknown[] | undefined;
  for (;;) {
    const { body: page } = await withRetry(() =>
      services.opensearch.search({
        index: request.index,
        body: {
          query: query as never,
          size: pageSize,
          sort: [{ [key]: 'asc' }],
          track_total_hits: false,
          _source: ['corporateNumber', ...(jobs ? ['id'] : []), ...saved.watchFields],
          ...(after ? { search_after: after as never } : {}),
        },
      }),
    );
    const hits = page.hits.hits as Array<{ _source?: Doc; sort?: unknown[] }>;
    for (const hit of hits) {
      const source = hit._source ?? {};
      members.push({
        corporateNumber: String(source.corporateNumber),
        jobId: String(source.id),
        ...(saved.watchFields.length > 0
          ? { values: watchedValues(toRecord(source), saved.watchFields) }
          : {}),
      });
    }
    if (hits.length < pageSize) break;
    after = hits.at(-1)?.sort;
  }
  if (jobs) await membership.startJobs(saved.id, members);
  else await membership.start(saved.id, members);
  await registerQuery(
    services.opensearch,
    prefix,
    { savedSearchId: saved.id, userId, watchFields: saved.watchFields, query },
    { kind: saved.search, fields: membership.queryFields },
  );
  return { watching: true, notWatchingReason: null };
}

/** Stops watching it: the percolator forgets its query, Redis its members, changes and webhooks. */
export async function stopWatching(
  services: Services,
  saved: Pick<SavedSearch, 'id' | 'search'>,
): Promise<void> {
  const savedSearchId = saved.id;
  await unregisterQuery(services.opensearch, services.config.indexPrefix, savedSearchId, saved.search);
  await membershipOf(services)?.forget(savedSearchId, saved.search);
  const redis = savedSearchRedis(services);
  if (redis) await new WebhookStore(redis, services.config.redisPrefix).deleteForSavedSearch(savedSearchId);
}
