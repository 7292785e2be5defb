/**
 * The handlers of POST /corporates/search|count|export and /jobs/search|count|export (their
 * chains: src/http/route-table.ts). The body was parsed by the chain's plan step
 * (../search-plan.ts) and is handed to the search as a value.
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { metrics } from '../../metrics.js';
import { type ExportTarget, runExport } from '../../search/export.js';
import { countFor, runPlanBytes } from '../../search/run-search.js';
import type { Services } from '../../services.js';
import { deadlineOf, stillAnswering } from '../deadline.js';
import { admissionOf, besideAdmission, passOn } from '../limits/credits.js';
import { chargeTagOf, currentUser, exportRequestOf, searchPlanOf } from '../locals.js';

export function searchHandler(services: Services): RequestHandler {
  return async (req: Request, res: Response, next: NextFunction) => {
    const { search, plan } = searchPlanOf(res);
    const options = { userId: currentUser(res).id, deadline: deadlineOf(res) };
    // the records spliced from their stored bytes (src/search/records.ts), the same bytes as
    // res.json; asked for at once, beside the admission (the route's `admitBeside`)
    const answer = runPlanBytes(services, search, plan, options);
    // awaited once admitted; a refused request drops it (and whatever error it ends in)
    answer.catch(() => {});
    const verdict = await admissionOf(res);
    if (besideAdmission(res)) metrics.searchesBeside.inc({ outcome: verdict.pass ? 'admitted' : 'dropped' });
    if (!verdict.pass) {
      stopOnceAnswered(res);
      return passOn(verdict, next);
    }
    const bytes = await answer;
    // the deadline may have answered for it meanwhile
    if (!stillAnswering(res)) return;
    // an Idempotency-Key's answer is kept as a value, through res.json (src/http/limits/credits.ts)
    if (req.get('Idempotency-Key') !== undefined) res.json(JSON.parse(bytes.toString('utf8')));
    else res.type('application/json').send(bytes);
  };
}

export function countHandler(services: Services): RequestHandler {
  return async (_req: Request, res: Response) => {
    const { search, plan } = searchPlanOf(res);
    const counted = await countFor(services, search, plan, deadlineOf(res));
    if (stillAnswering(res)) res.json(counted);
  };
}

/** The file streams into the response; its head is set from the plain values the export gives. */
export function exportHandler(services: Services): RequestHandler {
  return async (_req: Request, res: Response) => {
    const { search, request } = exportRequestOf(res);
    const target: ExportTarget = {
      stream: res,
      begin: ({ status, headers }) => {
        res.status(status).set(headers);
      },
    };
    await runExport(
      services,
      search,
      request,
      currentUser(res).id,
      target,
      deadlineOf(res),
      chargeTagOf(res),
    );
  };
}

/**
 * A search whose admission refused it (or replayed a stored answer) may still be running on
 * the engine: once its response is out, the request's deadline is cancelled, which ends its
 * engine calls (their signal); the response being out, the deadline writes nothing more
 * (src/http/deadline.ts).
 */
function stopOnceAnswered(res: Response): void {
  const stop = () => deadlineOf(res)?.cancel('a search its admission refused');
  if (res.writableFinished || res.destroyed) stop();
  else res.once('close', stop);
}
