/**
 * The nightly count of hiring activity (./hiring-activity.ts): the windows (postings started in
 * the last 7, 30 and 90 days, closed in the last 30) move with the calendar, so a company whose
 * windows hold anything is counted again each day even when none of its postings changed. The
 * worker runs it with the roll-off, at 03:00 JST (./jobs/rolloff-job.ts); `npm run rolloff` runs
 * both once.
 *
 *   const due = await companiesDueForActivity(client, prefix, now)   // ['1010001000001', ...]
 *   await rebuildCompanies(client, prefix, due, { now })             // counted as of today
 *
 * Companies without postings and without a count (written before the activity existed) are
 * given the count of no postings in place, by one update-by-query (`fillMissingActivity`).
 */
import { scan } from '../ops/engine/scan.js';
import type { Engine } from '../src/opensearch/engine.js';
import { withRetry } from '../src/opensearch/retry.js';
import { activityDueQuery, activityFields, japanDay, noActivity } from './hiring-activity.js';
import { indexNames } from './index-names.js';
import { rebuildCompanies } from './rebuild.js';

/** The companies whose activity is to be counted again on `now`'s Japan day, by corporate number. */
export async function companiesDueForActivity(client: Engine, prefix: string, now: Date): Promise<string[]> {
  const names = indexNames(prefix);
  const due: string[] = [];
  const pages = scan(client, {
    index: names.corporates,
    query: activityDueQuery(japanDay(now)),
    sort: [{ corporateNumber: 'asc' }],
    source: false,
    pageSize: 5000,
  });
  for await (const hits of pages) for (const hit of hits) due.push(hit.id);
  return due;
}

/**
 * Gives every company without postings and without a count the count of no postings, as of
 * `now`'s day; returns how many were given one. Its record changes (null -> the count), so its
 * `updatedAt` moves.
 */
export async function fillMissingActivity(client: Engine, prefix: string, now: Date): Promise<number> {
  const names = indexNames(prefix);
  const fields = activityFields(noActivity(japanDay(now)));
  const { body } = await withRetry(() =>
    client.updateByQuery({
      index: names.corporates,
      conflicts: 'proceed',
      refresh: true,
      body: {
        query: {
          bool: {
            must_not: [
              { exists: { field: 'hiringActivity.asOf' } },
              { range: { 'aggregates.postingCount': { gt: 0 } } },
            ],
          },
        },
        script: {
          lang: 'painless',
          source: [
            'ctx._source.hiringActivity = params.activity;',
            'ctx._source.hiringActivityRecord = params.record;',
            'ctx._source.updatedAt = params.now;',
          ].join(' '),
          params: {
            activity: fields.hiringActivity,
            record: fields.hiringActivityRecord,
            now: now.toISOString(),
          },
        },
      },
    }),
  );
  return Number((body as { updated?: number }).updated ?? 0);
}

export interface ActivityRefresh {
  /** companies counted again (or, with `rebuild: false`, to be: the worker hands them to rebuild jobs) */
  companies: string[];
  /** companies without postings given the count of no postings */
  filled: number;
  failures: number;
}

/** The nightly count, once: the due companies rebuilt here (CLI) or returned (`rebuild: false`, the worker). */
export async function refreshActivity(
  client: Engine,
  prefix: string,
  options: { now?: Date; rebuild?: boolean } = {},
): Promise<ActivityRefresh> {
  const now = options.now ?? new Date();
  const filled = await fillMissingActivity(client, prefix, now);
  const companies = await companiesDueForActivity(client, prefix, now);
  if (options.rebuild === false || companies.length === 0) return { companies, filled, failures: 0 };
  const result = await rebuildCompanies(client, prefix, companies, { now });
  return { companies, filled, failures: result.failures.length };
}
