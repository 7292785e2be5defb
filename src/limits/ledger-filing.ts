/**
 * Filing: the ledger entries waiting in the store's tail (a Redis stream, or the
 * single-process file) are copied into the engine's `credit-ledger` index, each under its own
 * id, then taken out of the tail. Copying one twice leaves one document, so a filing that
 * dies between the copy and the take-out, or two workers filing at once, lose and double
 * nothing. The engine acknowledges a bulk write once its translog is on disk
 * (`index.translog.durability: request`, the default), on every copy of the shard.
 *
 *   const filing = startLedgerFiling({ ledger, opensearch, index: 'corpsearch-credit-ledger', intervalMs: 1000 });
 *   await filing.fileNow(); // -> entries filed
 *   await filing.stop();
 *
 * The worker files every LEDGER_FILING_INTERVAL_MS (Redis mode); the single-process server
 * files itself. `ledgerSums` reads the filed entries back per user: what `npm run ledger --
 * verify` compares with the balances and `rebuild` restores them from.
 */
import type { Logger } from 'pino';
import { metrics } from '../metrics.js';
import type { Engine } from '../opensearch/engine.js';
import { indexName } from '../opensearch/indices.js';
import type { CreditLedger } from './credit-ledger.js';
import type { LedgerEntry } from './ledger-entry.js';

/** The ledger's alias under an index prefix (mappings/credit-ledger.json). */
export function ledgerIndex(indexPrefix: string): string {
  return indexName(indexPrefix, 'credit-ledger');
}

/** Entries per bulk request. */
const fileBatch = 500;

export class LedgerFilingFailed extends Error {}

/**
 * Files the whole tail, a batch at a time; returns how many entries were filed. Throws
 * LedgerFilingFailed when the engine refused an entry (it stays in the tail for the next try).
 */
export async function fileLedgerTail(
  ledger: CreditLedger,
  opensearch: Engine,
  index: string,
  logger?: Logger,
): Promise<number> {
  let filed = 0;
  for (;;) {
    const batch = await ledger.tail(fileBatch);
    if (batch.length === 0) return filed;
    const readable = batch.filter((row): row is { tailId: string; entry: LedgerEntry } => !!row.entry);
    const unreadable = batch.filter((row) => !row.entry).map((row) => row.tailId);
    if (unreadable.length > 0) {
      logger?.error({ tailIds: unreadable }, 'ledger entries that cannot be read were dropped from the tail');
      await ledger.dropTail(unreadable);
    }
    if (readable.length === 0) continue;
    const body = readable.flatMap(({ entry }) => [{ index: { _index: index, _id: entry.id } }, entry]);
    // only through the alias: a missing index is refused, never created with guessed fields
    const { body: answer } = await opensearch.bulk({ body, refresh: false, require_alias: true });
    // one item per entry, in order: `{index: {status, error?}}`
    const items = answer.items as Array<{ index: { status: number; error?: unknown } }>;
    const done = readable.filter((_, i) => (items[i] as (typeof items)[number]).index.status < 300);
    const refused = readable.length - done.length;
    await ledger.dropTail(done.map((row) => row.tailId));
    filed += done.length;
    metrics.ledgerFiled.inc(done.length);
    if (refused > 0) throw new LedgerFilingFailed(`${refused} ledger entries were refused by the engine`);
  }
}

export interface LedgerFiling {
  /** Files the tail now (waits for a filing already running); entries filed. */
  fileNow(): Promise<number>;
  stop(): Promise<void>;
}

/** Files the tail every `intervalMs` until stopped; a failed round is logged and tried again. */
export function startLedgerFiling(options: {
  ledger: CreditLedger;
  opensearch: Engine;
  index: string;
  intervalMs: number;
  logger?: Logger;
}): LedgerFiling {
  const { ledger, opensearch, index, intervalMs, logger } = options;
  let running: Promise<number> | undefined;
  let failing = false;
  const round = (): Promise<number> => {
    if (running) return running.then(round);
    running = fileLedgerTail(ledger, opensearch, index, logger)
      .then((filed) => {
        if (failing) logger?.info('ledger filing works again');
        failing = false;
        return filed;
      })
      .finally(() => {
        running = undefined;
      });
    return running;
  };
  const timer = setInterval(() => {
    if (running) return;
    round().catch((error: Error) => {
      // once per outage: the entries wait in the tail meanwhile
      if (!failing)
        logger?.warn(
          {
            err: {
              name: error.name,
              message: error instanceof LedgerFilingFailed ? error.message : 'engine or store away',
            },
          },
          'ledger filing failed; entries wait in the tail',
        );
      failing = true;
    });
  }, intervalMs);
  timer.unref();
  return {
    fileNow: round,
    async stop() {
      clearInterval(timer);
      await running?.catch(() => 0);
    },
  };
}

/**
 * Every user's filed entries summed (a composite aggregation, page by page), after a refresh
 * so the latest filing counts: user id -> credits.
 */
export async function ledgerSums(opensearch: Engine, index: string): Promise<Map<string, number>> {
  await opensearch.indices.refresh({ index });
  const sums = new Map<string, number>();
  let after: Record<string, string> | undefined;
  for (;;) {
    const { body } = await opensearch.search({
      index,
      body: {
        size: 0,
        aggs: {
          users: {
            composite: {
              size: 1000,
              sources: [{ user: { terms: { field: 'userId' } } }],
              ...(after ? { after } : {}),
            },
            aggs: { credits: { sum: { field: 'credits' } } },
          },
        },
      },
    });
    const { users } = body.aggregations as unknown as {
      users: {
        buckets: Array<{ key: { user: string }; credits: { value: number } }>;
        after_key?: Record<string, string>;
      };
    };
    for (const bucket of users.buckets) sums.set(bucket.key.user, Math.round(bucket.credits.value));
    if (!users.after_key || users.buckets.length === 0) return sums;
    after = users.after_key;
  }
}
