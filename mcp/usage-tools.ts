/**
 * The usage tools: credits spent and requests answered per day and operation, and the ledger
 * entries behind them (GET /usage, GET /usage/entries; docs/credits.md). Read-only and free.
 */
import type { LedgerEntry } from '../client/src/index.js';
import { parameterSchema } from './contract.js';
import { costOf } from './costs.js';
import type { Body } from './results.js';
import type { ToolSpec } from './tool-spec.js';

const rangeProperties = (path: '/usage' | '/usage/entries') => ({
  from: parameterSchema('get', path, 'from'),
  to: parameterSchema('get', path, 'to'),
});

const text = (args: Record<string, unknown>, name: string) =>
  args[name] === undefined ? {} : { [name]: String(args[name]) };

const usageTool: ToolSpec = {
  name: 'get_usage',
  title: 'Credits used (利用状況)',
  description: `利用状況: credits spent and charged requests answered per day (Japan time) and per operation over a range of days (default the last 30), with the balance (GET /rest/v1/usage). ${costOf('GET', '/usage')}`,
  properties: rangeProperties('/usage'),
  async run(api, args) {
    const { meta, ...usage } = await api.usage({ ...text(args, 'from'), ...text(args, 'to') });
    const top = usage.operations
      .slice(0, 3)
      .map((op) => `${op.operation} ${op.creditsSpent} credits in ${op.requests} requests`)
      .join('; ');
    return {
      summary: `${usage.from} to ${usage.to} (${usage.timeZone}): ${usage.totals.creditsSpent} credits spent in ${usage.totals.requests} charged requests${top ? ` (${top})` : ''}; balance ${usage.balance}.`,
      body: usage as unknown as Body,
      meta,
    };
  },
};

const line = (entry: LedgerEntry) =>
  `${entry.at} ${entry.kind} ${entry.credits}${entry.operation ? ` ${entry.operation}` : ''}${
    entry.requestId ? ` request ${entry.requestId}` : ''
  }${entry.rows === undefined ? '' : ` (${entry.rows} rows)`}`;

const entriesTool: ToolSpec = {
  name: 'ledger_entries',
  title: 'Credit ledger entries (クレジットの明細)',
  description: `クレジットの明細: the grants and charges behind the usage, newest first, a page at a time: each with its credits, time, operation and the request's X-Request-Id (GET /rest/v1/usage/entries). ${costOf('GET', '/usage/entries')}`,
  properties: {
    ...rangeProperties('/usage/entries'),
    kind: parameterSchema('get', '/usage/entries', 'kind'),
    cursor: parameterSchema('get', '/usage/entries', 'cursor'),
    limit: parameterSchema('get', '/usage/entries', 'limit'),
  },
  async run(api, args) {
    const { meta, entries, nextCursor } = await api.ledgerEntries({
      ...text(args, 'from'),
      ...text(args, 'to'),
      ...(args.kind === undefined ? {} : { kind: args.kind as LedgerEntry['kind'] }),
      ...text(args, 'cursor'),
      ...(args.limit === undefined ? {} : { limit: args.limit as number }),
    });
    return {
      summary: `${entries.length} entries${entries.length ? `: ${entries.slice(0, 10).map(line).join('; ')}` : ''}${
        nextCursor ? `; more with cursor ${nextCursor}` : ''
      }.`,
      body: { entries, nextCursor } as unknown as Body,
      meta,
    };
  },
};

export const usageTools: ToolSpec[] = [usageTool, entriesTool];
