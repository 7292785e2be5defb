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
  /from '\.\/support\/(env|secured-engine|secured-node|match-jobs)\.js'|inject\('(opensearchUrl|redisUrl)'\)|startLocal(OpenSearch|Redis|RedisSentinel)\(|ensureDevOpenSearch\(/;

/** The unit tier, by path from the project root, in alphabetical order. */
export const unitTestFiles = [
  'test/batch-plan.test.ts',
  'test/bench-load.test.ts',
  'test/capacity-model.test.ts',
  'test/catalogue-fields.test.ts',
  'test/catalogue-labels.test.ts',
  'test/catalogue.test.ts',
  'test/client-types.test.ts',
  'test/compile-kinds.test.ts',
  'test/compile-search.test.ts',
  'test/compile-units.test.ts',
  'test/compose-production.test.ts',
  'test/config.test.ts',
  'test/contract-errors.test.ts',
  'test/cursor-token.test.ts',
  'test/deadline-per-operation.test.ts',
  'test/doc-links.test.ts',
  'test/doc-snippets.test.ts',
  'test/error-codes.test.ts',
  'test/error-docs.test.ts',
  'test/fast-check-seed.test.ts',
  'test/generate.test.ts',
  'test/indexer-work-location.test.ts',
  'test/japan-days.test.ts',
  'test/judge-units.test.ts',
  'test/key-checker.test.ts',
  'test/ledger-entry.test.ts',
  'test/limits-config.test.ts',
  'test/local-child-process.test.ts',
  'test/match-units.test.ts',
  'test/name-eval.test.ts',
  'test/name-evaluation-labels.test.ts',
  'test/name-key.test.ts',
  'test/name-tables.test.ts',
  'test/name-variants.test.ts',
  'test/openapi-drift.test.ts',
  'test/reading.test.ts',
  'test/reconcile-queries.test.ts',
  'test/redis-url.test.ts',
  'test/registry-columns.test.ts',
  'test/registry-generate.test.ts',
  'test/request-log.test.ts',
  'test/route-matchers.test.ts',
  'test/route-table.test.ts',
  'test/run-postings.test.ts',
  'test/sample-files.test.ts',
  'test/search-errors.test.ts',
  'test/search-stages.test.ts',
  'test/strict-json.test.ts',
  'test/text-fold-table.test.ts',
  'test/text-units.test.ts',
  'test/tiers.test.ts',
  'test/webhook-units.test.ts',
];
