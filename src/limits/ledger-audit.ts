/**
 * The ledger held against the balances (`npm run ledger -- verify | rebuild | open`,
 * scripts/ledger.ts). For every user, a balance is right when
 *
 *   balance + credits of open reservations = sum of the user's ledger entries
 *
 * (src/limits/ledger-entry.ts). Each command files the tail first, so the sums read from the
 * engine hold every entry written so far.
 *
 *   await verifyLedger(ctx)   // -> { users: 12, differences: [] }
 *   await rebuildBalances(ctx) // a Redis that lost its data: every balance from the ledger
 */
import type { Logger } from 'pino';
import type { Engine } from '../opensearch/engine.js';
import type { CreditLedger } from './credit-ledger.js';
import type { LedgerEntry } from './ledger-entry.js';
import { fileLedgerTail, ledgerSums } from './ledger-filing.js';
import { tokyoToday } from './usage.js';

export interface LedgerContext {
  ledger: CreditLedger;
  opensearch: Engine;
  index: string;
  logger?: Logger;
}

export interface BalanceDifference {
  userId: string;
  /** The store's balance. */
  balance: number;
  /** What the ledger says it should be: its sum less the open reservations. */
  expected: number;
  /** No ledger entry at all (a balance from before the ledger: `open` writes its opening entry). */
  unledgered: boolean;
}

async function compare(ctx: LedgerContext): Promise<{ users: number; differences: BalanceDifference[] }> {
  await fileLedgerTail(ctx.ledger, ctx.opensearch, ctx.index, ctx.logger);
  const sums = await ledgerSums(ctx.opensearch, ctx.index);
  const users = new Set([...sums.keys(), ...(await ctx.ledger.users())]);
  const differences: BalanceDifference[] = [];
  for (const userId of [...users].sort()) {
    const account = await ctx.ledger.account(userId);
    const sum = sums.get(userId);
    const expected = (sum ?? 0) - account.open.credits;
    if (account.balance !== expected)
      differences.push({ userId, balance: account.balance, expected, unledgered: sum === undefined });
  }
  return { users: users.size, differences };
}

export interface BalanceHistory {
  /** The entries in the range, oldest first, each with the ledger balance after it. */
  rows: Array<{ entry: LedgerEntry; balance: number }>;
  /** The sum of all the user's entries (not only the range's). */
  ledgerBalance: number;
  /** Credits of the user's open reservations (debited, not yet on the ledger). */
  open: number;
  /** The store's balance now: ledgerBalance - open when they agree. */
  storeBalance: number;
}

/**
 * A user's ledger with the balance after each entry (`npm run ledger -- show`): every entry
 * is read, oldest first, a page at a time, so the running balance starts from the first; the
 * range only chooses which are listed. Days are Japan time.
 */
export async function balanceHistory(
  ctx: LedgerContext,
  userId: string,
  range: { from?: string; to?: string } = {},
  /** Entries per engine request. */
  pageSize = 1000,
): Promise<BalanceHistory> {
  await ctx.opensearch.indices.refresh({ index: ctx.index });
  const rows: BalanceHistory['rows'] = [];
  const inRange = (at: string) => {
    const day = tokyoToday(Date.parse(at));
    return (!range.from || day >= range.from) && (!range.to || day <= range.to);
  };
  let balance = 0;
  let after: Array<string | number> | undefined;
  for (;;) {
    const { body } = await ctx.opensearch.search({
      index: ctx.index,
      body: {
        size: pageSize,
        query: { term: { userId } },
        sort: [{ at: 'asc' }, { id: 'asc' }],
        ...(after ? { search_after: after } : {}),
      },
    });
    const hits = body.hits.hits as Array<{ _source: LedgerEntry; sort: Array<string | number> }>;
    for (const hit of hits) {
      balance += hit._source.credits;
      if (inRange(hit._source.at)) rows.push({ entry: hit._source, balance });
    }
    if (hits.length < pageSize) break;
    after = hits.at(-1)?.sort;
  }
  const account = await ctx.ledger.account(userId);
  return { rows, ledgerBalance: balance, open: account.open.credits, storeBalance: account.balance };
}

/**
 * Every user's balance against the ledger. A charge made between the two reads shows as a
 * difference of one request, so a difference is read again after a pause and reported only
 * if it stays (exact on a quiet service; on a busy one, run it twice).
 */
export async function verifyLedger(
  ctx: LedgerContext,
  pauseMs = 1500,
): Promise<{ users: number; differences: BalanceDifference[] }> {
  const first = await compare(ctx);
  if (first.differences.length === 0) return first;
  await new Promise((resolve) => setTimeout(resolve, pauseMs));
  const second = await compare(ctx);
  const seen = new Set(first.differences.map((d) => d.userId));
  return { users: second.users, differences: second.differences.filter((d) => seen.has(d.userId)) };
}

export interface RebuildResult {
  /** Users whose balance was set from the ledger (changed or not). */
  restored: Array<{ userId: string; before: number; after: number }>;
  /** Users with a balance and no ledger entry: left as they are (see `openBalances`). */
  unledgered: string[];
}

/**
 * Sets every ledgered user's balance from the ledger (its sum less the user's open
 * reservations), each in one step that is refused while entries wait in the tail; the tail
 * is then filed and the user tried again. Meant for a store that lost its data (run it before
 * the API takes traffic again); on a live service it is exact too, as long as the tail can be
 * emptied between two charges.
 */
export async function rebuildBalances(ctx: LedgerContext, attempts = 20): Promise<RebuildResult> {
  const restored: RebuildResult['restored'] = [];
  const done = new Set<string>();
  for (let attempt = 0; attempt < attempts; attempt += 1) {
    await fileLedgerTail(ctx.ledger, ctx.opensearch, ctx.index, ctx.logger);
    const sums = await ledgerSums(ctx.opensearch, ctx.index);
    let blocked = false;
    for (const [userId, sum] of [...sums].sort(([a], [b]) => a.localeCompare(b))) {
      if (done.has(userId)) continue;
      const result = await ctx.ledger.restoreBalance(userId, sum);
      if (result === 'tail') {
        blocked = true;
        break;
      }
      done.add(userId);
      restored.push({ userId, ...result });
    }
    if (!blocked) {
      const unledgered = (await ctx.ledger.users()).filter((userId) => !sums.has(userId));
      return { restored, unledgered };
    }
  }
  throw new Error(
    `the ledger's tail kept filling while rebuilding (${attempts} tries): stop the API and run it again`,
  );
}

/**
 * Opening entries for the balances that predate the ledger, once per user: for each user with
 * a balance, what the ledger lacks (balance + open reservations - the user's ledger sum), in
 * one step refused while entries wait in the tail (filed, then tried again). A user whose
 * ledger already adds up gets no entry. Returns the users opened with an entry and its credits.
 */
export async function openBalances(
  ctx: LedgerContext,
  attempts = 20,
): Promise<Array<{ userId: string; credits: number }>> {
  const opened: Array<{ userId: string; credits: number }> = [];
  const done = new Set<string>();
  for (let attempt = 0; attempt < attempts; attempt += 1) {
    await fileLedgerTail(ctx.ledger, ctx.opensearch, ctx.index, ctx.logger);
    const sums = await ledgerSums(ctx.opensearch, ctx.index);
    let blocked = false;
    for (const userId of await ctx.ledger.users()) {
      if (done.has(userId)) continue;
      const credits = await ctx.ledger.open(userId, sums.get(userId) ?? 0);
      if (credits === 'tail') {
        blocked = true;
        break;
      }
      done.add(userId);
      if (credits !== null && credits !== 0) opened.push({ userId, credits });
    }
    if (!blocked) {
      await fileLedgerTail(ctx.ledger, ctx.opensearch, ctx.index, ctx.logger);
      return opened;
    }
  }
  throw new Error(
    `the ledger's tail kept filling while opening (${attempts} tries): stop the API and run it again`,
  );
}
