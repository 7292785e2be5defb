/**
 * A saved company search starts being watched when it is saved (./watch.ts, ./membership.ts):
 * the companies in its results then are its members (no change is reported for them), and its
 * compiled query goes to the percolator, so the worker's rebuilds report what enters, leaves
 * or changes from then on. A search with more than `SAVED_SEARCH_WATCH_MAX_RESULTS` (10,000) results when saved is
 * kept but not watched (the reason says so): narrow it to watch it. Job searches are not
 * watched (their changes are not kept yet).
 *
 *   await startWatching(services, 'u-1', saved, plan)
 *   // -> { watching: true, notWatchingReason: null }
 */
import type { Redis } from 'ioredis';
import { corporateSearch } from '../catalogue/searches.js';
import { withRetry } from '../opensearch/retry.js';
import { compileSearch } from '../search/compile-search.js';
import type { SearchPlan } from '../search/plan.js';
import { toCorporateRecord } from '../search/records.js';
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
): Promise<Pick<SavedSearch, 'watching' | 'notWatchingReason'>> {
  const membership = membershipOf(services);
  if (saved.search !== 'corporates' || !membership)
    return { watching: false, notWatchingReason: 'changes are kept for company searches only' };
  const prefix = services.config.indexPrefix;
  const watchedResultsMax = services.config.savedSearchWatchMaxResults;
  const request = compileSearch(corporateSearch, plan, prefix);
  const query = (request.body as Doc).query;
  const { body } = await withRetry(() =>
    services.opensearch.search({
      index: request.index,
      body: {
        query: query as never,
        size: watchedResultsMax,
        track_total_hits: watchedResultsMax + 1,
        _source: ['corporateNumber', ...saved.watchFields],
      },
    }),
  );
  const total = (body.hits.total as { value: number } | undefined)?.value ?? 0;
  if (total > watchedResultsMax)
    return {
      watching: false,
      notWatchingReason: `more than ${watchedResultsMax.toLocaleString('en')} companies match it: narrow it to watch its changes`,
    };
  const members = (body.hits.hits as Array<{ _source?: Doc }>).map((hit) => {
    const source = hit._source ?? {};
    return {
      corporateNumber: String(source.corporateNumber),
      ...(saved.watchFields.length > 0
        ? { values: watchedValues(toCorporateRecord(source), saved.watchFields) }
        : {}),
    };
  });
  await membership.start(saved.id, members);
  await registerQuery(services.opensearch, prefix, {
    savedSearchId: saved.id,
    userId,
    watchFields: saved.watchFields,
    query,
  });
  return { watching: true, notWatchingReason: null };
}

/** Stops watching it: the percolator forgets its query, Redis its members, changes and webhooks. */
export async function stopWatching(services: Services, savedSearchId: string): Promise<void> {
  await unregisterQuery(services.opensearch, services.config.indexPrefix, savedSearchId);
  await membershipOf(services)?.forget(savedSearchId);
  const redis = savedSearchRedis(services);
  if (redis) await new WebhookStore(redis, services.config.redisPrefix).deleteForSavedSearch(savedSearchId);
}
