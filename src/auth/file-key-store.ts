/**
 * API keys in one JSON file (default `.local/api-keys.json`), for single-process mode without
 * Redis: `npm start` and `npm run keys` share it. Re-read when its modification time changes,
 * so a key created by the CLI works at once in the running server; written to a temporary
 * file and renamed, so a reader never sees half a file. Not meant for two writers at the same
 * instant (that is what the Redis store is for).
 */
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { ApiKeyRecord, KeyStore } from './key-store.js';

interface FileContents {
  keys: ApiKeyRecord[];
}

export class FileKeyStore implements KeyStore {
  private cache: { mtimeMs: number; keys: ApiKeyRecord[] } | undefined;

  constructor(readonly file: string) {}

  private read(): ApiKeyRecord[] {
    let mtimeMs: number;
    try {
      mtimeMs = statSync(this.file).mtimeMs;
    } catch {
      return [];
    }
    if (this.cache?.mtimeMs !== mtimeMs) {
      const contents = JSON.parse(readFileSync(this.file, 'utf8')) as FileContents;
      this.cache = { mtimeMs, keys: contents.keys };
    }
    return this.cache.keys;
  }

  private write(keys: ApiKeyRecord[]): void {
    mkdirSync(path.dirname(this.file), { recursive: true });
    const temporary = `${this.file}.${process.pid}.tmp`;
    // 0600: the hashes are not secrets, but nobody else needs to read the file
    writeFileSync(temporary, `${JSON.stringify({ keys } satisfies FileContents, null, 2)}\n`, {
      mode: 0o600,
    });
    renameSync(temporary, this.file);
    this.cache = undefined;
  }

  async add(record: ApiKeyRecord): Promise<void> {
    const keys = this.read();
    if (keys.some((key) => key.keyId === record.keyId || key.keyHash === record.keyHash))
      throw new Error('API key id or hash collision');
    this.write([...keys, record]);
  }

  async findByHash(keyHash: string): Promise<ApiKeyRecord | undefined> {
    return this.read().find((key) => key.keyHash === keyHash);
  }

  async list(userId?: string): Promise<ApiKeyRecord[]> {
    return this.read().filter((key) => userId === undefined || key.userId === userId);
  }

  async revoke(keyId: string, at: Date): Promise<boolean> {
    const keys = this.read();
    const record = keys.find((key) => key.keyId === keyId);
    if (!record) return false;
    if (!record.revokedAt)
      this.write(keys.map((key) => (key.keyId === keyId ? { ...key, revokedAt: at.toISOString() } : key)));
    return true;
  }
}
