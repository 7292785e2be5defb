/**
 * The handlers of /usage (their chains: src/http/route-table.ts; the queries:
 * src/limits/usage.ts; the guide: docs/credits.md):
 *
 *   GET /usage?from=2026-11-01&to=2026-11-29                 credits spent and requests per day and operation
 *   GET /usage/entries?from=&to=&kind=charge&limit=&cursor=  the ledger entries behind them, newest first
 *
 * Days are Japan time. The caller's own entries only. Free, a rate limit of their own.
 */
import type { Request, RequestHandler, Response } from 'express';
import { errors } from '../../errors/catalogue.js';
import type { LedgerEntryKind } from '../../limits/ledger-entry.js';
import { ledgerIndex } from '../../limits/ledger-filing.js';
import { BadLedgerCursor, entriesOf, type UsageRange, usageOf, usageRange } from '../../limits/usage.js';
import { toSearchError } from '../../search/opensearch-errors.js';
import type { Services } from '../../services.js';
import { deadlineOf, stillAnswering } from '../deadline.js';
import { currentUser } from '../locals.js';

function rangeOf(req: Request): UsageRange {
  const range = usageRange({
    from: req.query.from as string | undefined,
    to: req.query.to as string | undefined,
  });
  if ('field' in range) throw errors.validation([range]);
  return range;
}

export function usageHandler(services: Services): RequestHandler {
  return async (req: Request, res: Response) => {
    const range = rangeOf(req);
    const userId = currentUser(res).id;
    const index = ledgerIndex(services.config.indexPrefix);
    let usage: Awaited<ReturnType<typeof usageOf>>;
    try {
      usage = await usageOf(
        { opensearch: services.opensearch, index, deadline: deadlineOf(res) },
        userId,
        range,
      );
    } catch (error) {
      throw toSearchError(error, services.logger);
    }
    const balance = await services.limits.ledger.balance(userId).catch(() => {
      throw errors.limitsUnavailable(services.limits.config.unavailableRetryAfterSeconds);
    });
    if (!stillAnswering(res)) return;
    const { from, to, timeZone, totals, operations, days } = usage;
    res.json({ from, to, timeZone, balance, totals, operations, days });
  };
}

export function ledgerEntriesHandler(services: Services): RequestHandler {
  return async (req: Request, res: Response) => {
    const range = rangeOf(req);
    const userId = currentUser(res).id;
    const limit = req.query.limit === undefined ? 100 : Number(req.query.limit);
    const cursor = req.query.cursor as string | undefined;
    const kind = req.query.kind as LedgerEntryKind | undefined;
    let page: Awaited<ReturnType<typeof entriesOf>>;
    try {
      page = await entriesOf(
        {
          opensearch: services.opensearch,
          index: ledgerIndex(services.config.indexPrefix),
          deadline: deadlineOf(res),
        },
        userId,
        { ...range, limit, ...(cursor === undefined ? {} : { cursor }), ...(kind ? { kind } : {}) },
      );
    } catch (error) {
      if (error instanceof BadLedgerCursor)
        throw errors.validation([{ field: 'cursor', reason: error.message }]);
      throw toSearchError(error, services.logger);
    }
    if (!stillAnswering(res)) return;
    res.json(page);
  };
}
