/**
 * The match jobs' BullMQ queue, `<REDIS_PREFIX>bull:match-jobs:*` beside the indexer's: one
 * message per run of a job (`{jobId}`), queued by the API (src/http/routes/match-jobs.ts),
 * taken by the worker (./worker.ts).
 */
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';

export const matchJobQueueName = 'match-jobs';

export interface MatchJobMessage {
  jobId: string;
}

export function matchJobQueue(connection: Redis, redisPrefix: string): Queue<MatchJobMessage> {
  return new Queue<MatchJobMessage>(matchJobQueueName, {
    connection,
    prefix: `${redisPrefix}bull`,
    defaultJobOptions: {
      // an engine away: the chunk in hand is given back and the job tried again
      attempts: 10,
      backoff: { type: 'exponential', delay: 2000 },
      removeOnComplete: true,
      removeOnFail: 1000,
    },
  });
}

/** Queues the job's run; `run` tells a resumed run's message from the first one. */
export async function enqueueMatchJob(queue: Queue<MatchJobMessage>, jobId: string, run = 0): Promise<void> {
  await queue.add('match', { jobId }, { jobId: run === 0 ? jobId : `${jobId}-run-${run}` });
}
