/**
 * The import rules of the project (`npm run lint:deps`, part of `npm run lint`):
 * the layers point one way, and nothing imports in a circle.
 *
 *   src/            the API and what it is built from: imports nothing from ops/, indexer/,
 *                   sample-data/, bench/, scripts/
 *   src/search, src/limits, src/errors, src/opensearch, src/catalogue, src/auth, src/text,
 *   src/masters: know nothing of HTTP
 *   Express (and its types) only in src/http: the rest of src/ deals in plain values and streams
 *   the OpenSearch client only in src/opensearch: everything else holds the engine port
 *                   (src/opensearch/engine.ts); bench/ and test/ may measure the engine directly
 *   ops/            operations: local launchers, bulk tools and reindex, CLI helpers, backfill;
 *                   may import src/ and indexer/, never bench/ or scripts/
 *   indexer/, bench/, scripts/: may import src/ and ops/
 *   indexer/bin/    the indexer's entry points (CLIs, the worker's process): the pipeline imports
 *                   nothing from them
 *   sample-data/    the sample-data generator, a package of its own: may import src/, never the
 *                   indexer, the benchmarks, the scripts or the MCP server; the others import it
 *                   through its entry, sample-data/index.ts
 *   mcp/            the MCP server, a client of the HTTP API: the typed client, the catalogue,
 *                   the masters and the CLI helpers; never the server, the search, the stores
 */
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'src-stands-alone',
      comment:
        'The service must not depend on the indexer, the benchmarks, the scripts or the sample-data generator.',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(indexer|bench|scripts|sample-data)/' },
    },
    {
      name: 'pipeline-knows-no-entry-points',
      comment:
        'The entry points of the indexer (indexer/bin/: the CLIs and the process of the worker) use the pipeline, never the other way round.',
      severity: 'error',
      from: { path: '^indexer/', pathNot: '^indexer/bin/' },
      to: { path: '^indexer/bin/' },
    },
    {
      name: 'sample-data-stands-alone',
      comment:
        'The sample-data generator is a package of its own: it may use src/ (source-record shapes, masters, text folding), never the indexer, the benchmarks, the scripts, the MCP server or the tests.',
      severity: 'error',
      from: { path: '^sample-data/' },
      to: { path: '^(indexer|bench|scripts|mcp|test)/' },
    },
    {
      name: 'sample-data-through-its-entry',
      comment:
        'Outside its tests, the project uses the sample-data package through its entry (sample-data/index.ts, its package.json exports), not its inner modules.',
      severity: 'error',
      from: { path: '^(src|indexer|bench|scripts|mcp)/' },
      to: { path: '^sample-data/', pathNot: '^sample-data/index\\.ts$' },
    },
    {
      name: 'service-knows-no-ops',
      comment:
        'The service never imports operations (ops/: local launchers, bulk tools, reindex, CLI helpers); an entry point hands it what it needs (src/server.ts localEngine).',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^ops/' },
    },
    {
      name: 'ops-below-the-entry-points',
      comment: 'Operations code is imported by the CLIs, benchmarks and tests, never the other way round.',
      severity: 'error',
      from: { path: '^ops/' },
      to: { path: '^(bench|scripts|test)/' },
    },
    {
      name: 'core-knows-no-http',
      comment:
        'Search, limits, errors, OpenSearch access, the catalogue, keys, text and masters are transport-neutral.',
      severity: 'error',
      from: { path: '^src/(search|names|reconcile|limits|errors|opensearch|catalogue|auth|text|masters)/' },
      to: { path: '^src/http/' },
    },
    {
      name: 'one-engine-port',
      comment:
        'Only src/opensearch/ talks to the OpenSearch client library (type-only imports included): the service, the names, the indexer and the operations tools hold the engine port (src/opensearch/engine.ts) and read failures through src/opensearch/failures.ts. The benchmarks and the tests may use the client to measure or arrange the engine directly.',
      severity: 'error',
      from: { path: '^(src|indexer|ops|mcp|sample-data)/', pathNot: '^src/opensearch/' },
      to: { path: '(^|/)node_modules/@opensearch-project/opensearch/' },
    },
    {
      name: 'engine-client-behind-the-port',
      comment:
        'The client and its thin search transport are built by the engine port alone: the rest of the project makes an engine with createEngine (src/opensearch/engine.ts).',
      severity: 'error',
      from: { path: '^(src|indexer|ops|mcp|sample-data)/', pathNot: '^src/opensearch/' },
      to: { path: '^src/opensearch/(client|search-transport)\\.ts$' },
    },
    {
      name: 'search-stages-in-order',
      comment:
        'The search pipeline (src/search/run-search.ts): parsing a body, compiling a plan and shaping records are pure stages; only resolve and execute (run-search, posting-overflow, export, paging/) call the engine. A pure stage imports neither the engine port (its request and answer types excepted) nor the stages that run engine calls.',
      severity: 'error',
      from: {
        path: '^src/search/(parse-request|request-hints|master-values|plan|clause-count|compile-[a-z]+|facets|records|record-text|snippets|opening|detail-window)\\.ts$',
      },
      to: {
        path: '^src/opensearch/engine\\.ts$|^src/search/(run-search|posting-overflow|export|job-detail)\\.ts$|^src/search/paging/',
        dependencyTypesNot: ['type-only'],
      },
    },
    {
      name: 'express-stays-at-the-edge',
      comment:
        'Only the HTTP layer knows Express: everything else under src/ takes and returns plain values and streams (type-only imports included).',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/http/' },
      to: { path: '(^|/)node_modules/(@types/)?express(-serve-static-core)?/' },
    },
    {
      name: 'mcp-is-an-api-client',
      comment:
        'The MCP server calls the running API over HTTP (client/src): it may read the catalogue, the masters, the configuration defaults and the CLI helpers (ops/cli.ts), never the HTTP app, the search, the limits, the stores or Express.',
      severity: 'error',
      from: { path: '^mcp/' },
      to: {
        pathNot: [
          '^mcp/',
          '^client/src/',
          '^src/catalogue/(public-catalogue|searches|corporate-filters|job-filters|define|enums|labels|operations|sort-fields|types)\\.ts$',
          '^src/masters/',
          '^src/(config|project-root)\\.ts$',
          '^ops/cli\\.ts$',
          'node_modules/(@modelcontextprotocol/sdk|zod|yaml|commander|openapi-fetch)/',
        ],
        dependencyTypesNot: ['core'],
      },
    },
    {
      name: 'nothing-imports-mcp',
      comment: 'The MCP server is an entry point of its own.',
      severity: 'error',
      from: { path: '^(src|ops|indexer|bench|scripts|client|sample-data)/' },
      to: { path: '^mcp/' },
    },
    {
      name: 'no-circular',
      comment: 'No import cycle, anywhere.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'not-to-unresolvable',
      comment: 'Every import resolves.',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|\\.local)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js', '.json'],
    },
  },
};
