/**
 * Tests whose data sits relative to the engine's own clock (the detail-text window
 * `now-1M/d`, Japan days: src/search/compile-kinds.ts) cannot pin that clock. Data placed at
 * 23:59 in Japan and searched at 00:00 would meet a window one day later. Such a file waits
 * past the Japan midnight first when it is near: a bounded wait, at most `marginMs`, and only
 * in those minutes of the day.
 */
import { setTimeout as sleep } from 'node:timers/promises';

const dayMs = 86_400_000;
const japanOffsetMs = 9 * 3_600_000;

/** Milliseconds from `nowMs` to the next 00:00:00 in Japan (15:00:00Z); a full day at midnight itself. */
export function msToJapanMidnight(nowMs: number): number {
  return dayMs - ((nowMs + japanOffsetMs) % dayMs);
}

/** Waits until one second past the next 00:00 in Japan if it is less than `marginMs` away. */
export async function clearOfJapanMidnight(marginMs: number, now: () => number = Date.now): Promise<number> {
  const left = msToJapanMidnight(now());
  if (left >= marginMs) return 0;
  console.log(`[japan day] ${Math.ceil(left / 1000)} s to 00:00 in Japan: waiting past it`);
  await sleep(left + 1000);
  return left + 1000;
}
