/**
 * API keys in Redis, under the deployment's key prefix:
 *   <prefix>apikey:<keyId>        JSON record
 *   <prefix>apikey-hash:<sha256>  keyId (the lookup on every request)
 *   <prefix>apikeys               sorted set of keyIds by creation time (for `keys list`)
 *   <prefix>apikeys:changed       pub/sub channel: the keyId of each revocation
 */
import type { Redis } from 'ioredis';
import { keyChangesChannel } from './key-changes.js';
import type { ApiKeyRecord, KeyStore } from './key-store.js';

export class RedisKeyStore implements KeyStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  private recordKey(keyId: string): string {
    return `${this.prefix}apikey:${keyId}`;
  }

  private hashKey(keyHash: string): string {
    return `${this.prefix}apikey-hash:${keyHash}`;
  }

  async add(record: ApiKeyRecord): Promise<void> {
    const [[, claimedId], [, claimedHash]] = (await this.redis
      .multi()
      .setnx(this.recordKey(record.keyId), JSON.stringify(record))
      .setnx(this.hashKey(record.keyHash), record.keyId)
      .zadd(`${this.prefix}apikeys`, String(Date.parse(record.createdAt)), record.keyId)
      .exec()) as [[Error | null, number], [Error | null, number]];
    if (claimedId !== 1 || claimedHash !== 1) throw new Error('API key id or hash collision');
  }

  async findByHash(keyHash: string): Promise<ApiKeyRecord | undefined> {
    const keyId = await this.redis.get(this.hashKey(keyHash));
    return keyId ? this.get(keyId) : undefined;
  }

  private async get(keyId: string): Promise<ApiKeyRecord | undefined> {
    const json = await this.redis.get(this.recordKey(keyId));
    return json ? (JSON.parse(json) as ApiKeyRecord) : undefined;
  }

  async list(userId?: string): Promise<ApiKeyRecord[]> {
    const ids = await this.redis.zrange(`${this.prefix}apikeys`, '0', '-1');
    if (ids.length === 0) return [];
    const jsons = await this.redis.mget(ids.map((id) => this.recordKey(id)));
    return jsons
      .filter((json): json is string => json !== null)
      .map((json) => JSON.parse(json) as ApiKeyRecord)
      .filter((record) => userId === undefined || record.userId === userId);
  }

  async revoke(keyId: string, at: Date): Promise<boolean> {
    // read-modify-write under WATCH, so two concurrent revokes cannot lose a field
    for (;;) {
      await this.redis.watch(this.recordKey(keyId));
      const record = await this.get(keyId);
      if (!record) {
        await this.redis.unwatch();
        return false;
      }
      if (record.revokedAt) {
        await this.redis.unwatch();
        return true;
      }
      const done = await this.redis
        .multi()
        .set(this.recordKey(keyId), JSON.stringify({ ...record, revokedAt: at.toISOString() }))
        // every API process forgets the key it may be answering from memory (src/auth/key-changes.ts)
        .publish(keyChangesChannel(this.prefix), keyId)
        .exec();
      if (done) return true;
    }
  }
}
