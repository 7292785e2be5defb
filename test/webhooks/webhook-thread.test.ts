/**
 * The worker's webhook thread (src/webhooks/thread.ts) runs at WEBHOOK_NICE and leaves the rest
 * of the process at its priority: the nice values read back from the kernel (/proc), per thread.
 * Delivery through the thread is shown by test/webhooks/webhooks-worker-kill.test.ts, which
 * runs the real worker.
 */
import { readFileSync } from 'node:fs';
import { expect, inject, it } from 'vitest';
import { defaultConfig } from '../../src/config.js';
import { currentThreadId } from '../../src/webhooks/cpu-priority.js';
import { startWebhookThread } from '../../src/webhooks/thread.js';

/** A thread's nice value as the kernel keeps it (field 19 of its stat line). */
function niceOf(threadId: number): number {
  const stat = readFileSync(`/proc/self/task/${threadId}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
}

async function withThread(nice: number, check: (threadId: number) => void): Promise<void> {
  const thread = await startWebhookThread(
    {
      redisUrl: inject('redisUrl'),
      redisPrefix: `thread-${nice}:`,
      config: { ...defaultConfig().webhooks, nice },
      logLevel: 'silent',
    },
    (error) => {
      throw error;
    },
  );
  try {
    expect(thread.priority?.nice).toBe(nice === 0 ? niceOf(currentThreadId() as number) : nice);
    check(thread.priority?.threadId as number);
  } finally {
    await thread.close();
  }
}

it('the deliveries run at WEBHOOK_NICE, the thread that started them at its own priority', async () => {
  const main = currentThreadId() as number;
  const before = niceOf(main);
  expect(before).toBeLessThan(7);
  await withThread(7, (threadId) => {
    expect(threadId).not.toBe(main);
    expect(niceOf(threadId)).toBe(7);
    expect(niceOf(main)).toBe(before);
  });
});

it('WEBHOOK_NICE=0 keeps the process priority on the thread', async () => {
  const before = niceOf(currentThreadId() as number);
  await withThread(0, (threadId) => expect(niceOf(threadId)).toBe(before));
});

it('a thread that cannot start fails the start with its reason', async () => {
  await expect(
    startWebhookThread(
      {
        redisUrl: inject('redisUrl'),
        redisPrefix: 'thread-refused:',
        // BullMQ refuses a worker with no concurrency as it is built
        config: { ...defaultConfig().webhooks, concurrency: 0 },
        logLevel: 'silent',
      },
      () => undefined,
    ),
  ).rejects.toThrow(/concurrency/);
});
