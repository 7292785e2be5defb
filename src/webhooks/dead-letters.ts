/**
 * The webhook dead letters: deliveries that failed every attempt of their 26 hours, kept in
 * the queue's failed set (./queue.ts). The operator lists them and replays them once the
 * receiver is fixed (`npm run webhooks -- dead-letters`, `replay`); a replayed delivery starts
 * its schedule again, with the same event id.
 *
 *   await listDeadLetters(queue, { webhookId: 'wh_…' })   // -> [{ messageId, webhookId, eventId, … }]
 *   await replayDeadLetters(queue, { webhookId: 'wh_…' })  // -> 3 (queued again)
 */
import { ErrorCode, type Queue } from 'bullmq';
import { attemptsBeforeOf, deliveriesOf, type WebhookMessage } from './queue.js';

export interface DeadLetter {
  messageId: string;
  webhookId: string;
  eventId: string;
  eventType: string;
  attempts: number;
  /** the last attempt's reason (`answered 500`, `timeout`, ...) */
  lastError: string;
  failedAt: string | null;
}

const page = 1000;

/** Every dead letter, or those of one webhook, oldest failure first. */
export async function listDeadLetters(
  queue: Queue<WebhookMessage>,
  filter: { webhookId?: string } = {},
): Promise<DeadLetter[]> {
  const letters: DeadLetter[] = [];
  for (let start = 0; ; start += page) {
    const jobs = await queue.getFailed(start, start + page - 1);
    for (const job of jobs) {
      if (!job?.id) continue;
      // a group fails as a whole only when its own work failed (Redis away) at every attempt:
      // each of its events is listed, under the one message a replay queues again
      for (const { webhookId, event } of deliveriesOf(job.data)) {
        if (filter.webhookId && webhookId !== filter.webhookId) continue;
        letters.push({
          messageId: job.id,
          webhookId,
          eventId: event.id,
          eventType: event.type,
          attempts: attemptsBeforeOf(job.data) + job.attemptsMade,
          lastError: job.failedReason ?? '',
          failedAt: job.finishedOn ? new Date(job.finishedOn).toISOString() : null,
        });
      }
    }
    if (jobs.length < page) break;
  }
  return letters.sort((a, b) => (a.failedAt ?? '').localeCompare(b.failedAt ?? ''));
}

/** Queues the dead letters again (all, one webhook's, or the named messages); how many. */
export async function replayDeadLetters(
  queue: Queue<WebhookMessage>,
  filter: { webhookId?: string; messageIds?: readonly string[] } = {},
): Promise<number> {
  const letters = await listDeadLetters(queue, filter);
  const chosen = filter.messageIds
    ? letters.filter((letter) => filter.messageIds?.includes(letter.messageId))
    : letters;
  return replayMessages(queue, [...new Set(chosen.map((letter) => letter.messageId))]);
}

/**
 * Queues the named failed messages again; how many it moved. A message that is no longer a
 * dead letter when its turn comes (replayed meanwhile by another worker's round or by the
 * operator, or removed) is left as it is: two replays of one list move each message once.
 */
export async function replayMessages(
  queue: Queue<WebhookMessage>,
  messageIds: readonly string[],
): Promise<number> {
  let moved = 0;
  for (const messageId of messageIds) {
    const job = await queue.getJob(messageId);
    if (!job) continue;
    try {
      // an event queued alone after a group's attempt starts its schedule from its first again
      const { data } = job;
      if (!('deliveries' in data) && attemptsBeforeOf(data) > 0)
        await job.updateData({ ...data, attemptsBefore: 0 } as never);
      await job.retry('failed', { resetAttemptsMade: true, resetAttemptsStarted: true });
      moved += 1;
    } catch (error) {
      if (!movedMeanwhile(error)) throw error;
    }
  }
  return moved;
}

const movedMeanwhile = (error: unknown) => {
  const code = (error as { code?: unknown }).code;
  return code === ErrorCode.JobNotInState || code === ErrorCode.JobNotExist;
};
