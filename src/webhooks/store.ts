/**
 * Webhooks: a user's subscriptions of a watched saved search to an HTTPS URL, in Redis beside
 * the saved searches (docs/webhooks.md):
 *
 *   <prefix>webhook:<id>               JSON: id, userId, savedSearchId, url, events, createdAt
 *   <prefix>webhook-secrets:<id>       hash: current, previous, previousUntil (epoch ms)
 *   <prefix>webhook-cursor:<id>        the id of the last change of its saved search queued for it
 *   <prefix>webhook-log:<id>           list, newest first: its last 1,000 delivery attempts
 *   <prefix>webhook-disabled:<id>      hash: at, reason (the receiver answered 410 Gone)
 *   <prefix>webhooks-of:<userId>       set of the user's webhook ids (the per-user cap)
 *   <prefix>ss-webhooks:<savedSearchId> set of the webhook ids on a saved search
 *   <prefix>webhooks                   set of every webhook id (the dispatcher's sweep)
 *   <prefix>webhooks-enabled           set of the webhook ids enabled again since the dispatcher's
 *                                      last round (it replays their dead letters, then sends on)
 *
 * A webhook starts at its saved search's newest change: it is sent what is found after it was
 * created. The create (with the cap) and the rotation are one script each, so they hold under
 * concurrent calls.
 */
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';

export const webhookEventTypes = [
  'company.entered',
  'company.left',
  'company.changed',
  'job.entered',
  'job.left',
  'job.changed',
] as const;
export type WebhookEventType = (typeof webhookEventTypes)[number];

/** A webhook as its owner sees it (never its secret, but when created or rotated). */
export interface Webhook {
  id: string;
  savedSearchId: string;
  url: string;
  events: WebhookEventType[];
  createdAt: string;
  /** when the current secret was made (at creation, or the last rotation) */
  secretCreatedAt: string;
  /** when the receiver's 410 Gone disabled it: nothing more is sent; null while it is active */
  disabledAt: string | null;
  disabledReason: string | null;
}

/** One delivery attempt, as the webhook's delivery log keeps it. */
export interface DeliveryLogEntry {
  eventId: string;
  eventType: string;
  attempt: number;
  /** delivered; failed (retried later); gave up (the last attempt failed: a dead letter) */
  outcome: 'delivered' | 'failed' | 'gave up';
  /** the receiver's status code; null when it answered none (timeout, refused, unreachable) */
  statusCode: number | null;
  /** why it failed, in a few fixed words; null when delivered */
  error: string | null;
  at: string;
  durationMs: number;
}

/** Attempts kept in a webhook's delivery log. */
const logLength = 1000;

interface StoredWebhook extends Omit<Webhook, 'disabledAt' | 'disabledReason'> {
  userId: string;
}

/** A stored webhook with its disabled state (kept in its own key, so a rotation never rewrites it). */
type LoadedWebhook = StoredWebhook & Pick<Webhook, 'disabledAt' | 'disabledReason'>;

/** Ids: `wh_` and 20 hex characters (80 random bits). */
export const webhookIdPattern = /^wh_[0-9a-f]{20}$/;

/** How long the previous secret still signs after a rotation. */
export const previousSecretGraceMs = 24 * 60 * 60 * 1000;

function newSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

/**
 * KEYS: webhook, secrets, cursor, user's set, saved search's set, all, the saved search's changes.
 * ARGV: id, JSON, secret, cap. 0 at the cap, else 1; the cursor starts at the newest change.
 */
const createScript = `
if redis.call('SCARD', KEYS[4]) >= tonumber(ARGV[4]) then return 0 end
redis.call('SET', KEYS[1], ARGV[2])
redis.call('HSET', KEYS[2], 'current', ARGV[3])
local newest = redis.call('XREVRANGE', KEYS[7], '+', '-', 'COUNT', 1)
local cursor = '0-0'
if newest[1] then cursor = newest[1][1] end
redis.call('SET', KEYS[3], cursor)
redis.call('SADD', KEYS[4], ARGV[1])
redis.call('SADD', KEYS[5], ARGV[1])
redis.call('SADD', KEYS[6], ARGV[1])
return 1
`;

/** KEYS: secrets. ARGV: new secret, previous valid until (ms). 0 when the webhook is gone. */
const rotateScript = `
local current = redis.call('HGET', KEYS[1], 'current')
if not current then return 0 end
redis.call('HSET', KEYS[1], 'current', ARGV[1], 'previous', current, 'previousUntil', ARGV[2])
return 1
`;

// KEYS: disabled hash; ARGV: at, reason. The first disabling's time and reason stay.
const disableScript = `
if redis.call('EXISTS', KEYS[1]) == 0 then redis.call('HSET', KEYS[1], 'at', ARGV[1], 'reason', ARGV[2]) end
return 1
`;

/** The replies of a pipeline or MULTI, in order; the first failed command's error thrown. */
export function repliesOf(results: Array<[Error | null, unknown]> | null): unknown[] {
  if (!results) throw new Error('the Redis transaction was aborted');
  return results.map(([error, reply]) => {
    if (error) throw error;
    return reply;
  });
}

export class WebhookStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  private keys(id: string) {
    return {
      webhook: `${this.prefix}webhook:${id}`,
      secrets: `${this.prefix}webhook-secrets:${id}`,
      cursor: `${this.prefix}webhook-cursor:${id}`,
      log: `${this.prefix}webhook-log:${id}`,
      disabled: `${this.prefix}webhook-disabled:${id}`,
    };
  }

  private userSet(userId: string): string {
    return `${this.prefix}webhooks-of:${userId}`;
  }

  savedSearchSet(savedSearchId: string): string {
    return `${this.prefix}ss-webhooks:${savedSearchId}`;
  }

  get allSet(): string {
    return `${this.prefix}webhooks`;
  }

  cursorKey(id: string): string {
    return this.keys(id).cursor;
  }

  /** The new webhook with its secret, or null when the user keeps `cap` already. */
  async create(
    userId: string,
    entry: Pick<Webhook, 'savedSearchId' | 'url' | 'events'>,
    cap: number,
    now = new Date(),
  ): Promise<(Webhook & { secret: string }) | null> {
    const id = `wh_${randomBytes(10).toString('hex')}`;
    const stored: StoredWebhook = {
      id,
      savedSearchId: entry.savedSearchId,
      url: entry.url,
      events: entry.events,
      createdAt: now.toISOString(),
      secretCreatedAt: now.toISOString(),
      userId,
    };
    const secret = newSecret();
    const keys = this.keys(id);
    const written = await this.redis.eval(
      createScript,
      7,
      keys.webhook,
      keys.secrets,
      keys.cursor,
      this.userSet(userId),
      this.savedSearchSet(entry.savedSearchId),
      this.allSet,
      `${this.prefix}ss-changes:${entry.savedSearchId}`,
      id,
      JSON.stringify(stored),
      secret,
      cap,
    );
    return written === 1
      ? { ...publicView({ ...stored, disabledAt: null, disabledReason: null }), secret }
      : null;
  }

  /** Any user's webhook (the worker's view); undefined when deleted. */
  async load(id: string): Promise<(Webhook & { userId: string }) | undefined> {
    if (!webhookIdPattern.test(id)) return undefined;
    const keys = this.keys(id);
    const [[, text], [, disabled]] = (await this.redis
      .multi()
      .get(keys.webhook)
      .hgetall(keys.disabled)
      .exec()) as [[unknown, string | null], [unknown, Record<string, string>]];
    if (text === null) return undefined;
    return { ...(JSON.parse(text) as StoredWebhook), ...disabledState(disabled) };
  }

  /**
   * Many webhooks with their disabled state (as `load`) and their dispatch cursors, in one
   * round trip (the dispatcher's, ./dispatcher.ts); undefined for one deleted.
   */
  async loadMany(
    ids: readonly string[],
  ): Promise<Array<{ webhook: Webhook & { userId: string }; cursor: string | null } | undefined>> {
    const valid = ids.filter((id) => webhookIdPattern.test(id));
    const read = this.redis.multi();
    for (const id of valid) {
      const keys = this.keys(id);
      read.get(keys.webhook).hgetall(keys.disabled).get(keys.cursor);
    }
    const replies = valid.length === 0 ? [] : repliesOf(await read.exec());
    const byId = new Map<string, { webhook: Webhook & { userId: string }; cursor: string | null }>();
    valid.forEach((id, at) => {
      const text = replies[at * 3] as string | null;
      if (text === null) return;
      byId.set(id, {
        webhook: {
          ...(JSON.parse(text) as StoredWebhook),
          ...disabledState(replies[at * 3 + 1] as Record<string, string>),
        },
        cursor: replies[at * 3 + 2] as string | null,
      });
    });
    return ids.map((id) => byId.get(id));
  }

  /**
   * Disables a webhook whose receiver answered 410 Gone: nothing more is queued or sent for
   * it (its cursor stays where it was). The first reason stays. False when it is gone.
   */
  async disable(id: string, reason: string, now = new Date()): Promise<boolean> {
    const keys = this.keys(id);
    if ((await this.redis.exists(keys.webhook)) === 0) return false;
    // one script: an enable between two writes would leave a reason without its time
    await this.redis.eval(disableScript, 1, keys.disabled, now.toISOString(), reason);
    return true;
  }

  /** The set of webhooks enabled again, for the dispatcher (./dispatcher.ts `resumeEnabled`). */
  get enabledSet(): string {
    return `${this.prefix}webhooks-enabled`;
  }

  /**
   * Enables the user's webhook a 410 Gone disabled: its disabled state is removed and the
   * dispatcher is told (`enabledSet`), which replays its dead letters and sends the changes
   * after its cursor. An active webhook is answered as it is. Undefined when not theirs.
   */
  async enable(userId: string, id: string): Promise<Webhook | undefined> {
    const stored = await this.load(id);
    if (!stored || stored.userId !== userId) return undefined;
    if (!stored.disabledAt) return publicView(stored);
    await this.redis.multi().del(this.keys(id).disabled).sadd(this.enabledSet, id).exec();
    return publicView({ ...stored, disabledAt: null, disabledReason: null });
  }

  /** The user's webhook; undefined for an unknown id or another user's. */
  async get(userId: string, id: string): Promise<Webhook | undefined> {
    const stored = await this.load(id);
    return stored && stored.userId === userId ? publicView(stored) : undefined;
  }

  /** The user's webhooks, newest first (ties by id). */
  async list(userId: string): Promise<Webhook[]> {
    const ids = await this.redis.smembers(this.userSet(userId));
    if (ids.length === 0) return [];
    const loaded = await Promise.all(ids.map((id) => this.load(id)));
    return loaded
      .flatMap((webhook) => (webhook ? [publicView(webhook)] : []))
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt) || a.id.localeCompare(b.id));
  }

  /** The ids of the webhooks on a saved search. */
  async onSavedSearch(savedSearchId: string): Promise<string[]> {
    return this.redis.smembers(this.savedSearchSet(savedSearchId));
  }

  /** The ids of the webhooks on any of the saved searches, each once, in one round trip. */
  async onSavedSearches(savedSearchIds: readonly string[]): Promise<string[]> {
    if (savedSearchIds.length === 0) return [];
    const read = this.redis.pipeline();
    for (const id of savedSearchIds) read.smembers(this.savedSearchSet(id));
    return [...new Set((repliesOf(await read.exec()) as string[][]).flat())];
  }

  /**
   * What one delivery needs, in one round trip (the worker's, ./worker.ts): the webhook with
   * its disabled state (as `load`) and the secrets that sign at `now`: the current one, and
   * the previous one within its grace day.
   * undefined when the webhook is gone.
   */
  async loadForDelivery(
    id: string,
    now = new Date(),
  ): Promise<{ webhook: Webhook & { userId: string }; secrets: string[] } | undefined> {
    return (await this.loadManyForDelivery([id], now)).get(id);
  }

  /** `loadForDelivery` for many webhooks in one round trip; a deleted one is not in the map. */
  async loadManyForDelivery(
    ids: readonly string[],
    now = new Date(),
  ): Promise<Map<string, { webhook: Webhook & { userId: string }; secrets: string[] }>> {
    const valid = [...new Set(ids)].filter((id) => webhookIdPattern.test(id));
    const loaded = new Map<string, { webhook: Webhook & { userId: string }; secrets: string[] }>();
    if (valid.length === 0) return loaded;
    const read = this.redis.multi();
    for (const id of valid) {
      const keys = this.keys(id);
      read.get(keys.webhook).hgetall(keys.disabled).hgetall(keys.secrets);
    }
    const replies = repliesOf(await read.exec());
    valid.forEach((id, at) => {
      const text = replies[at * 3] as string | null;
      if (text === null) return;
      const disabled = replies[at * 3 + 1] as Record<string, string>;
      const secrets = replies[at * 3 + 2] as Record<string, string>;
      loaded.set(id, {
        webhook: { ...(JSON.parse(text) as StoredWebhook), ...disabledState(disabled) },
        secrets: secretsAt(secrets, now),
      });
    });
    return loaded;
  }

  /** A new secret for the user's webhook (the previous one signs beside it for a day); undefined when not theirs. */
  async rotate(
    userId: string,
    id: string,
    now = new Date(),
  ): Promise<(Webhook & { secret: string }) | undefined> {
    const stored = await this.load(id);
    if (!stored || stored.userId !== userId) return undefined;
    const secret = newSecret();
    const rotated = await this.redis.eval(
      rotateScript,
      1,
      this.keys(id).secrets,
      secret,
      now.getTime() + previousSecretGraceMs,
    );
    if (rotated !== 1) return undefined;
    const { disabledAt, disabledReason, ...kept } = stored;
    const updated: StoredWebhook = { ...kept, secretCreatedAt: now.toISOString() };
    await this.redis.set(this.keys(id).webhook, JSON.stringify(updated), 'XX');
    return { ...publicView({ ...updated, disabledAt, disabledReason }), secret };
  }

  /** Adds an attempt to the webhook's delivery log (its newest `logLength` kept). */
  async logAttempt(id: string, entry: DeliveryLogEntry): Promise<void> {
    await this.logAttempts(new Map([[id, [entry]]]));
  }

  /** Adds attempts to each webhook's delivery log, in their order, in one round trip. */
  async logAttempts(byWebhook: ReadonlyMap<string, readonly DeliveryLogEntry[]>): Promise<void> {
    const write = this.redis.multi();
    let any = false;
    for (const [id, entries] of byWebhook) {
      if (entries.length === 0) continue;
      const key = this.keys(id).log;
      write.lpush(key, ...entries.map((entry) => JSON.stringify(entry))).ltrim(key, 0, logLength - 1);
      any = true;
    }
    if (any) repliesOf(await write.exec());
  }

  /** The newest `limit` attempts of its delivery log, newest first. */
  async deliveries(id: string, limit: number): Promise<DeliveryLogEntry[]> {
    const texts = await this.redis.lrange(this.keys(id).log, 0, limit - 1);
    return texts.map((text) => JSON.parse(text) as DeliveryLogEntry);
  }

  /** Removes the user's webhook and its state; false when the user has none of that id. */
  async delete(userId: string, id: string): Promise<boolean> {
    const stored = await this.load(id);
    if (!stored || stored.userId !== userId) return false;
    await this.remove(stored);
    return true;
  }

  /** Removes every webhook on a saved search (the saved search was deleted). */
  async deleteForSavedSearch(savedSearchId: string): Promise<void> {
    for (const id of await this.onSavedSearch(savedSearchId)) {
      const stored = await this.load(id);
      if (stored) await this.remove(stored);
    }
    await this.redis.del(this.savedSearchSet(savedSearchId));
  }

  private async remove(stored: StoredWebhook): Promise<void> {
    const keys = this.keys(stored.id);
    await this.redis
      .multi()
      .del(keys.webhook, keys.secrets, keys.cursor, keys.log, keys.disabled)
      .srem(this.userSet(stored.userId), stored.id)
      .srem(this.savedSearchSet(stored.savedSearchId), stored.id)
      .srem(this.allSet, stored.id)
      .srem(this.enabledSet, stored.id)
      .exec();
  }
}

function publicView(stored: LoadedWebhook): Webhook {
  const { userId: _userId, ...webhook } = stored;
  return webhook;
}

function disabledState(hash: Record<string, string>): Pick<Webhook, 'disabledAt' | 'disabledReason'> {
  return { disabledAt: hash.at ?? null, disabledReason: hash.reason ?? null };
}

/** The secrets of a secrets hash that sign at `now`: the current, and the previous within its grace. */
function secretsAt(hash: Record<string, string>, now: Date): string[] {
  const { current, previous, previousUntil } = hash;
  if (!current) return [];
  const stillValid = previous && Number(previousUntil) > now.getTime();
  return stillValid ? [current, previous] : [current];
}
