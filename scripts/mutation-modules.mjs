// The modules under mutation testing (stryker.config.mjs): where a wrong line costs money or
// trust. `mutate`: the code mutated (a file, or `file:first-last` for some of its lines);
// `tests`: the test files that exercise it (the rest of the suite is not run against its
// mutants, to keep a run within reach of a 2-core machine); `timeoutMS`: Stryker's allowance
// beyond a mutant's tests' own time (default 20 s).
import { readFileSync } from 'node:fs';

/** A file's lines, by its path from the project root (whatever the working directory). */
const linesOf = (file) => readFileSync(new URL(`../${file}`, import.meta.url), 'utf8').split('\n');

/**
 * Stryker's line range (`file:first-last`) from the first line holding `from` to the first
 * line from there holding `to`; an error when either is missing (the code changed).
 */
function span(file, from, to = from) {
  const lines = linesOf(file);
  const first = lines.findIndex((line) => line.includes(from));
  const last = first < 0 ? -1 : lines.findIndex((line, i) => i >= first && line.includes(to));
  if (first < 0 || last < 0) throw new Error(`${file}: no lines from "${from}" to "${to}"`);
  return `${file}:${first + 1}-${last + 1}`;
}

/** A top-level function's lines: from its signature to the first closing brace at column 0. */
function fn(file, signature) {
  const lines = linesOf(file);
  const first = lines.findIndex((line) => line.startsWith(signature));
  const last = first < 0 ? -1 : lines.findIndex((line, i) => i > first && line === '}');
  if (first < 0 || last < 0) throw new Error(`${file}: no top-level "${signature}"`);
  return `${file}:${first + 1}-${last + 1}`;
}

export const mutationModules = {
  // filters become OpenSearch queries
  compiler: {
    mutate: [
      'src/search/compile-kinds.ts',
      'src/search/compile-query.ts',
      'src/search/compile-search.ts',
      'src/search/compile-sort.ts',
    ],
    tests: [
      'test/search/compile-kinds.test.ts',
      'test/search/compile-search.test.ts',
      'test/search/compile-units.test.ts',
    ],
  },
  // text folding, readings, name keys, corporate numbers
  text: {
    mutate: [
      'src/text/normalize.ts',
      'src/names/keys.ts',
      'src/names/reading.ts',
      'src/text/corporate-number.ts',
      'src/text/address.ts',
    ],
    tests: [
      'test/names/name-key.test.ts',
      'test/names/reading.test.ts',
      'test/text/text-fold.test.ts',
      // the fold against the table from Python's Unicode data: pure, under a second
      'test/text/text-fold-table.test.ts',
      'test/text/text-units.test.ts',
    ],
    // beyond the tests' own time (x2): their 50-odd tests run in 4 s together; a mutant
    // looping for ever (i-- in a character loop) otherwise costs 20 s each
    timeoutMS: 5_000,
  },
  // the judge of POST /corporates/match and what it reads: the name tables (typed rows), a
  // record's evidence, the features, rivals and confidence of a company. Unit-tier tests only
  // (`servers: false`): test/names/match.test.ts, test/names/match-judge.test.ts and
  // test/names/names-evaluation.test.ts reach the rest of matching (the lookups, `decide`, the
  // candidates' `matchedOn`) through the engine, indexing companies again for each mutant run,
  // and are left out; so are lookup.ts's searches and suggest.ts, which only the engine answers.
  // Of match.ts the budget (`applyBudget`), of lookup.ts the keys a record is looked up by.
  // keys.ts and reading.ts are in the `text` module.
  names: {
    mutate: [
      'src/names/tables.ts',
      'src/names/evidence.ts',
      'src/names/judge.ts',
      fn('src/names/match.ts', 'export function applyBudget('),
      fn('src/names/lookup.ts', 'export function lookupValues('),
      span('src/names/lookup.ts', 'export const keyId'),
      fn('src/names/lookup.ts', 'export function foundUnder('),
    ],
    // test/names/reading.test.ts: a record's derived reading (evidence.ts withDerivedReading)
    tests: [
      'test/names/judge-units.test.ts',
      'test/names/match-units.test.ts',
      'test/names/name-tables.test.ts',
      'test/names/reading.test.ts',
    ],
    // no OpenSearch or Redis: the tests are the unit tier's (scripts/mutation.ts)
    servers: false,
    // pure functions: tests of milliseconds, as in `text`
    timeoutMS: 5_000,
  },
  // credits and rate limits. test/limits/rate-limit.test.ts and test/limits/redis-stall-rate.test.ts (the
  // limiter through the app, and under a frozen redis-server of their own) are left out: with
  // them a run was estimated at hours on a loaded 2-core machine. Of the charges (charges.ts),
  // what test/limits/limits-units.test.ts calls directly: a request's price (`costOf`), the refund
  // before an error answer (`refundBeforeAnswer`) and the one a failed request retries while
  // Redis is away (`refundWithRetry` and its loop, `settleWithRetry`); of rate-limit.ts the
  // store failure's 503 (`unavailable`).
  limits: {
    mutate: [
      'src/limits/export-cost.ts',
      'src/limits/local-credit-ledger.ts',
      'src/limits/redis-credit-ledger.ts',
      'src/limits/rate-limiter.ts',
      'src/limits/limits.ts',
      'src/limits/admission.ts',
      'src/limits/idempotency-store.ts',
      'src/limits/orphan-sweeper.ts',
      'src/limits/store-unavailable.ts',
      fn('src/limits/charges.ts', 'export function costOf('),
      fn('src/limits/charges.ts', 'export async function refundBeforeAnswer('),
      fn('src/limits/charges.ts', 'export function refundWithRetry('),
      fn('src/limits/charges.ts', 'function settleWithRetry('),
      fn('src/limits/rate-limit.ts', 'export function unavailable('),
    ],
    tests: [
      'test/limits/credits-ledger.test.ts',
      'test/limits/limits-units.test.ts',
      'test/limits/admission.test.ts',
      'test/limits/idempotency-store.test.ts',
    ],
  },
  // cursor tokens (AES-256-GCM). test/search/cursors.test.ts (the same through the app on the engine)
  // is left out here: its setup indexes companies again for every mutant run, about a minute
  // each on a loaded 2-core machine (hours for the module), for the checks the unit file makes.
  cursor: {
    mutate: ['src/search/paging/cursor.ts'],
    tests: ['test/search/cursor-token.test.ts'],
  },
  // export pricing: what an export costs (the count's figure, the maxCredits check, the
  // reservation) and what it is charged when whole, cut by the caller or the engine, or refused
  // (settled at the records sent, refunded whole). Only those parts of src/search/export.ts
  // (not the CSV/JSONL encoding, the file name, the body's other fields): `span` turns them
  // into line ranges when the module is read, so an edit above them does not shift them.
  // test/search/export.test.ts (the same through the app on a socket, 16 MB of postings indexed
  // per run) is left out: test/limits/export-pricing.test.ts asserts exact charges in seconds.
  export: {
    mutate: [
      'src/limits/export-cost.ts',
      span('src/search/export.ts', 'if (maxCredits !== undefined &&', "field: 'maxCredits'"),
      span('src/search/export.ts', '...(maxCredits !== undefined'),
      fn('src/search/export.ts', 'function startHeartbeat('),
      // runExport and its parts: the count, the cap, the slot, the reservation, the records
      // sent, the failure and the settlement
      fn('src/search/export.ts', 'export async function runExport('),
      fn('src/search/export.ts', 'async function admitExport('),
      fn('src/search/export.ts', 'async function countOnPit('),
      fn('src/search/export.ts', 'async function takeExportSlot('),
      fn('src/search/export.ts', 'async function reserveFullCost('),
      fn('src/search/export.ts', 'async function streamFile('),
      fn('src/search/export.ts', 'async function writePage('),
      fn('src/search/export.ts', 'function failExport('),
      fn('src/search/export.ts', 'async function endExport('),
      fn('src/search/export.ts', 'async function settle('),
      span('src/search/run-search.ts', 'return { totalResults, exportCredits'),
    ],
    tests: ['test/limits/export-pricing.test.ts'],
  },
};
