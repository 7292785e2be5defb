/**
 * The console's "match a list" view (/console/#match) in a real headless Chromium (as
 * test/console/console.test.ts), against the real app and engine: the fixture companies of
 * test/fixtures/match/companies.ts are indexed through the real indexer. A user pastes a list
 * or uploads a Shift_JIS file, the page maps the columns, shows the cost, sends the records in
 * one request (or chunks of 1,000 when chosen), shows each row's answer, lets the user pick a
 * candidate, and downloads CSV. A longer list (or when chosen) goes as a match job, run by a
 * worker in this process on the test Redis: followed, read back, listed, resumed.
 */
import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import iconv from 'iconv-lite';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, keyStoreFor } from '../../src/auth/key-admin.js';
import { defaultConfig } from '../../src/config.js';
import { createApp } from '../../src/http/app.js';
import type { MatchJobWorker } from '../../src/match-jobs/worker.js';
import { projectRoot } from '../../src/project-root.js';
import type { Services } from '../../src/services.js';
import { parseCsv } from '../../src/text/csv.js';
import { indexCompanies, numberOf } from '../fixtures/match/companies.js';
import { type ConsoleRig, problemsOf, startConsoleRig } from '../support/console-rig.js';
import { setUpServices } from '../support/env.js';
import { startTestWorker } from '../support/match-jobs.js';

let services: Services;
let rig: ConsoleRig;
let baseUrl = '';
let browser: Browser;

let worker: MatchJobWorker;

beforeAll(async () => {
  // match jobs on the test Redis (their store and queue), files in a folder of this file, and
  // a worker in this process, as `npm run worker` would run it
  const dir = mkdtempSync(path.join(os.tmpdir(), 'console-match-jobs-'));
  services = await setUpServices('console-match', {
    matchJobs: { ...defaultConfig().matchJobs, dir, stallSeconds: 2 },
  });
  await indexCompanies(services.opensearch, services.config.indexPrefix);
  worker = startTestWorker(services, dir);
  rig = await startConsoleRig(services);
  ({ baseUrl, browser } = rig);
});
afterAll(async () => {
  await rig?.close();
  await worker?.close();
  await services?.close();
});

/** A key of its own user (own balance and rate limit) with `credits`. */
async function keyWith(userId: string, credits: number): Promise<string> {
  const { key } = await createApiKey(keyStoreFor(services.redis, services.config.redisPrefix), { userId });
  await services.limits.ledger.grant(userId, credits);
  return key;
}

/** The match view with the key set as the key section sets it; fails on any script error or CSP violation. */
async function openMatch(key: string): Promise<{ page: Page; problems: string[] }> {
  const context = await browser.newContext({ viewport: { width: 1500, height: 900 } });
  const page = await context.newPage();
  const problems = problemsOf(page);
  await page.goto(`${baseUrl}/console/#match`);
  await page.waitForSelector('body[data-ready="true"]');
  await page.fill('#api-key', key);
  await page.click('#use-key');
  await page.waitForFunction(() => document.querySelector('#key-status')?.textContent?.includes('loaded'));
  return { page, problems };
}

type Row = { status: string | null; cells: string[]; candidates: string[] };

async function tableRows(page: Page): Promise<Row[]> {
  return page.locator('#match-results tbody tr').evaluateAll((trs) =>
    trs.map((tr) => ({
      status: tr.getAttribute('data-status'),
      cells: [...tr.querySelectorAll(':scope > td')].slice(0, 8).map((td) => td.textContent ?? ''),
      candidates: [...tr.querySelectorAll('.candidate[data-corporate-number]')].map((label) =>
        [...label.querySelectorAll('span')].map((span) => span.textContent).join(' | '),
      ),
    })),
  );
}

async function runMatch(page: Page): Promise<void> {
  await page.click('#match-run');
  await page.waitForSelector('#match-summary[data-done="true"]');
}

// a certain match; a name two prefectures share; a name nobody has; the shared name made
// certain by its prefecture column. The memo column holds quoting and a formula.
const pasted = [
  '会社名,都道府県,担当者,メモ',
  'マルカ物流株式会社,,田中,"横浜, 中区の""物流""会社"',
  '株式会社サクラ精機,,佐藤,"=HYPERLINK(""http://example.com"")"',
  '存在しない商会,,鈴木,',
  'サクラ精機,大阪府,高橋,"2行の',
  'メモ"',
].join('\n');

describe('match a list in the console, in headless Chromium', () => {
  it('pastes four rows, shows match / unsure / none with reasons, picks a candidate, downloads CSV', async () => {
    const key = await keyWith('match-paste', 100);
    const { page, problems } = await openMatch(key);
    expect(await page.isVisible('#match-view')).toBe(true);
    expect(await page.isVisible('#search-view')).toBe(false);

    await page.fill('#match-paste', pasted);
    await page.click('#match-load-paste');
    await page.waitForSelector('#match-loaded[data-rows="4"]');
    // the columns chosen from the header names
    expect(await page.inputValue('#match-col-name')).toBe('0');
    expect(await page.inputValue('#match-col-prefecture')).toBe('1');
    expect(await page.inputValue('#match-col-phoneNumber')).toBe('-1');
    // the cost before sending: 4 rows x this server's price (1), less with a cap
    expect(await page.getAttribute('#match-cost', 'data-worst')).toBe('4');
    expect(await page.textContent('#match-cost')).toContain('最大 4 クレジット');
    await page.fill('#match-max-credits', '3');
    expect(await page.getAttribute('#match-cost', 'data-worst')).toBe('3');
    await page.fill('#match-max-credits', '');

    await runMatch(page);
    const rows = await tableRows(page);
    expect(rows.map((row) => row.status)).toEqual(['match', 'unsure', 'none', 'match']);
    expect(rows.map((row) => row.cells.slice(0, 3))).toEqual([
      ['1', 'マルカ物流株式会社', '一致'],
      ['2', '株式会社サクラ精機', '要確認'],
      ['3', '存在しない商会', '該当なし'],
      ['4', 'サクラ精機', '一致'],
    ]);
    // the match: name, corporate number, prefecture, city, reason
    expect(rows[0]?.cells.slice(3)).toEqual([
      'マルカ物流株式会社',
      numberOf(5),
      '神奈川県',
      '横浜市中区',
      '名称',
    ]);
    expect(rows[3]?.cells.slice(3)).toEqual([
      '株式会社サクラ精機',
      numberOf(2),
      '大阪府',
      '大阪市北区',
      '名称・都道府県',
    ]);
    // the unsure row offers both companies with their scores and reasons
    expect(rows[1]?.candidates).toHaveLength(2);
    // each with the same confidence below a match's (two namesakes: rivals)
    const offered = (rows[1]?.candidates ?? []).sort();
    expect(offered.map((text) => text.replace(/スコア 0\.\d\d/, 'スコア *'))).toEqual([
      `株式会社サクラ精機 | スコア * | 大阪府 大阪市北区 | ${numberOf(2)} | 名称`,
      `株式会社サクラ精機 | スコア * | 東京都 港区 | ${numberOf(1)} | 名称`,
    ]);
    const scores = offered.map((text) => Number(/スコア (0\.\d\d)/.exec(text)?.[1]));
    expect(scores[0]).toBe(scores[1]);
    expect(scores[0]).toBeLessThan(0.9);
    // charged for the two certain matches only
    expect(await page.getAttribute('#match-summary', 'data-charged')).toBe('2');
    expect(await page.textContent('#match-summary')).toContain('残り 98');

    // pick the Tokyo company on the unsure row
    await page.check(`tr[data-row="1"] .candidate[data-corporate-number="${numberOf(1)}"] input`);
    const picked = (await tableRows(page))[1];
    expect(picked?.status).toBe('picked');
    expect(picked?.cells.slice(2, 6)).toEqual(['選択済み', '株式会社サクラ精機', numberOf(1), '東京都']);

    mkdirSync(path.join(projectRoot, '.local'), { recursive: true });
    await page.screenshot({ path: path.join(projectRoot, '.local', 'console-match.png'), fullPage: true });
    // the unsure rows alone: the picked one stays listed
    await page.selectOption('#match-show', 'unsure');
    expect((await tableRows(page)).map((row) => row.cells[0])).toEqual(['2']);

    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#match-download')]);
    expect(download.suggestedFilename()).toBe('list-matched.csv');
    const csv = readFileSync((await download.path()) ?? '', 'utf8');
    expect(csv).toBe(
      [
        '\ufeff会社名,都道府県,担当者,メモ,corporateNumber,matchedName,status,reason',
        `マルカ物流株式会社,,田中,"横浜, 中区の""物流""会社",${numberOf(5)},マルカ物流株式会社,match,名称`,
        `株式会社サクラ精機,,佐藤,"'=HYPERLINK(""http://example.com"")",${numberOf(1)},株式会社サクラ精機,picked,名称`,
        '存在しない商会,,鈴木,,,,none,',
        `サクラ精機,大阪府,高橋,"2行の\nメモ",${numberOf(2)},株式会社サクラ精機,match,名称・都道府県`,
        '',
      ].join('\r\n'),
    );
    // the key: in this tab's session storage, never in the address
    expect(page.url()).not.toContain(key);
    expect(await page.evaluate(() => Object.keys(localStorage).length)).toBe(0);
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('reads an uploaded Shift_JIS file, maps its columns and matches on address and phone', async () => {
    const key = await keyWith('match-sjis', 100);
    const { page, problems } = await openMatch(key);
    const text = [
      '社名,住所,電話',
      'アオイ工業株式会社,東京都練馬区豊玉北1-1,03-3333-4444',
      'ﾏﾙｶ物流(株),神奈川県横浜市中区,',
    ].join('\r\n');
    const bytes = iconv.encode(text, 'shift_jis');
    expect(() => new TextDecoder('utf-8', { fatal: true }).decode(bytes)).toThrow(); // really not UTF-8
    await page.setInputFiles('#match-file', { name: 'crm.csv', mimeType: 'text/csv', buffer: bytes });
    await page.waitForSelector('#match-loaded[data-rows="2"]');
    expect(await page.getAttribute('#match-loaded', 'data-encoding')).toBe('shift_jis');
    expect(await page.textContent('#match-loaded')).toContain('列 社名 / 住所 / 電話');
    expect(await page.inputValue('#match-col-name')).toBe('0');
    expect(await page.inputValue('#match-col-address')).toBe('1');
    expect(await page.inputValue('#match-col-phoneNumber')).toBe('2');

    await runMatch(page);
    const rows = await tableRows(page);
    expect(rows.map((row) => row.cells.slice(1, 5))).toEqual([
      ['アオイ工業株式会社', '一致', 'アオイ工業株式会社', numberOf(4)],
      ['ﾏﾙｶ物流(株)', '一致', 'マルカ物流株式会社', numberOf(5)],
    ]);
    expect(rows[0]?.cells[7]).toBe('名称・都道府県・住所・電話');
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('reads a UTF-8 file with a BOM, and decodes it again when the encoding is chosen by hand', async () => {
    const key = await keyWith('match-bom', 100);
    const { page, problems } = await openMatch(key);
    const bytes = Buffer.from('\ufeff会社名\r\nマルカ物流株式会社\r\n', 'utf8');
    await page.setInputFiles('#match-file', { name: 'list.csv', mimeType: 'text/csv', buffer: bytes });
    await page.waitForSelector('#match-loaded[data-encoding="utf-8"]');
    // the BOM is not part of the first header
    expect(await page.locator('#match-col-name option:checked').textContent()).toBe('会社名');
    await page.selectOption('#match-encoding', 'shift_jis');
    await page.waitForSelector('#match-loaded[data-encoding="shift_jis"]');
    expect(await page.textContent('#match-loaded')).not.toContain('会社名');
    await page.selectOption('#match-encoding', 'auto');
    await page.waitForSelector('#match-loaded[data-encoding="utf-8"]');
    await runMatch(page);
    expect((await tableRows(page)).map((row) => row.cells.slice(1, 4))).toEqual([
      ['マルカ物流株式会社', '一致', 'マルカ物流株式会社'],
    ]);
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#match-download')]);
    expect(download.suggestedFilename()).toBe('list-matched.csv');
    const csv = readFileSync((await download.path()) ?? '', 'utf8');
    expect(csv.startsWith('\ufeff会社名,corporateNumber,')).toBe(true);
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('sends 1,001 rows, when chosen, as two requests of 1,000 and 1, in order, the cap lowered by what the first spent', async () => {
    const key = await keyWith('match-chunks', 2_000);
    const { page, problems } = await openMatch(key);
    const sent: Array<{ records: number; maxCredits?: number }> = [];
    page.on('request', (request) => {
      if (!request.url().endsWith('/rest/v1/corporates/match')) return;
      const body = JSON.parse(request.postData() ?? '{}') as { records: unknown[]; maxCredits?: number };
      sent.push({ records: body.records.length, maxCredits: body.maxCredits });
    });
    // a certain match first and last: the cap of 1 pays for the first only
    const names = Array.from({ length: 999 }, (_, i) => `照合テスト${i}`);
    await page.fill('#match-paste', ['name', 'マルカ物流', ...names, 'マルカ物流'].join('\n'));
    await page.click('#match-load-paste');
    await page.waitForSelector('#match-loaded[data-rows="1001"]');
    await page.selectOption('#match-mode', 'requests');
    expect(await page.getAttribute('#match-cost', 'data-worst')).toBe('1001');
    await page.fill('#match-max-credits', '1');
    await runMatch(page);
    expect(sent).toEqual([
      { records: 1000, maxCredits: 1 },
      { records: 1, maxCredits: 0 },
    ]);
    expect(await page.getAttribute('#match-progress', 'value')).toBe('1001');
    expect(await page.getAttribute('#match-progress', 'max')).toBe('1001');
    expect(await page.textContent('#match-progress-text')).toBe('完了: 1,001 行を照合しました');
    const rows = await tableRows(page);
    expect(rows).toHaveLength(1001);
    expect(rows[0]?.cells.slice(0, 5)).toEqual([
      '1',
      'マルカ物流',
      '一致',
      'マルカ物流株式会社',
      numberOf(5),
    ]);
    expect(rows[999]?.cells.slice(0, 3)).toEqual(['1000', '照合テスト998', '該当なし']);
    expect(rows[1000]?.cells.slice(0, 3)).toEqual(['1001', 'マルカ物流', '上限超過']);
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('stops at maxCredits (the certain matches past it are withheld) and skips rows without a name', async () => {
    const key = await keyWith('match-capped', 100);
    const { page, problems } = await openMatch(key);
    await page.fill(
      '#match-paste',
      ['社名\t都道府県', 'マルカ物流\t', '\t東京都', 'サクラ精機\t27'].join('\n'),
    );
    await page.click('#match-load-paste');
    await page.waitForSelector('#match-loaded[data-rows="3"]');
    expect(await page.textContent('#match-cost')).toContain(
      '送る行: 2 (社名が空か長すぎる 1 行は送りません)',
    );
    await page.fill('#match-max-credits', '1');
    expect(await page.getAttribute('#match-cost', 'data-worst')).toBe('1');
    await runMatch(page);
    const rows = await tableRows(page);
    expect(rows.map((row) => [row.status, row.cells[2], row.cells[4]])).toEqual([
      ['match', '一致', numberOf(5)],
      ['skipped', '対象外', ''],
      ['withheld', '上限超過', ''],
    ]);
    expect(await page.getAttribute('#match-summary', 'data-charged')).toBe('1');
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('shows a refusal (402: the worst case is more than the balance) and matches nothing', async () => {
    const key = await keyWith('match-poor', 1);
    const { page, problems } = await openMatch(key);
    await page.fill('#match-paste', ['会社名', 'マルカ物流', 'サクラ精機'].join('\n'));
    await page.click('#match-load-paste');
    await page.waitForSelector('#match-loaded[data-rows="2"]');
    await runMatch(page);
    expect(await page.textContent('#match-summary')).toMatch(/^402: /);
    expect(await page.textContent('#match-progress-text')).toBe('0 / 2 行で止まりました');
    expect((await tableRows(page)).map((row) => row.cells[2])).toEqual(['未照合', '未照合']);
    // the browser reports the failed fetch as a console error; nothing else may appear
    expect(problems.filter((problem) => !problem.includes('status of 402'))).toEqual([]);
    await page.context().close();
  });

  it("shows the cost at this server's price (/console/prices.json, MATCH_CREDIT_COST), here free", async () => {
    expect(await (await fetch(`${baseUrl}/console/prices.json`)).json()).toEqual({ matchCreditCost: 1 });
    const limits = { ...services.limits, config: { ...services.limits.config, matchCost: 0 } };
    const freeServer = createApp({ ...services, limits }).listen(0, '127.0.0.1');
    await new Promise((resolve) => freeServer.once('listening', resolve));
    try {
      const key = await keyWith('match-free', 0);
      const page = await browser.newPage();
      await page.goto(`http://127.0.0.1:${(freeServer.address() as AddressInfo).port}/console/#match`);
      await page.waitForSelector('body[data-ready="true"]');
      await page.evaluate((value) => sessionStorage.setItem('corpsearch.apiKey', value), key);
      await page.fill('#match-paste', ['会社名', 'マルカ物流', 'サクラ精機'].join('\n'));
      await page.click('#match-load-paste');
      await page.waitForSelector('#match-loaded[data-rows="2"]');
      expect(await page.getAttribute('#match-cost', 'data-worst')).toBe('0');
      expect(await page.textContent('#match-cost')).toContain('照合は無料です');
      await runMatch(page);
      expect(await page.getAttribute('#match-summary', 'data-charged')).toBe('0');
      await page.context().close();
    } finally {
      freeServer.closeAllConnections();
      await new Promise((resolve) => freeServer.close(resolve));
    }
  });
});

describe('a list as a match job, in headless Chromium', () => {
  it('goes as a job past 1,000 records (one request) by itself, or when chosen; as requests otherwise', async () => {
    const key = await keyWith('match-mode', 0);
    const { page, problems } = await openMatch(key);
    // set as a paste sets it (typing a long list through keyboard events is slow)
    const paste = (rows: number) =>
      page.$eval(
        '#match-paste',
        (area, text) => {
          (area as HTMLTextAreaElement).value = text;
        },
        ['name', ...Array.from({ length: rows }, (_, i) => `照合テスト${i}`)].join('\n'),
      );
    await paste(1_000);
    await page.click('#match-load-paste');
    await page.waitForSelector('#match-loaded[data-rows="1000"]');
    expect(await page.getAttribute('#match-cost', 'data-mode')).toBe('requests');
    await paste(1_001);
    await page.click('#match-load-paste');
    await page.waitForSelector('#match-loaded[data-rows="1001"]');
    expect(await page.getAttribute('#match-cost', 'data-mode')).toBe('job');
    expect(await page.textContent('#match-cost')).toContain('照合ジョブとしてサーバーで照合します');
    await page.selectOption('#match-mode', 'requests');
    expect(await page.getAttribute('#match-cost', 'data-mode')).toBe('requests');
    await paste(3);
    await page.click('#match-load-paste');
    await page.waitForSelector('#match-loaded[data-rows="3"]');
    await page.selectOption('#match-mode', 'job');
    expect(await page.getAttribute('#match-cost', 'data-mode')).toBe('job');
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('uploads JSONL, follows the job, reads its rows back with candidates to pick, resumes after a top-up', async () => {
    const user = 'match-job';
    const key = await keyWith(user, 1);
    const { page, problems } = await openMatch(key);
    const uploads: string[] = [];
    page.on('request', (request) => {
      if (request.method() === 'POST' && request.url().includes('/rest/v1/corporates/match-jobs?'))
        uploads.push(request.postData() ?? '');
      // no record goes to the request endpoint in this mode
      if (request.url().endsWith('/rest/v1/corporates/match')) uploads.push('a match request');
    });
    // a certain match, a name two prefectures share, a name nobody has, a second certain
    // match the balance of 1 cannot pay (the job stops before it), and a row without a name
    await page.fill(
      '#match-paste',
      ['社名,都道府県', 'マルカ物流', 'サクラ精機,', '存在しない商会,', 'サクラ精機,大阪府', ',東京都'].join(
        '\n',
      ),
    );
    await page.click('#match-load-paste');
    await page.waitForSelector('#match-loaded[data-rows="5"]');
    await page.selectOption('#match-mode', 'job');
    await runMatch(page);
    expect(uploads).toHaveLength(1);
    expect(
      uploads[0]
        ?.trim()
        .split('\n')
        .map((line) => JSON.parse(line)),
    ).toEqual([
      { name: 'マルカ物流' },
      { name: 'サクラ精機' },
      { name: '存在しない商会' },
      { name: 'サクラ精機', prefectureId: 27 },
    ]);
    let rows = await tableRows(page);
    expect(rows.map((row) => [row.status, row.cells[2]])).toEqual([
      ['match', '一致'],
      ['unsure', '要確認'],
      ['none', '該当なし'],
      ['unsent', '未照合'],
      ['skipped', '対象外'],
    ]);
    // the match with where it is and why, as the request path shows it
    expect(rows[0]?.cells.slice(3)).toEqual([
      'マルカ物流株式会社',
      numberOf(5),
      '神奈川県',
      '横浜市中区',
      '名称',
    ]);
    // the unsure row: both companies to pick from, with prefecture, city and reasons
    expect(
      (rows[1]?.candidates ?? []).sort().map((text) => text.replace(/スコア 0\.\d\d/, 'スコア *')),
    ).toEqual([
      `株式会社サクラ精機 | スコア * | 大阪府 大阪市北区 | ${numberOf(2)} | 名称`,
      `株式会社サクラ精機 | スコア * | 東京都 港区 | ${numberOf(1)} | 名称`,
    ]);
    expect(await page.textContent('#match-summary')).toContain('停止 (クレジット不足)');
    // the row the job left: why, and that it can go on
    expect(rows[3]?.cells[3]).toBe('ジョブが止まったため照合していません (再開できます)');
    expect(await page.getAttribute('#match-summary', 'data-charged')).toBe('1');
    await page.check(`tr[data-row="1"] .candidate[data-corporate-number="${numberOf(1)}"] input`);
    expect((await tableRows(page))[1]?.status).toBe('picked');

    // the jobs list: this job, stopped, with its results and a resume
    const job = page.locator('#match-jobs tbody tr').first();
    await job.waitFor();
    expect(await job.getAttribute('data-status')).toBe('stopped');
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      job.locator('.job-results').click(),
    ]);
    // the server's file: the fields sent, then the match columns
    const [header, ...lines] = parseCsv(readFileSync((await download.path()) ?? '', 'utf8')).map(
      (record) => record.fields,
    );
    const columns = ['name', 'prefectureId', 'rowNumber', 'matchStatus', 'matchCorporateNumber'];
    const at = columns.map((column) => (header ?? []).indexOf(column));
    expect(lines.map((line) => at.map((i) => line[i]))).toEqual([
      ['マルカ物流', '', '1', 'matched', numberOf(5)],
      ['サクラ精機', '', '2', 'unmatched', ''],
      ['存在しない商会', '', '3', 'unmatched', ''],
      ['サクラ精機', '27', '4', 'unanswered', ''],
    ]);

    // a top-up, then 再開する: the page follows the job again and the last row is matched
    await services.limits.ledger.grant(user, 10);
    await job.locator('.job-resume').click();
    await page.waitForFunction(
      () =>
        document.querySelector('#match-results tr[data-row="3"]')?.getAttribute('data-status') === 'match',
    );
    await page.waitForSelector('#match-summary[data-done="true"]');
    rows = await tableRows(page);
    expect(rows[3]?.cells.slice(2, 6)).toEqual(['一致', '株式会社サクラ精機', numberOf(2), '大阪府']);
    expect(await page.getAttribute('#match-summary', 'data-charged')).toBe('2');
    // the rows answered before keep what the user did with them
    expect(rows[1]?.status).toBe('picked');
    await page.waitForFunction(
      () => document.querySelector('#match-jobs tbody tr')?.getAttribute('data-status') === 'completed',
    );
    expect(uploads).toHaveLength(1);
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it("resumes a job the cap stopped under the page's higher cap; a job of another list leaves the new list alone", async () => {
    const user = 'match-job-cap';
    const key = await keyWith(user, 100);
    const { page, problems } = await openMatch(key);
    const rowsOf = (names: string[]) => ['社名', ...names].join('\n');
    await page.fill('#match-paste', rowsOf(['マルカ物流', '存在しない商会', 'マルカ物流株式会社']));
    await page.click('#match-load-paste');
    await page.waitForSelector('#match-loaded[data-rows="3"]');
    await page.selectOption('#match-mode', 'job');
    await page.fill('#match-max-credits', '1');
    await runMatch(page);
    expect((await tableRows(page)).map((row) => row.status)).toEqual(['match', 'none', 'withheld']);
    const job = page.locator('#match-jobs tbody tr').first();
    expect(await job.getAttribute('data-status')).toBe('stopped');
    // the cap still at 1: the page says what to do and sends nothing
    const resumes: string[] = [];
    page.on('request', (request) => {
      if (request.url().includes('/resume')) resumes.push(request.url().replace(/^.*\/resume/, ''));
    });
    await job.locator('.job-resume').click();
    expect(await page.textContent('#match-jobs-status')).toContain('1 より大きくしてから再開');
    expect(resumes).toEqual([]);
    await page.fill('#match-max-credits', '5');
    await job.locator('.job-resume').click();
    await page.waitForFunction(
      () =>
        document.querySelector('#match-results tr[data-row="2"]')?.getAttribute('data-status') === 'match',
    );
    expect(resumes).toEqual(['?maxCredits=5']);

    // a job stopped on one list, resumed after another list was loaded and matched (in requests,
    // its last rows withheld by the cap): the new list's rows stay as they are, the job's rows
    // being the old list's
    await page.fill('#match-max-credits', '1');
    await runMatch(page);
    const stopped = page.locator('#match-jobs tbody tr[data-status="stopped"]').first();
    const id = await stopped.getAttribute('data-id');
    await page.fill('#match-paste', rowsOf(['マルカ物流', 'マルカ物流株式会社', 'ﾏﾙｶ物流']));
    await page.click('#match-load-paste');
    await page.waitForSelector('#match-loaded[data-rows="3"]');
    await page.selectOption('#match-mode', 'requests');
    await runMatch(page);
    const before = (await tableRows(page)).map((row) => row.status);
    expect(before).toEqual(['match', 'withheld', 'withheld']);
    await page.fill('#match-max-credits', '5');
    await page.locator(`#match-jobs tbody tr[data-id="${id}"] .job-resume`).click();
    // the job ends (the list read again until it says so) and the page showed nothing of it
    await expect
      .poll(
        async () => {
          await page.click('#match-jobs-refresh');
          await page.waitForTimeout(300);
          return page.getAttribute(`#match-jobs tbody tr[data-id="${id}"]`, 'data-status');
        },
        { timeout: 20_000 },
      )
      .toBe('completed');
    // time for a follower the page should not have started to have read the rows
    await page.waitForTimeout(2_500);
    // the table drawn again from what the page holds (the download's rows too)
    await page.selectOption('#match-show', 'none');
    await page.selectOption('#match-show', 'all');
    expect((await tableRows(page)).map((row) => row.status)).toEqual(before);
    expect(problems).toEqual([]);
    await page.context().close();
  });
});
