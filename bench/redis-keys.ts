/**
 * Deletes a bench's keys from Redis, found by SCAN and deleted a thousand at a time: a run at
 * 1,000,000 postings and 10,000 watched searches leaves about 200,000 keys, too many for one
 * DEL (or one call's arguments).
 *
 *   await deleteKeys(redis, 'bench-hooks-*')   // -> 201744
 */
import type { Redis } from 'ioredis';

export async function deleteKeys(redis: Redis, pattern: string): Promise<number> {
  let deleted = 0;
  const stream = redis.scanStream({ match: pattern, count: 1000 });
  for await (const keys of stream as AsyncIterable<string[]>) {
    if (keys.length === 0) continue;
    deleted += await redis.unlink(...keys);
  }
  return deleted;
}
