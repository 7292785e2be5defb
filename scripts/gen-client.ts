/**
 * `npm run gen:client`: writes the typed client's types (client/src/generated/openapi.ts)
 * from openapi.yaml with openapi-typescript. test/client-types.test.ts fails when the committed
 * file differs from a fresh run, the same way test/openapi-drift.test.ts guards openapi.yaml.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString, COMMENT_HEADER } from 'openapi-typescript';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const clientTypesFile = path.join(root, 'client', 'src', 'generated', 'openapi.ts');

export async function renderClientTypes(): Promise<string> {
  const ast = await openapiTS(readFileSync(path.join(root, 'openapi.yaml'), 'utf8'), {
    // a request field with a default (limit, offset, includeTotalResults) may be left out
    defaultNonNullable: false,
  });
  return `${COMMENT_HEADER.trimEnd()}\n// Generated from openapi.yaml by scripts/gen-client.ts (npm run gen:client).\n\n${astToString(ast)}`;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  writeFileSync(clientTypesFile, await renderClientTypes());
  process.stderr.write(`wrote ${path.relative(process.cwd(), clientTypesFile)}\n`);
}
