/**
 * Property tests (fast-check) of both searches, with the request bodies generated FROM THE
 * CATALOGUE (src/catalogue): every filter the catalogue declares on a field the response
 * record carries, in its flat or nested spelling, with values drawn from the indexed data.
 *
 * - A valid body -> 200, and the returned records are exactly the fixture records that satisfy
 *   every condition when checked in plain TypeScript against their own fields.
 * - An invalid body (wrong type, out-of-bounds item, unknown enum value, misspelt name) -> 400
 *   with an error naming the field.
 *
 * The fixture is a small data set of the project's generator, indexed by the project's
 * ingest pipeline, so the documents are the real shapes.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryDeadLetter } from '../indexer/dead-letter.js';
import { generateDataSet } from '../indexer/generate/generator.js';
import { ingestFiles } from '../indexer/ingest.js';
import { createApiKey, keyStoreFor } from '../src/auth/key-admin.js';
import { corporateSearch, jobSearch, type SearchCatalogue } from '../src/catalogue/searches.js';
import type { FilterDef, Op } from '../src/catalogue/types.js';
import { createApp } from '../src/http/app.js';
import { createLimits } from '../src/limits/limits.js';
import { openCreditLedger } from '../src/limits/open-credit-ledger.js';
import type { Services } from '../src/services.js';
import { setUpServices } from './support/env.js';
import { propertyParams } from './support/fast-check.js';

type Record_ = Record<string, unknown>;

let services: Services;
let app: ReturnType<typeof createApp>;
let apiKey: string;
let dataDir: string;
const all: { corporates: Record_[]; jobs: Record_[] } = { corporates: [], jobs: [] };
const userId = 'property-user';

const searchPath = (search: SearchCatalogue) =>
  search.index === 'corporates' ? '/rest/v1/corporates/search' : '/rest/v1/jobs/search';
const idOf = (search: SearchCatalogue, record: Record_) =>
  String(search.index === 'corporates' ? record.corporateNumber : record.id);

async function post(search: SearchCatalogue, body: unknown) {
  return request(app)
    .post(searchPath(search))
    .set('X-API-Key', apiKey)
    .send(body as object);
}

beforeAll(async () => {
  services = await setUpServices('property-search');
  // the rate limit (5/s per user) would turn a property run into 429s: this user is exempt
  services.limits = createLimits({
    redis: services.redis,
    keyPrefix: services.config.redisPrefix,
    config: { rateLimitExemptUsers: new Set([userId]) },
  });
  app = createApp(services);
  ({ key: apiKey } = await createApiKey(keyStoreFor(services.redis, services.config.redisPrefix), {
    userId,
  }));
  const { ledger, close } = openCreditLedger(services.config);
  await ledger.grant(userId, 1_000_000);
  await close();

  dataDir = mkdtempSync(path.join(os.tmpdir(), 'property-search-'));
  const files = await generateDataSet({
    companies: 80,
    jobs: 400,
    seed: 7,
    // a fixed "today": the data, and so every case fast-check draws from it, is the same each run
    now: new Date('2026-04-01T00:00:00+09:00'),
    outDir: dataDir,
  });
  const deadLetter = new MemoryDeadLetter();
  await ingestFiles([files.corporates, files.jobs], {
    client: services.opensearch,
    indexPrefix: services.config.indexPrefix,
    deadLetter,
  });
  await services.opensearch.indices.refresh({ index: `${services.config.indexPrefix}*` });
  for (const search of [corporateSearch, jobSearch]) {
    const res = await post(search, { limit: 1000 });
    expect(res.status).toBe(200);
    const records = res.body.results as Record_[];
    expect(records.length).toBe(res.body.totalResults);
    if (search.index === 'corporates') all.corporates = records;
    else all.jobs = records;
  }
  expect(all.corporates.length).toBe(80);
  expect(all.jobs.length).toBe(400);
});

afterAll(async () => {
  await services?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

// ---------------------------------------------------------------------------------------
// the conditions, checked in plain TypeScript on a record's own fields

/** The record values at an index field path: `markets.code` -> every market's code. */
function valuesAt(record: Record_, field: string): unknown[] {
  const [head, ...rest] = field.replace(/\.substring$/, '').split('.');
  const value = record[head as string];
  if (value === null || value === undefined) return [];
  if (rest.length === 0) return Array.isArray(value) ? value : [value];
  const items = Array.isArray(value) ? value : [value];
  return items.flatMap((item) => valuesAt(item as Record_, rest.join('.')));
}

/** The calendar day in Japan of a stored date (`2026-09-04`) or date-time. */
function japanDay(value: unknown): string {
  const text = String(value);
  if (/^\d{4}-\d{2}-\d{2}$/.test(text)) return text;
  return new Date(Date.parse(text) + 9 * 3600_000).toISOString().slice(0, 10);
}

/**
 * The oracle's text fold, from Unicode's own tables as Node ships them (NFKC, then lower
 * case), written here rather than imported from src/text: the product's fold (the analyzer's
 * char filter) must agree with it on this data. The product goes further (full case folding,
 * ignorables), which this data does not reach; the engine's fold test covers those.
 *   'ＡＢＣ' -> 'abc', 'ｶﾌﾞｼｷ' -> 'カブシキ', '㈱' -> '(株)'
 */
const fold = (text: string) => text.normalize('NFKC').toLowerCase();

const contains = (value: unknown, fragment: string) => fold(String(value)).includes(fold(fragment));

/** A compatibility spelling of a fragment: ASCII as full-width forms ('AB1' -> 'ＡＢ１'). */
const fullWidth = (text: string) =>
  text.replace(/[!-~]/g, (c) => String.fromCharCode((c.codePointAt(0) as number) + 0xfee0));

interface Cond {
  def: FilterDef;
  op: Op;
  value: unknown;
}

function holds(record: Record_, { def, op, value }: Cond): boolean {
  const values = valuesAt(record, def.field);
  const list = Array.isArray(value) ? value : [value];
  switch (op) {
    case 'any':
      return values.some((v) => list.includes(v));
    case 'none':
      return !values.some((v) => list.includes(v));
    case 'anyContains':
      return list.some((fragment) => values.some((v) => contains(v, fragment as string)));
    case 'allContains':
      return list.every((fragment) => values.some((v) => contains(v, fragment as string)));
    case 'noneContains':
      return !list.some((fragment) => values.some((v) => contains(v, fragment as string)));
    case 'min':
    case 'max':
    case 'from':
    case 'to': {
      if (def.kind === 'dateRange')
        return values.some((v) =>
          op === 'from' ? japanDay(v) >= String(value) : japanDay(v) <= String(value),
        );
      return values.some((v) => (op === 'min' ? Number(v) >= Number(value) : Number(v) <= Number(value)));
    }
    case 'is':
      if (value === null) return true;
      if (def.kind === 'flag') return value === true ? values[0] === true : values[0] !== true;
      return value === true ? values.length > 0 : values.length === 0;
  }
}

// ---------------------------------------------------------------------------------------
// bodies generated from the catalogue

const checkable = (search: SearchCatalogue, records: Record_[]) =>
  search.filters.filter((def) => {
    if (def.scope !== 'company' && def.scope !== 'job') return false;
    if (def.kind === 'detailText') return false;
    const top = def.field.split('.')[0] as string;
    return records.every((record) => Object.hasOwn(record, top));
  });

function pool(records: Record_[], def: FilterDef): unknown[] {
  return [...new Set(records.flatMap((record) => valuesAt(record, def.field)))];
}

function valueArb(def: FilterDef, op: Op, records: Record_[]): fc.Arbitrary<unknown> {
  const seen = pool(records, def);
  const fromData = <T>(fallback: fc.Arbitrary<T>) =>
    seen.length > 0 ? fc.oneof(fc.constantFrom(...(seen as T[])), fallback) : fallback;
  let one: fc.Arbitrary<unknown>;
  switch (def.kind) {
    case 'ids':
      one = fromData(fc.integer({ min: 0, max: 60 }));
      break;
    case 'exact':
      one = def.item.enum
        ? fc.constantFrom(...(def.item.enum as string[]))
        : def.item.pattern === '^[0-9]{13}$'
          ? fromData(fc.stringMatching(/^[0-9]{13}$/))
          : fromData(fc.string({ minLength: 1, maxLength: 8 }));
      break;
    case 'contains': {
      const fragments = seen
        .map(String)
        .flatMap((text) => [text.slice(0, 2), text.slice(1, 2), text.slice(-3)])
        .filter((fragment) => fragment.trim().length > 0);
      // compatibility characters: the data's own fragments in full-width, half-width kana,
      // enclosed and upper-case forms, which only a fold makes match
      const compat = ['ＡＢＣ', 'ｶﾌﾞｼｷ', 'ｼｽﾃﾑ', '㈱', 'Ｘ', 'ＩＴ', '１'];
      one =
        fragments.length > 0
          ? fc.oneof(
              fc.constantFrom(...fragments),
              fc.constantFrom(...fragments).map(fullWidth),
              fc.constantFrom(...fragments).map((f) => f.toUpperCase()),
              fc.constantFrom('株式', '市', 'x', ...compat),
            )
          : fc.constantFrom('株式', '市', ...compat);
      break;
    }
    case 'range':
      one =
        def.item.type === 'number'
          ? fromData(fc.double({ min: 0, max: 100_000, noNaN: true }))
          : fromData(
              fc.integer({
                min: Math.max(def.item.minimum ?? -1_000_000, -1_000_000),
                max: Math.min(def.item.maximum ?? 1_000_000_000, 1_000_000_000),
              }),
            );
      break;
    case 'dateRange':
      one = fc.oneof(
        seen.length > 0 ? fc.constantFrom(...seen.map(japanDay)) : fc.constant('2020-01-01'),
        fc
          .date({ min: new Date('1950-01-01'), max: new Date('2030-12-31'), noInvalidDate: true })
          .map((d) => d.toISOString().slice(0, 10)),
      );
      break;
    case 'presence':
    case 'flag':
      return fc.boolean();
    case 'listed':
      return fc.constantFrom(true, false, null);
    default:
      throw new Error(`no generator for ${def.kind}`);
  }
  const isList = ['any', 'none', 'anyContains', 'allContains', 'noneContains'].includes(op);
  return isList ? fc.uniqueArray(one, { minLength: 1, maxLength: 3 }) : one;
}

function condArb(search: SearchCatalogue, records: Record_[]): fc.Arbitrary<Cond> {
  const defs = checkable(search, records);
  return fc
    .constantFrom(...defs)
    .chain((def) =>
      fc
        .constantFrom(...def.ops)
        .chain((op) => valueArb(def, op, records).map((value) => ({ def, op, value }))),
    );
}

/** The request spelling of a condition: its flat name, else `filters.<key>.<op>`. */
function flatName(def: FilterDef, op: Op): string | undefined {
  return Object.entries(def.flat).find(([, flatOp]) => flatOp === op)?.[0];
}

function toBody(conds: Cond[], nestedMask: boolean[]): Record_ {
  const body: Record_ = { limit: 1000 };
  const filters: Record<string, Record_> = {};
  conds.forEach((cond, index) => {
    const flat = flatName(cond.def, cond.op);
    if (flat && !nestedMask[index] && !(flat in body)) body[flat] = cond.value;
    else {
      const key = cond.def.nested[0] as string;
      // `is` conditions are the value itself in the nested form: filters.hasFax = true
      if (cond.op === 'is') filters[key] = cond.value as Record_;
      else filters[key] = { ...filters[key], [cond.op]: cond.value };
    }
  });
  if (Object.keys(filters).length > 0) body.filters = filters;
  return body;
}

/**
 * Distinct (field, op) pairs (two values for one name would be one condition in the body),
 * and bounds in order: a lower bound past the upper one is a 400 by design (docs/decisions.md).
 */
function distinct(conds: Cond[]): Cond[] {
  const seen = new Map<string, Cond>();
  for (const cond of conds) {
    const key = `${cond.def.nested[0]}.${cond.op}`;
    if (!seen.has(key)) seen.set(key, { ...cond });
  }
  for (const [lower, upper] of [
    ['min', 'max'],
    ['from', 'to'],
  ] as const) {
    for (const cond of seen.values()) {
      if (cond.op !== lower) continue;
      const other = seen.get(`${cond.def.nested[0]}.${upper}`);
      if (
        other &&
        other.def === cond.def &&
        (cond.value as number | string) > (other.value as number | string)
      )
        [cond.value, other.value] = [other.value, cond.value];
    }
  }
  return [...seen.values()];
}

describe.each([
  ['company search', corporateSearch, () => all.corporates],
  ['job search', jobSearch, () => all.jobs],
] as const)('%s, bodies from the catalogue', (_label, search, records) => {
  it('covers a good part of the catalogue with checkable filters', () => {
    expect(checkable(search, records()).length).toBeGreaterThanOrEqual(
      search.index === 'corporates' ? 20 : 12,
    );
  });

  it('valid body -> 200 with exactly the records that satisfy every condition', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(condArb(search, records()), { minLength: 1, maxLength: 3 }),
        fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }),
        async (drawn, nestedMask) => {
          const conds = distinct(drawn);
          const body = toBody(conds, nestedMask);
          const res = await post(search, body);
          expect(res.status, JSON.stringify({ body, response: res.body })).toBe(200);
          const returned = (res.body.results as Record_[]).map((record) => idOf(search, record));
          for (const record of res.body.results as Record_[]) {
            for (const cond of conds)
              expect(
                holds(record, cond),
                `${JSON.stringify(body)}: ${idOf(search, record)} fails ${cond.def.key} ${cond.op}`,
              ).toBe(true);
          }
          const expected = records()
            .filter((record) => conds.every((cond) => holds(record, cond)))
            .map((record) => idOf(search, record));
          expect([...returned].sort(), JSON.stringify(body)).toEqual([...expected].sort());
          expect(res.body.totalResults).toBe(expected.length);
        },
      ),
      propertyParams(60),
    );
  });

  it('invalid body -> 400 naming the field', async () => {
    const corrupt = fc
      .constantFrom(...search.filters)
      .chain((def) =>
        fc
          .constantFrom(...def.ops)
          .chain((op) =>
            fc
              .constantFrom('wrong type', 'bad item', 'misspelt name')
              .map((how) => ({ def, op, how }) as const),
          ),
      );
    await fc.assert(
      fc.asyncProperty(corrupt, fc.boolean(), async ({ def, op, how }, nested) => {
        const flat = flatName(def, op);
        const useNested = nested || !flat;
        const nestedPath = op === 'is' ? `filters.${def.nested[0]}` : `filters.${def.nested[0]}.${op}`;
        const field = useNested ? nestedPath : (flat as string);
        const isList = ['any', 'none', 'anyContains', 'allContains', 'noneContains'].includes(op);
        const bad = badItem(def);
        let value: unknown;
        if (how === 'wrong type') value = isList ? 'not-a-list' : { not: 'a value' };
        else value = isList ? [bad] : bad;
        let body: Record_;
        let named = field;
        if (how === 'misspelt name') {
          named = useNested ? `${nestedPath}Typo` : `${flat}Typo`;
          value = isList ? [] : null;
        }
        if (named.startsWith('filters.')) {
          const [, key, leaf] = named.split('.');
          body = { filters: { [key as string]: leaf === undefined ? value : { [leaf]: value } } };
        } else body = { [named]: value };
        const res = await post(search, body);
        expect(res.status, JSON.stringify({ body, response: res.body })).toBe(400);
        const fields = (res.body.errors as Array<{ field: string }>).map((error) => error.field);
        expect(
          fields.some((f) => f === named || f.startsWith(`${named}[`) || f.startsWith(`${named}.`)),
          `${JSON.stringify(body)} -> ${JSON.stringify(res.body.errors)}`,
        ).toBe(true);
      }),
      propertyParams(80),
    );
  });
});

/** A value one item schema refuses: past its bounds, outside its enum, or of another type. */
function badItem(def: FilterDef): unknown {
  const item = def.item;
  if (item.enum) return 'no_such_value';
  if (item.pattern) return 'abc';
  if (item.format === 'date') return '2020-13-45';
  switch (item.type) {
    case 'integer':
      return item.minimum !== undefined ? item.minimum - 1 : 1.5;
    case 'number':
      return -1;
    case 'string':
      return item.maxLength !== undefined ? 'x'.repeat(item.maxLength + 1) : 42;
    case 'boolean':
      return 'yes';
    default:
      return { bad: true };
  }
}
