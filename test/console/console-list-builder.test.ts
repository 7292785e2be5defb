/**
 * The query console as a list builder, in a real headless Chromium (Debian's `chromium`,
 * driven by playwright-core) against the real app on the shared OpenSearch node and
 * redis-server: Japanese labels, facets that add a filter, an export priced before it is
 * downloaded, cursor paging there and back, contact columns, the posting that made a company
 * match, saved searches, a URL that reproduces the search, and chips that wrap.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, keyStoreFor } from '../../src/auth/key-admin.js';
import { fieldLabel, filterLabel } from '../../src/catalogue/labels.js';
import { defaultConfig } from '../../src/config.js';
import { projectRoot } from '../../src/project-root.js';
import type { Services } from '../../src/services.js';
import {
  corporate,
  daysAgo,
  indexFixture,
  job,
  nextCorporateNumber,
  posting,
} from '../fixtures/search/docs.js';
import { type ConsoleRig, problemsOf, startConsoleRig } from '../support/console-rig.js';
import { setUpServices } from '../support/env.js';

let services: Services;
let rig: ConsoleRig;
let baseUrl = '';
let browser: Browser;
let apiKey = '';

/**
 * 24 Tokyo companies on doda, 5 in Osaka on リクナビNEXT. Every third Tokyo company has a
 * Kotlin posting and, collected later (so job search lists it first), a sales posting: the
 * excerpt beside it must come from the posting that matched, not just its newest one.
 */
function company(i: number, prefectureId: number, kotlin: boolean) {
  const corporateNumber = nextCorporateNumber();
  const mediaId = prefectureId === 13 ? 3 : 1;
  const mediaName = mediaId === 3 ? 'doda' : 'リクナビNEXT';
  const sales = { title: `法人営業 ${i}`, description: `営業職の募集 (${i})`, daysOld: 1 };
  const engineer = {
    title: `Android エンジニア ${i}`,
    description: `自社サービスの開発。Kotlin と Go の経験者を歓迎します (${i})`,
    daysOld: 5,
  };
  const shapes = kotlin ? [sales, engineer] : [sales];
  const postings = shapes.map(({ title, description, daysOld }) => ({
    title,
    mediaId,
    description,
    descriptionCollectedAt: daysAgo(3),
    jobCreatedAt: daysAgo(daysOld),
  }));
  return {
    company: corporate({
      corporateNumber,
      name: `${prefectureId === 13 ? '東京' : '大阪'}リスト${String(i).padStart(2, '0')}`,
      prefectureId,
      prefectureName: prefectureId === 13 ? '東京都' : '大阪府',
      phoneNumber: `03-1234-${String(1000 + i)}`,
      websiteUrl: `https://list-${i}.example.jp/`,
      email: `sales${i}@list-${i}.example.jp`,
      postings: postings.map((fields) => posting(fields)),
    }),
    jobs: postings.map((fields) => job({ corporateNumber, corporateName: `会社${i}`, mediaName, ...fields })),
    matchingTitle: kotlin ? engineer.title : undefined,
  };
}
const tokyo = Array.from({ length: 24 }, (_, i) => company(i, 13, i % 3 === 0));
const osaka = Array.from({ length: 5 }, (_, i) => company(100 + i, 27, false));
const everyone = [...tokyo, ...osaka];

beforeAll(async () => {
  // a list builder sends a few requests per click: more than the default 5 per second
  services = await setUpServices('console-list', {
    limits: { ...defaultConfig().limits, ratePerSecond: 100 },
  });
  await indexFixture(services.opensearch, services.config.indexPrefix, {
    corporates: everyone.map((entry) => entry.company),
    jobs: everyone.flatMap((entry) => entry.jobs),
  });
  const userId = 'console-list-user';
  ({ key: apiKey } = await createApiKey(keyStoreFor(services.redis, services.config.redisPrefix), {
    userId,
  }));
  await services.limits.ledger.grant(userId, 1000);
  rig = await startConsoleRig(services);
  ({ baseUrl, browser } = rig);
});
afterAll(async () => {
  await rig?.close();
  await services?.close();
});

interface Opened {
  page: Page;
  problems: string[];
  /** Bodies of the POSTs the page sent, by path. */
  sent: Array<{ path: string; body: Record<string, unknown> }>;
  /** The answers of the searches, in order. */
  answers: Array<{ path: string; body: Record<string, unknown> }>;
}

async function open(context: BrowserContext, url = `${baseUrl}/console/`): Promise<Opened> {
  const page = await context.newPage();
  const problems = problemsOf(page);
  const sent: Opened['sent'] = [];
  const answers: Opened['answers'] = [];
  page.on('request', (request) => {
    if (request.method() === 'POST')
      sent.push({ path: new URL(request.url()).pathname, body: JSON.parse(request.postData() ?? '{}') });
  });
  page.on('response', async (response) => {
    const pathName = new URL(response.url()).pathname;
    if (pathName.endsWith('/search') && response.ok())
      answers.push({ path: pathName, body: (await response.json()) as Record<string, unknown> });
  });
  await page.goto(url);
  await page.waitForSelector('body[data-ready="true"]');
  return { page, problems, sent, answers };
}

async function newContext(): Promise<BrowserContext> {
  return browser.newContext({ viewport: { width: 1400, height: 1000 }, acceptDownloads: true });
}

async function enterKey(page: Page): Promise<void> {
  await page.fill('#api-key', apiKey);
  await page.click('#use-key');
  await page.waitForFunction(() => document.querySelector('#key-status')?.textContent?.includes('loaded'));
}

/** Clicks and waits for the search's answer (summary numbered with the page). */
async function runAndWait(page: Page, selector: string, pageNumber = 1): Promise<void> {
  await page.evaluate(() => {
    const summary = document.querySelector('#summary') as HTMLElement;
    delete summary.dataset.total;
    delete summary.dataset.page;
  });
  await page.click(selector);
  await page
    .waitForSelector(`#summary[data-total][data-page="${pageNumber}"]`, { timeout: 15_000 })
    .catch(async (error: Error) => {
      // the page's own account of what went wrong, instead of a bare timeout
      const shown = await page.evaluate(
        () =>
          `${document.querySelector('#summary')?.textContent} ${document.querySelector('#errors')?.textContent}`,
      );
      throw new Error(`${error.message}\npage shows: ${shown}`);
    });
}

async function rowIds(page: Page): Promise<string[]> {
  return page
    .locator('#results tbody tr')
    .evaluateAll((rows) => rows.map((row) => row.getAttribute('data-id') ?? ''));
}

/** The API's own answer to a body. */
async function api(pathName: string, body: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(`${baseUrl}${pathName}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
    body: JSON.stringify(body),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as Record<string, unknown>;
}

async function pickTokyo(page: Page): Promise<void> {
  await page.fill('#filter-search', '都道府県');
  await page.click('#filter-groups [data-group="company"] button[data-filter="prefectureId"]');
  await page.selectOption('select[name="value-prefectureId"]', { label: '東京都 (13)' });
}

describe('console list builder in headless Chromium', () => {
  it('labels filters, conditions and columns in Japanese with the API name beside them', async () => {
    const context = await newContext();
    const { page, problems } = await open(context);
    await enterKey(page);
    const button = page.locator('#filter-groups button[data-filter="prefectureId"]').first();
    // the labels of src/catalogue/labels.ts, per search (on job search the linked company's)
    expect(await button.locator('.ja').textContent()).toBe(filterLabel('corporates', 'prefectureId'));
    expect(await button.locator('small.api').textContent()).toBe('prefectureId');
    await pickTokyo(page);
    expect(await page.textContent('[data-condition="prefectureId"] .title .ja')).toBe(
      filterLabel('corporates', 'prefectureId'),
    );
    await runAndWait(page, '#run');
    const headers = await page.locator('#results thead th').evaluateAll((ths) =>
      ths.map((th) => ({
        field: th.getAttribute('data-field'),
        ja: th.querySelector('.ja')?.textContent,
        api: th.querySelector('small.api')?.textContent,
      })),
    );
    expect(headers.find((header) => header.field === 'phoneNumber')).toEqual({
      field: 'phoneNumber',
      ja: fieldLabel('corporates', 'phoneNumber'),
      api: 'phoneNumber',
    });
    for (const header of headers) {
      expect(header.ja, header.field ?? '').toMatch(/[\u3040-\u30ff\u4e00-\u9fff]/);
      expect(header.api).toBe(header.field);
    }

    // job search: its own filters, columns and facets, labelled the same way
    await page.selectOption('#search-kind', 'jobs');
    await page.fill('#filter-search', '');
    expect(await page.locator('#filter-groups button[data-filter="mediaId"] .ja').textContent()).toBe(
      filterLabel('jobs', 'mediaId'),
    );
    expect(
      await page.locator('#filter-groups button[data-filter="corporatePrefectureId"] .ja').textContent(),
    ).toBe('企業の都道府県（本社）');
    await runAndWait(page, '#run');
    expect(await page.getAttribute('#summary', 'data-total')).toBe(
      String(everyone.flatMap((e) => e.jobs).length),
    );
    expect(await page.textContent('#results th[data-field="contactPhoneNumber"] .ja')).toBe(
      fieldLabel('jobs', 'contactPhoneNumber'),
    );
    expect(await page.textContent('#facets [data-facet-key="mediaId"] h3 .ja')).toBe(
      filterLabel('jobs', 'mediaId'),
    );
    expect(
      await page.locator('#facets button[data-facet="mediaId"][data-value="3"] .count').textContent(),
    ).toBe(String(tokyo.flatMap((e) => e.jobs).length));
    expect(problems).toEqual([]);
    await context.close();
  });

  it('counts facets, and a click on a value adds it as a filter and narrows the results', async () => {
    const context = await newContext();
    const { page, problems } = await open(context);
    await enterKey(page);
    await runAndWait(page, '#run');
    expect(await page.getAttribute('#summary', 'data-total')).toBe(String(everyone.length));
    const osakaFacet = page.locator('#facets button[data-facet="prefectureId"][data-value="27"]');
    expect(await osakaFacet.locator('.count').textContent()).toBe('5');
    expect(await osakaFacet.textContent()).toContain('大阪府');

    await runAndWait(page, '#facets button[data-facet="prefectureId"][data-value="27"]');
    const body = JSON.parse((await page.textContent('#body-json')) ?? '{}');
    expect(body.filters).toEqual({ prefectureId: { any: [27] } });
    expect(await page.getAttribute('#summary', 'data-total')).toBe('5');
    expect((await rowIds(page)).sort()).toEqual(osaka.map((entry) => entry.company.corporateNumber).sort());
    expect(await page.locator('#chips [data-chip="prefectureId"]').textContent()).toContain('大阪府');
    expect(problems).toEqual([]);
    await context.close();
  });

  it('shows what an export costs and downloads only after the confirmation', async () => {
    const context = await newContext();
    const { page, problems, sent } = await open(context);
    await enterKey(page);
    await pickTokyo(page);
    const downloads: string[] = [];
    page.on('download', (download) => downloads.push(download.suggestedFilename()));

    await page.click('#export-check');
    await page.waitForSelector('#export-cost:not([hidden])');
    const count = await api('/rest/v1/corporates/count', { filters: { prefectureId: { any: [13] } } });
    expect(await page.getAttribute('#export-cost', 'data-credits')).toBe(String(count.exportCredits));
    expect(await page.getAttribute('#export-cost', 'data-total')).toBe('24');
    expect(await page.textContent('#export-cost')).toContain(
      `24 件をエクスポートすると ${count.exportCredits} クレジット`,
    );
    // priced, not yet bought: nothing was exported or downloaded
    expect(sent.filter((request) => request.path.endsWith('/export'))).toEqual([]);
    expect(downloads).toEqual([]);

    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export-confirm')]);
    const exported = sent.find((request) => request.path === '/rest/v1/corporates/export');
    expect(exported?.body).toEqual({
      filters: { prefectureId: { any: [13] } },
      format: 'csv',
      encoding: 'utf-8',
      maxCredits: count.exportCredits,
    });
    const file = await download.path();
    const { readFileSync } = await import('node:fs');
    const lines = readFileSync(file, 'utf8')
      .replace(/^\uFEFF/, '')
      .trim()
      .split('\r\n');
    expect(lines).toHaveLength(1 + 24);
    expect(download.suggestedFilename()).toMatch(/^corporates-\d{4}-\d{2}-\d{2}\.csv$/);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('pages forward and back with the API cursor', async () => {
    const context = await newContext();
    const { page, problems, sent, answers } = await open(context);
    await enterKey(page);
    await pickTokyo(page);
    await page.fill('#limit', '10');
    await page.dispatchEvent('#limit', 'change');
    await runAndWait(page, '#run', 1);
    const first = await rowIds(page);
    await runAndWait(page, '#next-page', 2);
    const second = await rowIds(page);
    await runAndWait(page, '#next-page', 3);
    const third = await rowIds(page);
    expect(await page.isDisabled('#next-page')).toBe(true);
    expect([first.length, second.length, third.length]).toEqual([10, 10, 4]);
    const all = [...first, ...second, ...third];
    expect(new Set(all).size).toBe(24);
    expect(all.sort()).toEqual(tokyo.map((entry) => entry.company.corporateNumber).sort());
    expect(await page.textContent('#summary')).toContain('21-24 件目');

    await runAndWait(page, '#prev-page', 2);
    expect(await rowIds(page)).toEqual(second);
    await runAndWait(page, '#prev-page', 1);
    expect(await rowIds(page)).toEqual(first);
    expect(await page.isDisabled('#prev-page')).toBe(true);

    // every page was a cursor page: '*' first, then the cursor the page before answered; going
    // back showed the pages received (the cursor goes forward only), with no new search
    const searches = sent.filter((request) => request.path === '/rest/v1/corporates/search');
    expect(searches.map((request) => request.body.cursor)).toEqual([
      '*',
      answers[0]?.body.nextCursor,
      answers[1]?.body.nextCursor,
    ]);
    expect(answers[2]?.body.nextCursor).toBeNull();
    expect(searches.every((request) => request.body.offset === undefined)).toBe(true);
    // forward again from page 1: the pages already received, still no new search
    await runAndWait(page, '#next-page', 2);
    expect(await rowIds(page)).toEqual(second);
    expect(sent.filter((request) => request.path === '/rest/v1/corporates/search')).toHaveLength(3);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('shows phone, website and e-mail, and beside a company the posting that matched', async () => {
    // wide, as the screenshot in docs/ shows it
    const context = await browser.newContext({ viewport: { width: 1680, height: 1000 } });
    const { page, problems } = await open(context);
    await enterKey(page);
    await page.fill('#filter-search', 'jobDescription');
    await page.click('#filter-groups button[data-filter="jobDescription"]');
    await page.fill('input[name="value-jobDescription"]', 'Kotlin');
    await runAndWait(page, '#run');
    const kotlin = tokyo.filter((_, i) => i % 3 === 0);
    expect(await page.getAttribute('#summary', 'data-total')).toBe(String(kotlin.length));
    const rows = await page.locator('#results tbody tr').evaluateAll((trs) =>
      trs.map((tr) => {
        const cell = (field: string) => tr.querySelector(`td[data-field="${field}"]`);
        return {
          id: tr.getAttribute('data-id'),
          phone: cell('phoneNumber')?.textContent,
          website: cell('websiteUrl')?.querySelector('a')?.getAttribute('href'),
          email: cell('email')?.querySelector('a')?.getAttribute('href'),
          title: cell('matchedPosting')?.querySelector('.posting-title')?.textContent,
          marked: [...(cell('matchedPosting')?.querySelectorAll('.snippet mark') ?? [])].map(
            (mark) => mark.textContent,
          ),
        };
      }),
    );
    expect(rows).toHaveLength(kotlin.length);
    for (const row of rows) {
      const entry = kotlin.find((candidate) => candidate.company.corporateNumber === row.id);
      expect(entry, String(row.id)).toBeDefined();
      expect(row.phone).toBe(entry?.company.phoneNumber);
      expect(row.website).toBe(entry?.company.websiteUrl);
      expect(row.email).toBe(`mailto:${entry?.company.email}`);
      expect(row.title).toBe(`${entry?.matchingTitle} (doda)`);
      expect(row.marked).toEqual(['Kotlin']);
    }
    // the price of exporting this list, shown before anything is bought (for the screenshot)
    await page.click('#export-check');
    await page.waitForSelector('#export-cost:not([hidden])');
    mkdirSync(path.join(projectRoot, '.local'), { recursive: true });
    await page.screenshot({
      path: path.join(projectRoot, '.local', 'console-list-builder.png'),
      fullPage: true,
    });
    expect(problems).toEqual([]);
    await context.close();
  });

  it('saves a search with the API, and another browser with the same key opens it', async () => {
    const context = await newContext();
    const first = await open(context);
    await enterKey(first.page);
    await pickTokyo(first.page);
    await first.page.selectOption('#sort-field', 'employeeCount');
    await first.page.selectOption('#sort-order', 'desc');
    await first.page.fill('#save-name', '東京の会社');
    await first.page.click('#save-search');
    await first.page.waitForFunction(() => document.querySelectorAll('#saved-list option').length === 1);
    const saved = first.sent.find((request) => request.path === '/rest/v1/saved-searches');
    expect(saved?.body).toEqual({
      name: '東京の会社',
      search: 'corporates',
      body: {
        filters: { prefectureId: { any: [13] } },
        sort: { field: 'employeeCount', order: 'desc' },
        limit: 25,
      },
    });
    // kept by the API, not by this browser: nothing in its storage, the key never in a request body
    expect(await first.page.evaluate(() => JSON.stringify(localStorage))).toBe('{}');
    expect(JSON.stringify(first.sent)).not.toContain(apiKey);
    await context.close();

    // another browser (nothing shared but the key): the saved search is there; opening it restores and runs it
    const other = await newContext();
    const { page, problems, sent } = await open(other);
    await enterKey(page);
    expect(await page.locator('#saved-list option').allTextContents()).toEqual(['東京の会社 (corporates)']);
    await runAndWait(page, '#open-saved');
    const search = sent.find((request) => request.path === '/rest/v1/corporates/search');
    expect(search?.body.filters).toEqual({ prefectureId: { any: [13] } });
    expect(search?.body.sort).toEqual({ field: 'employeeCount', order: 'desc' });
    expect(await page.locator('select[name="value-prefectureId"] option:checked').allTextContents()).toEqual([
      '東京都 (13)',
    ]);
    expect(await page.getAttribute('#summary', 'data-total')).toBe('24');
    // deleted from the list, and from the API
    await page.click('#delete-saved');
    await page.waitForFunction(() => document.querySelectorAll('#saved-list option').length === 0);
    const listed = await fetch(`${baseUrl}/rest/v1/saved-searches`, { headers: { 'X-API-Key': apiKey } });
    expect(((await listed.json()) as { results: unknown[] }).results).toEqual([]);
    expect(problems).toEqual([]);
    await other.close();
  });

  it('opens a saved search a program saved in flat form, and moves searches an earlier console kept in the browser', async () => {
    const programSaved = await fetch(`${baseUrl}/rest/v1/saved-searches`, {
      method: 'POST',
      headers: { 'X-API-Key': apiKey, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'プログラムから', search: 'corporates', body: { prefectureIdOr: [13] } }),
    });
    expect(programSaved.status).toBe(201);
    const context = await newContext();
    // what the console before the API's saved searches left in this browser
    await context.addInitScript(() => {
      if (localStorage.getItem('corpsearch.savedSearches') === null && !sessionStorage.getItem('seeded')) {
        sessionStorage.setItem('seeded', '1');
        localStorage.setItem(
          'corpsearch.savedSearches',
          JSON.stringify([
            {
              name: 'ブラウザに保存',
              kind: 'corporates',
              filters: { prefectureId: { any: [13] } },
              sort: '',
              limit: 10,
            },
          ]),
        );
      }
    });
    const { page, problems, sent } = await open(context);
    await enterKey(page);
    expect((await page.locator('#saved-list option').allTextContents()).sort()).toEqual(
      ['ブラウザに保存 (corporates)', 'プログラムから (corporates)'].sort(),
    );
    expect(await page.evaluate(() => localStorage.getItem('corpsearch.savedSearches'))).toBeNull();
    const moved = sent.find((request) => request.path === '/rest/v1/saved-searches');
    expect(moved?.body).toEqual({
      name: 'ブラウザに保存',
      search: 'corporates',
      body: { filters: { prefectureId: { any: [13] } }, limit: 10 },
    });
    await page.selectOption('#saved-list', { label: 'プログラムから (corporates)' });
    await runAndWait(page, '#open-saved');
    const search = sent.filter((request) => request.path === '/rest/v1/corporates/search').at(-1);
    expect(search?.body.filters).toEqual({ prefectureId: { any: [13] } });
    expect(problems).toEqual([]);
    for (const id of await page
      .locator('#saved-list option')
      .evaluateAll((options) => options.map((option) => (option as HTMLOptionElement).value)))
      await fetch(`${baseUrl}/rest/v1/saved-searches/${id}`, {
        method: 'DELETE',
        headers: { 'X-API-Key': apiKey },
      });
    await context.close();
  });

  it('puts the search in the URL, and the URL in a fresh browser runs the same search', async () => {
    const context = await newContext();
    const { page } = await open(context);
    await enterKey(page);
    await pickTokyo(page);
    await page.fill('#filter-search', 'jobTitle');
    await page.click('#filter-groups button[data-filter="jobTitle"]');
    await page.fill('input[name="value-jobTitle"]', 'エンジニア');
    await runAndWait(page, '#run');
    const expected = await rowIds(page);
    expect(expected).toHaveLength(8);
    const url = page.url();
    expect(url).toContain('#search?kind=corporates&filters=');
    await context.close();

    // nothing carried over: no session storage (no key), no local storage
    const fresh = await newContext();
    const reopened = await open(fresh, url);
    expect(await reopened.page.textContent('#summary')).toContain('API キーを入力すると');
    await reopened.page.fill('#api-key', apiKey);
    await reopened.page.click('#use-key');
    await reopened.page.waitForSelector('#summary[data-total]');
    expect(await rowIds(reopened.page)).toEqual(expected);
    const search = reopened.sent.find((request) => request.path === '/rest/v1/corporates/search');
    expect(search?.body.filters).toEqual({
      prefectureId: { any: [13] },
      jobTitle: { anyContains: ['エンジニア'] },
    });
    expect(reopened.page.url()).toBe(url);
    expect(reopened.problems).toEqual([]);
    await fresh.close();
  });

  it('wraps filter and condition chips instead of clipping them', async () => {
    const context = await browser.newContext({ viewport: { width: 900, height: 900 } });
    const { page, problems } = await open(context);
    await enterKey(page);
    await page.fill('#filter-search', 'summary');
    await page.click('#filter-groups button[data-filter="summary"]');
    const long = Array.from({ length: 12 }, (_, i) => `とても長い事業概要のキーワード${i}`).join(', ');
    await page.fill('input[name="value-summary"]', long);
    await page.fill('#filter-search', '');
    const overflow = await page.evaluate(() => {
      const clipped: string[] = [];
      const boxes = [...document.querySelectorAll('.filter-list, #chips')];
      for (const box of boxes) {
        if (box.scrollWidth > box.clientWidth + 1 || box.scrollHeight > box.clientHeight + 1)
          clipped.push(`${box.id || box.className} scrolls`);
        const outer = box.getBoundingClientRect();
        for (const chip of box.children) {
          const inner = chip.getBoundingClientRect();
          if (inner.right > outer.right + 1 || inner.left < outer.left - 1)
            clipped.push(chip.textContent ?? '');
        }
      }
      return { clipped, chips: document.querySelectorAll('#chips .chip').length, boxes: boxes.length };
    });
    expect(overflow.chips).toBe(1);
    expect(overflow.boxes).toBeGreaterThan(3);
    expect(overflow.clipped).toEqual([]);
    // the long chip wrapped onto several lines rather than running out of its box
    const chipHeight = await page
      .locator('#chips .chip')
      .evaluate((chip) => chip.getBoundingClientRect().height);
    expect(chipHeight).toBeGreaterThan(40);
    expect(problems).toEqual([]);
    await context.close();
  });
});
