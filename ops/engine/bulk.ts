/**
 * `_bulk` writes in batches sized for throughput (by operation count and by bytes). Whole
 * requests that fail transiently are retried with backoff; single items answered with a
 * transient status (./retry.ts) are sent again; any other item error becomes a failure with its reason, and the rest of the
 * batch lands. A delete of a missing document counts as done (deletes are idempotent).
 */
import type { API, Engine } from '../../src/opensearch/engine.js';
import {
  isTransientStatus,
  isWriteBlocked,
  type RetryOptions,
  withRetry,
  writeBlockWaitMs,
} from '../../src/opensearch/retry.js';

export interface BulkOp<Ref = unknown> {
  action: 'index' | 'update' | 'delete';
  index: string;
  id: string;
  /** index: the document; update: `{doc, upsert?}` or `{script}` */
  body?: Record<string, unknown>;
  /** Who asked for this write, handed back with a failure (e.g. the source line). */
  ref: Ref;
  /**
   * The source version (epoch ms of the record's `sourceUpdatedAt`): an index or delete is
   * then written with `version_type: external_gte`, so it never replaces a newer version.
   */
  version?: number;
  /** An update whose script may decline an older version (`ctx.op = 'noop'`). */
  versioned?: boolean;
  /**
   * Write only while the document is still this one (`if_seq_no` / `if_primary_term`, as read);
   * a document changed since is a failure with `conflict: true`, not retried.
   */
  ifUnchanged?: { seqNo: number; primaryTerm: number };
}

export interface BulkFailure<Ref = unknown> {
  op: BulkOp<Ref>;
  reason: string;
  /** Not an error: the index already holds this key at a newer version; nothing was written. */
  older?: boolean;
  /** An `ifUnchanged` write whose document had changed; nothing was written. */
  conflict?: boolean;
}

export interface BulkOptions extends RetryOptions {
  refresh?: boolean | 'wait_for';
}

interface BulkItemResult {
  status: number;
  result?: string;
  error?: { type?: string; reason?: string; caused_by?: { type?: string; reason?: string } };
}

/** A short reason for a rejected item: the error type and OpenSearch's own explanation. */
export function describeItemError(item: BulkItemResult): string {
  const error = item.error;
  if (!error) return `rejected by OpenSearch with status ${item.status}`;
  const cause = error.caused_by?.reason ? ` (${error.caused_by.reason})` : '';
  return `rejected by OpenSearch: ${error.type ?? 'error'}: ${(error.reason ?? '').slice(0, 300)}${cause.slice(0, 200)}`;
}

/** The action line of one operation. */
function actionLine(op: BulkOp): string {
  return JSON.stringify({
    [op.action]: {
      _index: op.index,
      _id: op.id,
      ...(op.ifUnchanged
        ? { if_seq_no: op.ifUnchanged.seqNo, if_primary_term: op.ifUnchanged.primaryTerm }
        : op.action === 'update'
          ? { retry_on_conflict: 3 }
          : {}),
      ...(op.version !== undefined ? { version: op.version, version_type: 'external_gte' } : {}),
    },
  });
}

/** One operation, serialised once: its body line (none for a delete), then the request text. */
interface Serialised<Ref> {
  op: BulkOp<Ref>;
  body: string | undefined;
}

function serialise<Ref>(op: BulkOp<Ref>): Serialised<Ref> {
  return { op, body: op.action === 'delete' ? undefined : JSON.stringify(op.body ?? {}) };
}

/** The NDJSON of a request: each operation's action line, then its body line. */
function requestText(entries: readonly Serialised<unknown>[]): string {
  let text = '';
  for (const { op, body } of entries) {
    text += `${actionLine(op)}\n`;
    if (body !== undefined) text += `${body}\n`;
  }
  return text;
}

/** The parts of each item the writers read; the rest of the answer is not sent or parsed. */
const itemFields = 'errors,items.*.status,items.*.result,items.*.error';

/** Sends `ops` in one `_bulk` request (plus re-sends of transiently rejected items). */
export function writeBulk<Ref>(
  client: Engine,
  ops: BulkOp<Ref>[],
  options: BulkOptions = {},
): Promise<BulkFailure<Ref>[]> {
  return writeSerialised(client, ops.map(serialise), options);
}

async function writeSerialised<Ref>(
  client: Engine,
  entries: Serialised<Ref>[],
  options: BulkOptions,
): Promise<BulkFailure<Ref>[]> {
  const failures: BulkFailure<Ref>[] = [];
  let pending = entries;
  const started = Date.now();
  // attempts count transient rejections only; rounds spent waiting out a write block do not
  for (let attempt = 0; pending.length > 0; ) {
    const sent = pending;
    const batch = sent.map((entry) => entry.op);
    const text = requestText(sent);
    const { body } = await withRetry(
      () =>
        client.bulk({
          // the typings want parsed lines; the client sends a string body as it is
          body: text as unknown as API.Bulk_RequestBody,
          filter_path: itemFields,
          ...(options.refresh !== undefined ? { refresh: options.refresh } : {}),
        }),
      options,
    );
    const retry: Serialised<Ref>[] = [];
    let blocked = false;
    body.items.forEach((entry, position) => {
      const item = Object.values(entry)[0] as BulkItemResult | undefined;
      const op = batch[position];
      if (!item || !op) return;
      if (op.versioned && item.result === 'noop') failures.push({ op, reason: 'older', older: true });
    });
    if (body.errors) {
      body.items.forEach((entry, position) => {
        const item = Object.values(entry)[0] as BulkItemResult | undefined;
        const op = batch[position];
        if (!item || !op || item.status < 300) return;
        if (op.action === 'delete' && item.status === 404) return;
        if (op.version !== undefined && item.status === 409) {
          failures.push({ op, reason: 'older', older: true });
          return;
        }
        if (op.ifUnchanged && item.status === 409) {
          failures.push({ op, reason: 'changed since it was read', conflict: true });
          return;
        }
        if (isTransientStatus(item.status) && attempt < (options.retries ?? 6))
          retry.push(sent[position] as Serialised<Ref>);
        else if (isWriteBlocked(item.error?.reason ?? '') && Date.now() - started < writeBlockWaitMs) {
          // a reindex's last catch-up: the alias moves to the new index within seconds
          blocked = true;
          retry.push(sent[position] as Serialised<Ref>);
        } else failures.push({ op, reason: describeItemError(item) });
      });
    }
    pending = retry;
    if (retry.length > 0)
      await new Promise((resolve) => setTimeout(resolve, blocked ? 1000 : 200 * 2 ** Math.min(attempt, 6)));
    if (!blocked) attempt++;
  }
  return failures;
}

/** Writes many operations in requests of at most `maxOps` operations and about `maxBytes`. */
export const bulkRequestLimits = { maxOps: 2000, maxBytes: 8 * 1024 * 1024 };

export async function writeBulkChunked<Ref>(
  client: Engine,
  ops: BulkOp<Ref>[],
  limits = bulkRequestLimits,
  options: BulkOptions = {},
): Promise<BulkFailure<Ref>[]> {
  const failures: BulkFailure<Ref>[] = [];
  let batch: Serialised<Ref>[] = [];
  let bytes = 0;
  for (const op of ops) {
    // each body is serialised once: its length sizes the request, its text is sent
    const entry = serialise(op);
    const size = op.body ? (entry.body?.length ?? JSON.stringify(op.body).length) : 0;
    if (batch.length > 0 && (batch.length >= limits.maxOps || bytes + size > limits.maxBytes)) {
      failures.push(...(await writeSerialised(client, batch, options)));
      batch = [];
      bytes = 0;
    }
    batch.push(entry);
    bytes += size;
  }
  if (batch.length > 0) failures.push(...(await writeSerialised(client, batch, options)));
  return failures;
}

/**
 * One `_bulk` of ready-made NDJSON text, as a client that prepares its lines elsewhere sends
 * it (the benchmark's raw baseline); resolves to how many items the engine answered for and
 * whether any of them failed, so a caller can tell a request the engine only partly took.
 */
export async function sendRawBulk(
  client: Engine,
  ndjson: string,
): Promise<{ items: number; errors: boolean }> {
  // the typings want parsed lines; the client sends a string body as it is
  const { body } = await client.bulk({ body: ndjson as unknown as API.Bulk_RequestBody });
  return { items: body.items?.length ?? 0, errors: body.errors };
}
