/**
 * Checks presented keys against the store, remembering the keys it verified recently.
 *
 * - With `cache` (Redis mode: revocations are announced on pub/sub, src/auth/key-changes.ts),
 *   a key verified within `cache.freshMs` is answered from memory while the announcements
 *   reach this process (`changes.live`), so most requests need no Redis round trip for their
 *   key; a revocation (announced) or a lost subscriber (not live) ends that at once.
 * - Without it, every request is checked against the store, so a revocation takes effect on
 *   the next request.
 * - Either way, when the store cannot be reached (Redis away) a key verified in the last
 *   `fallbackMs` still opens the routes that need no Redis (the masters;
 *   docs/decisions/api-keys.md); everything else gets 503.
 */
import { type Deadline, withinRedisBudget } from '../deadline.js';
import type { KeyChanges } from './key-changes.js';
import { hashApiKey, looksLikeApiKey } from './key-material.js';
import { type ApiKeyRecord, type KeyStore, keyState } from './key-store.js';

export type Authentication =
  | { ok: true; record: ApiKeyRecord }
  | { ok: false; reason: 'missing' | 'unknown' | 'expired' | 'revoked' | 'unavailable' };

export class KeyChecker {
  private readonly verified = new Map<string, { record: ApiKeyRecord; at: number; epoch: number }>();
  /** Announcements received: a lookup that overlapped one may have read a record just revoked. */
  private changesSeen = 0;

  constructor(
    private readonly store: KeyStore,
    private readonly fallbackMs = 15 * 60_000,
    private readonly maxRemembered = 10_000,
    private readonly recentMs = 60_000,
    private readonly cache?: { changes: KeyChanges; freshMs: number },
  ) {
    cache?.changes.onChange((keyId) => {
      this.changesSeen++;
      for (const [keyHash, entry] of this.verified)
        if (entry.record.keyId === keyId) this.verified.delete(keyHash);
    });
  }

  /**
   * For the masters: a key verified within `recentMs` waits at most `waitMs` for the store;
   * if the store is slower (a stalled Redis), the remembered record answers and the lookup
   * finishes in the background (updating or dropping the memory). While the store is well it
   * answers within the wait, so a revocation still takes effect on the next request.
   */
  async checkPreferringMemory(
    presented: string | undefined,
    waitMs: number,
    deadline?: Deadline,
    now = new Date(),
  ): Promise<Authentication> {
    if (!presented || !looksLikeApiKey(presented)) return this.check(presented, now, deadline);
    const keyHash = hashApiKey(presented);
    // a key the memory may answer for (announcements live) needs no timer and no race
    const fresh = this.fresh(keyHash, now);
    if (fresh) return fresh;
    const remembered = this.verified.get(keyHash);
    if (
      !remembered ||
      now.getTime() - remembered.at > this.recentMs ||
      keyState(remembered.record, now) !== 'active'
    )
      return this.check(presented, now, deadline);
    const lookup = this.check(presented, now, deadline);
    let timer: NodeJS.Timeout | undefined;
    const fromMemory = new Promise<Authentication>((resolve) => {
      timer = setTimeout(() => resolve({ ok: true, record: remembered.record }), waitMs);
    });
    try {
      return await Promise.race([lookup, fromMemory]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * The record of a key the memory may answer for now (verified within `cache.freshMs`, no
   * announcement missed), without a store lookup; undefined for any other key, which then
   * takes `check` or `checkPreferringMemory`. The masters' path before the router uses it
   * (src/http/masters-fast-path.ts): the same answer `check` gives such a key, synchronously.
   */
  rememberedNow(presented: string | undefined, now = new Date()): ApiKeyRecord | undefined {
    if (!presented || !this.cache?.changes.live || !looksLikeApiKey(presented)) return undefined;
    const fresh = this.fresh(hashApiKey(presented), now);
    return fresh?.ok ? fresh.record : undefined;
  }

  /** `deadline`: the store lookup waits at most the request's Redis budget (src/deadline.ts). */
  async check(presented: string | undefined, now = new Date(), deadline?: Deadline): Promise<Authentication> {
    if (!presented) return { ok: false, reason: 'missing' };
    if (!looksLikeApiKey(presented)) return { ok: false, reason: 'unknown' };
    const keyHash = hashApiKey(presented);
    const fresh = this.fresh(keyHash, now);
    if (fresh) return fresh;
    const before = { epoch: this.cache?.changes.epoch ?? 0, changesSeen: this.changesSeen };
    let record: ApiKeyRecord | undefined;
    try {
      record = await withinRedisBudget(deadline, 'key lookup', () => this.store.findByHash(keyHash));
    } catch {
      return this.fromMemory(keyHash, now);
    }
    if (!record) {
      this.verified.delete(keyHash);
      return { ok: false, reason: 'unknown' };
    }
    const state = keyState(record, now);
    if (state !== 'active') {
      this.verified.delete(keyHash);
      return { ok: false, reason: state };
    }
    // fresh only if no announcement arrived and no reconnect happened while the store was read
    const unchanged = before.epoch === this.cache?.changes.epoch && before.changesSeen === this.changesSeen;
    this.remember(keyHash, record, now, unchanged ? before.epoch : -1);
    return { ok: true, record };
  }

  /** A key verified within `cache.freshMs`, while no announced revocation can have been missed. */
  private fresh(keyHash: string, now: Date): Authentication | undefined {
    if (!this.cache?.changes.live || this.cache.freshMs <= 0) return undefined;
    const remembered = this.verified.get(keyHash);
    if (
      !remembered ||
      remembered.epoch !== this.cache.changes.epoch ||
      now.getTime() - remembered.at > this.cache.freshMs ||
      keyState(remembered.record, now) !== 'active'
    )
      return undefined;
    return { ok: true, record: remembered.record };
  }

  private fromMemory(keyHash: string, now: Date): Authentication {
    const remembered = this.verified.get(keyHash);
    if (!remembered || now.getTime() - remembered.at > this.fallbackMs)
      return { ok: false, reason: 'unavailable' };
    const state = keyState(remembered.record, now);
    return state === 'active' ? { ok: true, record: remembered.record } : { ok: false, reason: state };
  }

  private remember(keyHash: string, record: ApiKeyRecord, now: Date, epoch: number): void {
    // Map keeps insertion order: re-inserting moves a key to the end, the oldest go first
    this.verified.delete(keyHash);
    this.verified.set(keyHash, { record, at: now.getTime(), epoch });
    if (this.verified.size > this.maxRemembered) {
      const oldest = this.verified.keys().next().value;
      if (oldest !== undefined) this.verified.delete(oldest);
    }
  }
}
