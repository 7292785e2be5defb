/**
 * A `rolloff` job (nightly, 03:00 JST): takes month-old text out of search and hands the
 * touched companies to rebuild jobs instead of rebuilding them here.
 */
import { scheduleRebuilds } from '../queue.js';
import { rollOff } from '../rolloff.js';
import type { JobContext } from './context.js';

export async function runRollOff(context: JobContext): Promise<Record<string, number>> {
  const { opensearch, indexPrefix, queue, connection, redisPrefix } = context;
  const result = await rollOff(opensearch, indexPrefix, { rebuild: false });
  await scheduleRebuilds(queue, connection, redisPrefix, result.companies);
  return { postings: result.postings, companies: result.companies.length };
}
