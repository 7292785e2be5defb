/**
 * The master lists, read once from data/masters/<name>.json (`{version, source, items}`).
 * Each is served as its `items` array; the serialised body and its ETag are computed once at
 * start, so a master request costs a header comparison and a buffer write, no hashing.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../project-root.js';

export const masterNames = [
  'prefectures',
  'industries',
  'business-types',
  'media',
  'job-categories',
  'markets',
  'employment-types',
  'government-bodies',
  'certification-kinds',
  'award-kinds',
] as const;

export type MasterName = (typeof masterNames)[number];

export interface MasterFile {
  version: string;
  source: string;
  items: Array<Record<string, unknown>>;
}

export interface LoadedMaster {
  name: MasterName;
  version: string;
  items: Array<Record<string, unknown>>;
  /** The response body, as sent. */
  body: Buffer;
  /** Strong ETag: a hash of exactly these bytes. */
  etag: string;
}

export const mastersDir = path.join(projectRoot, 'data', 'masters');

export function readMasterFile(name: MasterName, dir = mastersDir): MasterFile {
  const file = JSON.parse(readFileSync(path.join(dir, `${name}.json`), 'utf8')) as MasterFile;
  if (typeof file.version !== 'string' || !Array.isArray(file.items))
    throw new Error(`data/masters/${name}.json must be {version, source, items}`);
  return file;
}

export function loadMasters(dir = mastersDir): Map<MasterName, LoadedMaster> {
  const masters = new Map<MasterName, LoadedMaster>();
  for (const name of masterNames) {
    const { version, items } = readMasterFile(name, dir);
    const body = Buffer.from(JSON.stringify(items), 'utf8');
    const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 32)}"`;
    masters.set(name, { name, version, items, body, etag });
  }
  return masters;
}
