/**
 * Redis connections, from REDIS_URL in either of its forms:
 *
 *   redis://127.0.0.1:6379                                 one server
 *   redis-sentinel://127.0.0.1:26379,127.0.0.1:26380/corpsearch
 *                                                          the primary that the Sentinels
 *                                                          name `corpsearch` (docs/credits.md)
 *
 * With Sentinels, ioredis asks them for the primary, reconnects to the new one when they fail
 * over (`failoverDetector`: told by their `+switch-master`), and never writes to a replica.
 * `createRedis` is the API's connection (keys, rate limits, credits, Idempotency-Key records),
 * failing fast while Redis is away; `connectRedis` any other (BullMQ's, the CLIs').
 */
import { Redis, type RedisOptions } from 'ioredis';
import { sentinelTarget } from './config/redis-url.js';
import { metrics } from './metrics.js';

/** A connection to the Redis REDIS_URL names, with `options` (the server's, or the primary's). */
export function connectRedis(url: string, options: RedisOptions = {}): Redis {
  const target = sentinelTarget(url);
  if (!target) return new Redis(url, options);
  return new Redis({
    ...options,
    sentinels: target.sentinels,
    name: target.name,
    ...(target.username ? { username: target.username, sentinelUsername: target.username } : {}),
    ...(target.password ? { password: target.password, sentinelPassword: target.password } : {}),
    failoverDetector: true,
  });
}

/**
 * Counts the times `redis` connects to another server than the one before: with Sentinels, a
 * failover (`corpsearch_redis_primary_changes_total`).
 */
function countPrimaryChanges(redis: Redis): Redis {
  let last: string | undefined;
  redis.on('ready', () => {
    const socket = redis.stream as { remoteAddress?: string; remotePort?: number } | undefined;
    const now = socket?.remoteAddress ? `${socket.remoteAddress}:${socket.remotePort}` : undefined;
    if (now && last && now !== last) metrics.redisPrimaryChanges.inc();
    if (now) last = now;
  });
  return redis;
}

export function createRedis(url: string): Redis {
  return countPrimaryChanges(
    connectRedis(url, {
      // fail fast instead of queueing commands while Redis is away (searches fail closed)
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      connectTimeout: 2000,
      commandTimeout: 2000,
      retryStrategy: (times) => Math.min(times * 200, 2000),
    }),
  );
}

/** What a request holding the connection busy calls when it is done (once is enough). */
export type LeaveBusy = () => void;

const busyByConnection = new WeakMap<Redis, { enter(): LeaveBusy }>();

/**
 * The API connection's commands batched only while the process has more than one charged
 * request in flight: ioredis's auto-pipelining (read per command from `options`) gathers the
 * commands of one turn of the event loop into one write, one system call and one wake-up of
 * redis-server for several requests, but makes each command wait for the end of its turn,
 * which a lone request pays for nothing (docs/bench.md, "Redis commands batched while busy").
 *
 *   const busy = batchWhileBusy(redis);
 *   const leave = busy.enter(); ... res.once('close', leave);
 */
export function batchWhileBusy(redis: Redis): { enter(): LeaveBusy } {
  // one count per connection, however many apps share it (the tests' do)
  const known = busyByConnection.get(redis);
  if (known) return known;
  let inFlight = 0;
  const batch = (on: boolean) => {
    if (redis.options.enableAutoPipelining !== on) redis.options.enableAutoPipelining = on;
  };
  const busy = {
    enter: () => {
      inFlight += 1;
      batch(inFlight > 1);
      let left = false;
      return () => {
        if (left) return;
        left = true;
        inFlight -= 1;
        batch(inFlight > 1);
      };
    },
  };
  busyByConnection.set(redis, busy);
  return busy;
}
