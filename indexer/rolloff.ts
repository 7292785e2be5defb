/**
 * Roll-off: takes the searchable `description` out of `jobs` documents whose text was
 * collected before the searchable window (one month, `now-1M/d`), in bounded batches, then
 * rebuilds their companies so the nested copies go too. The opening excerpt the snippets are
 * read from goes in the same update ('': no text, src/search/opening.ts). `job-details` is not
 * touched: the detail endpoint keeps serving the text.
 */

import { type BulkOp, writeBulk } from '../ops/engine/bulk.js';
import { scan } from '../ops/engine/scan.js';
import type { Engine } from '../src/opensearch/engine.js';
import { withRetry } from '../src/opensearch/retry.js';
import { openingField } from '../src/search/opening.js';
import { indexNames } from './index-names.js';
import { rebuildCompanies } from './rebuild.js';
import { searchableSince } from './transform.js';

export interface RollOffOptions {
  now?: Date;
  batchSize?: number;
  /** Rebuild the companies here (CLI) or hand them to the caller (worker: rebuild jobs). */
  rebuild?: boolean;
  onBatch?: (done: number) => void;
}

export interface RollOffResult {
  postings: number;
  companies: string[];
  failures: number;
}

export async function rollOff(
  client: Engine,
  prefix: string,
  options: RollOffOptions = {},
): Promise<RollOffResult> {
  const names = indexNames(prefix);
  const now = options.now ?? new Date();
  const batchSize = options.batchSize ?? 1000;
  const since = searchableSince(now).toISOString();
  const companies = new Set<string>();
  let postings = 0;
  let failures = 0;
  await withRetry(() => client.indices.refresh({ index: names.jobs }));
  const pages = scan<{ corporateNumber: string }>(client, {
    index: names.jobs,
    query: {
      bool: {
        filter: [{ exists: { field: 'description' } }],
        should: [
          { range: { descriptionCollectedAt: { lt: since } } },
          { bool: { must_not: { exists: { field: 'descriptionCollectedAt' } } } },
        ],
        minimum_should_match: 1,
      },
    },
    sort: [{ id: 'asc' }],
    source: ['corporateNumber'],
    pageSize: batchSize,
  });
  for await (const hits of pages) {
    const ops: BulkOp<string>[] = hits.map((hit) => ({
      action: 'update',
      index: names.jobs,
      id: hit.id,
      ref: hit.source.corporateNumber,
      body: { doc: { description: null, [openingField]: '' } },
    }));
    const failed = await writeBulk(client, ops);
    failures += failed.length;
    postings += ops.length - failed.length;
    for (const op of ops) companies.add(op.ref);
    options.onBatch?.(postings);
  }
  if (options.rebuild !== false && companies.size > 0)
    await rebuildCompanies(client, prefix, companies, { now });
  return { postings, companies: [...companies], failures };
}
