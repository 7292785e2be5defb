/**
 * API key format and hashing.
 *
 * A key is `csk_` + 32 random bytes in base64url (43 characters), e.g.
 * `csk_3q2-7wLm...`. The prefix lets secret scanners and people recognise it.
 *
 * Only SHA-256(key) is stored. A slow password hash (bcrypt, argon2) defends low-entropy
 * secrets against guessing; a key of 256 random bits cannot be guessed from its hash, so a
 * fast hash loses nothing, keeps every request cheap, and lets the store look a key up by its
 * hash directly (a salted hash could not be looked up).
 */
import { createHash, randomBytes } from 'node:crypto';

export const keyPrefix = 'csk_';
const keyPattern = /^csk_[A-Za-z0-9_-]{43}$/;

export function generateApiKey(): string {
  return keyPrefix + randomBytes(32).toString('base64url');
}

/** Whether a presented value can be a key at all (saves a store lookup for garbage). */
export function looksLikeApiKey(value: string): boolean {
  return keyPattern.test(value);
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** A short public id for listing and revoking a key, e.g. `key_9f2c41d07a3b`. */
export function generateKeyId(): string {
  return `key_${randomBytes(6).toString('hex')}`;
}
