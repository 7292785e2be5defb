/**
 * A `rolloff` job (nightly, 03:00 JST): takes month-old text out of search, and finds the
 * companies whose hiring activity the calendar moved today (../activity-refresh.ts); hands all
 * of them to rebuild jobs instead of rebuilding them here.
 */
import { refreshActivity } from '../activity-refresh.js';
import { scheduleRebuilds } from '../queue.js';
import { rollOff } from '../rolloff.js';
import type { JobContext } from './context.js';

export async function runRollOff(context: JobContext): Promise<Record<string, number>> {
  const { opensearch, indexPrefix, queue, connection, redisPrefix } = context;
  const now = new Date();
  const result = await rollOff(opensearch, indexPrefix, { rebuild: false, now });
  const activity = await refreshActivity(opensearch, indexPrefix, { rebuild: false, now });
  const companies = [...new Set([...result.companies, ...activity.companies])];
  await scheduleRebuilds(queue, connection, redisPrefix, companies);
  return {
    postings: result.postings,
    companies: companies.length,
    activityCompanies: activity.companies.length,
    activityFilled: activity.filled,
  };
}
