/**
 * A `records` job: a batch of source records through the same pipeline as the CLI. Records
 * whose company is not indexed yet are deferred to a later job (their company may be in a
 * batch another worker is still writing); master records are shared through Redis; touched
 * companies are queued for one deduplicated rebuild.
 */
import type { Job } from 'bullmq';
import { countIngest } from '../ingest-metrics.js';
import { IngestPipeline } from '../pipeline.js';
import { maxDeferrals, type RecordsJob, scheduleRebuilds } from '../queue.js';
import type { JobContext } from './context.js';
import { mastersKey } from './masters-key.js';

export async function processRecords(
  context: JobContext,
  job: Job<RecordsJob>,
): Promise<Record<string, unknown>> {
  const { opensearch, indexPrefix, deadLetter, connection, redisPrefix, queue } = context;
  const deferrals = job.data.deferrals ?? 0;
  const pipeline = new IngestPipeline({
    deferMissingCompany: deferrals < maxDeferrals,
    client: opensearch,
    indexPrefix,
    deadLetter,
    masters: await context.currentMasters(),
    ...(context.retry ? { retry: context.retry } : {}),
  });
  const before = pipeline.masters;
  for (const [position, record] of job.data.records.entries()) {
    const source = `${job.data.source ?? 'queue'}#${job.id}:${position + 1}`;
    if (typeof record === 'string') await pipeline.addLine(record, source);
    else await pipeline.add(record, source);
  }
  await pipeline.flush();
  // the rejected ones are in the dead-letter list already
  countIngest(pipeline.report);
  if (pipeline.masters !== before) {
    const lists = pipeline.masters.lists;
    await connection.hset(
      mastersKey(redisPrefix),
      Object.fromEntries(Object.entries(lists).map(([name, items]) => [name, JSON.stringify(items)])),
    );
  }
  await scheduleRebuilds(queue, connection, redisPrefix, pipeline.touched);
  if (pipeline.deferred.length > 0) {
    // their company may be in a batch another worker is still writing: try again later
    await queue.add(
      'records',
      {
        records: pipeline.deferred.map((item) => item.record),
        source: job.data.source ?? 'queue',
        deferrals: deferrals + 1,
      } satisfies RecordsJob,
      { delay: 2000 * 2 ** deferrals, removeOnComplete: true, removeOnFail: 100 },
    );
  }
  return {
    ...pipeline.report,
    ...(pipeline.deferred.length > 0 ? { deferred: pipeline.deferred.length } : {}),
  };
}
