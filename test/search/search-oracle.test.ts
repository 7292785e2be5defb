/**
 * Searches, counts, facets and exports against a plain evaluation of the contract, on a
 * generated data set indexed by the project's own pipeline (indexer/ingest.ts) and three of its
 * companies closed by the registry import (indexer/registry/import.ts).
 *
 * Each case below is a request body and the same condition written out in plain TypeScript
 * from docs/api.md ("Filters", "Sorting and paging", "Exports") and openapi.yaml, over the
 * generator's own NDJSON records (./support/search-oracle.ts). No case asks the product which
 * records match: no compiler, catalogue, text or search helper decides the expected set. For
 * each case the test checks
 * - the search's `totalResults` on every page, and the ids of all pages, in the case's sort;
 * - the count endpoint (`totalResults`, `exportCredits`);
 * - facet buckets: the results counted per value (a posting facet on company search counts
 *   the companies with a posting that meets the request's positive posting conditions);
 * - the CSV export (ids, a few columns, formula cells quoted) and the JSONL export, in order.
 *
 * Rules the oracle uses, each from the contract:
 * - AND across conditions; `filterGroups`: at least one group holds as well;
 * - `…Not` / `none`: the record has none of the values (a record without the field has none);
 * - ranges and dates inclusive; a record without the value is outside; dates are whole days in
 *   Japan time;
 * - presence `false` = no value; license flags `false` = not true (false or unknown), a posting
 *   stating no license takes its company's (docs/decisions/source-records.md);
 * - company search: positive posting conditions hold for ONE posting together; a posting
 *   `…Not` excludes a company having ANY posting that matches it;
 * - detail text only while collected within the last month: the data puts every text either
 *   1-9 days or 45-74 days before now, so no text sits near the window's edge;
 * - closed companies (and their postings) are left out unless `includeClosed: true`;
 * - sorts: nulls last in either order, ties by corporate number / posting id ascending; a
 *   company sort on a posting field takes the highest value among ALL its postings.
 *
 * Simple explicit rules where the contract leans on an analyser (documented per case):
 * - substring conditions: the folded text contains the folded fragment (tests' own fold,
 *   ./support/unicode-fold.ts), with fragments free of spaces and punctuation;
 * - `furiganaPrefix`: the reading with the legal-form readings the data carries dropped,
 *   long-vowel marks dropped, small kana as large and katakana as hiragana (docs/names.md), starts
 *   with the prefix folded the same way; a guard checks that no other legal-form reading is in
 *   the data;
 * - `workLocationCount`: only 0 against at least 1 (a posting on site or of unknown kind, with a
 *   city and a street);
 *   the exact count above 1 depends on the address normaliser (indexer/work-location.ts), which
 *   a plain evaluation cannot restate, so no case bounds it elsewhere.
 * - `updatedAt`: only against the instant between indexing and the registry import: the
 *   closed companies changed after it; their postings did not (a closure changes no field of
 *   the Job record, whose company copy is not part of it).
 *
 * Not evaluated plainly, so bounded as above and no further: exact `workLocationCount` values
 * above 1 (address normalisation), `updatedAt` at any other instant (the time of indexing).
 * A registry rename moves `updatedAt` on the company's postings with their `corporateName`
 * (indexer/rebuild.ts; tested in ./registry-import.test.ts); the closures here repeat each
 * company's own name, so their postings keep the `updatedAt` of their indexing.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryDeadLetter } from '../../indexer/dead-letter.js';
import type { RecordKind } from '../../indexer/gbizinfo/format.js';
import { importRecordFile } from '../../indexer/gbizinfo/import.js';
import { ingestFiles } from '../../indexer/ingest.js';
import { importInvoiceFiles } from '../../indexer/invoice/import.js';
import { kindToCorporateType } from '../../indexer/registry/format.js';
import { importRegistryFiles } from '../../indexer/registry/import.js';
import { generateDataSet } from '../../sample-data/index.js';
import { createApiKey, keyStoreFor } from '../../src/auth/key-admin.js';
import { corporateSearch, jobSearch, type SearchCatalogue } from '../../src/catalogue/searches.js';
import { createApp } from '../../src/http/app.js';
import { createLimits } from '../../src/limits/limits.js';
import { openCreditLedger } from '../../src/limits/open-credit-ledger.js';
import type { Services } from '../../src/services.js';
import {
  awardHeader,
  certificationHeader,
  csv as gbizCsv,
  procurementHeader,
  subsidyHeader,
  workplaceHeader,
} from '../fixtures/gbizinfo/build-fixtures.js';
import { csv as invoiceCsv, row as invoiceRow } from '../fixtures/invoice/build-fixtures.js';
import { type RegistryValues, registryRow } from '../fixtures/registry/columns.js';
import { setUpServices } from '../support/env.js';
import {
  buildViews,
  type Company,
  contains,
  countBy,
  csvText,
  daysWithin,
  highestOf,
  instantOf,
  japanDay,
  marketsOf,
  numberOf,
  oneOf,
  type Posting,
  parseCsv,
  postingLicense,
  present,
  type Raw,
  type SortValue,
  sameName,
  sortRecords,
  within,
} from '../support/search-oracle.js';

const day = 86_400_000;
const userId = 'search-oracle-user';
let services: Services;
let server: http.Server;
let base = '';
let apiKey = '';
let dataDir = '';
let data: Data;

interface Data {
  companies: Company[];
  postings: Posting[];
  /** the corporate numbers the registry import closed */
  closed: string[];
  /** an instant after indexing and before the registry import (RFC 3339) */
  beforeRegistry: string;
  /** the most frequent minor classes in the data, valid master ids */
  common: { businessSub: number; jobSub: number; titles: string[] };
}

// ---------------------------------------------------------------------------------------
// setup: the generator's data, texts placed relative to now, three companies closed

const readNdjson = (file: string): Raw[] =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Raw);

/** Detail texts alternately 1-9 days and 45-74 days before now: seen, and not seen. */
function placeTexts(jobs: Raw[], now: number): void {
  let n = 0;
  for (const job of jobs) {
    if (!present(job.description)) continue;
    const daysBack = n % 2 === 0 ? 1 + (n % 9) : 45 + (n % 30);
    job.descriptionCollectedAt = new Date(now - daysBack * day - 3_600_000).toISOString();
    n += 1;
  }
}

const textSeen = (job: Raw) =>
  typeof job.descriptionCollectedAt === 'string' &&
  Date.parse(job.descriptionCollectedAt) > Date.now() - 20 * day;

const kindOf = (type: unknown) =>
  Object.entries(kindToCorporateType).find(([, corporateType]) => corporateType === type)?.[0];

/** Two companies with postings and one without, each with a reading and a registry kind. */
function pickToClose(corporates: Raw[], jobs: Raw[]): Raw[] {
  const postings = countBy(jobs, (job) => [job.corporateNumber]);
  const fit = corporates.filter(
    (c) => present(c.furigana) && present(c.prefectureId) && kindOf(c.corporateType) !== undefined,
  );
  const withPostings = fit.filter((c) => within(postings.get(String(c.corporateNumber)), 1, 50));
  const without = fit.filter((c) => !postings.has(String(c.corporateNumber)));
  return [...withPostings.slice(0, 2), ...without.slice(0, 1)];
}

/** A registry closure row (NTA download format, the published column order) repeating the company's own name and address. */
function closureRow(company: Raw, today: string): string {
  const values: RegistryValues = {
    sequenceNumber: '1',
    corporateNumber: String(company.corporateNumber),
    process: '21',
    correct: '0',
    updateDate: today,
    changeDate: today,
    name: String(company.name),
    kind: kindOf(company.corporateType) as string,
    prefectureName: '',
    cityName: String(company.cityName ?? ''),
    streetNumber: String(company.streetAddress ?? ''),
    prefectureCode: String(company.prefectureId).padStart(2, '0'),
    postCode: String(company.postalCode ?? '').replace('-', ''),
    closeDate: today,
    closeCause: '01',
    assignmentDate: '2015-10-05',
    latest: '1',
    furigana: String(company.furigana),
    hihyoji: '0',
  };
  return registryRow(values)
    .map((field) => `"${field.replace(/"/g, '""')}"`)
    .join(',');
}

async function closeCompanies(companies: Raw[]): Promise<void> {
  const today = new Date(Date.now() + 9 * 3_600_000).toISOString().slice(0, 10);
  const file = path.join(dataDir, `diff_${today.replace(/-/g, '')}_utf8.csv`);
  writeFileSync(file, `${companies.map((company) => closureRow(company, today)).join('\r\n')}\r\n`);
  await importRegistryFiles([file], {
    client: services.opensearch,
    indexPrefix: services.config.indexPrefix,
    deadLetter: new MemoryDeadLetter(),
    stateDir: mkdtempSync(path.join(dataDir, 'state-')),
  });
}

/** A company's invoice registration as the oracle keeps it: the days, straight from the row written. */
interface InvoiceDays {
  registeredOn: string;
  endedOn: string | null;
  endReason: 'cancelled' | 'expired' | null;
}

/**
 * Invoice registrations for four companies in five, by their place in corporate-number order:
 * none; registered from 2023-10-01; registered in 2024 and cancelled in 2025; an expiry (past,
 * or announced for 2099); registered from 2099-04-01 or from 2024-07-01. Written as the NTA
 * publishes them (test/fixtures/invoice/build-fixtures.ts) and loaded by `import:invoices`'s
 * importer; each raw company gets `invoiceDays` (undefined: no row).
 */
async function registerInvoices(corporates: Raw[]): Promise<void> {
  const sorted = [...corporates].sort((a, b) =>
    String(a.corporateNumber).localeCompare(String(b.corporateNumber)),
  );
  const rows: string[][] = [];
  sorted.forEach((company, i) => {
    const number = String(company.corporateNumber);
    const month = String(1 + (i % 9)).padStart(2, '0');
    const plans: Array<InvoiceDays | undefined> = [
      undefined,
      { registeredOn: '2023-10-01', endedOn: null, endReason: null },
      { registeredOn: `2024-${month}-15`, endedOn: `2025-06-${10 + (i % 15)}`, endReason: 'cancelled' },
      {
        registeredOn: '2023-10-01',
        endedOn: i % 2 === 0 ? '2099-12-31' : '2025-03-31',
        endReason: 'expired',
      },
      { registeredOn: i % 2 === 0 ? '2099-04-01' : '2024-07-01', endedOn: null, endReason: null },
    ];
    const plan = plans[i % 5];
    if (!plan) return;
    company.invoiceDays = plan;
    rows.push(
      invoiceRow(number, {
        事業者処理区分: plan.endReason === 'cancelled' ? '04' : plan.endReason === 'expired' ? '03' : '01',
        登録年月日: plan.registeredOn,
        更新年月日: '2026-03-01',
        取消年月日: plan.endReason === 'cancelled' ? (plan.endedOn as string) : '',
        失効年月日: plan.endReason === 'expired' ? (plan.endedOn as string) : '',
        氏名又は名称: String(company.name),
      }),
    );
  });
  const file = path.join(dataDir, 'invoice_all_20260301_utf8.csv');
  writeFileSync(file, invoiceCsv(rows));
  const loaded = await importInvoiceFiles([file], {
    client: services.opensearch,
    indexPrefix: services.config.indexPrefix,
    deadLetter: new MemoryDeadLetter(),
    stateDir: mkdtempSync(path.join(dataDir, 'invoice-state-')),
  });
  if (loaded.total.set !== rows.length) throw new Error(`invoices: ${JSON.stringify(loaded.total)}`);
}

/** One subsidy or order as the oracle keeps it: its day, its yen (null: none given), its body's master id. */
interface PublicRecordRow {
  on: string;
  yen: number | null;
  bodyId: number;
}

/**
 * The government-bodies master ids of the body names the rows below write (data/masters/
 * government-bodies.json, read by eye: a bureau counts as its ministry, an unlisted body as 999).
 */
const subsidyBodies: Array<[string, number]> = [
  ['経済産業省', 11],
  ['中小企業庁', 29],
  ['厚生労働省', 9],
  ['国土交通省関東地方整備局', 12],
  ['独立行政法人中小企業基盤整備機構', 999],
];
const procurementBodies: Array<[string, number]> = [
  ['防衛省', 14],
  ['デジタル庁', 2],
  ['国土交通省', 12],
];

/** Certification and award titles the rows below write, with the kind's master id read by eye. */
const certificationTitles: Array<[string, number]> = [
  ['くるみん認定', 3],
  ['プラチナくるみん認定', 4],
  ['健康経営優良法人2024', 9],
  ['〇〇県の認定制度', 999],
  ['ＤＸ認定事業者', 16],
];
const awardTitles: Array<[string, number]> = [
  ['第9回ものづくり日本大賞', 1],
  ['なでしこ銘柄', 6],
  ['〇〇市の表彰', 999],
];

/** One certification or award as the oracle keeps it. */
interface ListedRow {
  on: string;
  kindId: number;
}

/**
 * A company's workplace figures as the oracle keeps them: what its row writes, the shares as
 * percents to one decimal computed here from the counts (null: not given, or no one to share).
 */
interface WorkplaceFigures {
  averageAge: number | null;
  averageTenureYears: number | null;
  overtimeHoursPerMonth: number | null;
  femaleWorkerPercent: number | null;
  femaleManagerPercent: number | null;
  femaleOfficerPercent: number | null;
  maleChildcareLeavePercent: number | null;
}

/** part of whole as a percent, rounded half up to one decimal, by integer arithmetic. */
const percentOf = (part: number, whole: number): number | null =>
  whole === 0 ? null : Math.floor((part * 1000 * 2 + whole) / (2 * whole)) / 10;

/**
 * gBizINFO rows for some companies, by their place in corporate-number order: subsidies for one
 * in four (1-3 each, the third without an amount), orders for one in three (1-2 each). Written
 * in the download form (test/fixtures/gbizinfo/build-fixtures.ts) and loaded by the importer
 * of `import:gbizinfo`; each raw company gets `subsidyRows` / `procurementRows`.
 */
async function loadPublicRecords(corporates: Raw[]): Promise<void> {
  const sorted = [...corporates].sort((a, b) =>
    String(a.corporateNumber).localeCompare(String(b.corporateNumber)),
  );
  const subsidyLines: string[][] = [];
  const orderLines: string[][] = [];
  const certificationLines: string[][] = [];
  const awardLines: string[][] = [];
  const workplaceLines: string[][] = [];
  sorted.forEach((company, i) => {
    const number = String(company.corporateNumber);
    const name = String(company.name);
    if (i % 4 === 1) {
      const rows: PublicRecordRow[] = [];
      for (let j = 0; j < 1 + (i % 3); j++) {
        const [body, bodyId] = subsidyBodies[(i + j) % subsidyBodies.length] as [string, number];
        const yen = j === 2 ? null : (i + 1) * (j + 1) * 100_000;
        const on = `2024-${String(1 + ((i + j) % 9)).padStart(2, '0')}-1${j}`;
        rows.push({ on, yen, bodyId });
        subsidyLines.push([
          number,
          name,
          '',
          on,
          `補助金${j}`,
          yen === null ? '' : yen.toLocaleString('en-US'),
          '中小企業者',
          body,
        ]);
      }
      company.subsidyRows = rows;
    }
    if (i % 3 === 2) {
      const rows: PublicRecordRow[] = [];
      for (let j = 0; j < 1 + (i % 2); j++) {
        const [body, bodyId] = procurementBodies[(i + j) % procurementBodies.length] as [string, number];
        const yen = (i + 3) * 250_000;
        const on = `2025-${String(1 + ((i + j) % 8)).padStart(2, '0')}-05`;
        rows.push({ on, yen, bodyId });
        orderLines.push([number, name, '', on, `業務${j}`, String(yen), body, '']);
      }
      company.procurementRows = rows;
    }
    if (i % 5 === 3) {
      const rows: ListedRow[] = [];
      for (let j = 0; j < 1 + (i % 3); j++) {
        const [title, kindId] = certificationTitles[
          (Math.floor(i / 5) + 2 * j) % certificationTitles.length
        ] as [string, number];
        const on = `2023-${String(1 + ((i + j) % 12)).padStart(2, '0')}-0${1 + j}`;
        rows.push({ on, kindId });
        certificationLines.push([number, name, '', on, title, '', '', '', '', '厚生労働省']);
      }
      company.certificationRows = rows;
    }
    if (i % 7 === 4) {
      const [title, kindId] = awardTitles[i % awardTitles.length] as [string, number];
      const on = `2022-0${1 + (i % 9)}-20`;
      awardLines.push([number, name, '', on, title, '', '', '経済産業省']);
      company.awardRows = [{ on, kindId }];
    }
    if (i % 3 === 0) {
      const ageTenths = 300 + ((i * 7) % 250);
      // 80 managers, 23 women: 28.75 %, a half to round up (28.8)
      const managers = i % 4 === 0 ? 0 : i % 5 === 2 ? 80 : 10 + (i % 30);
      const women = managers === 0 ? 0 : managers === 80 ? 23 : i % 7;
      const officers = 1 + (i % 9);
      const womenOfficers = i % 2;
      const menEligible = i % 5;
      const menTaking = i % 4;
      const overtime = i % 6 === 0 ? null : ((i * 13) % 400) / 10;
      const tenure = (50 + (i % 150)) / 10;
      const womenShare = (i * 3) % 100;
      company.workplace = {
        averageAge: ageTenths / 10,
        averageTenureYears: tenure,
        overtimeHoursPerMonth: overtime,
        femaleWorkerPercent: womenShare,
        femaleManagerPercent: percentOf(women, managers),
        femaleOfficerPercent: percentOf(womenOfficers, officers),
        maleChildcareLeavePercent: percentOf(menTaking, menEligible),
      } satisfies WorkplaceFigures;
      workplaceLines.push([
        number,
        name,
        '',
        '',
        '',
        '',
        '',
        '',
        '',
        tenure.toFixed(1),
        `${(ageTenths / 10).toFixed(1)}歳`,
        overtime === null ? '' : overtime.toFixed(1),
        '',
        `${womenShare}%`,
        String(women),
        String(managers),
        String(womenOfficers),
        String(officers),
        String(menEligible),
        '',
        String(menTaking),
        '',
      ]);
    }
  });
  const load = async (kind: RecordKind, header: string[], lines: string[][]) => {
    const file = path.join(dataDir, `${kind}.csv`);
    writeFileSync(file, `\uFEFF${gbizCsv(header, lines)}`);
    const summary = await importRecordFile(kind, file, {
      client: services.opensearch,
      indexPrefix: services.config.indexPrefix,
      deadLetter: new MemoryDeadLetter(),
      stateDir: mkdtempSync(path.join(dataDir, `${kind}-state-`)),
    });
    if (summary.rejected > 0 || summary.set !== summary.companies)
      throw new Error(`${kind}: ${JSON.stringify(summary)}`);
  };
  await load('subsidies', subsidyHeader, subsidyLines);
  await load('procurement', procurementHeader, orderLines);
  await load('certifications', certificationHeader, certificationLines);
  await load('awards', awardHeader, awardLines);
  await load('workplace', workplaceHeader, workplaceLines);
}

function mostCommon(values: unknown[]): unknown {
  const counts = countBy(values, (value) => [value]);
  const [top] = [...counts].sort((a, b) => b[1] - a[1]);
  return Number(top?.[0]);
}

async function startApp(): Promise<void> {
  services = await setUpServices('search-oracle');
  // the rate limit (5/s per user) would turn a case's dozen requests into 429s
  services.limits = createLimits({
    redis: services.redis,
    keyPrefix: services.config.redisPrefix,
    // the cases run five at a time, each with two exports
    config: { rateLimitExemptUsers: new Set([userId]), exportMaxConcurrent: 16 },
  });
  ({ key: apiKey } = await createApiKey(keyStoreFor(services.redis, services.config.redisPrefix), {
    userId,
  }));
  const { ledger, close } = openCreditLedger(services.config);
  await ledger.grant(userId, 1_000_000);
  await close();
  server = http.createServer(createApp(services));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/rest/v1`;
}

beforeAll(async () => {
  await startApp();
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'search-oracle-'));
  const files = await generateDataSet({
    companies: 120,
    jobs: 600,
    seed: 11,
    now: new Date('2026-04-01T00:00:00+09:00'),
    outDir: dataDir,
  });
  const corporates = readNdjson(files.corporates);
  const jobs = readNdjson(files.jobs);
  placeTexts(jobs, Date.now());
  writeFileSync(files.jobs, jobs.map((job) => `${JSON.stringify(job)}\n`).join(''));
  await ingestFiles([files.corporates, files.jobs], {
    client: services.opensearch,
    indexPrefix: services.config.indexPrefix,
    deadLetter: new MemoryDeadLetter(),
  });
  // before the instant the updatedAt case asks from: the registrations move updatedAt too
  await registerInvoices(corporates);
  await loadPublicRecords(corporates);
  await sleep(20);
  const beforeRegistry = new Date().toISOString();
  await sleep(20);
  const toClose = pickToClose(corporates, jobs);
  await closeCompanies(toClose);
  await services.opensearch.indices.refresh({ index: `${services.config.indexPrefix}*` });
  const closed = toClose.map((company) => String(company.corporateNumber));
  const views = buildViews(corporates, jobs, new Set(closed), textSeen);
  data = {
    ...views,
    closed,
    beforeRegistry,
    common: {
      businessSub: mostCommon(corporates.map((c) => c.businessSubCategoryId)) as number,
      jobSub: mostCommon(jobs.map((j) => j.jobSubCategoryId)) as number,
      titles: [String(jobs[3]?.title), String(jobs[15]?.title)],
    },
  };
}, 120_000);

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  await services?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

/**
 * One request; a 503 (the shared engine busy: "retry shortly", docs/api.md "Errors") is sent
 * again, at most three times. Any other answer is the answer.
 */
async function post(route: string, body: unknown): Promise<Response> {
  for (let attempt = 1; ; attempt++) {
    const res = await fetch(`${base}${route}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
      body: JSON.stringify(body),
    });
    if (res.status !== 503 || attempt > 3) return res;
    await res.arrayBuffer();
    await sleep(500 * attempt);
  }
}

// ---------------------------------------------------------------------------------------
// the cases

interface Sort {
  field: string;
  order: 'asc' | 'desc';
  value: SortValue;
}

interface CompanyCase {
  body: Raw;
  match: (company: Company) => boolean;
  /** The positive posting conditions (what a posting facet counts); absent: none. */
  posting?: (posting: Posting) => boolean;
  sort?: Sort;
}

interface JobCase {
  body: Raw;
  match: (posting: Posting) => boolean;
  sort?: Sort;
}

const anyPosting = (company: Company, test: (posting: Posting) => boolean) => company.postings.some(test);

/**
 * Hiring activity written out (docs/api.md, "Hiring activity"): every posting of the data is
 * open (the data deletes none), started on the Japan day of its jobCreatedAt; a window of N
 * days is the N days ending on the day counted, the day the data was indexed. The data's
 * postings are months older than any window, so the windowed counts are plain zeros here; the
 * cases pair them with a condition that makes the answer informative.
 */
const indexedOn = () => japanDay(new Date().toISOString()) as string;
const dayShift = (day: string, days: number) =>
  new Date(Date.parse(`${day}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
const startDays = (c: Company) =>
  c.postings.map((p) => japanDay(p.jobCreatedAt)).filter((d): d is string => d !== null);
const startedWithin = (c: Company, days: number) =>
  startDays(c).filter((day) => day <= indexedOn() && day > dayShift(indexedOn(), -days)).length;
const mediaStarted30d = (c: Company) => {
  const first = new Map<unknown, string>();
  for (const p of c.postings) {
    const day = japanDay(p.jobCreatedAt);
    if (day !== null && (!first.has(p.mediaId) || day < (first.get(p.mediaId) as string)))
      first.set(p.mediaId, day);
  }
  return [...first]
    .filter(([, day]) => day <= indexedOn() && day > dayShift(indexedOn(), -30))
    .map(([id]) => id);
};
const noPosting = (company: Company, test: (posting: Posting) => boolean) => !company.postings.some(test);

/**
 * Invoice registration written out (docs/api.md, "Invoice registration"): registered on a day
 * when it took effect on or before it and did not end on or before it; today is the day in
 * Japan when the case runs (the data's days of 2099 stay ahead).
 */
const invoiceOf = (c: Raw) => c.invoiceDays as InvoiceDays | undefined;
const registeredOn = (c: Raw, day: string) => {
  const invoice = invoiceOf(c);
  return (
    invoice !== undefined &&
    invoice.registeredOn <= day &&
    (invoice.endedOn === null || invoice.endedOn > day)
  );
};
const today = () => japanDay(new Date().toISOString()) as string;

/**
 * gBizINFO summed out (docs/api.md, "Public records"): per company the rows of its kind; a
 * company without rows has no count, total, day or body, so no bound holds for it.
 */
const rowsOf = (c: Raw, kind: 'subsidyRows' | 'procurementRows') => c[kind] as PublicRecordRow[] | undefined;
const countOf = (c: Raw, kind: 'subsidyRows' | 'procurementRows') => rowsOf(c, kind)?.length;
const totalOf = (c: Raw, kind: 'subsidyRows' | 'procurementRows') =>
  rowsOf(c, kind)?.reduce((sum, row) => sum + (row.yen ?? 0), 0);
const latestOf = (c: Raw, kind: 'subsidyRows' | 'procurementRows') =>
  rowsOf(c, kind)
    ?.map((row) => row.on)
    .sort()
    .at(-1);
const bodiesOf = (c: Raw, kind: 'subsidyRows' | 'procurementRows') =>
  rowsOf(c, kind)?.map((row) => row.bodyId) ?? [];

/** Certifications and awards: the rows' kinds, count and latest day; none for a company without rows. */
const listedOf = (c: Raw, kind: 'certificationRows' | 'awardRows') => c[kind] as ListedRow[] | undefined;
const kindsOf = (c: Raw, kind: 'certificationRows' | 'awardRows') =>
  listedOf(c, kind)?.map((row) => row.kindId) ?? [];
const listedLatest = (c: Raw, kind: 'certificationRows' | 'awardRows') =>
  listedOf(c, kind)
    ?.map((row) => row.on)
    .sort()
    .at(-1);
const figureOf = (c: Raw, figure: keyof WorkplaceFigures) =>
  (c.workplace as WorkplaceFigures | undefined)?.[figure] ?? undefined;

const companySorts = {
  name: { field: 'name', order: 'asc', value: (c: Raw) => String(c.name) },
  employeesDesc: { field: 'employeeCount', order: 'desc', value: (c: Raw) => numberOf(c.employeeCount) },
  capitalAsc: { field: 'capitalMillionYen', order: 'asc', value: (c: Raw) => numberOf(c.capitalMillionYen) },
  foundedDesc: { field: 'foundedAt', order: 'desc', value: (c: Raw) => instantOf(c.foundedAt) },
  salaryDesc: {
    field: 'jobSalaryMin',
    order: 'desc',
    value: (c: Raw) => highestOf(c as Company, (p) => numberOf(p.salaryMin)),
  },
  invoiceRegistrationDesc: {
    field: 'invoiceRegistrationDate',
    order: 'desc',
    value: (c: Raw) => invoiceOf(c)?.registeredOn ?? null,
  },
  invoiceEndedAsc: {
    field: 'invoiceEndedOn',
    order: 'asc',
    value: (c: Raw) => invoiceOf(c)?.endedOn ?? null,
  },
  subsidyTotalDesc: {
    field: 'subsidyTotalYen',
    order: 'desc',
    value: (c: Raw) => totalOf(c, 'subsidyRows') ?? null,
  },
  procurementLatestAsc: {
    field: 'procurementLatestOn',
    order: 'asc',
    value: (c: Raw) => latestOf(c, 'procurementRows') ?? null,
  },
  certificationLatestDesc: {
    field: 'certificationLatestOn',
    order: 'desc',
    value: (c: Raw) => listedLatest(c, 'certificationRows') ?? null,
  },
  workplaceAgeAsc: {
    field: 'workplaceAverageAge',
    order: 'asc',
    value: (c: Raw) => figureOf(c, 'averageAge') ?? null,
  },
  workplaceManagersDesc: {
    field: 'workplaceFemaleManagerPercent',
    order: 'desc',
    value: (c: Raw) => figureOf(c, 'femaleManagerPercent') ?? null,
  },
} satisfies Record<string, Sort>;

const jobSorts = {
  createdDesc: { field: 'jobCreatedAt', order: 'desc', value: (p: Raw) => instantOf(p.jobCreatedAt) },
  salaryAsc: { field: 'salaryMin', order: 'asc', value: (p: Raw) => numberOf(p.salaryMin) },
  employeesDesc: {
    field: 'corporateEmployeeCount',
    order: 'desc',
    value: (p: Raw) => numberOf((p as Posting).company.employeeCount),
  },
  hiringDesc: { field: 'hiringPlanMin', order: 'desc', value: (p: Raw) => numberOf(p.hiringPlanMin) },
} satisfies Record<string, Sort>;

/** Legal-form readings in the generated furigana (a guard below checks there are no others). */
const legalReadings = [
  'トクテイヒエイリカツドウホウジン',
  'イッパンシャダンホウジン',
  'イッパンザイダンホウジン',
  'カブシキガイシャ',
  'ユウゲンガイシャ',
  'ゴウドウガイシャ',
  'ゴウシガイシャ',
  'ゴウメイガイシャ',
];
const smallKana: Record<string, string> = {
  ァ: 'ア',
  ィ: 'イ',
  ゥ: 'ウ',
  ェ: 'エ',
  ォ: 'オ',
  ッ: 'ツ',
  ャ: 'ヤ',
  ュ: 'ユ',
  ョ: 'ヨ',
  ヮ: 'ワ',
};
/** A reading as a key (docs/names.md): width, legal forms, ー, small kana, script, spaces. */
function readingAsKey(text: string): string {
  let folded = text.normalize('NFKC').replace(/[\sー・]/g, '');
  for (const form of legalReadings) folded = folded.split(form).join('');
  return [...folded]
    .map((c) => smallKana[c] ?? c)
    .map((c) => (c >= 'ァ' && c <= 'ヶ' ? String.fromCharCode((c.codePointAt(0) as number) - 0x60) : c))
    .join('');
}

/** A posting that counts as a work location: on site or of unknown kind, with a city and a street. */
const onSite = (p: Posting) => {
  const place = p.workLocation as Raw | null;
  return (
    (place?.kind === 'onsite' || place?.kind === 'unknown') &&
    present(place.cityName) &&
    present(place.address)
  );
};

const companyCases: Record<string, (d: Data) => CompanyCase> = {
  'ids Or: prefectureIdOr': () => ({
    body: { prefectureIdOr: [13, 27] },
    match: (c) => oneOf(c.prefectureId, [13, 27]),
    sort: companySorts.employeesDesc,
  }),
  'ids Not with a nested ids any: prefectureIdNot + filters.industryCategoryId.any': () => ({
    body: { prefectureIdNot: [13], filters: { industryCategoryId: { any: [4, 5, 9] } } },
    match: (c) => c.prefectureId !== 13 && oneOf(c.industryCategoryId, [4, 5, 9]),
  }),
  'minor classes: businessSubCategoryIdOr, industrySubCategoryIdNot, businessCategoryIdNot': (d) => ({
    body: {
      businessSubCategoryIdOr: [d.common.businessSub],
      industrySubCategoryIdNot: [91],
      businessCategoryIdNot: [13],
    },
    match: (c) =>
      c.businessSubCategoryId === d.common.businessSub &&
      c.industrySubCategoryId !== 91 &&
      c.businessCategoryId !== 13,
  }),
  'enum Or / Not: corporateTypeOr + revenueRangeNot (no revenue is none of them)': () => ({
    body: {
      corporateTypeOr: ['godo_gaisha', 'yugen_gaisha', 'kabushiki_gaisha'],
      revenueRangeNot: ['under_100m'],
    },
    match: (c) =>
      oneOf(c.corporateType, ['godo_gaisha', 'yugen_gaisha', 'kabushiki_gaisha']) &&
      c.revenueRange !== 'under_100m',
    sort: companySorts.capitalAsc,
  }),
  'markets: marketCodeOr, and nested corporateMarketCode.none with isListed true': () => ({
    body: {
      marketCodeOr: ['tse_prime', 'nse_premier', 'tse_standard'],
      filters: { corporateMarketCode: { none: ['tse_prime'] } },
    },
    match: (c) =>
      marketsOf(c).some((code) => oneOf(code, ['tse_prime', 'nse_premier', 'tse_standard'])) &&
      !marketsOf(c).includes('tse_prime'),
  }),
  'isListed false with revenueRangeOr; isListed null is no condition': () => ({
    body: { isListed: false, filters: { revenueRange: { any: ['from_100m_to_300m', 'from_300m_to_1b'] } } },
    match: (c) =>
      marketsOf(c).length === 0 && oneOf(c.revenueRange, ['from_100m_to_300m', 'from_300m_to_1b']),
  }),
  'range: employeeCountMin/Max inclusive (isListed: null ignored)': () => ({
    body: { employeeCountMin: 10, employeeCountMax: 300, isListed: null },
    match: (c) => within(c.employeeCount, 10, 300),
    sort: companySorts.employeesDesc,
  }),
  'range: capitalMillionYenMax, totalAdCostMin': () => ({
    body: { capitalMillionYenMax: 100, totalAdCostMin: 1 },
    match: (c) => within(c.capitalMillionYen, undefined, 100) && within(c.totalAdCost, 1),
  }),
  'headcount change: filters.employeeDiff6m (alias) min, employeeDiff12mMax': () => ({
    body: { filters: { employeeDiff6m: { min: 1 } }, employeeDiff12mMax: 20 },
    match: (c) => within(c.employeeDiff6mMin, 1) && within(c.employeeDiff12m, undefined, 20),
    sort: companySorts.employeesDesc,
  }),
  'headcount decrease: employeeDiff6mMinMax -1, employeeDiff12mMin -300': () => ({
    body: { employeeDiff6mMinMax: -1, employeeDiff12mMin: -300 },
    match: (c) => within(c.employeeDiff6mMin, undefined, -1) && within(c.employeeDiff12m, -300),
  }),
  'headcount transition text: employeeTransitionPartialMatchOr / Not': () => ({
    body: {
      employeeTransitionPartialMatchOr: ['12ヶ月連続', '減少'],
      employeeTransitionPartialMatchNot: ['6ヶ月連続増加'],
    },
    match: (c) =>
      (contains(c.employeeTransition, '12ヶ月連続') || contains(c.employeeTransition, '減少')) &&
      !contains(c.employeeTransition, '6ヶ月連続増加'),
  }),
  'presence: hasCorporateWebsite false, hasFax true': () => ({
    body: { hasCorporateWebsite: false, hasFax: true },
    match: (c) => !present(c.websiteUrl) && present(c.fax),
  }),
  'presence: hasCorporateEmail true, nested hasCorporatePhone true': () => ({
    body: { hasCorporateEmail: true, filters: { hasCorporatePhone: true } },
    match: (c) => present(c.email) && present(c.phoneNumber),
    sort: companySorts.name,
  }),
  'flags: hasDispatchLicense false (unknown too), hasRecruitmentLicense false': () => ({
    body: { hasDispatchLicense: false, hasRecruitmentLicense: false },
    match: (c) => c.hasDispatchLicense !== true && c.hasRecruitmentLicense !== true,
  }),
  'flags: hasRecruitmentLicense true': () => ({
    body: { hasRecruitmentLicense: true },
    match: (c) => c.hasRecruitmentLicense === true,
  }),
  'date range: foundedAtFrom/To whole days in Japan': () => ({
    body: { foundedAtFrom: '1990-01-01', foundedAtTo: '2012-12-31' },
    match: (c) => daysWithin(c.foundedAt, '1990-01-01', '2012-12-31'),
    sort: companySorts.foundedDesc,
  }),
  'exact name, folded: corporateNameOr with full-width / half-width / (株) spellings': () => ({
    body: {
      corporateNameOr: [
        '株式会社グローバルトレーディング',
        '(株)共栄製作所',
        '関西商事株式会社',
        'ＮＯＳＵＣＨ',
      ],
    },
    match: (c) =>
      ['株式会社グローバルトレーディング', '(株)共栄製作所', '関西商事株式会社', 'ＮＯＳＵＣＨ'].some((v) =>
        sameName(c.name, v),
      ),
  }),
  'exact name Not, folded: corporateNameNot': () => ({
    body: { corporateNameNot: ['(株)共栄製作所'], prefectureIdOr: [13, 34] },
    match: (c) => !sameName(c.name, '(株)共栄製作所') && oneOf(c.prefectureId, [13, 34]),
  }),
  'name contains: corporateNamePartialMatchOr (half-width) + Not': () => ({
    body: {
      corporateNamePartialMatchOr: ['ソレイユ', 'ﾐﾗｲｽﾞ', 'グローバル'],
      corporateNamePartialMatchNot: ['合同会社'],
    },
    match: (c) =>
      ['ソレイユ', 'ﾐﾗｲｽﾞ', 'グローバル'].some((f) => contains(c.name, f)) && !contains(c.name, '合同会社'),
    sort: companySorts.name,
  }),
  'summary: summaryPartialMatchAnd + summaryPartialMatchNot': () => ({
    body: { summaryPartialMatchAnd: ['強み', '企業'], summaryPartialMatchNot: ['全国'] },
    match: (c) => contains(c.summary, '強み') && contains(c.summary, '企業') && !contains(c.summary, '全国'),
  }),
  'summary: nested summary.anyContains': () => ({
    body: { filters: { summary: { anyContains: ['人材', '介護'] } } },
    match: (c) => contains(c.summary, '人材') || contains(c.summary, '介護'),
  }),
  'address: cityNamePartialMatchOr + streetAddressPartialMatchNot': () => ({
    body: { cityNamePartialMatchOr: ['中央区', '北区', '港区'], streetAddressPartialMatchNot: ['ビル'] },
    match: (c) =>
      ['中央区', '北区', '港区'].some((f) => contains(c.cityName, f)) && !contains(c.streetAddress, 'ビル'),
  }),
  'ad spend: paidMediaSpendOr, fundingSeriesNot': () => ({
    body: { paidMediaSpendOr: ['from_1m_to_3m', 'none', 'from_5m_to_10m'], fundingSeriesNot: ['series_a'] },
    match: (c) =>
      oneOf(c.paidMediaSpend, ['from_1m_to_3m', 'none', 'from_5m_to_10m']) && c.fundingSeries !== 'series_a',
  }),
  'funding: fundingSeriesOr': () => ({
    body: { fundingSeriesOr: ['series_a', 'series_c', 'series_g'] },
    match: (c) => oneOf(c.fundingSeries, ['series_a', 'series_c', 'series_g']),
  }),
  'paid media A but not B: paidMediaUsedMediaIdOr + Not': () => ({
    body: { paidMediaUsedMediaIdOr: [8, 1], paidMediaUsedMediaIdNot: [16] },
    match: (c) => {
      const ids = (c.paidMediaIds as number[] | null) ?? [];
      return ids.some((id) => oneOf(id, [8, 1])) && !ids.includes(16);
    },
  }),
  'one posting: jobMediaIdOr + jobEmploymentTypeIdOr on the same posting': () => {
    const posting = (p: Posting) => p.mediaId === 8 && p.employmentTypeId === 1;
    return {
      body: { jobMediaIdOr: [8], jobEmploymentTypeIdOr: [1] },
      match: (c) => anyPosting(c, posting),
      posting,
      sort: companySorts.salaryDesc,
    };
  },
  'posting medium A but not medium B: jobMediaIdOr [1] + jobMediaIdNot [17]': () => {
    const posting = (p: Posting) => p.mediaId === 1;
    return {
      body: { jobMediaIdOr: [1], jobMediaIdNot: [17] },
      match: (c) => anyPosting(c, posting) && noPosting(c, (p) => p.mediaId === 17),
      posting,
    };
  },
  'nested posting aliases: filters.mediaId.any + filters.jobCategoryId.none + employmentTypeId.none': () => {
    const posting = (p: Posting) => oneOf(p.mediaId, [8, 24]);
    return {
      body: {
        filters: {
          mediaId: { any: [8, 24] },
          jobCategoryId: { none: [2] },
          employmentTypeId: { none: [3, 4] },
        },
      },
      match: (c) =>
        anyPosting(c, posting) &&
        noPosting(c, (p) => p.jobCategoryId === 2) &&
        noPosting(c, (p) => oneOf(p.employmentTypeId, [3, 4])),
      posting,
      sort: companySorts.salaryDesc,
    };
  },
  'posting salary range and minor category: jobSalaryMin/Max + jobSubCategoryIdOr': (d) => {
    const posting = (p: Posting) =>
      within(p.salaryMin, 1000, 250_000) && p.jobSubCategoryId === d.common.jobSub;
    return {
      body: { jobSalaryMin: 1000, jobSalaryMax: 250_000, jobSubCategoryIdOr: [d.common.jobSub] },
      match: (c) => anyPosting(c, posting),
      posting,
    };
  },
  'posting title: jobTitlePartialMatchOr + jobTitlePartialMatchNot (any posting excludes)': () => {
    const posting = (p: Posting) => contains(p.title, '正社員') || contains(p.title, 'インターン');
    return {
      body: { jobTitlePartialMatchOr: ['正社員', 'インターン'], jobTitlePartialMatchNot: ['急募'] },
      match: (c) => anyPosting(c, posting) && noPosting(c, (p) => contains(p.title, '急募')),
      posting,
    };
  },
  'posting category Not: jobCategoryIdNot + jobSubCategoryIdNot + jobEmploymentTypeIdNot': () => ({
    body: {
      jobCategoryIdNot: [1],
      jobSubCategoryIdNot: [203],
      jobEmploymentTypeIdNot: [6],
      prefectureIdOr: [13, 14, 27, 23, 40],
    },
    match: (c) =>
      oneOf(c.prefectureId, [13, 14, 27, 23, 40]) &&
      noPosting(c, (p) => p.jobCategoryId === 1) &&
      noPosting(c, (p) => p.jobSubCategoryId === 203) &&
      noPosting(c, (p) => p.employmentTypeId === 6),
  }),
  'detail text within the last month: jobDescriptionPartialMatchOr': () => {
    const posting = (p: Posting) =>
      contains(p.seenDescription, 'フルリモート') || contains(p.seenDescription, '寮完備');
    return {
      body: { jobDescriptionPartialMatchOr: ['フルリモート', '寮完備'] },
      match: (c) => anyPosting(c, posting),
      posting,
    };
  },
  'detail text: jobDescriptionPartialMatchAnd + Not (old text is invisible to Not too)': () => {
    const posting = (p: Posting) =>
      contains(p.seenDescription, '研修') && contains(p.seenDescription, '賞与');
    return {
      body: { jobDescriptionPartialMatchAnd: ['研修', '賞与'], jobDescriptionPartialMatchNot: ['夜勤'] },
      match: (c) => anyPosting(c, posting) && noPosting(c, (p) => contains(p.seenDescription, '夜勤')),
      posting,
    };
  },
  'posting dates: jobCreatedAtFrom + jobDeadlineOnTo + jobOpenedOnFrom on one posting': () => {
    const posting = (p: Posting) =>
      daysWithin(p.jobCreatedAt, '2025-12-01') &&
      daysWithin(p.jobDeadlineOn, undefined, '2026-06-30') &&
      daysWithin(p.jobOpenedOn, '2025-11-15');
    return {
      body: { jobCreatedAtFrom: '2025-12-01', jobDeadlineOnTo: '2026-06-30', jobOpenedOnFrom: '2025-11-15' },
      match: (c) => anyPosting(c, posting),
      posting,
    };
  },
  'posting date window: jobCreatedAtFrom/To, jobOpenedOnTo, jobDeadlineOnFrom': () => {
    const posting = (p: Posting) =>
      daysWithin(p.jobCreatedAt, '2026-01-10', '2026-03-20') &&
      daysWithin(p.jobOpenedOn, undefined, '2026-03-31') &&
      daysWithin(p.jobDeadlineOn, '2026-02-01');
    return {
      body: {
        jobCreatedAtFrom: '2026-01-10',
        jobCreatedAtTo: '2026-03-20',
        jobOpenedOnTo: '2026-03-31',
        jobDeadlineOnFrom: '2026-02-01',
      },
      match: (c) => anyPosting(c, posting),
      posting,
    };
  },
  'posting ad plan and contact flags: jobAdPlanOr + jobHasContactEmail + jobHasContactPhone false': () => {
    const posting = (p: Posting) =>
      oneOf(p.adPlan, ['プレミアム', 'PR枠']) && present(p.contactEmail) && !present(p.contactPhoneNumber);
    return {
      body: { jobAdPlanOr: ['プレミアム', 'PR枠'], jobHasContactEmail: true, jobHasContactPhone: false },
      match: (c) => anyPosting(c, posting),
      posting,
    };
  },
  'posting licenses (inherited) and hires: jobHasDispatchLicense + jobHasRecruitmentLicense false + jobHiringPlanMinAtLeast':
    () => {
      const posting = (p: Posting) =>
        postingLicense(p, p.company, 'hasDispatchLicense') === true &&
        postingLicense(p, p.company, 'hasRecruitmentLicense') !== true &&
        within(p.hiringPlanMin, 2);
      return {
        body: { jobHasDispatchLicense: true, jobHasRecruitmentLicense: false, jobHiringPlanMinAtLeast: 2 },
        match: (c) => anyPosting(c, posting),
        posting,
      };
    },
  'filterGroups: a company group, or a group with a posting condition': () => ({
    body: {
      isListed: false,
      filterGroups: [
        { prefectureId: { any: [13] } },
        { prefectureId: { any: [27, 14] }, jobMediaId: { any: [8] } },
      ],
    },
    match: (c) =>
      marketsOf(c).length === 0 &&
      (c.prefectureId === 13 || (oneOf(c.prefectureId, [27, 14]) && anyPosting(c, (p) => p.mediaId === 8))),
    // the first group has no posting condition: every posting of a result counts
    posting: () => true,
    sort: companySorts.name,
  }),
  'filterGroups: the same-posting rule spans filters and a group': () => {
    const posting = (p: Posting) => p.employmentTypeId === 1 && oneOf(p.mediaId, [8, 17]);
    return {
      body: { jobEmploymentTypeIdOr: [1], filterGroups: [{ jobMediaId: { any: [8, 17] } }] },
      match: (c) => anyPosting(c, posting),
      posting,
    };
  },
  'includeClosed: closed companies come back': (d) => ({
    body: {
      includeClosed: true,
      prefectureIdOr: [...new Set(d.companies.filter((c) => c.closed).map((c) => c.prefectureId))],
    },
    match: (c) =>
      oneOf(
        c.prefectureId,
        d.companies.filter((x) => x.closed).map((x) => x.prefectureId),
      ),
  }),
  'corporateNumberOr does not bring a closed company back': (d) => {
    const numbers = [
      ...d.closed,
      ...d.companies
        .filter((c) => !c.closed)
        .slice(0, 4)
        .map((c) => c.corporateNumber),
    ];
    return { body: { corporateNumberOr: numbers }, match: (c) => numbers.includes(c.corporateNumber) };
  },
  'updatedAtFrom an instant: what changed after it (the registry closures)': (d) => ({
    body: { updatedAtFrom: d.beforeRegistry, filters: { includeClosed: true } },
    match: (c) => c.closed,
  }),
  'reading prefix: furiganaPrefixOr, full and half width': () => ({
    body: { furiganaPrefixOr: ['ソレイユ', 'ｷｮｳｴｲ', 'たいよう'] },
    match: (c) =>
      typeof c.furigana === 'string' &&
      ['ソレイユ', 'ｷｮｳｴｲ', 'たいよう'].some((prefix) =>
        readingAsKey(c.furigana as string).startsWith(readingAsKey(prefix)),
      ),
  }),
  'hiring activity: open postings, first and last posting days': () => ({
    body: {
      hiringOpenPostingsMin: 5,
      hiringFirstPostedOnTo: '2026-01-31',
      hiringLastPostedOnFrom: '2026-02-01',
    },
    match: (c) =>
      c.postings.length >= 5 &&
      [...startDays(c)].sort()[0] !== undefined &&
      ([...startDays(c)].sort()[0] as string) <= '2026-01-31' &&
      ([...startDays(c)].sort().at(-1) as string) >= '2026-02-01',
  }),
  'hiring activity: the windows (new, closed, net change, media started and stopped)': () => ({
    body: {
      prefectureIdOr: [13, 27],
      hiringNewPostings7dMax: 0,
      hiringNewPostings30dMax: 0,
      filters: {
        hiringNewPostings90d: { max: 0 },
        hiringClosedPostings30d: { max: 0 },
        hiringNetChange30d: { min: 0, max: 0 },
        hiringStartedMediaId: { none: [1, 2, 3] },
        hiringStoppedMediaId: { none: [1, 2, 3] },
      },
    },
    match: (c) =>
      oneOf(c.prefectureId, [13, 27]) &&
      startedWithin(c, 7) === 0 &&
      startedWithin(c, 30) === 0 &&
      startedWithin(c, 90) === 0 &&
      // no posting of the data is closed: nothing closed, the net change is what started
      startedWithin(c, 30) === 0 &&
      !mediaStarted30d(c).some((id) => oneOf(id, [1, 2, 3])),
  }),
  'invoice: registered today': () => ({
    body: { invoiceRegistered: true },
    match: (c) => registeredOn(c, today()),
    sort: companySorts.invoiceRegistrationDesc,
  }),
  'invoice: not registered today (no row, not yet, or ended), two prefectures': () => ({
    body: { filters: { invoiceRegistered: false, prefectureId: { any: [13, 27] } } },
    match: (c) => !registeredOn(c, today()) && oneOf(c.prefectureId, [13, 27]),
  }),
  'invoice: registered on a day (an expiry on that day does not count)': () => ({
    body: { invoiceRegisteredOn: '2025-03-31' },
    match: (c) => registeredOn(c, '2025-03-31'),
    sort: companySorts.invoiceEndedAsc,
  }),
  'invoice: registration days and how it ended': () => ({
    body: {
      invoiceRegistrationDateFrom: '2024-02-01',
      invoiceRegistrationDateTo: '2024-06-30',
      invoiceEndReasonOr: ['cancelled'],
    },
    match: (c) =>
      daysWithin(invoiceOf(c)?.registeredOn, '2024-02-01', '2024-06-30') &&
      invoiceOf(c)?.endReason === 'cancelled',
  }),
  'invoice: end days, not cancelled': () => ({
    body: {
      invoiceEndedOnFrom: '2025-01-01',
      invoiceEndedOnTo: '2099-12-31',
      invoiceEndReasonNot: ['cancelled'],
    },
    match: (c) =>
      daysWithin(invoiceOf(c)?.endedOn ?? undefined, '2025-01-01', '2099-12-31') &&
      invoiceOf(c)?.endReason !== 'cancelled',
  }),
  'invoice: a row at all, or none': () => ({
    body: {
      filterGroups: [{ hasInvoiceRecord: false }, { hasInvoiceRecord: true, prefectureId: { any: [13] } }],
    },
    match: (c) => invoiceOf(c) === undefined || oneOf(c.prefectureId, [13]),
  }),
  'subsidies: some, at least two, sorted by their total': () => ({
    body: { hasSubsidies: true, subsidyCountMin: 2 },
    match: (c) => (countOf(c, 'subsidyRows') ?? 0) >= 2,
    sort: companySorts.subsidyTotalDesc,
  }),
  'subsidies: total and latest day within bounds': () => ({
    body: {
      subsidyTotalYenMin: 1_000_000,
      subsidyTotalYenMax: 8_000_000,
      subsidyLatestOnFrom: '2024-03-01',
      subsidyLatestOnTo: '2024-08-31',
    },
    match: (c) =>
      within(totalOf(c, 'subsidyRows'), 1_000_000, 8_000_000) &&
      daysWithin(latestOf(c, 'subsidyRows'), '2024-03-01', '2024-08-31'),
  }),
  'subsidies: granted by these bodies, none by those; no subsidies at all in two prefectures': () => ({
    body: {
      filterGroups: [
        { subsidyBodyId: { any: [11, 29] }, subsidyCount: { max: 2 } },
        { hasSubsidies: false, prefectureId: { any: [13, 27] } },
      ],
      subsidyBodyIdNot: [999],
    },
    match: (c) =>
      !bodiesOf(c, 'subsidyRows').includes(999) &&
      ((bodiesOf(c, 'subsidyRows').some((id) => oneOf(id, [11, 29])) &&
        (countOf(c, 'subsidyRows') ?? 0) <= 2) ||
        (countOf(c, 'subsidyRows') === undefined && oneOf(c.prefectureId, [13, 27]))),
  }),
  'procurement: won, count and total, sorted by the latest order': () => ({
    body: { hasProcurement: true, procurementCountMax: 1, procurementTotalYenMin: 5_000_000 },
    match: (c) =>
      countOf(c, 'procurementRows') !== undefined &&
      (countOf(c, 'procurementRows') as number) <= 1 &&
      (totalOf(c, 'procurementRows') as number) >= 5_000_000,
    sort: companySorts.procurementLatestAsc,
  }),
  'procurement: latest order day and the ordering bodies, Or and Not': () => ({
    body: {
      procurementLatestOnFrom: '2025-03-01',
      procurementBodyIdOr: [14, 12],
      procurementBodyIdNot: [2],
    },
    match: (c) =>
      daysWithin(latestOf(c, 'procurementRows'), '2025-03-01') &&
      bodiesOf(c, 'procurementRows').some((id) => oneOf(id, [14, 12])) &&
      !bodiesOf(c, 'procurementRows').includes(2),
  }),
  'certifications: these kinds, not those, sorted by the latest day': () => ({
    body: { certificationKindIdOr: [3, 4, 16], certificationKindIdNot: [999] },
    match: (c) =>
      kindsOf(c, 'certificationRows').some((id) => oneOf(id, [3, 4, 16])) &&
      !kindsOf(c, 'certificationRows').includes(999),
    sort: companySorts.certificationLatestDesc,
  }),
  'certifications: count and latest day; none at all in two prefectures': () => ({
    body: {
      filterGroups: [
        { certificationCount: { min: 2 }, certificationLatestOn: { from: '2023-03-01', to: '2023-10-31' } },
        { hasCertifications: false, prefectureId: { any: [13, 27] } },
      ],
    },
    match: (c) =>
      ((listedOf(c, 'certificationRows')?.length ?? 0) >= 2 &&
        daysWithin(listedLatest(c, 'certificationRows'), '2023-03-01', '2023-10-31')) ||
      (listedOf(c, 'certificationRows') === undefined && oneOf(c.prefectureId, [13, 27])),
  }),
  'awards: a kind or a count, the latest day, and who has none': () => ({
    body: {
      filterGroups: [
        { awardKindId: { any: [1, 6] }, awardLatestOn: { to: '2022-06-30' } },
        { awardCount: { min: 1, max: 1 }, awardKindId: { none: [1, 6] } },
        { hasAwards: false, prefectureId: { any: [1] } },
      ],
    },
    match: (c) =>
      (kindsOf(c, 'awardRows').some((id) => oneOf(id, [1, 6])) &&
        daysWithin(listedLatest(c, 'awardRows'), undefined, '2022-06-30')) ||
      (listedOf(c, 'awardRows')?.length === 1 && !kindsOf(c, 'awardRows').some((id) => oneOf(id, [1, 6]))) ||
      (listedOf(c, 'awardRows') === undefined && oneOf(c.prefectureId, [1])),
  }),
  'workplace: age and women managers within bounds, sorted by age': () => ({
    body: {
      workplaceAverageAgeMin: 35.5,
      workplaceAverageAgeMax: 50.2,
      workplaceFemaleManagerPercentMin: 10,
    },
    match: (c) =>
      within(figureOf(c, 'averageAge'), 35.5, 50.2) && within(figureOf(c, 'femaleManagerPercent'), 10),
    sort: companySorts.workplaceAgeAsc,
  }),
  'workplace: tenure, overtime, women workers and officers, men on childcare leave': () => ({
    body: {
      hasWorkplace: true,
      filterGroups: [
        { workplaceAverageTenureYears: { min: 8.3 }, workplaceOvertimeHours: { max: 20.5 } },
        { workplaceFemaleWorkerPercent: { min: 40, max: 60 }, workplaceFemaleOfficerPercent: { min: 12.5 } },
        { workplaceMaleChildcareLeavePercent: { min: 50, max: 60 } },
        // shares rounded to one decimal (1 of 7 is 14.3, 2 of 3 is 66.7), and a half rounded up
        // (23 of 80 is 28.75: 28.8)
        { workplaceFemaleOfficerPercent: { min: 14.3, max: 14.3 } },
        { workplaceMaleChildcareLeavePercent: { min: 66.7, max: 66.7 } },
        { workplaceFemaleManagerPercent: { min: 28.8, max: 28.8 } },
      ],
    },
    match: (c) =>
      c.workplace !== undefined &&
      ((within(figureOf(c, 'averageTenureYears'), 8.3) &&
        within(figureOf(c, 'overtimeHoursPerMonth'), undefined, 20.5)) ||
        (within(figureOf(c, 'femaleWorkerPercent'), 40, 60) &&
          within(figureOf(c, 'femaleOfficerPercent'), 12.5)) ||
        within(figureOf(c, 'maleChildcareLeavePercent'), 50, 60) ||
        within(figureOf(c, 'femaleOfficerPercent'), 14.3, 14.3) ||
        within(figureOf(c, 'maleChildcareLeavePercent'), 66.7, 66.7) ||
        within(figureOf(c, 'femaleManagerPercent'), 28.8, 28.8)),
    sort: companySorts.workplaceManagersDesc,
  }),
  'procurement: none won, with no company left out': () => ({
    body: { hasProcurement: false, hasSubsidies: true },
    match: (c) => countOf(c, 'procurementRows') === undefined && countOf(c, 'subsidyRows') !== undefined,
  }),
  'work locations: filters.workLocationCount.max 0': () => ({
    body: { filters: { workLocationCount: { max: 0 } }, prefectureIdOr: [13, 14] },
    match: (c) => oneOf(c.prefectureId, [13, 14]) && noPosting(c, onSite),
  }),
  'work locations: filters.workLocationCount.min 1': () => ({
    body: { filters: { workLocationCount: { min: 1 } } },
    match: (c) => anyPosting(c, onSite),
  }),
};

/** ASCII as full-width forms ('AB1' -> 'ＡＢ１'): a spelling only the fold equates. */
const fullWidth = (text: string) =>
  text.replace(/[!-~]/g, (c) => String.fromCharCode((c.codePointAt(0) as number) + 0xfee0));

const linked = (test: (company: Company) => boolean) => (p: Posting) => test(p.company);

const jobCases: Record<string, (d: Data) => JobCase> = {
  'ids: mediaIdOr + employmentTypeIdNot': () => ({
    body: { mediaIdOr: [8, 1], employmentTypeIdNot: [3] },
    match: (p) => oneOf(p.mediaId, [8, 1]) && p.employmentTypeId !== 3,
    sort: jobSorts.salaryAsc,
  }),
  'categories: jobCategoryIdOr + jobSubCategoryIdNot + nested jobEmploymentTypeId alias': () => ({
    body: {
      jobCategoryIdOr: [2, 10],
      jobSubCategoryIdNot: [203],
      filters: { jobEmploymentTypeId: { any: [1, 3] } },
    },
    match: (p) =>
      oneOf(p.jobCategoryId, [2, 10]) && p.jobSubCategoryId !== 203 && oneOf(p.employmentTypeId, [1, 3]),
  }),
  'exact title: jobTitleOr; jobTitleNot': (d) => ({
    body: { jobTitleOr: d.common.titles, jobTitleNot: [d.common.titles[1]] },
    match: (p) => p.title === d.common.titles[0],
  }),
  'title contains: jobTitlePartialMatchOr + Not': () => ({
    body: { jobTitlePartialMatchOr: ['派遣社員'], jobTitlePartialMatchNot: ['急募', '未経験'] },
    match: (p) => contains(p.title, '派遣社員') && !contains(p.title, '急募') && !contains(p.title, '未経験'),
    sort: jobSorts.hiringDesc,
  }),
  'company name: corporateNameOr (folded: full-width spelling) + corporateNamePartialMatchNot': () => {
    const names = [
      '株式会社ベイサイド自動車',
      '関西商事株式会社',
      fullWidth('=HYPERLINK("http://x","y")株式会社若葉電設'),
    ];
    return {
      body: { corporateNameOr: names, corporateNamePartialMatchNot: ['ベイサイド'] },
      match: (p) => names.some((v) => sameName(p.company.name, v)) && !contains(p.company.name, 'ベイサイド'),
    };
  },
  'company name contains: corporateNamePartialMatchOr half-width': () => ({
    body: { corporateNamePartialMatchOr: ['ｿﾚｲﾕ', 'ネクスト'] },
    match: (p) => contains(p.company.name, 'ソレイユ') || contains(p.company.name, 'ネクスト'),
  }),
  'salary and hires: salaryMin/salaryMax (both on salaryMin) + hiringPlanMinAtLeast': () => ({
    body: { salaryMin: 1000, salaryMax: 1500, hiringPlanMinAtLeast: 2 },
    match: (p) => within(p.salaryMin, 1000, 1500) && within(p.hiringPlanMin, 2),
    sort: jobSorts.salaryAsc,
  }),
  'presence and flags on postings: hasContactEmail false, hasContactPhone true, hasDispatchLicense true':
    () => ({
      body: { hasContactEmail: false, hasContactPhone: true, hasDispatchLicense: true },
      match: (p) =>
        !present(p.contactEmail) &&
        present(p.contactPhoneNumber) &&
        postingLicense(p, p.company, 'hasDispatchLicense') === true,
    }),
  'flag false on postings: hasRecruitmentLicense false (unknown too)': () => ({
    body: { hasRecruitmentLicense: false, mediaIdOr: [17, 24, 5] },
    match: (p) =>
      postingLicense(p, p.company, 'hasRecruitmentLicense') !== true && oneOf(p.mediaId, [17, 24, 5]),
  }),
  'dates: jobCreatedAtFrom/To + jobOpenedOnTo + jobDeadlineOnFrom': () => ({
    body: {
      jobCreatedAtFrom: '2026-01-01',
      jobCreatedAtTo: '2026-03-15',
      jobOpenedOnTo: '2026-03-01',
      jobDeadlineOnFrom: '2026-02-01',
    },
    match: (p) =>
      daysWithin(p.jobCreatedAt, '2026-01-01', '2026-03-15') &&
      daysWithin(p.jobOpenedOn, undefined, '2026-03-01') &&
      daysWithin(p.jobDeadlineOn, '2026-02-01'),
  }),
  'ad plan and linked company: adPlanOr + corporatePrefectureIdOr + corporateEmployeeCountMin': () => ({
    body: {
      adPlanOr: ['ライト', 'スタンダード'],
      corporatePrefectureIdOr: [13, 34],
      corporateEmployeeCountMin: 50,
    },
    match: (p) =>
      oneOf(p.adPlan, ['ライト', 'スタンダード']) &&
      oneOf(p.company.prefectureId, [13, 34]) &&
      within(p.company.employeeCount, 50),
    sort: jobSorts.employeesDesc,
  }),
  'linked company, nested company keys: filters.prefectureId.none + filters.isListed false + corporateHasFax':
    () => ({
      body: { filters: { prefectureId: { none: [13] }, isListed: false }, corporateHasFax: true },
      match: linked((c) => c.prefectureId !== 13 && marketsOf(c).length === 0 && present(c.fax)),
    }),
  'linked company attributes: corporateCorporateTypeOr, corporateRevenueRangeNot, corporateCapitalMillionYenMax':
    () => ({
      body: {
        corporateCorporateTypeOr: ['kabushiki_gaisha'],
        corporateRevenueRangeNot: ['under_100m'],
        corporateCapitalMillionYenMax: 1000,
      },
      match: linked(
        (c) =>
          c.corporateType === 'kabushiki_gaisha' &&
          c.revenueRange !== 'under_100m' &&
          within(c.capitalMillionYen, undefined, 1000),
      ),
    }),
  'linked company headcount change and texts: corporateEmployeeDiff12mMin, corporateCityNamePartialMatchOr':
    () => ({
      body: {
        corporateEmployeeDiff12mMin: 0,
        corporateCityNamePartialMatchOr: ['区'],
        corporateEmployeeTransitionPartialMatchNot: ['減少'],
      },
      match: linked(
        (c) =>
          within(c.employeeDiff12m, 0) &&
          contains(c.cityName, '区') &&
          !contains(c.employeeTransition, '減少'),
      ),
    }),
  'linked company: fundingSeriesNot (flat alias), corporatePaidMediaSpendOr, corporateHasCorporateWebsite false':
    () => ({
      body: {
        fundingSeriesNot: ['series_a'],
        corporatePaidMediaSpendOr: ['none', 'from_0_to_1m'],
        corporateHasCorporateWebsite: false,
      },
      match: linked(
        (c) =>
          c.fundingSeries !== 'series_a' &&
          oneOf(c.paidMediaSpend, ['none', 'from_0_to_1m']) &&
          !present(c.websiteUrl),
      ),
    }),
  'detail text in the window: jobDescriptionPartialMatchOr + Not': () => ({
    body: { jobDescriptionPartialMatchOr: ['リモート', '駅チカ'], jobDescriptionPartialMatchNot: ['夜勤'] },
    match: (p) =>
      (contains(p.seenDescription, 'リモート') || contains(p.seenDescription, '駅チカ')) &&
      !contains(p.seenDescription, '夜勤'),
  }),
  'detail text And: jobDescriptionPartialMatchAnd': () => ({
    body: { jobDescriptionPartialMatchAnd: ['研修', '昇給'] },
    match: (p) => contains(p.seenDescription, '研修') && contains(p.seenDescription, '昇給'),
  }),
  "company summary: summaryPartialMatchOr on the posting's company": () => ({
    body: { summaryPartialMatchOr: ['介護', '美容'] },
    match: linked((c) => contains(c.summary, '介護') || contains(c.summary, '美容')),
  }),
  'filterGroups on postings': () => ({
    body: {
      filterGroups: [
        { mediaId: { any: [9] } },
        { employmentTypeId: { any: [1] }, prefectureId: { any: [13] } },
      ],
    },
    match: (p) => p.mediaId === 9 || (p.employmentTypeId === 1 && p.company.prefectureId === 13),
  }),
  'includeClosed: the postings of closed companies come back': () => ({
    body: { includeClosed: true, corporatePrefectureIdOr: [13, 34, 27, 14] },
    match: (p) => oneOf(p.company.prefectureId, [13, 34, 27, 14]),
  }),
  'corporateNumberOr: the postings of a closed company stay out': (d) => {
    const open = d.companies.find((c) => !c.closed && c.postings.length > 2) as Company;
    const numbers = [...d.closed, open.corporateNumber];
    return {
      body: { corporateNumberOr: numbers },
      match: (p) => numbers.includes(String(p.corporateNumber)),
    };
  },
  // A closure changes no field of the Job record (the company copy is not part of it), so
  // the postings of closed companies keep the updatedAt of their indexing.
  'updatedAtTo an instant: a closure changes no Job record': (d) => ({
    body: { updatedAtTo: d.beforeRegistry, includeClosed: true, mediaIdOr: [8, 1] },
    match: (p) => oneOf(p.mediaId, [8, 1]),
  }),
  'work locations of the linked company: filters.corporateWorkLocationCount.max 0': () => ({
    body: { filters: { corporateWorkLocationCount: { max: 0 } } },
    match: (p) => !p.company.postings.some(onSite),
  }),
};

// ---------------------------------------------------------------------------------------
// the checks

const includesClosed = (body: Raw) => JSON.stringify(body).includes('"includeClosed":true');

interface Expectation {
  ids: string[];
  records: Raw[];
}

function expectedCompanies(test: CompanyCase): Expectation {
  const sort = test.sort ?? companySorts.name;
  const found = data.companies.filter((c) => (includesClosed(test.body) || !c.closed) && test.match(c));
  const records = sortRecords(found, sort.value, sort.order, (c) => c.corporateNumber);
  return { ids: records.map((c) => c.corporateNumber), records };
}

function expectedJobs(test: JobCase): Expectation {
  const sort = test.sort ?? jobSorts.createdDesc;
  const found = data.postings.filter(
    (p) => (includesClosed(test.body) || !p.company.closed) && test.match(p),
  );
  const records = sortRecords(found, sort.value, sort.order, (p) => p.id);
  return { ids: records.map((p) => p.id), records };
}

/** Every page of the search, in order; the total on each page; the facets of the first. */
async function searchAll(route: string, body: Raw, limit: number, facets: string[]) {
  const ids: string[] = [];
  const totals: number[] = [];
  let facetsOut: Record<string, Array<{ value: unknown; count: number }>> = {};
  for (let offset = 0; ; offset += limit) {
    const res = await post(route, { ...body, limit, offset, ...(offset === 0 ? { facets } : {}) });
    const json = (await res.json()) as Raw;
    expect(res.status, JSON.stringify({ body, json })).toBe(200);
    if (offset === 0) facetsOut = json.facets as typeof facetsOut;
    totals.push(json.totalResults as number);
    const page = json.results as Raw[];
    ids.push(...page.map((record) => String(route.startsWith('/jobs') ? record.id : record.corporateNumber)));
    if (page.length < limit) break;
  }
  return { ids, totals, facets: facetsOut };
}

async function checkCount(route: string, body: Raw, n: number) {
  const res = await post(route, body);
  expect(res.status).toBe(200);
  expect(await res.json()).toEqual({ totalResults: n, exportCredits: Math.ceil(n / 1000) });
}

function checkFacets(
  actual: Record<string, Array<{ value: unknown; count: number }>>,
  expected: Record<string, Map<string, number>>,
) {
  for (const [name, counts] of Object.entries(expected)) {
    const buckets = actual[name] ?? [];
    const got = new Map(buckets.map((bucket) => [String(bucket.value), bucket.count]));
    expect(Object.fromEntries(got), `facet ${name}`).toEqual(Object.fromEntries(counts));
    const order = buckets.map((bucket) => bucket.count);
    expect(order, `facet ${name}: largest first`).toEqual([...order].sort((a, b) => b - a));
  }
}

async function exportOf(
  route: string,
  body: Raw,
  format: 'csv' | 'jsonl',
  fields: string[],
): Promise<string> {
  const res = await post(route, { ...body, format, fields });
  expect(res.status).toBe(200);
  return res.text();
}

async function checkExports(
  route: string,
  body: Raw,
  expected: Expectation,
  columns: Record<string, (r: Raw) => unknown>,
) {
  const fields = Object.keys(columns);
  const csv = parseCsv((await exportOf(route, body, 'csv', fields)).replace(/^\ufeff/, ''));
  expect(csv[0]).toEqual(fields);
  expect(csv.slice(1)).toEqual(
    expected.records.map((record) =>
      fields.map((field) => csvText((columns[field] as (r: Raw) => unknown)(record))),
    ),
  );
  const jsonl = (await exportOf(route, body, 'jsonl', fields))
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Raw);
  expect(jsonl).toEqual(
    expected.records.map((record) =>
      Object.fromEntries(
        fields.map((field) => [field, (columns[field] as (r: Raw) => unknown)(record) ?? null]),
      ),
    ),
  );
}

/** A case must say something: some records match, and not all of them. */
function expectInformative(n: number, of: number) {
  expect(n, 'the oracle finds some records').toBeGreaterThan(0);
  expect(n, 'the oracle does not find every record').toBeLessThan(of);
}

const companyColumns = {
  corporateNumber: (c: Raw) => c.corporateNumber,
  name: (c: Raw) => c.name,
  employeeCount: (c: Raw) => c.employeeCount,
  capitalMillionYen: (c: Raw) => c.capitalMillionYen,
};
const jobColumns = {
  id: (p: Raw) => p.id,
  corporateNumber: (p: Raw) => p.corporateNumber,
  title: (p: Raw) => p.title,
  salaryMin: (p: Raw) => p.salaryMin,
};

// five cases at a time (vitest's maxConcurrency): each is a dozen requests, mostly waiting
describe.concurrent('company search against the plain evaluation', () => {
  it.each(Object.keys(companyCases))('%s', async (name) => {
    const test = (companyCases[name] as (d: Data) => CompanyCase)(data);
    const sort = test.sort ?? companySorts.name;
    const body = { ...test.body, sort: { field: sort.field, order: sort.order } };
    const expected = expectedCompanies(test);
    expectInformative(expected.ids.length, data.companies.length);

    const found = await searchAll('/corporates/search', body, 40, [
      'prefectureId',
      'marketCode',
      'jobMediaId',
      'jobEmploymentTypeId',
    ]);
    expect(
      found.totals.every((total) => total === expected.ids.length),
      `totals ${found.totals}`,
    ).toBe(true);
    expect(found.ids).toEqual(expected.ids);
    await checkCount('/corporates/count', body, expected.ids.length);

    const results = expected.records as Company[];
    const counted = (c: Company) => c.postings.filter(test.posting ?? (() => true));
    checkFacets(found.facets, {
      prefectureId: countBy(results, (c) => [c.prefectureId]),
      marketCode: countBy(results, (c) => marketsOf(c)),
      jobMediaId: countBy(results, (c) => counted(c).map((p) => p.mediaId)),
      jobEmploymentTypeId: countBy(results, (c) => counted(c).map((p) => p.employmentTypeId)),
    });
    await checkExports('/corporates/export', body, expected, companyColumns);
  });
});

describe.concurrent('job search against the plain evaluation', () => {
  it.each(Object.keys(jobCases))('%s', async (name) => {
    const test = (jobCases[name] as (d: Data) => JobCase)(data);
    const sort = test.sort ?? jobSorts.createdDesc;
    const body = { ...test.body, sort: { field: sort.field, order: sort.order } };
    const expected = expectedJobs(test);
    expectInformative(expected.ids.length, data.postings.length);

    const found = await searchAll('/jobs/search', body, 250, [
      'mediaId',
      'employmentTypeId',
      'corporatePrefectureId',
    ]);
    expect(
      found.totals.every((total) => total === expected.ids.length),
      `totals ${found.totals}`,
    ).toBe(true);
    expect(found.ids).toEqual(expected.ids);
    await checkCount('/jobs/count', body, expected.ids.length);

    const results = expected.records as Posting[];
    checkFacets(found.facets, {
      mediaId: countBy(results, (p) => [p.mediaId]),
      employmentTypeId: countBy(results, (p) => [p.employmentTypeId]),
      corporatePrefectureId: countBy(results, (p) => [p.company.prefectureId]),
    });
    await checkExports('/jobs/export', body, expected, jobColumns);
  });
});

// ---------------------------------------------------------------------------------------
// the table against the catalogue: every filter is exercised (the catalogue only names them)

/** The filter keys a body names: flat names, nested keys, group keys. */
function filterKeysOf(search: SearchCatalogue, body: Raw): Set<string> {
  const keys = new Set<string>();
  const byFlat = new Map(
    search.filters.flatMap((def) => Object.keys(def.flat).map((flat) => [flat, def.key])),
  );
  const byNested = new Map(search.filters.flatMap((def) => def.nested.map((nested) => [nested, def.key])));
  for (const name of Object.keys(body)) if (byFlat.has(name)) keys.add(byFlat.get(name) as string);
  const nestedObjects = [body.filters, ...((body.filterGroups as Raw[] | undefined) ?? [])];
  for (const nested of nestedObjects)
    for (const name of Object.keys((nested as Raw | undefined) ?? {}))
      if (byNested.has(name)) keys.add(byNested.get(name) as string);
  return keys;
}

describe('the case table', () => {
  it('names every company-search filter, and every kind of job-search filter', () => {
    const used = (search: SearchCatalogue, bodies: Raw[]) =>
      new Set(bodies.flatMap((body) => [...filterKeysOf(search, body)]));
    const companyUsed = used(
      corporateSearch,
      Object.values(companyCases).map((make) => make(data).body),
    );
    expect(corporateSearch.filters.map((def) => def.key).filter((key) => !companyUsed.has(key))).toEqual([]);
    const jobUsed = used(
      jobSearch,
      Object.values(jobCases).map((make) => make(data).body),
    );
    const kindsUsed = new Set(
      jobSearch.filters.filter((def) => jobUsed.has(def.key)).map((def) => `${def.scope} ${def.kind}`),
    );
    const kinds = new Set(jobSearch.filters.map((def) => `${def.scope} ${def.kind}`));
    expect([...kinds].filter((kind) => !kindsUsed.has(kind))).toEqual([]);
    // the job's own filters, every one
    expect(
      jobSearch.filters.filter((def) => def.scope === 'job' && !jobUsed.has(def.key)).map((def) => def.key),
    ).toEqual([]);
  });

  it('the setup holds: the registry closed three companies and changed nothing else they own', async () => {
    expect(data.closed).toHaveLength(3);
    const res = await post('/corporates/search', {
      corporateNumberOr: data.closed,
      includeClosed: true,
      limit: 10,
    });
    const records = ((await res.json()) as { results: Raw[] }).results;
    for (const record of records) {
      const raw = data.companies.find((c) => c.corporateNumber === record.corporateNumber) as Company;
      expect(record.closed).toBe(true);
      for (const field of ['name', 'furigana', 'prefectureId', 'cityName', 'streetAddress', 'corporateType'])
        expect(record[field], field).toEqual(raw[field]);
    }
    expect(records).toHaveLength(3);
  });

  it('the reading rule has every legal-form reading of the data (none left after dropping them)', () => {
    for (const company of data.companies)
      if (typeof company.furigana === 'string')
        expect(readingAsKey(company.furigana), company.furigana).not.toMatch(/ほうじん|がいしや|かいしや/);
  });
});
