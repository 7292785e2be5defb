/**
 * Every machine code of the error catalogue (src/errors/catalogue.ts) is documented for
 * callers: in openapi.yaml's Error.code enumeration and in docs/api.md's table, with its
 * status. And nothing is documented that the catalogue does not have.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { errorCatalogue, errorCodes, errors } from '../src/errors/catalogue.js';
import { openApiFile } from '../src/http/validation.js';
import { projectRoot } from '../src/project-root.js';

const spec = parse(readFileSync(openApiFile, 'utf8')) as {
  components: { schemas: { Error: { required: string[]; properties: { code: { enum: string[] } } } } };
};
const apiDoc = readFileSync(path.join(projectRoot, 'docs', 'api.md'), 'utf8');
/** `| \`code\` | 400 |` rows of the docs table: code -> status. */
const documentedRows = new Map(
  [...apiDoc.matchAll(/^\| `([a-z_]+)` \| (\d{3}) \|/gm)].map((match) => [match[1], Number(match[2])]),
);

describe('error codes', () => {
  it('openapi.yaml requires a code on every error body and lists exactly the catalogue', () => {
    const errorSchema = spec.components.schemas.Error;
    expect(errorSchema.required).toContain('code');
    expect([...errorSchema.properties.code.enum].sort()).toEqual([...errorCodes].sort());
  });

  it('docs/api.md has a row for every code, with its status, and no other', () => {
    for (const code of errorCodes) {
      expect(documentedRows.get(code), code).toBe(errorCatalogue[code].status);
    }
    expect([...documentedRows.keys()].sort()).toEqual([...errorCodes].sort());
  });

  it("every factory makes an error whose status is its code's", () => {
    for (const [name, make] of Object.entries(errors)) {
      const error = (make as (...args: unknown[]) => { code: keyof typeof errorCatalogue; status: number })(
        [],
        1,
      );
      expect(errorCodes, name).toContain(error.code);
      expect(error.status, name).toBe(errorCatalogue[error.code].status);
    }
  });

  it('every code is made by some factory (no code documented that the server cannot send)', () => {
    const made = new Set(
      Object.values(errors).map((make) => (make as (...args: unknown[]) => { code: string })([], 1).code),
    );
    expect([...made].sort()).toEqual([...errorCodes].sort());
  });
});
