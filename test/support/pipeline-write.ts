/**
 * Source records written as the indexer writes them, for tests that read the documents back:
 * through the ingest pipeline (none rejected), then the touched companies rebuilt, then every
 * index of the prefix refreshed.
 *
 *   const tick = steppingClock('2026-11-21T03:00:00.000Z')
 *   await writeRecords(services, [corporate(...), job(...)], tick)
 */
import { expect } from 'vitest';
import { MemoryDeadLetter } from '../../indexer/dead-letter.js';
import { indexNames } from '../../indexer/index-names.js';
import { drainRebuilds } from '../../indexer/jobs/rebuild-job.js';
import { IngestPipeline } from '../../indexer/pipeline.js';
import { rebuildSetKey } from '../../indexer/queue.js';
import { rebuildCompanies } from '../../indexer/rebuild.js';
import type { SourceRecord } from '../../indexer/source-types.js';
import type { Services } from '../../src/services.js';

/** Writes the records as the pipeline does; the companies they touched (to rebuild). */
async function writeOnly(services: Services, records: SourceRecord[], now: () => Date): Promise<Set<string>> {
  const pipeline = new IngestPipeline({
    client: services.opensearch,
    indexPrefix: services.config.indexPrefix,
    deadLetter: new MemoryDeadLetter(),
    now,
  });
  for (const item of records) await pipeline.add(item, 'test');
  await pipeline.flush();
  for (const counts of Object.values(pipeline.report)) expect(counts.rejected).toBe(0);
  return pipeline.touched;
}

async function refreshAll(services: Services): Promise<void> {
  const names = indexNames(services.config.indexPrefix);
  await services.opensearch.indices.refresh({ index: Object.values(names).join(',') });
}

export async function writeRecords(
  services: Services,
  records: SourceRecord[],
  now: () => Date,
): Promise<void> {
  const touched = await writeOnly(services, records, now);
  await rebuildCompanies(services.opensearch, services.config.indexPrefix, touched, { now: now() });
  await refreshAll(services);
}

/** A clock for the pipeline's writes: one second later at every call, from `start`. */
export function steppingClock(start: string): () => Date {
  let clock = Date.parse(start);
  return () => {
    clock += 1_000;
    return new Date(clock);
  };
}

/**
 * Writes the records as the pipeline does, then rebuilds the companies they touched as the
 * worker's rebuild job does (once, with the watch), so watched saved searches see the change
 * (src/saved-searches/membership.ts).
 */
export async function changeAsTheWorker(
  services: Services,
  records: SourceRecord[],
  now: () => Date,
): Promise<void> {
  const touched = await writeOnly(services, records, now);
  if (touched.size > 0) await services.redis?.sadd(rebuildSetKey(services.config.redisPrefix), ...touched);
  await drainRebuilds({
    opensearch: services.opensearch,
    indexPrefix: services.config.indexPrefix,
    connection: services.redis as never,
    redisPrefix: services.config.redisPrefix,
  } as never);
  await refreshAll(services);
}
