/**
 * What a tool costs, in the words of docs/api.md ("Limits and credits"): the operation it
 * calls (src/catalogue/operations.ts says which are rate limited and charged) and the prices
 * the API has when nothing is set (src/config.ts). The API's own settings may differ: the
 * answers say what was charged (`X-Credits-Remaining`, `creditsCharged`).
 */
import { findOperation, type LimitKind } from '../src/catalogue/operations.js';
import { defaultConfig } from '../src/config.js';

const limits = defaultConfig().limits;
const credits = (n: number) => `${n} credit${n === 1 ? '' : 's'}`;
const searchLimit = `rate limited with the searches (${limits.ratePerSecond} requests per second per user, RATE_LIMIT_PER_SECOND)`;

const priceOf: Record<LimitKind, string> = {
  search: `Costs SEARCH_CREDIT_COST per call (${credits(limits.searchCost)} unless the API sets otherwise), charged only when the search succeeds; ${searchLimit}.`,
  count: `Free; ${searchLimit}.`,
  export: `Costs one credit per EXPORT_RECORDS_PER_CREDIT (${limits.exportRecordsPerCredit}) records sent; ${searchLimit}.`,
  detail: `Costs DETAIL_CREDIT_COST per call (${credits(limits.detailCost)} unless the API sets otherwise); ${searchLimit}.`,
  match: `Costs MATCH_CREDIT_COST per certain match (${credits(limits.matchCost)} unless the API sets otherwise); records without a certain match are free; maxCredits caps the request. One request counts once against the searches' rate limit.`,
  matchJob: `Each call counts against the searches' rate limit (${searchLimit.replace('rate limited with the searches ', '')}); a job's run costs MATCH_CREDIT_COST per certain match (${credits(limits.matchCost)} unless the API sets otherwise), charged by the worker chunk by chunk; maxCredits caps the job.`,
  savedSearch: `Free; ${searchLimit}.`,
  webhook: `Free; ${searchLimit}.`,
  changes: `Costs SEARCH_CREDIT_COST per page (${credits(limits.searchCost)} unless the API sets otherwise), as a page of search results; ${searchLimit}.`,
  suggest: `Free; a rate limit of its own (${limits.suggestRatePerSecond} per second per user, SUGGEST_RATE_LIMIT_PER_SECOND).`,
  usage: `Free; a rate limit of its own (${limits.usageRatePerSecond} per second per user, USAGE_RATE_LIMIT_PER_SECOND).`,
};

/**
 * The cost sentence of the operation at `method path` (a path as openapi.yaml writes it).
 *
 *   ('POST', '/corporates/count') -> 'Free; rate limited with the searches (...).'
 */
export function costOf(method: 'GET' | 'POST' | 'DELETE', apiPath: string): string {
  const concrete = apiPath.replace(/\{[^}]+\}/g, 'x');
  const operation = findOperation(method, concrete);
  if (!operation) throw new Error(`no operation ${method} ${apiPath} in src/catalogue/operations.ts`);
  return operation.limit ? priceOf[operation.limit] : 'Free and not rate limited.';
}
