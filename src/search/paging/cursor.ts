/**
 * Cursor tokens: `<base64url JSON>.<base64url HMAC-SHA256>`. The JSON holds where the next
 * page starts (the PIT and the sort values of the last record sent), whose cursor it is and
 * of which search, and when it expires; the HMAC (key: CURSOR_SECRET) makes it tamper-proof,
 * so a caller can neither move it to another user or search nor point it at another PIT.
 *
 *   { v: 1, u: 'alice', q: '3f9a…', p: '<pit id>', a: [1714000000000, 'job-77'], n: 50, e: 1763800000 }
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
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

function mac(secret: Buffer, payload: string): Buffer {
  return createHmac('sha256', secret).update(payload).digest();
}

export function encodeCursor(secret: Buffer, state: CursorState): string {
  const payload = Buffer.from(JSON.stringify({ v: 1, ...state })).toString('base64url');
  return `${payload}.${mac(secret, payload).toString('base64url')}`;
}

function invalid(reason: string) {
  return errors.validation([{ field: 'cursor', reason }]);
}

/** Verifies signature, owner, search and expiry; throws the 400 naming `cursor` otherwise. */
export function decodeCursor(
  secret: Buffer,
  token: string,
  expect: { user: string; query: string; nowSeconds: number },
): CursorState {
  const [payload, signature, extra] = token.split('.');
  const given = Buffer.from(signature ?? '', 'base64url');
  const wanted = payload ? mac(secret, payload) : Buffer.alloc(0);
  if (extra !== undefined || !payload || given.length !== wanted.length || !timingSafeEqual(given, wanted))
    throw invalid(
      `is not a cursor this API issued (tampered, cut short, or signed with another CURSOR_SECRET); start again with cursor: "${firstCursor}"`,
    );
  const state = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as CursorState;
  if (state.u !== expect.user) throw invalid('was issued to another user');
  if (state.q !== expect.query)
    throw invalid('belongs to a different search: send the same filters and sort as the first page');
  if (state.e < expect.nowSeconds) throw invalid(`has expired; start again with cursor: "${firstCursor}"`);
  return state;
}
