/**
 * The query console (/console) in a real headless Chromium (Debian's `chromium` package,
 * installed by scripts/setup.sh; driven by playwright-core, no browser download), against the
 * real app on the shared OpenSearch node and redis-server. A user enters a key, picks a
 * prefecture and a medium from the master pick lists, runs the search, and the table must show
 * exactly what the API itself answers to the body the page displays.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, keyStoreFor } from '../../src/auth/key-admin.js';
import { publicCatalogue } from '../../src/catalogue/public-catalogue.js';
import { projectRoot } from '../../src/project-root.js';
import type { Services } from '../../src/services.js';
import { corporate, indexFixture, posting } from '../fixtures/search/docs.js';
import { type ConsoleRig, problemsOf, startConsoleRig } from '../support/console-rig.js';
import { setUpServices } from '../support/env.js';

/** Debian's package; CHROMIUM_PATH for another install (macOS: the Chrome app's binary). */
let services: Services;
let rig: ConsoleRig;
let baseUrl = '';
let browser: Browser;
let apiKey = '';

// Tokyo with doda (media id 3), Tokyo with another medium, Osaka with doda
const tokyoDoda = ['千代田区', '港区', '渋谷区'].map((cityName, i) =>
  corporate({
    name: `東京ドーダ${i}`,
    prefectureId: 13,
    prefectureName: '東京都',
    cityName,
    industryCategoryName: '情報通信業',
    employeeCount: 120 + i * 35,
    workLocationCount: 1 + i,
    postings: [posting({ mediaId: 3 })],
  }),
);
const tokyoOther = corporate({ name: '東京その他', prefectureId: 13, postings: [posting({ mediaId: 1 })] });
const osakaDoda = corporate({ name: '大阪ドーダ', prefectureId: 27, postings: [posting({ mediaId: 3 })] });

beforeAll(async () => {
  services = await setUpServices('console');
  await indexFixture(services.opensearch, services.config.indexPrefix, {
    corporates: [...tokyoDoda, tokyoOther, osakaDoda],
  });
  const userId = 'console-user';
  ({ key: apiKey } = await createApiKey(keyStoreFor(services.redis, services.config.redisPrefix), {
    userId,
  }));
  await services.limits.ledger.grant(userId, 100);
  rig = await startConsoleRig(services);
  ({ baseUrl, browser } = rig);
});
afterAll(async () => {
  await rig?.close();
  await services?.close();
});

/** A page that fails the test on any script error or CSP violation. */
async function openConsole(): Promise<{ page: Page; problems: string[] }> {
  const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  const page = await context.newPage();
  const problems = problemsOf(page);
  await page.goto(`${baseUrl}/console`);
  await page.waitForSelector('body[data-ready="true"]');
  return { page, problems };
}

describe('query console in headless Chromium', () => {
  it('serves the page under a strict CSP with its script as a file', async () => {
    const response = await fetch(`${baseUrl}/console/`);
    expect(response.status).toBe(200);
    const csp = response.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    const html = await response.text();
    expect(html).toContain('<script type="module" src="console.js"></script>');
    expect(html).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/); // no inline script
    expect(html).not.toMatch(/\sstyle=|\son[a-z]+=/); // no inline style or handler
    expect((await fetch(`${baseUrl}/console/console.js`)).headers.get('content-type')).toMatch(/javascript/);
  });

  it('groups the filters as company, postings and detail text, and finds them by name', async () => {
    const { page, problems } = await openConsole();
    const legends = await page.locator('#filter-groups legend').allTextContents();
    const corporates = publicCatalogue()[0];
    const count = (group: string) => corporates?.filters.filter((filter) => filter.group === group).length;
    expect(legends).toEqual([
      `会社 (${count('company')})`,
      `求人 (${count('postings')})`,
      `求人の本文 (${count('detailText')})`,
    ]);
    await page.fill('#filter-search', 'media');
    const shown = await page
      .locator('#filter-groups button')
      .evaluateAll((buttons) => buttons.map((button) => button.getAttribute('data-filter') ?? ''));
    expect(shown.length).toBeGreaterThan(0);
    for (const name of shown) expect(name.toLowerCase()).toContain('media');
    // a filter is found by its Japanese label too
    await page.fill('#filter-search', '都道府県');
    expect(
      await page.locator('#filter-groups [data-group="company"] button').getAttribute('data-filter'),
    ).toBe('prefectureId');
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('picks a prefecture and a medium by name, runs, and shows what the API answers', async () => {
    const { page, problems } = await openConsole();
    await page.fill('#api-key', apiKey);
    await page.click('#use-key');
    await page.waitForFunction(() => document.querySelector('#key-status')?.textContent?.includes('loaded'));
    // the key is in this tab's session storage only, and no longer in the input
    expect(await page.evaluate(() => Object.keys(localStorage).length)).toBe(0);
    expect(await page.evaluate(() => sessionStorage.getItem('corpsearch.apiKey'))).toBe(apiKey);
    expect(await page.inputValue('#api-key')).toBe('');

    const corporateFacets = publicCatalogue()[0]?.facets.map((facet) => facet.key);
    await page.fill('#filter-search', 'prefecture');
    await page.click('#filter-groups button[data-filter="prefectureId"]');
    await page.selectOption('select[name="value-prefectureId"]', { label: '東京都 (13)' });
    await page.fill('#filter-search', 'media');
    await page.click('#filter-groups [data-group="postings"] button[data-filter="jobMediaId"]');
    await page.selectOption('select[name="value-jobMediaId"]', { label: 'doda (3)' });

    const shownBody = JSON.parse((await page.textContent('#body-json')) ?? '{}');
    // the first page of cursor paging, with the facets the panel shows
    expect(shownBody).toEqual({
      limit: 25,
      cursor: '*',
      facets: corporateFacets,
      filters: { prefectureId: { any: [13] }, jobMediaId: { any: [3] } },
    });
    const curl = (await page.textContent('#curl')) ?? '';
    expect(curl).toContain(`${baseUrl}/rest/v1/corporates/search`);
    expect(curl).toContain(JSON.stringify(shownBody));
    expect(curl).not.toContain(apiKey);

    await page.click('#run');
    await page.waitForSelector('#summary[data-total]');
    const rows = await page.locator('#results tbody tr').evaluateAll((trs) =>
      trs.map((tr) => ({
        id: tr.getAttribute('data-id'),
        name: tr.querySelector('td[data-field="name"]')?.textContent,
      })),
    );

    // the API's own answer to the body the page showed
    const response = await fetch(`${baseUrl}/rest/v1/corporates/search`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
      body: JSON.stringify(shownBody),
    });
    const answer = (await response.json()) as {
      totalResults: number;
      results: Array<{ corporateNumber: string; name: string }>;
    };
    expect(answer.results.map((record) => record.name).sort()).toEqual([
      '東京ドーダ0',
      '東京ドーダ1',
      '東京ドーダ2',
    ]);
    expect(rows.map((row) => row.id)).toEqual(answer.results.map((record) => record.corporateNumber));
    expect(rows.map((row) => row.name)).toEqual(answer.results.map((record) => record.name));
    expect(await page.getAttribute('#summary', 'data-total')).toBe(String(answer.totalResults));
    expect(await page.textContent('#summary')).toContain('3 件');

    mkdirSync(path.join(projectRoot, '.local'), { recursive: true });
    await page.screenshot({ path: path.join(projectRoot, '.local', 'console.png'), fullPage: true });
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('shows a 400 as the field and the reason', async () => {
    const { page, problems } = await openConsole();
    await page.evaluate((key) => sessionStorage.setItem('corpsearch.apiKey', key), apiKey);
    await page.fill('#limit', '5000');
    await page.dispatchEvent('#limit', 'change');
    await page.click('#run');
    await page.waitForSelector('#errors li');
    expect(await page.locator('#errors li').allTextContents()).toEqual(['limit: must be at most 1000']);
    expect(await page.textContent('#summary')).toMatch(/^400: /);
    // the browser reports a failed fetch as a console error; nothing else may appear
    expect(problems.filter((problem) => !problem.includes('status of 400'))).toEqual([]);
    await page.context().close();
  });
});
