/**
 * `npm run gen:client`: writes the typed client's types (client/src/generated/openapi.ts)
 * from openapi.yaml with openapi-typescript. test/client/client-types.test.ts fails when the committed
 * file differs from a fresh run, the same way test/http/openapi-drift.test.ts guards openapi.yaml.
 *
 * Every array in a request schema is written `readonly T[]`, so a caller may pass a list it
 * declared `as const` (or any ReadonlyArray) as a filter's values; response arrays stay
 * mutable `T[]` (docs/decisions/client-and-command-lines.md).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString, COMMENT_HEADER } from 'openapi-typescript';
import ts from 'typescript';
import { parse } from 'yaml';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const clientTypesFile = path.join(root, 'client', 'src', 'generated', 'openapi.ts');

interface OpenApiDocument {
  paths: Record<string, Record<string, { requestBody?: unknown; responses?: unknown; parameters?: unknown }>>;
  components: { schemas: Record<string, unknown> };
}

/** Every `$ref` string anywhere under `value`. */
function refsIn(value: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const item of value) refsIn(item, found);
  else if (value && typeof value === 'object')
    for (const [key, inner] of Object.entries(value)) {
      if (key === '$ref' && typeof inner === 'string') found.add(inner);
      else refsIn(inner, found);
    }
  return found;
}

/** The component schemas reachable from `start`, following `$ref`s through the schemas. */
function reachableSchemas(document: OpenApiDocument, start: Set<string>): Set<string> {
  const prefix = '#/components/schemas/';
  const seen = new Set<string>();
  const queue = [...start].filter((ref) => ref.startsWith(prefix));
  for (let ref = queue.pop(); ref !== undefined; ref = queue.pop()) {
    const name = ref.slice(prefix.length);
    if (seen.has(name)) continue;
    seen.add(name);
    for (const next of refsIn(document.components.schemas[name]))
      if (next.startsWith(prefix)) queue.push(next);
  }
  return seen;
}

/**
 * The schemas only requests use: reachable from a request body or parameter, and from no
 * response (a schema both send would otherwise hand callers readonly arrays in answers).
 */
export function requestOnlySchemas(document: OpenApiDocument): Set<string> {
  const sent = new Set<string>();
  const answered = new Set<string>();
  for (const operations of Object.values(document.paths))
    for (const operation of Object.values(operations)) {
      if (!operation || typeof operation !== 'object') continue;
      refsIn([operation.requestBody, operation.parameters], sent);
      refsIn(operation.responses, answered);
    }
  const inResponses = reachableSchemas(document, answered);
  return new Set([...reachableSchemas(document, sent)].filter((name) => !inResponses.has(name)));
}

/** `T[]` as `readonly T[]`, also inside a union (`T[] | null`); other types unchanged. */
function readonlyArrays(type: ts.TypeNode): ts.TypeNode | undefined {
  if (ts.isArrayTypeNode(type)) return ts.factory.createTypeOperatorNode(ts.SyntaxKind.ReadonlyKeyword, type);
  if (ts.isUnionTypeNode(type) && type.types.some(ts.isArrayTypeNode))
    return ts.factory.createUnionTypeNode(type.types.map((member) => readonlyArrays(member) ?? member));
  return undefined;
}

export async function renderClientTypes(): Promise<string> {
  const source = readFileSync(path.join(root, 'openapi.yaml'), 'utf8');
  const requestOnly = requestOnlySchemas(parse(source) as OpenApiDocument);
  const inRequestOnly = (where: string | undefined) =>
    where !== undefined && requestOnly.has(/^#\/components\/schemas\/([^/]+)/.exec(where)?.[1] ?? '');
  const ast = await openapiTS(source, {
    // a request field with a default (limit, offset, includeTotalResults) may be left out
    defaultNonNullable: false,
    postTransform: (type, options) => (inRequestOnly(options.path) ? readonlyArrays(type) : undefined),
  });
  return `${COMMENT_HEADER.trimEnd()}\n// Generated from openapi.yaml by scripts/gen-client.ts (npm run gen:client).\n\n${astToString(ast)}`;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  writeFileSync(clientTypesFile, await renderClientTypes());
  process.stderr.write(`wrote ${path.relative(process.cwd(), clientTypesFile)}\n`);
}
