/**
 * `npm run match` as a user runs it: scripts/match.ts as a child process (tsx) against the
 * real app on a loopback port, the shared OpenSearch node (companies indexed through the real
 * indexer) and redis-server (the real credit ledger). The key comes from API_KEY_FILE, never
 * an argument. A UTF-8 list (with BOM) and the same list in Shift_JIS: the output rows and
 * columns, the encoding kept, formula cells neutralised, the summary, the credits; a column
 * that does not exist is one line and exit 1 before anything is sent.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import iconv from 'iconv-lite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decode, neutralise, parseCsv, readCsv } from '../../scripts/match-csv.js';
import { createApiKey, keyStoreFor } from '../../src/auth/key-admin.js';
import { createApp } from '../../src/http/app.js';
import { projectRoot } from '../../src/project-root.js';
import type { Services } from '../../src/services.js';
import { companies, indexCompanies } from '../fixtures/match/companies.js';
import { runToEnd } from '../support/child-runs.js';
import { setUpServices } from '../support/env.js';

const tsx = path.join(projectRoot, 'node_modules', '.bin', 'tsx');
let services: Services;
let server: Server;
let apiUrl = '';
const dir = mkdtempSync(path.join(os.tmpdir(), 'match-cli-'));

/** Seven rows: four certain (by prefecture name, short prefecture name, phone, Latin name), one unsure, a generic name, an empty name. */
const list = [
  ['会社名', '都道府県', '電話番号', 'メモ'],
  ['㈱マルカ物流', '神奈川県', '', 'note, with a comma'],
  ['アオイ工業', '東京都', '', ''],
  ['株式会社日本', '', '', ''],
  ['サクラ精機', '大阪', '', '=HYPERLINK("http://example.invalid")'],
  ['アオイ工業', '13', '03-3333-4444', 'line one\nline two'],
  ['', '', '', 'no name'],
  ['ＮＯＶＡ Ｓｙｓｔｅｍｓ', '', '+81-3-5555-6666', ''],
];
const quote = (cell: string) => (/[",\n]/.test(cell) ? `"${cell.replaceAll('"', '""')}"` : cell);
const listText = list.map((row) => row.map(quote).join(',')).join('\r\n');

async function newUser(credits: number): Promise<{ userId: string; keyFile: string; key: string }> {
  const userId = `match-cli-${Math.random().toString(36).slice(2, 10)}`;
  const { key } = await createApiKey(keyStoreFor(services.redis, services.config.redisPrefix), { userId });
  await services.limits.ledger.grant(userId, credits);
  const keyFile = path.join(dir, `${userId}.key`);
  writeFileSync(keyFile, `${key}\n`, { mode: 0o600 });
  return { userId, keyFile, key };
}

function runMatch(args: string[], env: Record<string, string | undefined>) {
  return runToEnd(
    spawn(tsx, ['scripts/match.ts', ...args], {
      cwd: projectRoot,
      env: { ...process.env, API_KEY: undefined, API_KEY_FILE: undefined, API_URL: apiUrl, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
}

beforeAll(async () => {
  services = await setUpServices('match-cli');
  await indexCompanies(services.opensearch, services.config.indexPrefix);
  server = http.createServer(createApp(services));
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  apiUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  await services?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('npm run match', () => {
  it('a UTF-8 list with BOM: every row back with its match columns, a UTF-8 file with BOM, the summary, one credit per match', async () => {
    const { userId, keyFile, key } = await newUser(100);
    const input = path.join(dir, 'list.csv');
    writeFileSync(input, `\uFEFF${listText}\r\n`);
    const run = await runMatch([input], { API_KEY_FILE: keyFile });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.trim().split('\n')).toEqual([
      'rows: 7',
      'matched: 4',
      'unsure: 1',
      'none: 2',
      'over-max-credits: 0',
      'credits charged: 4',
      `written: ${path.join(dir, 'list-matched.csv')}`,
    ]);
    expect(await services.limits.ledger.balance(userId)).toBe(96);
    expect(run.stderr).toContain('columns name="会社名", prefecture="都道府県", phone="電話番号"');
    expect(run.stdout + run.stderr).not.toContain(key);

    const bytes = readFileSync(path.join(dir, 'list-matched.csv'));
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const rows = parseCsv(bytes.subarray(3).toString('utf8'));
    expect(rows[0]).toEqual([
      ...(list[0] as string[]),
      'corporateNumber',
      'matchedName',
      'status',
      'candidates',
    ]);
    expect(rows).toHaveLength(8);
    // the input cells unchanged, a formula and a leading + neutralised
    expect(rows.slice(1).map((row) => row.slice(0, 4))).toEqual(
      list.slice(1).map((row) => row.map((cell) => (/^[=+]/.test(cell) ? `'${cell}` : cell))),
    );
    expect(rows.slice(1).map((row) => row.slice(4, 7))).toEqual([
      [companies.maruka.corporateNumber, companies.maruka.name, 'matched'],
      ['', '', 'unsure'],
      ['', '', 'none'],
      [companies.sakuraOsaka.corporateNumber, companies.sakuraOsaka.name, 'matched'],
      [companies.aoiNerima.corporateNumber, companies.aoiNerima.name, 'matched'],
      ['', '', 'none'],
      [companies.nova.corporateNumber, companies.nova.name, 'matched'],
    ]);
    // the match column: number, name and the match's confidence (at least the default 0.9)
    const [number, name, confidence] = (rows[1]?.[7] ?? '').split(':');
    expect([number, name]).toEqual([companies.maruka.corporateNumber, companies.maruka.name]);
    expect(Number(confidence)).toBeGreaterThanOrEqual(0.9);
    const unsure = (rows[2]?.[7] ?? '').split(' | ');
    expect(unsure.map((candidate) => candidate.split(':').slice(0, 2).join(':')).sort()).toEqual(
      [companies.aoiShibuya, companies.aoiNerima].map((c) => `${c.corporateNumber}:${c.name}`).sort(),
    );
  });

  it('a Shift_JIS list comes back in Shift_JIS; --max-credits over chunks of 2 withholds the matches past it', async () => {
    const { userId, keyFile } = await newUser(100);
    const input = path.join(dir, 'sjis.csv');
    writeFileSync(input, iconv.encode(`${listText}\r\n`, 'shift_jis'));
    const out = path.join(dir, 'sjis-out.csv');
    const run = await runMatch([input, '--out', out, '--max-credits', '2', '--chunk-size', '2'], {
      API_KEY_FILE: keyFile,
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('(shift_jis)');
    expect(run.stdout).toContain('matched: 2\nunsure: 1\nnone: 2\nover-max-credits: 2\ncredits charged: 2\n');
    expect(await services.limits.ledger.balance(userId)).toBe(98);

    const bytes = readFileSync(out);
    expect(bytes[0]).not.toBe(0xef);
    const rows = parseCsv(iconv.decode(bytes, 'shift_jis'));
    expect(rows.slice(1).map((row) => row[0])).toEqual(list.slice(1).map((row) => row[0]));
    expect(rows.slice(1).map((row) => row[6])).toEqual([
      'matched',
      'unsure',
      'none',
      'matched',
      'over-max-credits',
      'none',
      'over-max-credits',
    ]);
  });

  it('a column the header lacks: one line naming it and the header, exit 1, nothing sent or written', async () => {
    const { userId, keyFile } = await newUser(100);
    const input = path.join(dir, 'bad-column.csv');
    writeFileSync(input, `${listText}\n`);
    const out = path.join(dir, 'bad-column-out.csv');
    const run = await runMatch([input, '--out', out, '--phone-column', 'TEL番号'], { API_KEY_FILE: keyFile });
    expect(run.code).toBe(1);
    expect(run.stderr.trim().split('\n')).toEqual([
      'match: --phone-column "TEL番号": no such column; the header has 1:"会社名", 2:"都道府県", 3:"電話番号", 4:"メモ"',
    ]);
    expect(existsSync(out)).toBe(false);
    expect(await services.limits.ledger.balance(userId)).toBe(100);

    // by column number, the same list works
    const byNumber = await runMatch([input, '--out', out, '--name-column', '1', '--phone-column', '3'], {
      API_KEY_FILE: keyFile,
    });
    expect(byNumber.code, byNumber.stderr).toBe(0);
    expect(byNumber.stdout).toContain('matched: 4\n');
  });

  it('without a key: one line saying where to put it, exit 1', async () => {
    const input = path.join(dir, 'no-key.csv');
    writeFileSync(input, `${listText}\n`);
    const run = await runMatch([input], {});
    expect(run.code).toBe(1);
    expect(run.stderr.trim()).toBe(
      'match: an API key is needed: API_KEY_FILE=<file holding it> (e.g. .local/alice.key) or an exported API_KEY',
    );
  });

  it('a request refused midway (402: the balance ran out): exit 1, the rows answered are in the file, the line says where to go on', async () => {
    // chunks of 2: the first two reserve 2 and cost 1 each; the third finds 1 credit left
    const { userId, keyFile, key } = await newUser(3);
    const input = path.join(dir, 'short.csv');
    writeFileSync(input, `${listText}\n`);
    const out = path.join(dir, 'short-out.csv');
    const run = await runMatch([input, '--out', out, '--chunk-size', '2'], { API_KEY_FILE: keyFile });
    expect(run.code).toBe(1);
    const lines = run.stderr.trim().split('\n');
    expect(lines.at(-1)).toMatch(
      new RegExp(
        `^match: 402 .*; the first 4 rows are in ${out} \\(2 credits charged\\): match the rest from row 5$`,
      ),
    );
    expect(run.stderr + run.stdout).not.toContain(key);
    expect(await services.limits.ledger.balance(userId)).toBe(1);
    const rows = parseCsv(readFileSync(out).subarray(3).toString('utf8'));
    expect(rows.slice(1).map((row) => row[6])).toEqual(['matched', 'unsure', 'none', 'matched']);
  });

  it('an API that cannot be reached: one line naming API_URL, exit 1', async () => {
    const { keyFile } = await newUser(1);
    const input = path.join(dir, 'unreachable.csv');
    writeFileSync(input, `${listText}\n`);
    const run = await runMatch([input, '--out', path.join(dir, 'unreachable-out.csv')], {
      API_KEY_FILE: keyFile,
      API_URL: 'http://127.0.0.1:9',
    });
    expect(run.code).toBe(1);
    expect(run.stderr.trim().split('\n')).toHaveLength(2); // the columns line, then the failure
    expect(run.stderr).toMatch(/^match: cannot reach the API at http:\/\/127\.0\.0\.1:9 \(API_URL\)/m);
  });
});

describe('reading and writing CSV', () => {
  it('reads quoted fields with commas, doubled quotes and line breaks; CRLF, LF and CR line ends; skips blank lines', () => {
    expect(parseCsv('a,"b ""x"", c"\r\n"1\n2",\r3,4\n\nlast')).toEqual([
      ['a', 'b "x", c'],
      ['1\n2', ''],
      ['3', '4'],
      ['last'],
    ]);
    expect(() => parseCsv('a,"open\n')).toThrow('a quoted field is not closed');
  });

  it('pads a row cut short to the header, so the added columns line up', () => {
    expect(readCsv(Buffer.from('会社名,住所,電話番号\nマルカ物流\n'))).toEqual({
      encoding: 'utf-8',
      header: ['会社名', '住所', '電話番号'],
      rows: [['マルカ物流', '', '']],
    });
  });

  it('detects the encoding: a BOM, valid UTF-8, else Shift_JIS; --encoding decides', () => {
    const sjis = iconv.encode('会社名\r\n㈱マルカ物流', 'shift_jis');
    expect(decode(Buffer.from('\uFEFF会社名', 'utf8'))).toEqual({ text: '会社名', encoding: 'utf-8' });
    expect(decode(Buffer.from('会社名', 'utf8'))).toEqual({ text: '会社名', encoding: 'utf-8' });
    expect(decode(sjis)).toEqual({ text: '会社名\r\n㈱マルカ物流', encoding: 'shift_jis' });
    expect(decode(Buffer.from('会社名', 'utf8'), 'shift_jis').text).not.toBe('会社名');
  });

  it.each([
    ['=1+1', "'=1+1"],
    ['+81-3-1234', "'+81-3-1234"],
    ['-2', "'-2"],
    ['@SUM(A1)', "'@SUM(A1)"],
    ['\tx', "'\tx"],
    ['\rx', "'\rx"],
    ['a=b', 'a=b'],
    ['', ''],
  ])('neutralises %j as %j', (cell, written) => {
    expect(neutralise(cell)).toBe(written);
  });
});
