/**
 * The invoice-register import (indexer/invoice/) on the fixtures in the published format
 * (test/fixtures/invoice/, written by build-fixtures.ts), over the registry fixtures' companies:
 * the row checks alone, then through the real engine: the full file gives each company its
 * registration (the record's `invoice`, with `registered` as of today), the filters find them
 * by status on a day, by dates and by how they ended, a diff ends, adds and removes
 * registrations while an older row is refused, a second load writes nothing, the Shift_JIS file
 * gives the same registrations, a stopped run resumes, and the other feeds' writes leave the
 * registration as it was.
 */

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryDeadLetter } from '../../indexer/dead-letter.js';
import { indexNames } from '../../indexer/index-names.js';
import { toInvoiceChange, validateInvoiceRow } from '../../indexer/invoice/format.js';
import {
  emptyInvoiceSummary,
  type InvoiceSummary,
  importInvoiceFiles,
} from '../../indexer/invoice/import.js';
import { planWrite } from '../../indexer/invoice/write.js';
import { IngestPipeline } from '../../indexer/pipeline.js';
import { rebuildCompanies } from '../../indexer/rebuild.js';
import { InjectedStop } from '../../indexer/registry/checkpointed-import.js';
import { importRegistryFiles } from '../../indexer/registry/import.js';
import { dropIndices } from '../../src/opensearch/indices.js';
import { invoiceRecordOf } from '../../src/search/records.js';
import { searchCorporates } from '../../src/search/run-search.js';
import type { Services } from '../../src/services.js';
import { parseCsv } from '../../src/text/csv.js';
import { japanDay } from '../../src/text/japan-day.js';
import { corporate, job } from '../fixtures/indexer/records.js';
import { unknownCompany } from '../fixtures/invoice/build-fixtures.js';
import { companies } from '../fixtures/registry/build-fixtures.js';
import { runCommand } from '../support/child-runs.js';
import { setUpServices, uniquePrefix } from '../support/env.js';

const fixtures = path.join(import.meta.dirname, '..', 'fixtures', 'invoice');
const fullUtf8 = path.join(fixtures, 'invoice_all_20261031_utf8.csv');
const fullSjis = path.join(fixtures, 'invoice_all_20261031_sjis.csv');
const diff = path.join(fixtures, 'invoice_diff_20261102_utf8.csv');
const registryFull = path.join(import.meta.dirname, '..', 'fixtures', 'registry', 'full_20261031_utf8.csv');

type Doc = Record<string, unknown>;
const clock = () => new Date('2026-11-03T01:00:00.000Z');
const summary = (counts: Partial<InvoiceSummary>): InvoiceSummary => ({
  ...emptyInvoiceSummary(),
  ...counts,
});

const stateDirs: string[] = [];
function stateDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'invoice-state-'));
  stateDirs.push(dir);
  return dir;
}

async function loadRegister(services: Services): Promise<void> {
  await importRegistryFiles([registryFull], {
    client: services.opensearch,
    indexPrefix: services.config.indexPrefix,
    deadLetter: new MemoryDeadLetter(),
    stateDir: stateDir(),
    now: clock,
  });
}

async function loadInvoices(services: Services, files: string[], options: Doc = {}) {
  const deadLetter = new MemoryDeadLetter();
  const result = await importInvoiceFiles(files, {
    client: services.opensearch,
    indexPrefix: services.config.indexPrefix,
    deadLetter,
    stateDir: stateDir(),
    now: clock,
    batchSize: 3,
    ...options,
  });
  await services.opensearch.indices.refresh({ index: indexNames(services.config.indexPrefix).corporates });
  return { ...result, deadLetter };
}

/** Every company's record `invoice`, through the company search (the spliced record copies). */
async function invoices(services: Services): Promise<Map<string, Doc | null>> {
  const { results } = await searchCorporates(services, { limit: 100, includeClosed: true });
  return new Map(results.map((record) => [String(record.corporateNumber), record.invoice as Doc | null]));
}

async function find(services: Services, body: Doc): Promise<string[]> {
  const { results } = await searchCorporates(services, { limit: 100, includeClosed: true, ...body });
  return results.map((record) => String(record.corporateNumber)).sort();
}

describe('row checks', () => {
  const published = () => [...(parseCsv(readFileSync(fullUtf8, 'utf8'))[0]?.fields ?? [])];

  it('a published row is valid; each broken column is named, all at once', () => {
    expect(validateInvoiceRow(published()).ok).toBe(true);
    const broken = published();
    broken[1] = 'T9010401000012'; // check digit of a legal person's number
    broken[2] = '05';
    broken[4] = '3';
    broken[6] = '2';
    broken[7] = '2023-02-30';
    broken[10] = 'soon';
    const check = validateInvoiceRow(broken);
    expect(check.ok ? [] : check.reasons.map((reason) => reason.split(':')[0])).toEqual([
      'registratedNumber',
      'process',
      'kind',
      'latest',
      'registrationDate',
      'expireDate',
    ]);
    expect(validateInvoiceRow(published().slice(0, 23))).toEqual({
      ok: false,
      reasons: ['row has 23 columns, expected 24'],
    });
  });

  it('what a row does: the end is the earlier of cancellation and expiry; persons and history are skipped', () => {
    const change = (edit: (fields: string[]) => void) => {
      const fields = published();
      edit(fields);
      const check = validateInvoiceRow(fields);
      if (!check.ok) throw new Error(check.reasons.join('; '));
      return toInvoiceChange(check.row);
    };
    expect(change(() => {})).toMatchObject({
      action: 'set',
      invoice: {
        registrationNumber: 'T9010401000011',
        registeredOn: '2023-10-01',
        endedOn: null,
        endReason: null,
      },
    });
    const both = change((fields) => {
      fields[9] = '2025-05-01';
      fields[10] = '2025-04-01';
    });
    expect(both).toMatchObject({ invoice: { endedOn: '2025-04-01', endReason: 'expired' } });
    const cancelledFirst = change((fields) => {
      fields[9] = '2025-03-01';
      fields[10] = '2025-04-01';
    });
    expect(cancelledFirst).toMatchObject({ invoice: { endedOn: '2025-03-01', endReason: 'cancelled' } });
    expect(
      change((fields) => {
        fields[4] = '1';
      }),
    ).toEqual({ action: 'skip', why: 'person' });
    expect(
      change((fields) => {
        fields[6] = '0';
      }),
    ).toEqual({ action: 'skip', why: 'history' });
    expect(
      change((fields) => {
        fields[2] = '99';
      }),
    ).toEqual({
      action: 'remove',
      corporateNumber: '9010401000011',
      updatedOn: '2023-09-25',
    });
  });

  it('registered on a day: from its first day, not on the day it ended', () => {
    const stored = {
      registrationNumber: 'T1',
      registeredOn: '2024-04-01',
      endedOn: '2025-06-30',
      endReason: 'cancelled',
      updatedOn: '2025-06-30',
    };
    expect(invoiceRecordOf(stored, '2024-03-31')?.registered).toBe(false);
    expect(invoiceRecordOf(stored, '2024-04-01')?.registered).toBe(true);
    expect(invoiceRecordOf(stored, '2025-06-29')?.registered).toBe(true);
    expect(invoiceRecordOf(stored, '2025-06-30')?.registered).toBe(false);
    expect(invoiceRecordOf({ ...stored, endedOn: null }, '2099-01-01')?.registered).toBe(true);
    expect(invoiceRecordOf(null, '2025-01-01')).toBeNull();
  });

  it('a row older than the one applied is refused, a removal included; none for a company not held', () => {
    const invoice = {
      registrationNumber: 'T1',
      registeredOn: '2023-10-01',
      endedOn: null,
      endReason: null,
      updatedOn: '2024-01-01',
    } as const;
    const held = { postings: false, invoice, updatedOn: '2024-01-01', seqNo: 1, primaryTerm: 1 };
    const set = { action: 'set', corporateNumber: '1', invoice, updatedOn: '2024-01-01' } as const;
    expect(planWrite(set, undefined).outcome).toBe('noCompany');
    expect(planWrite(set, held).outcome).toBe('unchanged');
    expect(planWrite({ ...set, updatedOn: '2023-12-31' }, held).outcome).toBe('older');
    const removed = { postings: false, invoice: null, updatedOn: '2024-02-01', seqNo: 2, primaryTerm: 1 };
    expect(planWrite(set, removed).outcome).toBe('older');
    expect(planWrite({ action: 'remove', corporateNumber: '1', updatedOn: '2024-03-01' }, removed)).toEqual({
      outcome: 'unchanged',
      doc: { invoiceUpdatedOn: '2024-03-01' },
    });
    // a removal of what a company never had is still noted: an older row cannot set it after
    const never = { postings: false, invoice: null, updatedOn: null, seqNo: 1, primaryTerm: 1 };
    expect(planWrite({ action: 'remove', corporateNumber: '1', updatedOn: '2024-03-01' }, never)).toEqual({
      outcome: 'unchanged',
      doc: { invoiceUpdatedOn: '2024-03-01' },
    });
    expect(planWrite({ action: 'remove', corporateNumber: '1', updatedOn: '2024-02-01' }, removed)).toEqual({
      outcome: 'unchanged',
    });
  });

  it('an expiry or a cancellation without its day is refused', () => {
    const fields = [...(parseCsv(readFileSync(fullUtf8, 'utf8'))[0]?.fields ?? [])];
    fields[2] = '04';
    expect(validateInvoiceRow(fields)).toEqual({
      ok: false,
      reasons: ['disposalDate: a cancellation (04) needs its date'],
    });
    fields[2] = '03';
    expect(validateInvoiceRow(fields)).toEqual({
      ok: false,
      reasons: ['expireDate: an expiry (03) needs its date'],
    });
  });
});

// its tests follow one index set from load to load, in order
describe('through the engine', { shuffle: false }, () => {
  let services: Services;
  let sjis: Services;
  let first: Awaited<ReturnType<typeof loadInvoices>>;
  let afterFull: Map<string, Doc | null>;
  const phone = '03-1111-2222';

  beforeAll(async () => {
    [services, sjis] = await Promise.all([setUpServices('invoice'), setUpServices('invoice-sjis')]);
    await Promise.all([loadRegister(services), loadRegister(sjis)]);
    first = await loadInvoices(services, [fullUtf8]);
    afterFull = await invoices(services);
  }, 120_000);

  afterAll(async () => {
    await Promise.all([services?.close(), sjis?.close()]);
    for (const dir of stateDirs) rmSync(dir, { recursive: true, force: true });
  });

  it('the full file: each kind of row counted, the broken one dead-lettered with its reasons', () => {
    expect(first.total).toEqual(
      summary({ read: 12, set: 8, superseded: 1, persons: 1, noCompany: 1, rejected: 1 }),
    );
    expect(first.deadLetter.entries.map((entry) => [entry.source, entry.type, entry.key])).toEqual([
      ['invoice_all_20261031_utf8.csv:9', 'invoice', null],
    ]);
    expect(first.deadLetter.entries[0]?.reason).toMatch(
      /registratedNumber: .*; process: 05 .*; registrationDate: /,
    );
    expect(afterFull.has(unknownCompany)).toBe(false);
  });

  it("each company's record carries its registration, registered as of today; none where the register has no row", () => {
    const today = japanDay(new Date());
    expect(today < '2099-01-01').toBe(true);
    expect(afterFull.get(companies.abcBefore)).toEqual({
      registrationNumber: `T${companies.abcBefore}`,
      registered: true,
      registeredOn: '2023-10-01',
      endedOn: null,
      endReason: null,
      updatedOn: '2023-09-25',
    });
    expect(afterFull.get(companies.abcAfter)).toMatchObject({
      registered: false,
      registeredOn: '2024-04-01',
      endedOn: '2025-06-30',
      endReason: 'cancelled',
    });
    expect(afterFull.get(companies.takahashi)).toMatchObject({
      registered: true,
      endedOn: '2099-12-31',
      endReason: 'expired',
    });
    expect(afterFull.get(companies.yoshida)).toMatchObject({
      registered: false,
      endReason: 'expired',
      endedOn: '2025-03-31',
    });
    expect(afterFull.get(companies.midoriHokkaido)).toMatchObject({
      registered: false,
      registeredOn: '2099-04-01',
    });
    expect(afterFull.get(companies.midoriFukuoka)).toBeNull();
    expect(afterFull.get(companies.gomei)).toBeNull();
  });

  it('the filters: registered today or on a day, dates, how it ended, a row at all; the sorts', async () => {
    const registeredNow = [
      companies.abcBefore,
      companies.takahashi,
      companies.renamed,
      companies.quoted,
      companies.foreign,
    ].sort();
    expect(await find(services, { invoiceRegistered: true })).toEqual(registeredNow);
    const all = await find(services, {});
    expect(await find(services, { invoiceRegistered: false })).toEqual(
      all.filter((n) => !registeredNow.includes(n)),
    );
    expect(await find(services, { invoiceRegisteredOn: '2024-04-01' })).toEqual(
      [
        companies.abcBefore,
        companies.abcAfter,
        companies.takahashi,
        companies.yoshida,
        companies.renamed,
        companies.quoted,
        companies.foreign,
      ].sort(),
    );
    // the last day counts, the day it ended does not; a registration from a day to come
    expect(
      await find(services, { invoiceRegisteredOn: '2025-06-29', invoiceEndReasonOr: ['cancelled'] }),
    ).toEqual([companies.abcAfter]);
    expect(
      await find(services, { invoiceRegisteredOn: '2025-06-30', invoiceEndReasonOr: ['cancelled'] }),
    ).toEqual([]);
    expect(await find(services, { invoiceRegisteredOn: '2099-04-01', prefectureIdOr: [1] })).toEqual([
      companies.midoriHokkaido,
    ]);
    expect(
      await find(services, {
        invoiceRegistrationDateFrom: '2024-01-01',
        invoiceRegistrationDateTo: '2024-04-01',
      }),
    ).toEqual([companies.abcAfter, companies.quoted].sort());
    expect(
      await find(services, { invoiceEndedOnFrom: '2025-01-01', invoiceEndedOnTo: '2025-12-31' }),
    ).toEqual([companies.abcAfter, companies.yoshida].sort());
    expect(await find(services, { invoiceEndReasonNot: ['expired'], hasInvoiceRecord: true })).toEqual(
      [
        companies.abcBefore,
        companies.abcAfter,
        companies.midoriHokkaido,
        companies.renamed,
        companies.quoted,
        companies.foreign,
      ].sort(),
    );
    expect((await find(services, { hasInvoiceRecord: false })).length).toBe(all.length - 8);
    const { results } = await searchCorporates(services, {
      hasInvoiceRecord: true,
      sort: { field: 'invoiceRegistrationDate', order: 'desc' },
      limit: 2,
      includeClosed: true,
    });
    expect(results.map((record) => record.corporateNumber)).toEqual([
      companies.midoriHokkaido,
      companies.abcAfter,
    ]);
  });

  it('the Shift_JIS file gives the same registrations', async () => {
    const loaded = await loadInvoices(sjis, [fullSjis]);
    expect(loaded.files[0]?.encoding).toBe('sjis');
    expect(loaded.total).toEqual(first.total);
    expect(await invoices(sjis)).toEqual(afterFull);
  });

  it('a diff: an expiry, a new registration, a removal applied, an older row refused; an older full file changes nothing after', async () => {
    const applied = await loadInvoices(services, [diff]);
    expect(applied.total).toEqual(summary({ read: 4, set: 2, removed: 1, older: 1 }));
    const after = await invoices(services);
    expect(after.get(companies.abcBefore)).toMatchObject({
      registered: false,
      endedOn: '2026-11-01',
      endReason: 'expired',
      updatedOn: '2026-11-02',
    });
    expect(after.get(companies.midoriFukuoka)).toMatchObject({
      registered: true,
      registeredOn: '2026-11-02',
    });
    expect(after.get(companies.yoshida)).toBeNull();
    expect(after.get(companies.takahashi)).toEqual(afterFull.get(companies.takahashi));
    const again = await loadInvoices(services, [fullUtf8]);
    expect(again.total).toEqual(
      summary({ read: 12, older: 2, unchanged: 6, superseded: 1, persons: 1, noCompany: 1, rejected: 1 }),
    );
    expect(await invoices(services)).toEqual(after);
  });

  it('a run stopped part-way resumes after its last committed batch and ends the same', async () => {
    const other = await setUpServices('invoice-resume');
    try {
      await loadRegister(other);
      const dir = stateDir();
      await expect(
        loadInvoices(other, [fullUtf8], { stateDir: dir, stopAtRecord: 8 }),
      ).rejects.toBeInstanceOf(InjectedStop);
      const resumed = await loadInvoices(other, [fullUtf8], { stateDir: dir });
      expect(resumed.files[0]?.resumedAfter).toBe(6);
      expect(resumed.total).toEqual(first.total);
      expect(await invoices(other)).toEqual(afterFull);
      const skipped = await loadInvoices(other, [fullUtf8], { stateDir: dir });
      expect(skipped.files[0]?.alreadyLoaded).toBe(true);
    } finally {
      await other.close();
    }
  });

  it("the postings feed's and the register's writes leave the registration as it was", async () => {
    const pipeline = new IngestPipeline({
      client: services.opensearch,
      indexPrefix: services.config.indexPrefix,
      deadLetter: new MemoryDeadLetter(),
    });
    await pipeline.add(
      corporate({ corporateNumber: companies.renamed, name: '株式会社旧名商店', phoneNumber: phone }),
    );
    await pipeline.flush();
    // the register renames the company (a newer row: the registry writes it)
    const registryRow = parseCsv(readFileSync(registryFull, 'utf8')).find(
      (record) => record.fields[1] === companies.renamed,
    )?.fields as string[];
    const renamedRow = registryRow.map((field, i) =>
      i === 4 ? '2026-11-05' : i === 6 ? '株式会社新しい名前' : field,
    );
    const file = path.join(stateDir(), 'rename_utf8.csv');
    writeFileSync(file, `${renamedRow.map((field) => `"${field}"`).join(',')}\r\n`);
    const renamed = await importRegistryFiles([file], {
      client: services.opensearch,
      indexPrefix: services.config.indexPrefix,
      deadLetter: new MemoryDeadLetter(),
      stateDir: stateDir(),
      now: clock,
    });
    expect(renamed.total).toMatchObject({ upserted: 1 });
    await services.opensearch.indices.refresh({ index: indexNames(services.config.indexPrefix).corporates });
    const [record] = (await searchCorporates(services, { corporateNumberOr: [companies.renamed] })).results;
    expect(record).toMatchObject({
      name: '株式会社新しい名前',
      phoneNumber: phone,
      invoice: afterFull.get(companies.renamed),
    });
  });

  it("a company with postings keeps its postings' detail text after its registration is written", async () => {
    const other = await setUpServices('invoice-postings');
    try {
      await loadRegister(other);
      const pipeline = new IngestPipeline({
        client: other.opensearch,
        indexPrefix: other.config.indexPrefix,
        deadLetter: new MemoryDeadLetter(),
      });
      const collected = new Date(Date.now() - 2 * 86_400_000).toISOString();
      await pipeline.add(
        job({
          corporateNumber: companies.abcBefore,
          description: '倉庫の棚卸しと検品',
          descriptionCollectedAt: collected,
        }),
      );
      await pipeline.flush();
      await rebuildCompanies(other.opensearch, other.config.indexPrefix, pipeline.touched, {});
      await other.opensearch.indices.refresh({ index: indexNames(other.config.indexPrefix).corporates });
      const byText = { jobDescriptionPartialMatchOr: ['棚卸し'] };
      expect(await find(other, byText)).toEqual([companies.abcBefore]);
      await loadInvoices(other, [fullUtf8]);
      expect(await find(other, byText)).toEqual([companies.abcBefore]);
      expect(await find(other, { ...byText, invoiceRegistered: true })).toEqual([companies.abcBefore]);
    } finally {
      await other.close();
    }
  });

  it('npm run import:invoices: the summary, exit 2 for the rejected row', async () => {
    const dir = stateDir();
    const prefix = uniquePrefix('invoice-cli');
    const run = runCommand(
      'indexer/bin/import-invoices.ts',
      ['--state-dir', dir, '--dead-letter', path.join(dir, 'dead.ndjson'), fullUtf8],
      { opensearchUrl: services.config.opensearchUrl, indexPrefix: prefix },
    );
    expect(run.status, run.stderr).toBe(2);
    // an empty index: every legal person's company is missing
    expect(run.stdout).toContain(
      'read 12, set 0, removed 0, unchanged 0, older 0, no company 9, persons 1, rejected 1',
    );
    expect(readFileSync(path.join(dir, 'dead.ndjson'), 'utf8').trim().split('\n')).toHaveLength(1);
    await dropIndices(services.opensearch, prefix);
  });
});
