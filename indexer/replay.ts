/**
 * Replaying dead letters (`npm run dead-letters -- replay`): each record goes through the
 * ingestion again, and its entry leaves the store only once the record is accepted. A record
 * refused again is kept with its new reasons (a new entry, replacing the old one), so the
 * store always says why each record is there.
 *
 * - With REDIS_URL: each record is a `records` job of its own on the indexer queue (one
 *   attempt: the answer comes back now, not after the queue's backoff), and the worker's
 *   answer is awaited. A record the worker refuses is already back in the Redis list with its
 *   new reasons (the worker writes it), so the old entry goes. No answer within the timeout
 *   (no worker running?): the entry stays, status `pending`.
 * - Without: the record goes through the pipeline here, as `npm run ingest` does, and the
 *   companies it touched are rebuilt.
 */
import { QueueEvents } from 'bullmq';
import type { Engine } from '../src/opensearch/engine.js';
import { type DeadLetterReason, MemoryDeadLetter } from './dead-letter.js';
import { type DeadLetterStore, RedisDeadLetterStore, type StoredDeadLetter } from './dead-letter-store.js';
import { IngestPipeline, type Report } from './pipeline.js';
import {
  bullPrefix,
  createIndexerQueue,
  createQueueConnection,
  queueName,
  type RecordsJob,
} from './queue.js';
import { rebuildCompanies } from './rebuild.js';

export type ReplayStatus =
  /** accepted (indexed, or older than what the index holds: nothing to write); the entry is gone */
  | 'indexed'
  /** refused again; the store holds it with `reasons` */
  | 'rejected'
  /** worker: a posting waiting in the queue for its company; the worker owns it now */
  | 'deferred'
  /** no answer from the worker in time; the entry stays */
  | 'pending'
  /** removed by someone else meanwhile; nothing done */
  | 'gone';

export interface ReplayOutcome {
  id: string;
  status: ReplayStatus;
  reasons?: DeadLetterReason[];
}

export interface DirectReplayOptions {
  client: Engine;
  indexPrefix: string;
  store: DeadLetterStore;
  now?: () => Date;
}

/** Through the pipeline in this process (no Redis); touched companies rebuilt at the end. */
export async function replayDirect(
  letters: StoredDeadLetter[],
  options: DirectReplayOptions,
): Promise<ReplayOutcome[]> {
  const outcomes: ReplayOutcome[] = [];
  const touched = new Set<string>();
  for (const letter of letters) {
    const refused = new MemoryDeadLetter();
    const pipeline = new IngestPipeline({
      client: options.client,
      indexPrefix: options.indexPrefix,
      deadLetter: refused,
      ...(options.now ? { now: options.now } : {}),
    });
    const { record, source } = letter.entry;
    if (typeof record === 'string') await pipeline.addLine(record, source);
    else await pipeline.add(record, source);
    await pipeline.flush();
    for (const company of pipeline.touched) touched.add(company);
    // the new entry first: a replay stopped halfway leaves the record twice, never nowhere
    if (refused.entries.length > 0) await options.store.add(refused.entries);
    const removed = await options.store.remove(letter);
    const reasons = refused.entries.flatMap((entry) => entry.reasons);
    if (reasons.length > 0) outcomes.push({ id: letter.id, status: 'rejected', reasons });
    else outcomes.push({ id: letter.id, status: removed ? 'indexed' : 'gone' });
  }
  const companies = [...touched];
  for (let i = 0; i < companies.length; i += 200)
    await rebuildCompanies(options.client, options.indexPrefix, companies.slice(i, i + 200), {
      ...(options.now ? { now: options.now() } : {}),
    });
  return outcomes;
}

export interface QueuedReplayOptions {
  redisUrl: string;
  redisPrefix: string;
  store: DeadLetterStore;
  /** how long to wait for the worker's answers, all records together */
  timeoutMs: number;
}

type JobReport = Report & { deferred?: number };

/** Through the indexer queue and the worker (REDIS_URL). */
export async function replayQueued(
  letters: StoredDeadLetter[],
  options: QueuedReplayOptions,
): Promise<ReplayOutcome[]> {
  const connection = createQueueConnection(options.redisUrl);
  const queue = createIndexerQueue(connection, options.redisPrefix);
  const eventsConnection = connection.duplicate();
  const events = new QueueEvents(queueName, {
    connection: eventsConnection,
    prefix: bullPrefix(options.redisPrefix),
  });
  const workerList = new RedisDeadLetterStore(connection, options.redisPrefix);
  try {
    await events.waitUntilReady();
    const deadline = Date.now() + options.timeoutMs;
    const jobs = [];
    for (const letter of letters) {
      const source = letter.entry.source ?? 'dead-letter';
      const data: RecordsJob = { records: [letter.entry.record], source };
      jobs.push({
        letter,
        source,
        job: await queue.add('records', data, { attempts: 1, removeOnFail: 100 }),
      });
    }
    // every answer first, then one read of the worker's list for the reasons of those refused again
    const answers: Array<{ letter: StoredDeadLetter; source: string; jobId: string; report?: JobReport }> =
      [];
    const outcomes: ReplayOutcome[] = [];
    for (const { letter, source, job } of jobs) {
      try {
        const report = (await job.waitUntilFinished(events, Math.max(1, deadline - Date.now()))) as JobReport;
        answers.push({ letter, source, jobId: String(job.id), report });
      } catch {
        // failed (the worker dead-letters its record, "gave up"), or no answer in time
        if ((await job.getState()) === 'failed') answers.push({ letter, source, jobId: String(job.id) });
        else outcomes.push({ id: letter.id, status: 'pending' });
      }
    }
    // the worker's own entry for a record it refused has source `<source>#<job id>:1`
    const bySource = new Map((await workerList.list()).map((stored) => [stored.entry.source, stored]));
    for (const { letter, source, jobId, report } of answers) {
      const removed = await options.store.remove(letter);
      outcomes.push(queuedOutcome(letter.id, report, bySource.get(`${source}#${jobId}:1`), removed));
    }
    // in the order asked for
    const order = new Map(letters.map((letter, position) => [letter.id, position]));
    return outcomes.sort((a, b) => (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0));
  } finally {
    await events.close();
    await queue.close();
    eventsConnection.disconnect();
    connection.disconnect();
  }
}

function queuedOutcome(
  id: string,
  report: JobReport | undefined,
  again: StoredDeadLetter | undefined,
  removed: boolean,
): ReplayOutcome {
  const rejected = report
    ? Object.values(report).some((counts) => typeof counts === 'object' && counts.rejected > 0)
    : true;
  if (rejected)
    return {
      id,
      status: 'rejected',
      reasons: again?.entry.reasons ?? [
        { field: '(record)', reason: 'refused by the worker (see the list)' },
      ],
    };
  if (report?.deferred) return { id, status: 'deferred' };
  return { id, status: removed ? 'indexed' : 'gone' };
}
