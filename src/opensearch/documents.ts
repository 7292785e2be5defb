/**
 * Typed reads and deletes of documents by id or by query, with the transient-error retry of
 * ./retry.ts. The indexer uses these instead of calling the client with hand-built bodies.
 *
 *   const docs = await getSources<Company>(client, 'corporates', ['7000012050002'], { excludes: ['postings'] });
 *   // [{ id: '7000012050002', source: { name: '国税庁', ... } }]   (source undefined: not found)
 */
import type { Engine } from './engine.js';
import { type RetryOptions, withRetry } from './retry.js';

export interface FoundDocument<T> {
  id: string;
  /** Undefined when the document does not exist. */
  source: T | undefined;
  /** The version read, `<_seq_no>:<_primary_term>` (a found document). */
  version?: string;
}

/** `_mget` of `ids` in one index, in the order asked. */
export async function getSources<T = Record<string, unknown>>(
  client: Engine,
  index: string,
  ids: string[],
  fields: { includes?: string[]; excludes?: string[] } = {},
  retry: RetryOptions = {},
): Promise<FoundDocument<T>[]> {
  if (ids.length === 0) return [];
  const { body } = await withRetry(
    () =>
      client.mget({
        index,
        body: { ids },
        ...(fields.includes ? { _source_includes: fields.includes } : {}),
        ...(fields.excludes ? { _source_excludes: fields.excludes } : {}),
      }),
    retry,
  );
  return body.docs.map((doc) => {
    const item = doc as {
      _id: string;
      found?: boolean;
      _source?: unknown;
      _seq_no?: number;
      _primary_term?: number;
    };
    return {
      id: item._id,
      source: item.found ? (item._source as T | undefined) : undefined,
      ...(item.found && item._seq_no !== undefined
        ? { version: `${item._seq_no}:${item._primary_term}` }
        : {}),
    };
  });
}

/** Deletes every document of `index` matching `query`, refreshing after; conflicts are skipped. */
export async function deleteMatching(
  client: Engine,
  index: string,
  query: Record<string, unknown>,
  retry: RetryOptions = {},
): Promise<void> {
  await withRetry(
    () => client.deleteByQuery({ index, body: { query }, refresh: true, conflicts: 'proceed' }),
    retry,
  );
}
