/**
 * Every machine code of the error catalogue (src/errors/catalogue.ts) is documented for
 * callers: in openapi.yaml's Error.code enumeration and in docs/api.md's table, with its
 * status. And nothing is documented that the catalogue does not have.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ApiError, errorCatalogue, errorCodes, errors } from '../../src/errors/catalogue.js';
import { openApiFile } from '../../src/http/validation.js';
import { projectRoot } from '../../src/project-root.js';

const spec = parse(readFileSync(openApiFile, 'utf8')) as {
  components: { schemas: { Error: { required: string[]; properties: { code: { enum: string[] } } } } };
};
const apiDoc = readFileSync(path.join(projectRoot, 'docs', 'api.md'), 'utf8');
/** `| \`code\` | 400 |` rows of the docs table: code -> status. */
const documentedRows = new Map(
  [...apiDoc.matchAll(/^\| `([a-z_]+)` \| (\d{3}) \|/gm)].map((match) => [match[1], Number(match[2])]),
);

type Factory = keyof typeof errors;

/** Parameters for every factory (the compiler requires one entry per factory). */
const samples: { [K in Factory]: Parameters<(typeof errors)[K]> } = {
  validation: [[{ field: 'limit', reason: 'must be at most 1000' }]],
  malformedJson: [undefined],
  malformedCompressedBody: [],
  missingApiKey: [],
  unknownApiKey: [],
  expiredApiKey: [],
  revokedApiKey: [],
  insufficientCredits: [{ balance: 0, cost: 3 }],
  insufficientMatchCredits: [{ balance: 0, cost: 3 }],
  insufficientReconcileCredits: [{ balance: 0, cost: 3 }],
  notFound: ['The job posting'],
  routeNotFound: [{ method: 'GET', path: '/rest/v1/Corporates', didYouMean: '/rest/v1/corporates' }],
  methodNotAllowed: [{ method: 'PUT', path: '/rest/v1/corporates/search' }],
  payloadTooLarge: ['100 kB'],
  unsupportedMediaType: [],
  unsupportedFormMediaType: [],
  unsupportedCharset: ['latin1'],
  unsupportedContentEncoding: ['br'],
  idempotencyConflict: [],
  idempotencyInProgress: [],
  keyStoreUnavailable: [2],
  rateLimited: [{ retryAfterSeconds: 1, perSecond: 5, windowSeconds: 1 }],
  tooManyExports: [2],
  queryTooComplex: [
    { limit: 1024, clauses: 2000, field: { field: 'nameOr', reason: 'needs 1,500 clauses' } },
  ],
  queryRejected: [],
  internal: [],
  searchUnavailable: [],
  deadlineExceeded: [3000],
  savedSearchLimit: [100],
  webhookLimit: [20],
  savedSearchesUnavailable: [],
  matchJobsUnavailable: [],
  limitsUnavailable: [],
};

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

  it("every factory makes an error whose status is its code's, from its own parameters", () => {
    for (const [name, params] of Object.entries(samples)) {
      const error = (errors[name as Factory] as (...args: unknown[]) => ApiError)(...params);
      expect(error, name).toBeInstanceOf(ApiError);
      expect(errorCodes, name).toContain(error.code);
      expect(error.status, name).toBe(errorCatalogue[error.code].status);
      expect(error.message.length, name).toBeGreaterThan(10);
    }
    expect(Object.keys(samples).sort()).toEqual(Object.keys(errors).sort());
  });

  it('a factory fills its template from its parameters', () => {
    expect(errors.insufficientMatchCredits({ balance: 2, cost: 7 }).message).toMatch(
      /^Not enough API credits: this match reserves 7 .*the balance is 2;/,
    );
    expect(errors.rateLimited({ retryAfterSeconds: 3, perSecond: 8, windowSeconds: 10 })).toMatchObject({
      message: 'Rate limit exceeded: at most 8 requests per 10 seconds per user.',
      headers: { 'Retry-After': '3' },
    });
    expect(errors.queryTooComplex({ limit: 1024, clauses: 2048 }).message).toMatch(
      /^The search needs 2,048 query clauses; the search engine runs at most 1,024 per query\. Send fewer values or filterGroups, or split/,
    );
    expect(errors.limitsUnavailable().headers).toEqual({ 'Retry-After': '1' });
    expect(errors.limitsUnavailable(7).headers).toEqual({ 'Retry-After': '7' });
    expect(errors.malformedJson().errors).toEqual([{ field: 'body', reason: 'must be valid JSON' }]);
  });

  it('every code is made by some factory (no code documented that the server cannot send)', () => {
    const made = new Set(
      Object.entries(samples).map(
        ([name, params]) => (errors[name as Factory] as (...args: unknown[]) => ApiError)(...params).code,
      ),
    );
    expect([...made].sort()).toEqual([...errorCodes].sort());
  });

  it('what a caller reads names no operator command or setting (those are in the operator docs)', () => {
    const operatorWords = /npm run|npx |--grant|\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b/;
    for (const [name, params] of Object.entries(samples)) {
      const error = (errors[name as Factory] as (...args: unknown[]) => ApiError)(...params);
      expect(JSON.stringify(error.toBody()), name).not.toMatch(operatorWords);
    }
    for (const [code, { meaning }] of Object.entries(errorCatalogue))
      expect(meaning, code).not.toMatch(operatorWords);
    const table = apiDoc.split('\n').filter((line) => /^\| `[a-z_]+` \| \d{3} \|/.test(line));
    expect(table.length).toBe(errorCodes.length);
    for (const row of table) expect(row).not.toMatch(operatorWords);
  });
});
