/**
 * Property tests (fast-check) of both searches, with the request bodies generated FROM THE
 * CATALOGUE (src/catalogue): every filter the catalogue declares, in its flat or nested
 * spelling, with values drawn from the data: company, posting (company search), linked-company
 * (job search) and detail-text conditions alike.
 *
 * - A valid body -> 200, and the returned records are exactly those the oracle expects.
 * - An invalid body (wrong type, out-of-bounds item, unknown enum value, misspelt name) -> 400
 *   with an error naming the field.
 *
 * The data is a small data set of the project's generator (it carries the generator's
 * compatibility spellings: full-width, half-width kana, ㈱), indexed by the project's ingest
 * pipeline. The oracle never asks the product: it reads the generator's NDJSON files itself,
 * groups the postings by corporateNumber, and checks each condition in plain TypeScript with
 * the documented semantics (docs/decisions/filters.md):
 * - positive posting conditions hold for ONE posting together; each `…Not` on postings
 *   excludes a company when ANY of its postings matches it;
 * - detail text is seen only when collected since `now-1M/d` in Japan time (the engine's own
 *   clock, so the oracle computes the same window from the real clock), for `…Not` too;
 * - flags: false = not true (false or unknown), a posting without its own license flags
 *   takes the company's; presence: false = no value; isListed null = no condition;
 * - text is folded with the tests' own Unicode fold (test/support/unicode-fold.ts).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryDeadLetter } from '../../indexer/dead-letter.js';
import { ingestFiles } from '../../indexer/ingest.js';
import { searchableSince } from '../../indexer/transform.js';
import { generateDataSet } from '../../sample-data/index.js';
import { createApiKey, keyStoreFor } from '../../src/auth/key-admin.js';
import { corporateSearch, jobSearch, type SearchCatalogue } from '../../src/catalogue/searches.js';
import type { FilterDef, Op } from '../../src/catalogue/types.js';
import { createApp } from '../../src/http/app.js';
import { createLimits } from '../../src/limits/limits.js';
import { openCreditLedger } from '../../src/limits/open-credit-ledger.js';
import { knownMasterValues } from '../../src/search/master-values.js';
import type { Services } from '../../src/services.js';
import { setUpServices } from '../support/env.js';
import { propertyParams } from '../support/fast-check.js';
import { clearOfJapanMidnight } from '../support/japan-day.js';
import { unicodeFold } from '../support/unicode-fold.js';

type Record_ = Record<string, unknown>;

let services: Services;
let app: ReturnType<typeof createApp>;
let apiKey: string;
let dataDir: string;
/** The generator's records as written to its NDJSON files (detail-text dates moved, below). */
const raw: { corporates: Record_[]; jobs: Record_[] } = { corporates: [], jobs: [] };
const userId = 'property-user';

const day = 86_400_000;
const japanOffset = 9 * 3_600_000;
/** The generator's fixed "today": the data, and so every case fast-check draws, is the same each run. */
const generatedNow = new Date('2026-04-01T00:00:00+09:00');

/** 00:00 in Japan of the Japan day holding the instant. */
const japanDayStart = (ms: number) => Math.floor((ms + japanOffset) / day) * day - japanOffset;

/**
 * Where the engine's `now-1M/d` (time_zone Asia/Tokyo) starts: the same day one calendar month
 * back in Japan (clamped to that month's length: 03-31 -> 02-28), at 00:00 in Japan.
 *   2026-11-22T16:30Z (11-23 01:30 in Japan) -> 2026-10-23T00:00+09:00
 */
function detailTextWindowStart(nowMs = Date.now()): number {
  const wall = new Date(nowMs + japanOffset);
  const [year, month, date] = [wall.getUTCFullYear(), wall.getUTCMonth(), wall.getUTCDate()];
  const daysInPreviousMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return Date.UTC(year, month - 1, Math.min(date, daysInPreviousMonth)) - japanOffset;
}

const readNdjson = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record_);

/**
 * The engine decides the detail-text window by its own clock, which a test cannot pin. So the
 * generated texts keep their place relative to today: each collection date moves by the whole
 * days from the generator's "today" to today in Japan, and a few are put on the window's edge
 * (at its first millisecond, one millisecond before, and 3 hours either side, where the
 * Japanese and the UTC calendar day differ).
 */
function moveCollectionDates(jobs: Record_[], windowStart: number): number {
  const shift = japanDayStart(Date.now()) - generatedNow.getTime();
  const edges = [0, -1, 3 * 3_600_000, -3 * 3_600_000];
  let onEdge = 0;
  jobs.forEach((job, index) => {
    if (typeof job.descriptionCollectedAt !== 'string') return;
    const edge = index % 10 === 0 ? edges[(index / 10) % edges.length] : undefined;
    const at = edge === undefined ? Date.parse(job.descriptionCollectedAt) + shift : windowStart + edge;
    if (edge !== undefined) onEdge += 1;
    job.descriptionCollectedAt = new Date(at).toISOString();
  });
  return onEdge;
}

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

// the generated texts sit relative to the engine's clock (moveCollectionDates): not across a Japan midnight
await clearOfJapanMidnight(15 * 60_000);

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
    now: generatedNow,
    outDir: dataDir,
  });
  raw.corporates = readNdjson(files.corporates);
  raw.jobs = readNdjson(files.jobs);
  expect(moveCollectionDates(raw.jobs, detailTextWindowStart())).toBeGreaterThan(20);
  writeFileSync(files.jobs, raw.jobs.map((job) => `${JSON.stringify(job)}\n`).join(''));
  const deadLetter = new MemoryDeadLetter();
  await ingestFiles([files.corporates, files.jobs], {
    client: services.opensearch,
    indexPrefix: services.config.indexPrefix,
    deadLetter,
  });
  await services.opensearch.indices.refresh({ index: `${services.config.indexPrefix}*` });
  expect(raw.corporates.length).toBe(80);
  expect(raw.jobs.length).toBe(400);
  // every record went in: the searches below answer from all of them
  for (const [search, records] of [
    [corporateSearch, raw.corporates],
    [jobSearch, raw.jobs],
  ] as const) {
    const res = await post(search, { limit: 1000 });
    expect(res.status).toBe(200);
    const ids = (res.body.results as Record_[]).map((record) => idOf(search, record)).sort();
    expect(ids).toEqual(records.map((record) => idOf(search, record)).sort());
  }
});

afterAll(async () => {
  await services?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

// ---------------------------------------------------------------------------------------
// the oracle's view of the raw records: the index field names of the catalogue, each filled
// from the generator's field it documents (docs/api.md, "Filters"), with no product code

const present = (value: unknown) => value !== null && value !== undefined && value !== '';

function companyView(company: Record_): Record_ {
  return {
    ...company,
    markets: ((company.marketCodes as string[] | null) ?? []).map((code) => ({ code })),
    paidMedias: ((company.paidMediaIds as number[] | null) ?? []).map((mediaId) => ({ mediaId })),
  };
}

/** A posting as the searches see it: detail text only while in the window. */
function postingView(job: Record_, company: Record_, windowStart: number): Record_ {
  const collectedAt = job.descriptionCollectedAt;
  const seen = typeof collectedAt === 'string' && Date.parse(collectedAt) >= windowStart;
  return {
    ...job,
    description: seen ? job.description : null,
    hasDispatchLicense: job.hasDispatchLicense ?? company.hasDispatchLicense ?? null,
    hasRecruitmentLicense: job.hasRecruitmentLicense ?? company.hasRecruitmentLicense ?? null,
    hasContactEmail: present(job.contactEmail),
    hasContactPhone: present(job.contactPhoneNumber),
    corporateName: company.name,
    corporate: companyView(company),
  };
}

/** Companies with their postings (grouped by corporateNumber) and jobs with their company. */
function views(windowStart = detailTextWindowStart()): { corporates: Record_[]; jobs: Record_[] } {
  const byNumber = new Map(raw.corporates.map((company) => [company.corporateNumber, company]));
  const jobs = raw.jobs.map((job) =>
    postingView(job, byNumber.get(job.corporateNumber) as Record_, windowStart),
  );
  const postingsOf = new Map<unknown, Record_[]>();
  for (const job of jobs)
    postingsOf.set(job.corporateNumber, [...(postingsOf.get(job.corporateNumber) ?? []), job]);
  return {
    corporates: raw.corporates.map((company) => ({
      ...companyView(company),
      postings: postingsOf.get(company.corporateNumber) ?? [],
    })),
    jobs,
  };
}

// ---------------------------------------------------------------------------------------
// the conditions, checked in plain TypeScript on a record's own fields

/** The values at an index field path: `markets.code` -> every market's code. */
function valuesAt(record: Record_, field: string): unknown[] {
  const [head, ...rest] = field.replace(/\.(substring|folded)$/, '').split('.');
  const value = record[head as string];
  if (!present(value)) return [];
  if (rest.length === 0) return Array.isArray(value) ? value : [value];
  const items = Array.isArray(value) ? value : [value];
  return items.flatMap((item) => valuesAt(item as Record_, rest.join('.')));
}

/** The calendar day in Japan of a stored date (`2026-09-04`) or date-time. */
function japanDay(value: unknown): string {
  const text = String(value);
  if (/^\d{4}-\d{2}-\d{2}$/.test(text)) return text;
  return new Date(Date.parse(text) + japanOffset).toISOString().slice(0, 10);
}

const contains = (value: unknown, fragment: string) =>
  unicodeFold(String(value)).includes(unicodeFold(fragment));

/** A compatibility spelling of a fragment: ASCII as full-width forms ('AB1' -> 'ＡＢ１'). */
const fullWidth = (text: string) =>
  text.replace(/[!-~]/g, (c) => String.fromCharCode((c.codePointAt(0) as number) + 0xfee0));

interface Cond {
  def: FilterDef;
  op: Op;
  value: unknown;
}

const excluding = (op: Op) => op === 'none' || op === 'noneContains';
/** The field inside one posting: `postings.mediaId` -> `mediaId`. */
const inPosting = (cond: Cond): Cond => ({
  ...cond,
  def: { ...cond.def, field: cond.def.field.replace(/^postings\./, '') },
});

/** An exact value; for a `.folded` field (an exact name) compared after the fold, as the engine does. */
function equalIn(def: FilterDef, value: unknown, list: unknown[]): boolean {
  if (!def.field.endsWith('.folded')) return list.includes(value);
  const folded = unicodeFold(String(value));
  return list.some((item) => unicodeFold(String(item)) === folded);
}

function holds(record: Record_, { def, op, value }: Cond): boolean {
  const values = valuesAt(record, def.field);
  const list = Array.isArray(value) ? value : [value];
  switch (op) {
    case 'any':
      return values.some((v) => equalIn(def, v, list));
    case 'none':
      return !values.some((v) => equalIn(def, v, list));
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

/**
 * Whether a record meets every condition. In company search the positive posting conditions
 * must all hold for one posting; a posting `…Not` excludes the company when any posting
 * matches it (so a company without postings meets every `…Not` and no positive one).
 */
function meets(record: Record_, conds: Cond[]): boolean {
  const own = conds.filter((cond) => cond.def.scope !== 'posting');
  const onPostings = conds.filter((cond) => cond.def.scope === 'posting').map(inPosting);
  if (!own.every((cond) => holds(record, cond))) return false;
  if (onPostings.length === 0) return true;
  const postings = record.postings as Record_[];
  const positive = onPostings.filter((cond) => !excluding(cond.op));
  const negative = onPostings.filter((cond) => excluding(cond.op));
  if (!negative.every((cond) => postings.every((one) => holds(one, cond)))) return false;
  return positive.length === 0 || postings.some((one) => positive.every((cond) => holds(one, cond)));
}

// ---------------------------------------------------------------------------------------
// bodies generated from the catalogue

/**
 * Filters on what the indexer computes rather than what the data files carry: the time of
 * indexing (updatedAt), the distinct work places after address normalisation
 * (workLocationCount), the reading's name key (furiganaPrefix), the registry's closures
 * (includeClosed), the hiring activity counted from the postings' history as of the day of
 * indexing (the hiring… filters), the public records (below). Each has its own tests (the hiring activity:
 * test/indexer/hiring-activity.test.ts, test/search/search-oracle.test.ts); every other filter is drawn here.
 */
const hiringActivityFilters = [
  'hiringOpenPostings',
  'hiringNewPostings7d',
  'hiringNewPostings30d',
  'hiringNewPostings90d',
  'hiringClosedPostings30d',
  'hiringNetChange30d',
  'hiringFirstPostedOn',
  'hiringLastPostedOn',
  'hiringStartedMediaId',
  'hiringStoppedMediaId',
];
/**
 * The public records (docs/public-records.md): loaded by their own importers, not in the data
 * files; their semantics are checked by test/indexer/invoice-import.test.ts, test/indexer/gbizinfo-import.test.ts
 * and test/search/search-oracle.test.ts.
 */
const publicRecordFilters = [
  'hasInvoiceRecord',
  'invoiceRegistered',
  'invoiceRegisteredOn',
  'invoiceRegistrationDate',
  'invoiceEndedOn',
  'invoiceEndReason',
  ...['subsidy', 'procurement'].flatMap((stem) => [
    `${stem}Count`,
    `${stem}TotalYen`,
    `${stem}LatestOn`,
    `${stem}BodyId`,
  ]),
  'hasSubsidies',
  'hasProcurement',
  ...['certification', 'award'].flatMap((stem) => [`${stem}KindId`, `${stem}Count`, `${stem}LatestOn`]),
  'hasCertifications',
  'hasAwards',
  'hasWorkplace',
  ...[
    'AverageAge',
    'AverageTenureYears',
    'OvertimeHours',
    'FemaleWorkerPercent',
    'FemaleManagerPercent',
    'FemaleOfficerPercent',
    'MaleChildcareLeavePercent',
  ].map((name) => `workplace${name}`),
];
const notInTheDataFiles = new Set([
  ...hiringActivityFilters,
  ...publicRecordFilters,
  'updatedAt',
  'workLocationCount',
  'corporateWorkLocationCount',
  // the reading key the indexer computes from furigana (test/search/furigana-prefix.test.ts)
  'furiganaPrefix',
  // the registry's closures: no company of the data files is closed (test/indexer/registry-history.test.ts)
  'includeClosed',
]);

const checkable = (search: SearchCatalogue) =>
  search.filters.filter((def) => !notInTheDataFiles.has(def.key));

/** The records a filter's field is read on: postings for posting conditions. */
function holders(def: FilterDef, records: Record_[]): Record_[] {
  return def.scope === 'posting' ? records.flatMap((record) => record.postings as Record_[]) : records;
}

function pool(records: Record_[], def: FilterDef): unknown[] {
  const field = def.scope === 'posting' ? def.field.replace(/^postings\./, '') : def.field;
  return [...new Set(holders(def, records).flatMap((record) => valuesAt(record, field)))];
}

/** Fragments of a text: its first two characters, its second, its last three, and for long texts (detail text) three more from its middle. */
function fragmentsOf(text: string): string[] {
  const out = [text.slice(0, 2), text.slice(1, 2), text.slice(-3)];
  if (text.length > 60)
    for (const at of [40, Math.floor(text.length / 2), text.length - 30]) out.push(text.slice(at, at + 3));
  return out.filter((fragment) => fragment.trim().length > 0);
}

function valueArb(def: FilterDef, op: Op, records: Record_[]): fc.Arbitrary<unknown> {
  // detail text: fragments of every text, also those outside the window (they must match nothing)
  const seen =
    def.kind === 'detailText' ? raw.jobs.map((job) => job.description).filter(present) : pool(records, def);
  const fromData = <T>(fallback: fc.Arbitrary<T>) =>
    seen.length > 0 ? fc.oneof(fc.constantFrom(...(seen as T[])), fallback) : fallback;
  const masterValues = knownMasterValues(def);
  let one: fc.Arbitrary<unknown>;
  switch (def.kind) {
    case 'ids':
      // a master-backed filter takes only its master's values (an unknown one is a 400)
      one = fromData(masterValues ? fc.constantFrom(...masterValues) : fc.integer({ min: 0, max: 60 }));
      break;
    case 'exact':
      one = masterValues
        ? fromData(fc.constantFrom(...masterValues))
        : def.item.enum
          ? fc.constantFrom(...(def.item.enum as string[]))
          : def.item.pattern === '^[0-9]{13}$'
            ? fromData(fc.stringMatching(/^[0-9]{13}$/))
            : def.field.endsWith('.folded') && seen.length > 0
              ? // an exact name: as stored, or in a compatibility spelling only the fold equates
                fc.oneof(
                  fromData(fc.string({ minLength: 1, maxLength: 8 })),
                  fc
                    .constantFrom(...seen.map(String))
                    .map((name) => fullWidth(name).replace('株式会社', '㈱')),
                )
              : fromData(fc.string({ minLength: 1, maxLength: 8 }));
      break;
    case 'contains':
    case 'detailText': {
      const fragments = [...new Set(seen.map(String).flatMap(fragmentsOf))];
      // compatibility characters: the data's own fragments in full-width, half-width kana,
      // enclosed and upper-case forms, which only a fold makes match
      const compat = ['ＡＢＣ', 'ｶﾌﾞｼｷ', 'ｼｽﾃﾑ', '㈱', 'Ｘ', 'ＩＴ', '１', 'ＷＥＢ', 'ﾘﾓｰﾄ', '１２０'];
      one =
        fragments.length > 0
          ? fc.oneof(
              fc.constantFrom(...fragments),
              fc.constantFrom(...fragments).map(fullWidth),
              fc.constantFrom(...fragments).map((f) => f.toUpperCase()),
              fc.constantFrom('株式', '市', 'x', '派遣', 'リモート', ...compat),
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

function condArb(defs: readonly FilterDef[], records: Record_[]): fc.Arbitrary<Cond> {
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
 * and bounds in order: a lower bound past the upper one is a 400 by design (docs/decisions/filters.md).
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

/** One body against the oracle: exactly the expected records, and the total says so. */
async function checkBody(search: SearchCatalogue, drawn: Cond[], nestedMask: boolean[]) {
  const conds = distinct(drawn);
  const body = toBody(conds, nestedMask);
  const res = await post(search, body);
  expect(res.status, JSON.stringify({ body, response: res.body })).toBe(200);
  const returned = (res.body.results as Record_[]).map((record) => idOf(search, record));
  const records = search.index === 'corporates' ? views().corporates : views().jobs;
  const expected = records.filter((record) => meets(record, conds)).map((record) => idOf(search, record));
  expect([...returned].sort(), JSON.stringify(body)).toEqual([...expected].sort());
  expect(res.body.totalResults).toBe(expected.length);
  return expected.length;
}

/** The jobs put on the window's edge: [job, where its text sits from the window's start]. */
function edgeJobs(): Array<[Record_, number]> {
  const start = detailTextWindowStart();
  return raw.jobs
    .filter((job, index) => index % 10 === 0 && typeof job.descriptionCollectedAt === 'string')
    .map((job) => [job, Date.parse(job.descriptionCollectedAt as string) - start]);
}

describe('detail text on the edge of the one-month window (Japan days)', () => {
  it('the indexer keeps detail text from the instant the search window starts', () => {
    // at 10:00Z the UTC and the Japanese calendar day agree, at 20:00Z Japan is a day ahead
    for (const now of [
      '2026-11-22T10:00:00Z',
      '2026-11-22T20:00:00Z',
      '2026-03-31T03:00:00Z',
      '2027-01-01T00:00:00+09:00',
    ])
      expect(new Date(searchableSince(new Date(now))).toISOString(), now).toBe(
        new Date(detailTextWindowStart(Date.parse(now))).toISOString(),
      );
  });

  it.each([
    ['company search', corporateSearch],
    ['job search', jobSearch],
  ] as const)(
    '%s: a text collected at the window start is found, one collected a moment before is not',
    async (_label, search) => {
      const edges = edgeJobs();
      const inside = edges.filter(([, offset]) => offset >= 0).length;
      expect(inside).toBeGreaterThan(2);
      expect(edges.length - inside).toBeGreaterThan(2);
      const byNumber = search.filters.find((def) => def.key === 'corporateNumber') as FilterDef;
      const text = search.filters.find((def) => def.kind === 'detailText') as FilterDef;
      let found = 0;
      for (const [job] of edges) {
        const fragment = String(job.description).slice(60, 64);
        found += await checkBody(
          search,
          [
            { def: byNumber, op: 'any', value: [job.corporateNumber] },
            { def: text, op: 'anyContains', value: [fragment] },
          ],
          [false, true],
        );
      }
      expect(found).toBeGreaterThan(0);
    },
  );
});

describe.each([
  ['company search', corporateSearch],
  ['job search', jobSearch],
] as const)('%s, bodies from the catalogue', (_label, search) => {
  const records = () => (search.index === 'corporates' ? views().corporates : views().jobs);
  /** Posting conditions in company search, linked-company ones in job search, and detail text. */
  const linked = () =>
    checkable(search).filter(
      (def) =>
        def.scope === (search.index === 'corporates' ? 'posting' : 'jobCorporate') ||
        def.kind === 'detailText',
    );

  it('draws every filter but those on indexer-computed fields, each with values in the data', () => {
    const defs = checkable(search);
    // updatedAt, the work-location count and includeClosed on both; the reading prefix, the
    // hiring activity and the public records on companies
    expect(search.filters.length - defs.length).toBe(
      search.index === 'corporates' ? 4 + hiringActivityFilters.length + publicRecordFilters.length : 3,
    );
    expect(linked().length).toBeGreaterThanOrEqual(search.index === 'corporates' ? 16 : 25);
    // a field missing from the oracle's view would read as "no value" on every record
    for (const def of defs)
      expect(pool(records(), def).length, `${def.key} on ${def.field}`).toBeGreaterThan(0);
  });

  it.each([
    ['any filters', () => checkable(search), 3, 60],
    ['posting / linked-company / detail-text filters together', linked, 4, 60],
  ] as const)(
    'valid body of %s -> 200 with exactly the records the data files say',
    async (_what, defs, most, runs) => {
      let nonEmpty = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.array(condArb(defs(), records()), { minLength: 1, maxLength: most }),
          fc.array(fc.boolean(), { minLength: most, maxLength: most }),
          async (drawn, nestedMask) => {
            if ((await checkBody(search, drawn, nestedMask)) > 0) nonEmpty += 1;
          },
        ),
        propertyParams(runs),
      );
      // the cases are not all "nothing found", where any search would agree with the oracle
      expect(nonEmpty).toBeGreaterThan(runs / 5);
    },
  );

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
