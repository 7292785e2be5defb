/**
 * The two test tiers (docs/testing.md, "Tiers"). The unit tier is this list: files that need
 * neither OpenSearch nor Redis, run by `npm run test:unit` (vitest.unit.config.ts) with no
 * server at all; the integration tier is every other test file, run against the shared servers
 * of test/support/global-setup.ts (`npm run test:integration`). `npm test` runs both.
 *
 * test/tiers.test.ts (itself in the unit tier) keeps the list honest both ways: a file listed
 * here that reaches for a server (`needsServers`) fails it, and so does a file left out of the
 * list that does not, so a new file lands in the right tier the first time the suite runs. A
 * unit file that reaches a server anyway fails in the unit tier, whose server addresses are
 * names that do not resolve (test/support/unit-setup.ts).
 */

/** What makes a test file need the test servers: a line matching this. */
export const needsServers =
  /from '(?:\.\.?\/)+support\/(env|secured-engine|secured-node|match-jobs)\.js'|inject\('(opensearchUrl|redisUrl)'\)|startLocal(OpenSearch|Redis|RedisSentinel)\(|ensureDevOpenSearch\(/;

/** The unit tier, by path from the project root, in alphabetical order. */
export const unitTestFiles = [
  'test/auth/key-checker.test.ts',
  'test/bench/bench-load.test.ts',
  'test/bench/capacity-model.test.ts',
  'test/bench/cpu-profile.test.ts',
  'test/bench/name-eval.test.ts',
  'test/bench/name-evaluation-labels.test.ts',
  'test/bench/name-variants.test.ts',
  'test/bench/query-floor.test.ts',
  'test/bench/report-previous.test.ts',
  'test/catalogue/catalogue-fields.test.ts',
  'test/catalogue/catalogue-labels.test.ts',
  'test/catalogue/catalogue.test.ts',
  'test/client/client-types.test.ts',
  'test/config/config.test.ts',
  'test/config/redis-url.test.ts',
  'test/deadline.test.ts',
  'test/docs/doc-links.test.ts',
  'test/docs/doc-snippets.test.ts',
  'test/errors/error-codes.test.ts',
  'test/fast-check-seed.test.ts',
  'test/http/contract-errors.test.ts',
  'test/http/deadline-per-operation.test.ts',
  'test/http/error-docs.test.ts',
  'test/http/masters-fast-path-units.test.ts',
  'test/http/openapi-drift.test.ts',
  'test/http/request-log.test.ts',
  'test/http/route-matchers.test.ts',
  'test/http/route-table.test.ts',
  'test/http/strict-json.test.ts',
  'test/indexer/batch-plan.test.ts',
  'test/indexer/indexer-work-location.test.ts',
  'test/indexer/registry-columns.test.ts',
  'test/indexer/run-postings.test.ts',
  'test/limits/ledger-entry.test.ts',
  'test/limits/limits-config.test.ts',
  'test/match-jobs/results-lines.test.ts',
  'test/names/judge-units.test.ts',
  'test/names/match-units.test.ts',
  'test/names/name-key.test.ts',
  'test/names/name-tables.test.ts',
  'test/names/reading.test.ts',
  'test/names/suggest-units.test.ts',
  'test/ops/compose-production.test.ts',
  'test/ops/local-child-process.test.ts',
  'test/reconcile/reconcile-queries.test.ts',
  'test/sample-data/generate.test.ts',
  'test/sample-data/registry-generate.test.ts',
  'test/sample-data/sample-files.test.ts',
  'test/saved-searches/query-fields.test.ts',
  'test/search/compile-kinds.test.ts',
  'test/search/compile-search.test.ts',
  'test/search/compile-units.test.ts',
  'test/search/cursor-token.test.ts',
  'test/search/search-errors.test.ts',
  'test/search/search-stages.test.ts',
  'test/text/japan-days.test.ts',
  'test/text/text-fold-table.test.ts',
  'test/text/text-units.test.ts',
  'test/tiers.test.ts',
  'test/webhooks/webhook-units.test.ts',
];
