/**
 * The cursor token itself (src/search/paging/cursor.ts), byte by byte: its layout (version,
 * key id, 12-byte IV, ciphertext, 16-byte tag), what makes a token not ours, and the checks
 * of owner, search and expiry with the reason each 400 gives. test/search/cursors.test.ts shows the
 * same through the app on the real engine.
 */
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/errors/catalogue.js';
import {
  type CursorState,
  cursorKeys,
  decodeCursor,
  encodeCursor,
  readCursor,
} from '../../src/search/paging/cursor.js';

const secretA = 'a-first-cursor-secret-of-32-characters-or-more';
const secretB = 'b-second-cursor-secret-of-32-characters-or-more';
const state: CursorState = {
  u: 'alice',
  q: 'q-hash',
  p: 'pit-id',
  a: [1_714_000_000_000, 'job-77'],
  n: 50,
  e: 1_000,
};
const keysA = cursorKeys([{ id: 7, secret: secretA }]);

function reasonOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    const { errors } = error as ApiError & { errors: Array<{ field: string; reason: string }> };
    expect(errors).toHaveLength(1);
    expect(errors[0]?.field).toBe('cursor');
    return errors[0]?.reason as string;
  }
  throw new Error('no error');
}

describe('the token', () => {
  it('is version 2, the key id, a 12-byte IV, the ciphertext and a 16-byte tag', () => {
    const token = encodeCursor(keysA, state);
    expect(token).toMatch(/^[A-Za-z0-9_-]+$/);
    const bytes = Buffer.from(token, 'base64url');
    expect([bytes[0], bytes[1]]).toEqual([2, 7]);
    expect(bytes.length).toBe(2 + 12 + Buffer.byteLength(JSON.stringify(state)) + 16);
    expect(readCursor(keysA, token)).toEqual(state);
  });

  it('two tokens of one state differ (a fresh IV each), both read back', () => {
    const [one, two] = [encodeCursor(keysA, state), encodeCursor(keysA, state)];
    expect(one).not.toBe(two);
    expect(Buffer.from(one, 'base64url').subarray(2, 14)).not.toEqual(
      Buffer.from(two, 'base64url').subarray(2, 14),
    );
    expect(readCursor(keysA, two)).toEqual(state);
  });

  it('the same secret gives the same key in every process (HKDF), another secret another key', () => {
    const token = encodeCursor(keysA, state);
    expect(readCursor(cursorKeys([{ id: 7, secret: secretA }]), token)).toEqual(state);
    expect(readCursor(cursorKeys([{ id: 7, secret: secretB }]), token)).toBeUndefined();
  });

  it('the first key encrypts, every configured key decrypts, by the id byte', () => {
    const rotated = cursorKeys([
      { id: 8, secret: secretB },
      { id: 7, secret: secretA },
    ]);
    expect(rotated.current.id).toBe(8);
    expect(readCursor(rotated, encodeCursor(keysA, state))).toEqual(state);
    const fresh = encodeCursor(rotated, state);
    expect(Buffer.from(fresh, 'base64url')[1]).toBe(8);
    expect(readCursor(keysA, fresh)).toBeUndefined();
  });

  it('without configured secrets: one random key of this process, id 0', () => {
    const own = cursorKeys(undefined);
    expect(own.current.id).toBe(0);
    expect(own.current.key).toHaveLength(32);
    expect([...own.byId.keys()]).toEqual([0]);
    expect(cursorKeys([]).current.key).not.toEqual(own.current.key);
    expect(readCursor(cursorKeys(undefined), encodeCursor(own, state))).toBeUndefined();
  });
});

describe('not one of ours', () => {
  const token = encodeCursor(keysA, state);
  const bytes = Buffer.from(token, 'base64url');
  const withByte = (index: number, value: number) => {
    const copy = Buffer.from(bytes);
    copy[index] = value;
    return copy.toString('base64url');
  };

  it('characters outside base64url, or none', () => {
    expect(readCursor(keysA, `${token}=`)).toBeUndefined();
    expect(readCursor(keysA, `+${token.slice(1)}`)).toBeUndefined();
    expect(readCursor(keysA, '')).toBeUndefined();
    // the base64url decoder would skip these characters and read the token as issued
    expect(Buffer.from(`!${token}`, 'base64url')).toEqual(bytes);
    expect(readCursor(keysA, `!${token}`)).toBeUndefined();
    expect(readCursor(keysA, `${token}!`)).toBeUndefined();
  });

  it('another version, an unknown key id, a changed IV, ciphertext or tag byte', () => {
    expect(readCursor(keysA, withByte(0, 1))).toBeUndefined();
    expect(readCursor(keysA, withByte(1, 9))).toBeUndefined();
    for (const index of [2, 13, 14, bytes.length - 17, bytes.length - 16, bytes.length - 1])
      expect(
        readCursor(keysA, withByte(index, (bytes[index] as number) ^ 1)),
        `byte ${index}`,
      ).toBeUndefined();
  });

  it('the key id is authenticated: the same key under another id does not read it', () => {
    const twoIds = cursorKeys([
      { id: 7, secret: secretA },
      { id: 9, secret: secretA },
    ]);
    expect(readCursor(twoIds, token)).toEqual(state);
    expect(readCursor(twoIds, withByte(1, 9))).toBeUndefined();
  });

  it('cut short: down to the header, IV, one byte and the tag, and below', () => {
    const shortest = Buffer.concat([bytes.subarray(0, 15), bytes.subarray(bytes.length - 16)]);
    expect(shortest.length).toBe(2 + 12 + 1 + 16);
    expect(readCursor(keysA, shortest.toString('base64url'))).toBeUndefined();
    expect(readCursor(keysA, bytes.subarray(0, 30).toString('base64url'))).toBeUndefined();
    // shorter than a tag: refused before the decipher would throw on a short tag
    expect(readCursor(keysA, bytes.subarray(0, 10).toString('base64url'))).toBeUndefined();
    expect(readCursor(keysA, bytes.subarray(0, bytes.length - 1).toString('base64url'))).toBeUndefined();
  });
});

describe('decodeCursor: owner, search, expiry', () => {
  const token = encodeCursor(keysA, state);
  const expect_ = { user: 'alice', query: 'q-hash', nowSeconds: 1_000 };

  it('the issued user and search, up to and including its expiry second', () => {
    expect(decodeCursor(keysA, token, expect_)).toEqual(state);
  });

  it('one second after its expiry: expired', () => {
    expect(reasonOf(() => decodeCursor(keysA, token, { ...expect_, nowSeconds: 1_001 }))).toBe(
      'has expired; start again with cursor: "*"',
    );
  });

  it('another user, another search, a token not ours: each its own reason', () => {
    expect(reasonOf(() => decodeCursor(keysA, token, { ...expect_, user: 'mallory' }))).toBe(
      'was issued to another user',
    );
    expect(reasonOf(() => decodeCursor(keysA, token, { ...expect_, query: 'other' }))).toBe(
      'belongs to a different search: send the same filters and sort as the first page',
    );
    expect(
      reasonOf(() =>
        decodeCursor(keysA, encodeCursor(cursorKeys([{ id: 7, secret: secretB }]), state), expect_),
      ),
    ).toBe(
      'is not a cursor this API issued (tampered, cut short, or made with a key no longer configured); start again with cursor: "*"',
    );
  });
});
