/**
 * The webhook dead letters: deliveries that failed every attempt of their 26 hours, kept in
 * the queue's failed set (./queue.ts). The operator lists them and replays them once the
 * receiver is fixed (`npm run webhooks -- dead-letters`, `replay`); a replayed delivery starts
 * its schedule again, with the same event id.
 *
 *   await listDeadLetters(queue, { webhookId: 'wh_…' })   // -> [{ messageId, webhookId, eventId, … }]
 *   await replayDeadLetters(queue, { webhookId: 'wh_…' })  // -> 3 (queued again)
 */
import { ErrorCode, type Job, type Queue } from 'bullmq';
import { attemptsBeforeOf, deliveriesOf, messageId, type WebhookMessage } from './queue.js';

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

/**
 * Queues the dead letters again (all, one webhook's, or the named messages); how many messages
 * were queued. One webhook's letters in a group that failed whole are taken out of it: queued
 * alone, each its own message (`<webhookId>.<change cursor>`), and the group stays a dead letter
 * with the other webhooks' events, so a replay for one webhook sends nothing to another.
 */
export async function replayDeadLetters(
  queue: Queue<WebhookMessage>,
  filter: { webhookId?: string; messageIds?: readonly string[] } = {},
): Promise<number> {
  const letters = await listDeadLetters(queue, filter);
  const chosen = filter.messageIds
    ? letters.filter((letter) => filter.messageIds?.includes(letter.messageId))
    : letters;
  const whole: string[] = [];
  let moved = 0;
  for (const id of new Set(chosen.map((letter) => letter.messageId))) {
    if (filter.webhookId) {
      const job = await queue.getJob(id);
      if (job && 'deliveries' in job.data) {
        moved += await takeOutOfGroup(queue, job, filter.webhookId);
        continue;
      }
    }
    whole.push(id);
  }
  return moved + (await replayMessages(queue, whole));
}

/**
 * One webhook's events of a failed group queued alone, each starting its schedule anew; the
 * group keeps the rest (the whole group replayed when it holds that webhook's alone). The events
 * are queued before the group forgets them: a failure between the two sends them twice at most,
 * with their ids, never loses one.
 */
async function takeOutOfGroup(
  queue: Queue<WebhookMessage>,
  group: Job<WebhookMessage>,
  webhookId: string,
): Promise<number> {
  const deliveries = deliveriesOf(group.data);
  const rest = deliveries.filter((delivery) => delivery.webhookId !== webhookId);
  if (rest.length === 0) return replayMessages(queue, [group.id as string]);
  let queued = 0;
  for (const { event } of deliveries.filter((delivery) => delivery.webhookId === webhookId)) {
    const id = messageId(webhookId, event.data.cursor);
    // a message of that id kept from before (sent, or a dead letter) would swallow the new one
    const kept = await queue.getJob(id);
    const state = kept ? await kept.getState() : undefined;
    if (kept && state !== 'completed' && state !== 'failed') continue;
    await kept?.remove();
    await queue.add(event.type, { webhookId, event, attemptsBefore: 0 }, { jobId: id });
    queued += 1;
  }
  try {
    await group.updateData({ deliveries: rest });
  } catch (error) {
    if (!movedMeanwhile(error)) throw error;
  }
  return queued;
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
