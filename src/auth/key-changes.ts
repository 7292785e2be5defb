/**
 * Revocations announced to every API process, so each can answer a recently verified key from
 * its own memory instead of reading Redis on every request (src/auth/key-checker.ts).
 *
 *   revoke (src/auth/redis-key-store.ts): MULTI; SET record; PUBLISH <prefix>apikeys:changed <keyId>; EXEC
 *   every API process: SUBSCRIBE <prefix>apikeys:changed -> forgets that key at once
 *
 * Pub/sub delivers at most once and only to a connected subscriber, so the memory may be
 * trusted only while nothing can have been missed:
 * - `live` is false from the moment the subscriber connection drops or a heartbeat PING is not
 *   answered within `heartbeatMs` (a stalled or half-open connection), until it answers again;
 *   while it is false every request reads Redis, as without the memory.
 * - `epoch` moves on every return to live: whatever was remembered before is no longer fresh.
 * A PING answered on the subscriber connection comes after every message published before it,
 * so while live, a revocation reaches this process within about one heartbeat.
 */
import type { Redis } from 'ioredis';

export interface KeyChanges {
  /** True while every change published reaches this process. */
  readonly live: boolean;
  /** Moves whenever changes may have been missed; memory from an older epoch is stale. */
  readonly epoch: number;
  onChange(listener: (keyId: string) => void): void;
  close(): void;
}

export function keyChangesChannel(prefix: string): string {
  return `${prefix}apikeys:changed`;
}

export class RedisKeyChanges implements KeyChanges {
  live = false;
  epoch = 0;
  private readonly subscriber: Redis;
  private readonly listeners: Array<(keyId: string) => void> = [];
  private readonly heartbeat: NodeJS.Timeout;
  private subscribed = false;
  private beating = false;
  private closed = false;

  constructor(
    redis: Redis,
    prefix: string,
    private readonly heartbeatMs = 500,
  ) {
    const channel = keyChangesChannel(prefix);
    // its own connection: a subscribed connection can run no other command but PING
    this.subscriber = redis.duplicate({ connectionName: `${prefix}apikey-changes` });
    this.subscriber.on('error', () => {}); // the API connection reports Redis errors; here only `live` matters
    this.subscriber.on('ready', () => {
      this.subscriber
        .subscribe(channel)
        .then(() => {
          this.subscribed = true;
          this.goLive();
        })
        .catch(() => this.goStale());
    });
    for (const event of ['close', 'reconnecting', 'end'] as const)
      this.subscriber.on(event, () => {
        this.subscribed = false;
        this.goStale();
      });
    this.subscriber.on('message', (from: string, keyId: string) => {
      if (from !== channel) return;
      for (const listener of this.listeners) listener(keyId);
    });
    this.heartbeat = setInterval(() => void this.beat(), heartbeatMs);
    this.heartbeat.unref();
  }

  onChange(listener: (keyId: string) => void): void {
    this.listeners.push(listener);
  }

  close(): void {
    this.closed = true;
    clearInterval(this.heartbeat);
    this.goStale();
    this.subscriber.disconnect();
  }

  private goLive(): void {
    if (this.live || this.closed) return;
    this.epoch++;
    this.live = true;
  }

  private goStale(): void {
    this.live = false;
  }

  private async beat(): Promise<void> {
    if (this.beating || !this.subscribed || this.closed) {
      if (!this.subscribed) this.goStale();
      return;
    }
    this.beating = true;
    let timer: NodeJS.Timeout | undefined;
    try {
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('late')), this.heartbeatMs);
      });
      await Promise.race([this.subscriber.ping(), late]);
      this.goLive();
    } catch {
      this.goStale();
    } finally {
      clearTimeout(timer);
      this.beating = false;
    }
  }
}
