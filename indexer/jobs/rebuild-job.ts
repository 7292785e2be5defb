/**
 * A `rebuild` job: drains the set of companies waiting for a rebuild (../queue.ts), 1,000 at a
 * time (`rebuildChunkSize`), recording where each now stands in the watched saved searches; what fails goes back
 * into the set for the job's retry.
 */

import { Membership } from '../../src/saved-searches/membership.js';
import { rebuildSetKey } from '../queue.js';
import { rebuildChunkSize, rebuildCompanies } from '../rebuild.js';
import type { JobContext } from './context.js';

/** Rebuilds the companies in the pending set, a rebuild round at a time, until it is empty. */
export async function drainRebuilds(context: JobContext): Promise<Record<string, number>> {
  const { opensearch, indexPrefix, connection, redisPrefix } = context;
  const key = rebuildSetKey(redisPrefix);
  const total = { rebuilt: 0, fannedOut: 0 };
  // the worker's rebuilds find the watched saved searches' changes (docs/api.md, "Saved searches")
  const watch = new Membership(connection, redisPrefix);
  for (;;) {
    const batch = await connection.spop(key, rebuildChunkSize);
    if (batch.length === 0) return total;
    try {
      const result = await rebuildCompanies(opensearch, indexPrefix, batch, { watch });
      total.rebuilt += result.rebuilt;
      total.fannedOut += result.fannedOut;
      if (result.failures.length > 0) {
        const failed = [...new Set(result.failures.map((failure) => failure.op.ref))];
        await connection.sadd(key, ...failed);
        throw new Error(`${failed.length} company rebuilds were not written`);
      }
    } catch (error) {
      // back into the set, so the retry of this job (or the next drain) does them
      await connection.sadd(key, ...batch);
      throw error;
    }
  }
}
