/**
 * The key checker's memory: used only when the key store cannot be read, for keys verified
 * within `fallbackMs`, at most `maxRemembered` of them (the oldest verified go first). The
 * store is the product's FileKeyStore; "cannot be read" is its file made unreadable.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileKeyStore } from '../../src/auth/file-key-store.js';
import { createApiKey } from '../../src/auth/key-admin.js';
import { KeyChecker } from '../../src/auth/key-checker.js';

let dir: string;
let store: FileKeyStore;
const t0 = new Date('2026-04-01T09:00:00Z');
const later = (ms: number) => new Date(t0.getTime() + ms);

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'key-checker-'));
  store = new FileKeyStore(path.join(dir, 'keys.json'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** The store fails from now on: its file is no longer JSON (a new mtime makes it re-read). */
function breakStore(): void {
  writeFileSync(store.file, '{ not json');
}

async function newKey(userId: string, expiresAt?: Date): Promise<string> {
  return (await createApiKey(store, { userId, expiresAt, now: t0 })).key;
}

describe('KeyChecker', () => {
  it('answers from the store while it can be read', async () => {
    const checker = new KeyChecker(store, 60_000);
    const key = await newKey('u1');
    expect(await checker.check(key, t0)).toMatchObject({ ok: true, record: { userId: 'u1' } });
    expect(await checker.check(undefined, t0)).toEqual({ ok: false, reason: 'missing' });
    expect(await checker.check('not-a-key', t0)).toEqual({ ok: false, reason: 'unknown' });
  });

  it('store unreadable: a key verified within fallbackMs still passes, after it not', async () => {
    const checker = new KeyChecker(store, 60_000);
    const key = await newKey('u1');
    const never = await newKey('u2');
    expect((await checker.check(key, t0)).ok).toBe(true);
    breakStore();
    expect(await checker.check(key, later(60_000))).toMatchObject({ ok: true, record: { userId: 'u1' } });
    expect(await checker.check(key, later(60_001))).toEqual({ ok: false, reason: 'unavailable' });
    // never verified while the store answered: nothing to fall back on
    expect(await checker.check(never, later(1))).toEqual({ ok: false, reason: 'unavailable' });
  });

  it('store unreadable: a remembered key that has expired since is refused as expired', async () => {
    const checker = new KeyChecker(store, 60_000);
    const key = await newKey('u1', later(30_000));
    expect((await checker.check(key, t0)).ok).toBe(true);
    breakStore();
    expect((await checker.check(key, later(29_000))).ok).toBe(true);
    expect(await checker.check(key, later(31_000))).toEqual({ ok: false, reason: 'expired' });
  });

  it('remembers at most maxRemembered keys, evicting the least recently verified', async () => {
    const checker = new KeyChecker(store, 60_000, 2);
    const [a, b, c] = [await newKey('a'), await newKey('b'), await newKey('c')];
    expect((await checker.check(a, t0)).ok).toBe(true);
    expect((await checker.check(b, t0)).ok).toBe(true);
    expect((await checker.check(a, t0)).ok).toBe(true); // a is now the most recent
    expect((await checker.check(c, t0)).ok).toBe(true); // evicts b
    breakStore();
    expect((await checker.check(a, later(1))).ok).toBe(true);
    expect((await checker.check(c, later(1))).ok).toBe(true);
    expect(await checker.check(b, later(1))).toEqual({ ok: false, reason: 'unavailable' });
  });

  it('forgets a key the store no longer knows, so an outage right after cannot revive it', async () => {
    const checker = new KeyChecker(store, 60_000);
    const key = await newKey('u1');
    expect((await checker.check(key, t0)).ok).toBe(true);
    // revoked in the store: the next check sees it and drops the memory
    const [verified] = (await store.list('u1')).map((r) => r.keyId);
    expect(await store.revoke(verified as string, later(1))).toBe(true);
    expect(await checker.check(key, later(2))).toEqual({ ok: false, reason: 'revoked' });
    breakStore();
    expect(await checker.check(key, later(3))).toEqual({ ok: false, reason: 'unavailable' });
  });
});
