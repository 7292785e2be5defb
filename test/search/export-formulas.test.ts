/**
 * CSV exports neutralise formula cells (OWASP "CSV Injection"): through the real app on a real
 * port and the real engine, on a generated sample whose fixed hard cases hold company names
 * starting with = + - @, a tab, a carriage return and a full-width ＝
 * (sample-data/hard-cases.ts). Every such text cell is written with a leading ', in UTF-8
 * and in Shift_JIS; every other cell is untouched, negative numbers included; JSONL is the data
 * as it is.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import iconv from 'iconv-lite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileDeadLetter } from '../../indexer/dead-letter.js';
import { ingestFiles } from '../../indexer/ingest.js';
import type { CorporateSource } from '../../indexer/source-types.js';
import { generateDataSet } from '../../sample-data/index.js';
import { createApiKey, keyStoreFor } from '../../src/auth/key-admin.js';
import { createApp } from '../../src/http/app.js';
import type { Services } from '../../src/services.js';
import { setUpServices } from '../support/env.js';

let services: Services;
let server: http.Server;
let base = '';
let users = 0;
let dir = '';
let companies: CorporateSource[] = [];

/**
 * What a spreadsheet runs as a formula when a cell starts with it: the OWASP list (= + - @,
 * tab, carriage return) and the full-width signs Apple Numbers folds to them. Written here,
 * apart from the generator's list and the library's.
 */
const formulaStarts = ['=', '+', '-', '@', '\t', '\r', '＝', '＋', '－', '＠'];
const neutralised = (text: string) =>
  formulaStarts.some((start) => text.startsWith(start)) ? `'${text}` : text;

/**
 * RFC 4180 as a spreadsheet reads it: a quoted field may hold anything, "" is a quote; outside
 * quotes CR LF, a bare CR and a bare LF each end a row (so a line break written bare shows).
 */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i] as string;
    if (quoted) {
      if (char === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (char === '"') quoted = false;
      else field += char;
    } else if (char === '"' && field === '') quoted = true;
    else if (char === ',') {
      row.push(field);
      field = '';
    } else if (char === '\r' || char === '\n') {
      if (char === '\r' && text[i + 1] === '\n') i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else field += char;
  }
  if (field !== '' || row.length > 0) rows.push([...row, field]);
  return rows;
}

/**
 * One export, by a user of its own: a user's export slot is released just after the last
 * byte, so a second export of the same user right after could meet the 2-at-once limit.
 */
async function exportCall(route: string, body: unknown) {
  const user = `sheets-${++users}`;
  const { key } = await createApiKey(keyStoreFor(services.redis, services.config.redisPrefix), {
    userId: user,
  });
  await services.limits.ledger.grant(user, 10_000);
  const res = await fetch(`${base}/rest/v1${route}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(200);
  return res;
}

beforeAll(async () => {
  services = await setUpServices('export-formulas');
  dir = mkdtempSync(path.join(tmpdir(), 'export-formulas-'));
  // 350 companies: the formula-name case is on every 50th, so each of its 7 starts once
  const files = await generateDataSet({
    companies: 350,
    // enough postings that some belong to the formula-named companies
    jobs: 3000,
    seed: 20261121,
    now: new Date('2026-11-21T00:00:00Z'),
    outDir: dir,
  });
  companies = readFileSync(files.corporates, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as CorporateSource);
  await ingestFiles([files.corporates, files.jobs], {
    client: services.opensearch,
    indexPrefix: services.config.indexPrefix,
    deadLetter: new FileDeadLetter(path.join(dir, 'dead-letter.ndjson')),
  });
  await services.opensearch.indices.refresh({ index: `${services.config.indexPrefix}*` });
  server = http.createServer(createApp(services)).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  await services?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the sample holds formula names', () => {
  it('a company name starting with each of = + - @, tab, CR and ＝', () => {
    for (const start of ['=', '+', '-', '@', '\t', '\r', '＝'])
      expect(
        companies.some((company) => company.name.startsWith(start)),
        JSON.stringify(start),
      ).toBe(true);
    expect(companies.some((company) => company.name.startsWith('=HYPERLINK("http://x","y")'))).toBe(true);
    expect(companies.some((company) => company.name.startsWith("-2+3+cmd|' /C calc'!A0"))).toBe(true);
  });
});

describe.each([
  { encoding: 'utf-8', decode: (bytes: Buffer) => bytes.toString('utf8').replace(/^\ufeff/, '') },
  { encoding: 'shift_jis', decode: (bytes: Buffer) => iconv.decode(bytes, 'cp932') },
] as const)('a CSV export in $encoding', ({ encoding, decode }) => {
  /** What a text comes back as through this encoding (a character CP932 lacks becomes ?). */
  const roundTrip = (text: string) =>
    encoding === 'shift_jis' ? iconv.decode(iconv.encode(text, 'cp932'), 'cp932') : text;

  it('writes every company name that starts as a formula with a leading quote, and no other', async () => {
    const res = await exportCall('/corporates/export', {
      encoding,
      fields: ['corporateNumber', 'name', 'employeeDiff12m'],
    });
    expect(res.status).toBe(200);
    const rows = parseCsv(decode(Buffer.from(await res.arrayBuffer())));
    expect(rows[0]).toEqual(['corporateNumber', 'name', 'employeeDiff12m']);
    // one row per company: a carriage return inside a name is quoted, never a row break
    expect(rows).toHaveLength(companies.length + 1);
    const byNumber = new Map(rows.slice(1).map((row) => [row[0], row]));
    let dangerous = 0;
    let negative = 0;
    for (const company of companies) {
      const row = byNumber.get(company.corporateNumber);
      expect(row, company.corporateNumber).toHaveLength(3);
      const name = roundTrip(company.name);
      expect(row?.[1], JSON.stringify(company.name)).toBe(neutralised(name));
      if (neutralised(name) !== name) dangerous++;
      // a number is a number: -3 is written -3, never '-3
      const diff = company.employeeDiff12m;
      expect(row?.[2]).toBe(diff === null || diff === undefined ? '' : String(diff));
      if (typeof diff === 'number' && diff < 0) negative++;
    }
    expect(dangerous).toBe(7);
    expect(negative).toBeGreaterThan(0);
    // a harmless name is untouched
    const plain = companies.find((company) => company.name.startsWith('株式会社')) as CorporateSource;
    expect(byNumber.get(plain.corporateNumber)?.[1]).toBe(roundTrip(plain.name));
  });

  it('neutralises a posting company name the same way', async () => {
    const res = await exportCall('/jobs/export', { encoding, fields: ['id', 'corporateName', 'title'] });
    expect(res.status).toBe(200);
    const rows = parseCsv(decode(Buffer.from(await res.arrayBuffer())));
    const json = await exportCall('/jobs/export', {
      format: 'jsonl',
      fields: ['id', 'corporateName', 'title'],
    });
    const records = (await json.text())
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { id: string; corporateName: string; title: string });
    expect(rows).toHaveLength(records.length + 1);
    const byId = new Map(rows.slice(1).map((row) => [row[0], row]));
    let dangerous = 0;
    for (const record of records) {
      const name = roundTrip(record.corporateName);
      expect(byId.get(record.id)?.[1]).toBe(neutralised(name));
      expect(byId.get(record.id)?.[2]).toBe(neutralised(roundTrip(record.title)));
      if (neutralised(name) !== name) dangerous++;
    }
    expect(dangerous).toBeGreaterThan(0);
  });
});

describe('a JSONL export', () => {
  it('is the data as it is: formula names unchanged', async () => {
    const res = await exportCall('/corporates/export', {
      format: 'jsonl',
      fields: ['corporateNumber', 'name'],
    });
    const records = (await res.text())
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { corporateNumber: string; name: string });
    const names = new Map(records.map((record) => [record.corporateNumber, record.name]));
    for (const company of companies) expect(names.get(company.corporateNumber)).toBe(company.name);
  });
});
