/**
 * The webhook dead letters: deliveries that failed every attempt of their 26 hours, kept in
 * the queue's failed set (./queue.ts). The operator lists them and replays them once the
 * receiver is fixed (`npm run webhooks -- dead-letters`, `replay`); a replayed delivery starts
 * its schedule again, with the same event id.
 *
 *   await listDeadLetters(queue, { webhookId: 'wh_…' })   // -> [{ messageId, webhookId, eventId, … }]
 *   await replayDeadLetters(queue, { webhookId: 'wh_…' })  // -> 3 (queued again)
 */
import type { Queue } from 'bullmq';
import type { WebhookMessage } from './queue.js';

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
      if (!job?.id || (filter.webhookId && job.data.webhookId !== filter.webhookId)) continue;
      letters.push({
        messageId: job.id,
        webhookId: job.data.webhookId,
        eventId: job.data.event.id,
        eventType: job.data.event.type,
        attempts: job.attemptsMade,
        lastError: job.failedReason ?? '',
        failedAt: job.finishedOn ? new Date(job.finishedOn).toISOString() : null,
      });
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
  for (const letter of chosen) {
    const job = await queue.getJob(letter.messageId);
    await job?.retry('failed', { resetAttemptsMade: true, resetAttemptsStarted: true });
  }
  return chosen.length;
}
