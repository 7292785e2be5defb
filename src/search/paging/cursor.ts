/**
 * Cursor tokens: opaque and tamper-proof. The state (whose cursor, of which search, where the
 * next page starts: the engine's point-in-time id and the last record's sort values) is
 * encrypted with AES-256-GCM (node:crypto), so a caller can neither read it (the PIT id names
 * the index, its UUID and the node) nor change it, move it to another user or search, or
 * point it at another PIT.
 *
 *   token = base64url( version 2 | key id | 12-byte IV | ciphertext | 16-byte tag )
 *   plaintext = { u: 'alice', q: '3f9a…', p: '<pit id>', a: [1714000000000, 'job-77'], n: 50, e: 1763800000 }
 *
 * Keys rotate with a grace period (CURSOR_KEYS, src/config.ts): the first key encrypts, every
 * configured key decrypts, chosen by the id byte, which is also authenticated (GCM's
 * additional data). A cursor lives 10 minutes, so an old key can be dropped 10 minutes after
 * a new one went first (docs/operations/production.md, "Rotating the cursor keys").
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { errors } from '../../errors/catalogue.js';
import type { SortValues } from './boundary-store.js';

export interface CursorState {
  /** User the cursor was issued to. */
  u: string;
  /** Hash of the normalised search (index, query, sort). */
  q: string;
  /** PIT id. */
  p: string;
  /** search_after: sort values of the last record sent. */
  a: SortValues;
  /** Records sent so far. */
  n: number;
  /** Expiry, epoch seconds. */
  e: number;
}

/** The value of `cursor` that starts cursor paging. */
export const firstCursor = '*';

const version = 2;
const ivBytes = 12;
const tagBytes = 16;
const headerBytes = 2;

/** The keys of a process: `current` encrypts, any of `byId` decrypts. */
export interface CursorKeys {
  current: { id: number; key: Buffer };
  byId: ReadonlyMap<number, Buffer>;
}

/**
 * The AES-256 keys of configured secrets (at least 32 characters each), first one current.
 * A secret is stretched to the 32-byte key by HKDF-SHA256, so any long enough text will do.
 * None configured: one random key of this process (id 0).
 */
export function cursorKeys(secrets: ReadonlyArray<{ id: number; secret: string }> | undefined): CursorKeys {
  const keys = (secrets?.length ? secrets : [{ id: 0, secret: randomBytes(32).toString('base64url') }]).map(
    ({ id, secret }) => ({
      id,
      key: Buffer.from(
        hkdfSync('sha256', Buffer.from(secret, 'utf8'), Buffer.alloc(0), 'corpsearch cursor', 32),
      ),
    }),
  );
  return { current: keys[0] as CursorKeys['current'], byId: new Map(keys.map(({ id, key }) => [id, key])) };
}

export function encodeCursor(keys: CursorKeys, state: CursorState): string {
  const header = Buffer.from([version, keys.current.id]);
  const iv = randomBytes(ivBytes);
  const cipher = createCipheriv('aes-256-gcm', keys.current.key, iv);
  cipher.setAAD(header);
  const sealed = Buffer.concat([cipher.update(JSON.stringify(state), 'utf8'), cipher.final()]);
  return Buffer.concat([header, iv, sealed, cipher.getAuthTag()]).toString('base64url');
}

function invalid(reason: string) {
  return errors.validation([{ field: 'cursor', reason }]);
}

/** The state, or undefined when the token is not one of ours under a key still configured. */
export function readCursor(keys: CursorKeys, token: string): CursorState | undefined {
  if (!/^[A-Za-z0-9_-]+$/.test(token)) return undefined;
  const bytes = Buffer.from(token, 'base64url');
  if (bytes.length < headerBytes + ivBytes + tagBytes + 1 || bytes[0] !== version) return undefined;
  const key = keys.byId.get(bytes[1] as number);
  if (!key) return undefined;
  const iv = bytes.subarray(headerBytes, headerBytes + ivBytes);
  const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: tagBytes });
  decipher.setAAD(bytes.subarray(0, headerBytes));
  decipher.setAuthTag(bytes.subarray(bytes.length - tagBytes));
  try {
    const plain = Buffer.concat([
      decipher.update(bytes.subarray(headerBytes + ivBytes, bytes.length - tagBytes)),
      decipher.final(),
    ]);
    return JSON.parse(plain.toString('utf8')) as CursorState;
  } catch {
    return undefined;
  }
}

/** Decrypts and checks owner, search and expiry; throws the 400 naming `cursor` otherwise. */
export function decodeCursor(
  keys: CursorKeys,
  token: string,
  expect: { user: string; query: string; nowSeconds: number },
): CursorState {
  const state = readCursor(keys, token);
  if (!state)
    throw invalid(
      `is not a cursor this API issued (tampered, cut short, or made with a key no longer configured); start again with cursor: "${firstCursor}"`,
    );
  if (state.u !== expect.user) throw invalid('was issued to another user');
  if (state.q !== expect.query)
    throw invalid('belongs to a different search: send the same filters and sort as the first page');
  if (state.e < expect.nowSeconds) throw invalid(`has expired; start again with cursor: "${firstCursor}"`);
  return state;
}
