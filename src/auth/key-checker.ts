/**
 * Checks presented keys against the store, remembering the keys it verified recently. The
 * memory is used only when the store cannot be reached (Redis away): then a key verified in
 * the last `fallbackMs` still opens the routes that need no Redis (the masters; docs/decisions.md, "Rate limits and credits");
 * everything else gets 503. While the store answers, every request is checked against it, so
 * a revocation takes effect on the next request.
 */
import { type Deadline, withinRedisBudget } from '../deadline.js';
import { hashApiKey, looksLikeApiKey } from './key-material.js';
import { type ApiKeyRecord, type KeyStore, keyState } from './key-store.js';

export type Authentication =
  | { ok: true; record: ApiKeyRecord }
  | { ok: false; reason: 'missing' | 'unknown' | 'expired' | 'revoked' | 'unavailable' };

export class KeyChecker {
  private readonly verified = new Map<string, { record: ApiKeyRecord; at: number }>();

  constructor(
    private readonly store: KeyStore,
    private readonly fallbackMs = 15 * 60_000,
    private readonly maxRemembered = 10_000,
    private readonly recentMs = 60_000,
  ) {}

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
    const remembered =
      presented && looksLikeApiKey(presented) ? this.verified.get(hashApiKey(presented)) : undefined;
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

  /** `deadline`: the store lookup waits at most the request's Redis budget (src/deadline.ts). */
  async check(presented: string | undefined, now = new Date(), deadline?: Deadline): Promise<Authentication> {
    if (!presented) return { ok: false, reason: 'missing' };
    if (!looksLikeApiKey(presented)) return { ok: false, reason: 'unknown' };
    const keyHash = hashApiKey(presented);
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
    this.remember(keyHash, record, now);
    return { ok: true, record };
  }

  private fromMemory(keyHash: string, now: Date): Authentication {
    const remembered = this.verified.get(keyHash);
    if (!remembered || now.getTime() - remembered.at > this.fallbackMs)
      return { ok: false, reason: 'unavailable' };
    const state = keyState(remembered.record, now);
    return state === 'active' ? { ok: true, record: remembered.record } : { ok: false, reason: state };
  }

  private remember(keyHash: string, record: ApiKeyRecord, now: Date): void {
    // Map keeps insertion order: re-inserting moves a key to the end, the oldest go first
    this.verified.delete(keyHash);
    this.verified.set(keyHash, { record, at: now.getTime() });
    if (this.verified.size > this.maxRemembered) {
      const oldest = this.verified.keys().next().value;
      if (oldest !== undefined) this.verified.delete(oldest);
    }
  }
}
