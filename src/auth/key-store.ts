/**
 * Where API keys live. Two stores with one interface: Redis (shared by every API process and
 * the CLI) and a JSON file under .local/ for single-process mode without REDIS_URL.
 * A record never holds the key itself, only its SHA-256 (key-material.ts).
 */
export interface ApiKeyRecord {
  keyId: string;
  userId: string;
  keyHash: string;
  /** ISO date-time. */
  createdAt: string;
  /** ISO date-time; null = never expires. */
  expiresAt: string | null;
  /** ISO date-time; null = active. */
  revokedAt: string | null;
  /** Free text for the operator, e.g. "crm sync". */
  label: string | null;
}

export interface KeyStore {
  /** Stores a new record; its keyId and keyHash must be new. */
  add(record: ApiKeyRecord): Promise<void>;
  findByHash(keyHash: string): Promise<ApiKeyRecord | undefined>;
  /** Every record, oldest first, optionally of one user. */
  list(userId?: string): Promise<ApiKeyRecord[]>;
  /** Marks the key revoked; false when there is no such key. Revoking twice keeps the first time. */
  revoke(keyId: string, at: Date): Promise<boolean>;
}

export type KeyState = 'active' | 'expired' | 'revoked';

export function keyState(record: ApiKeyRecord, now: Date): KeyState {
  if (record.revokedAt) return 'revoked';
  if (record.expiresAt && Date.parse(record.expiresAt) <= now.getTime()) return 'expired';
  return 'active';
}
