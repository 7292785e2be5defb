/**
 * Creating and checking API keys. The key is returned once, by `createApiKey`; afterwards
 * only its hash exists.
 */

import type { Redis } from 'ioredis';
import { defaultConfig } from '../config.js';
import { FileKeyStore } from './file-key-store.js';
import { generateApiKey, generateKeyId, hashApiKey } from './key-material.js';
import type { ApiKeyRecord, KeyStore } from './key-store.js';
import { RedisKeyStore } from './redis-key-store.js';

/** Redis when there is one (shared by all processes), else the file of single-process mode. */
export function keyStoreFor(
  redis: Redis | undefined,
  redisPrefix: string,
  /** Single-process mode: `config.keysFile` (API_KEYS_FILE). */
  keysFile = defaultConfig().keysFile,
): KeyStore {
  return redis ? new RedisKeyStore(redis, redisPrefix) : new FileKeyStore(keysFile);
}

export interface NewKeyOptions {
  userId: string;
  expiresAt?: Date | null;
  label?: string | null;
  now?: Date;
}

export async function createApiKey(
  store: KeyStore,
  options: NewKeyOptions,
): Promise<{ key: string; record: ApiKeyRecord }> {
  const key = generateApiKey();
  const record: ApiKeyRecord = {
    keyId: generateKeyId(),
    userId: options.userId,
    keyHash: hashApiKey(key),
    createdAt: (options.now ?? new Date()).toISOString(),
    expiresAt: options.expiresAt ? options.expiresAt.toISOString() : null,
    revokedAt: null,
    label: options.label ?? null,
  };
  await store.add(record);
  return { key, record };
}
