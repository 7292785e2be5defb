/**
 * A thread's CPU priority (Linux nice, 0-19): the webhook deliveries' thread (./thread.ts)
 * lowers its own, so that on a host it shares with the indexer and the engine the deliveries
 * take the cores only when those two leave them (docs/bench.md, "The deliveries on a thread at
 * nice 10"). Linux keeps a nice value per thread: a thread's own id is read from
 * /proc/thread-self, and only that thread is lowered (libuv's pool and V8's helper threads serve
 * the whole process and keep its priority). Lowering a priority needs no privilege; raising it
 * again does, so this only ever lowers.
 *
 *   lowerThreadPriority(10)   // { threadId: 48213, nice: 10 }, or null where /proc lacks it
 */
import { readlinkSync } from 'node:fs';
import os from 'node:os';

export interface ThreadPriority {
  /** the kernel's id of this thread (a task of /proc/<pid>/task) */
  threadId: number;
  /** its nice value now */
  nice: number;
}

/** This thread's kernel id, from /proc/thread-self (`<pid>/task/<tid>`); null off Linux. */
export function currentThreadId(): number | null {
  try {
    const id = Number(readlinkSync('/proc/thread-self').split('/').pop());
    return Number.isInteger(id) && id > 0 ? id : null;
  } catch {
    return null;
  }
}

/**
 * Sets this thread's nice value to `nice` unless it is already that low or lower; null where
 * the thread's id cannot be read (the priority is left as it is).
 */
export function lowerThreadPriority(nice: number): ThreadPriority | null {
  const threadId = currentThreadId();
  if (threadId === null) return null;
  if (os.getPriority(threadId) < nice) os.setPriority(threadId, nice);
  return { threadId, nice: os.getPriority(threadId) };
}
