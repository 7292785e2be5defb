/**
 * The console's usage view (/console/#usage) in a real headless Chromium (as
 * test/console/console.test.ts), against the real app, engine and Redis ledger: a user's grant and
 * searches, filed into the ledger, are drawn as one bar per day (today's the credits spent),
 * summed per operation, and listed entry by entry, page by page.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, keyStoreFor } from '../../src/auth/key-admin.js';
import { fileLedgerTail, ledgerIndex } from '../../src/limits/ledger-filing.js';
import { tokyoToday } from '../../src/limits/usage.js';
import { projectRoot } from '../../src/project-root.js';
import type { Services } from '../../src/services.js';
import { postJson } from '../support/bounded-http.js';
import { type ConsoleRig, problemsOf, startConsoleRig } from '../support/console-rig.js';
import { setUpServices } from '../support/env.js';

let services: Services;
let rig: ConsoleRig;
let baseUrl = '';
let browser: Browser;

beforeAll(async () => {
  services = await setUpServices('console-usage');
  rig = await startConsoleRig(services);
  ({ baseUrl, browser } = rig);
});
afterAll(async () => {
  await rig?.close();
  await services?.close();
});

describe('the usage view in headless Chromium', () => {
  it('draws a bar per day, sums per operation and lists the entries page by page', async () => {
    const userId = 'usage-view';
    const { key } = await createApiKey(keyStoreFor(services.redis, services.config.redisPrefix), { userId });
    await services.limits.ledger.grant(userId, 100);
    for (let i = 0; i < 3; i += 1) {
      const res = await postJson(`${baseUrl}/rest/v1/corporates/search`, { 'x-api-key': key }, { limit: 1 });
      expect(res.status).toBe(200);
      await res.text();
    }
    await expect.poll(async () => (await services.limits.ledger.account(userId)).open.reservations).toBe(0);
    const spent = 100 - (await services.limits.ledger.balance(userId));
    expect(spent).toBe(3 * services.config.limits.searchCost);
    await fileLedgerTail(
      services.limits.ledger,
      services.opensearch,
      ledgerIndex(services.config.indexPrefix),
    );
    await services.opensearch.indices.refresh({ index: ledgerIndex(services.config.indexPrefix) });

    const context = await browser.newContext({ viewport: { width: 1300, height: 1000 } });
    const page = await context.newPage();
    const problems = problemsOf(page);
    await page.goto(`${baseUrl}/console/#usage`);
    await page.waitForSelector('body[data-ready="true"]');
    expect(await page.isVisible('#usage-view')).toBe(true);
    expect(await page.isVisible('#search-view')).toBe(false);
    await page.fill('#api-key', key);
    await page.click('#use-key');
    await page.waitForSelector('#usage-summary[data-done="true"]');
    expect(await page.getAttribute('#usage-summary', 'data-spent')).toBe(String(spent));
    expect(await page.textContent('#usage-summary')).toContain(`残高 ${100 - spent} クレジット`);
    // 30 days, one bar each; today's holds the searches, the others none
    const bars = await page.locator('#usage-chart rect.bar').evaluateAll((rects) =>
      rects.map((rect) => ({
        date: rect.getAttribute('data-date'),
        credits: Number(rect.getAttribute('data-credits')),
        height: Number(rect.getAttribute('height')),
      })),
    );
    expect(bars).toHaveLength(30);
    expect(bars.at(-1)).toMatchObject({ date: tokyoToday(), credits: spent });
    expect(bars.at(-1)?.height).toBeGreaterThan(0);
    expect(bars.slice(0, -1).every((bar) => bar.credits === 0 && bar.height === 0)).toBe(true);
    const operations = await page.locator('#usage-operations tbody tr').allTextContents();
    expect(operations).toEqual([`POST /corporates/search${spent}3`]);
    // the grant and the three charges, newest first
    const kinds = await page
      .locator('#usage-entries tbody tr')
      .evaluateAll((rows) => rows.map((row) => row.getAttribute('data-kind')));
    expect(kinds).toEqual(['charge', 'charge', 'charge', 'grant']);
    expect(await page.isVisible('#usage-more')).toBe(false);
    mkdirSync(path.join(projectRoot, '.local'), { recursive: true });
    await page.screenshot({ path: path.join(projectRoot, '.local', 'console-usage.png'), fullPage: true });

    // a range backwards: the API's 400 named on the page
    await page.fill('#usage-from', '2026-11-10');
    await page.fill('#usage-to', '2026-11-01');
    await page.click('#usage-run');
    await page.waitForSelector('#usage-summary[data-done="error"]');
    expect(await page.textContent('#usage-error')).toContain('from');
    expect(problems.filter((p) => !p.includes('400'))).toEqual([]);
    await context.close();
  });
});
