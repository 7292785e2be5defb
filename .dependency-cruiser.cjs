/**
 * The import rules of the project (`npm run lint:deps`, part of `npm run lint`):
 * the layers point one way, and nothing imports in a circle.
 *
 *   src/            the API and what it is built from: imports nothing from indexer/, bench/, scripts/
 *   src/search, src/limits, src/errors, src/opensearch, src/catalogue, src/auth, src/text,
 *   src/masters: know nothing of HTTP
 *   Express (and its types) only in src/http: the rest of src/ deals in plain values and streams
 *   indexer/, bench/, scripts/: may import src/
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
      name: 'core-knows-no-http',
      comment:
        'Search, limits, errors, OpenSearch access, the catalogue, keys, text and masters are transport-neutral.',
      severity: 'error',
      from: { path: '^src/(search|limits|errors|opensearch|catalogue|auth|text|masters)/' },
      to: { path: '^src/http/' },
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
        'The MCP server calls the running API over HTTP (client/src): it may read the catalogue, the masters, the configuration defaults and the CLI helpers, never the HTTP app, the search, the limits, the stores or Express.',
      severity: 'error',
      from: { path: '^mcp/' },
      to: {
        pathNot: [
          '^mcp/',
          '^client/src/',
          '^src/catalogue/(console-catalogue|searches|corporate-filters|job-filters|define|enums|labels|operations|sort-fields|types)\\.ts$',
          '^src/masters/',
          '^src/(cli|config|project-root)\\.ts$',
          'node_modules/(@modelcontextprotocol/sdk|zod|yaml|commander|openapi-fetch)/',
        ],
        dependencyTypesNot: ['core'],
      },
    },
    {
      name: 'nothing-imports-mcp',
      comment: 'The MCP server is an entry point of its own.',
      severity: 'error',
      from: { path: '^(src|indexer|bench|scripts|client)/' },
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
