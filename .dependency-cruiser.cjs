/**
 * The import rules of the project (`npm run lint:deps`, part of `npm run lint`):
 * the layers point one way, and nothing imports in a circle.
 *
 *   src/            the API and what it is built from: imports nothing from ops/, indexer/,
 *                   bench/, scripts/
 *   src/search, src/limits, src/errors, src/opensearch, src/catalogue: know nothing of HTTP
 *   ops/            operations: local launchers, bulk tools and reindex, CLI helpers, backfill;
 *                   may import src/ and indexer/, never bench/ or scripts/
 *   indexer/, bench/, scripts/: may import src/ and ops/
 *   mcp/            the MCP server, a client of the HTTP API: the typed client, the catalogue,
 *                   the masters and the CLI helpers; never the server, the search, the stores
 */
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'src-stands-alone',
      comment: 'The service must not depend on the indexer, the benchmarks or the scripts.',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(indexer|bench|scripts)/' },
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
      comment: 'Search, limits, errors, OpenSearch access and the catalogue are transport-neutral.',
      severity: 'error',
      from: { path: '^src/(search|limits|errors|opensearch|catalogue)/' },
      to: { path: '^src/http/' },
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
          '^src/catalogue/(console-catalogue|searches|corporate-filters|job-filters|define|enums|labels|operations|sort-fields|types)\\.ts$',
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
      from: { path: '^(src|ops|indexer|bench|scripts|client)/' },
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
    exclude: { path: '^(node_modules|dist|\\.local)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js', '.json'],
    },
  },
};
