import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, keyStoreFor } from '../../src/auth/key-admin.js';
import { defaultConfig } from '../../src/config.js';
import type { Services } from '../../src/services.js';
import { WebhookStore } from '../../src/webhooks/store.js';
import { postJson } from '../support/bounded-http.js';
import { type ConsoleRig, problemsOf, startConsoleRig } from '../support/console-rig.js';
import { setUpServices } from '../support/env.js';

let services: Services;
let rig: ConsoleRig;
let baseUrl = '';
let browser: Browser;

beforeAll(async () => {
  services = await setUpServices('console-webhooks', {
    // the page's and the test's calls in one second are more than a user's default 5
    limits: { ...defaultConfig().limits, ratePerSecond: 10_000 },
    webhooks: { ...defaultConfig().webhooks, allowLoopback: true },
  });
  rig = await startConsoleRig(services);
  ({ baseUrl, browser } = rig);
});
afterAll(async () => {
  await rig?.close();
  await services?.close();
});

async function newUser(userId: string): Promise<string> {
  const { key } = await createApiKey(keyStoreFor(services.redis, services.config.redisPrefix), { userId });
  return key;
}

async function post(key: string, path: string, body: object): Promise<Record<string, unknown>> {
  const res = await postJson(`${baseUrl}/rest/v1${path}`, { 'x-api-key': key }, body);
  const answer = (await res.json()) as Record<string, unknown>;
  expect(res.status, JSON.stringify(answer)).toBe(201);
  return answer;
}

/** A watched search of the user's and a webhook on it, to a loopback URL nothing answers at. */
async function webhookOf(key: string, url: string): Promise<string> {
  const saved = await post(key, '/saved-searches', {
    name: '東京の会社',
    search: 'corporates',
    body: { prefectureIdOr: [13] },
    watchFields: ['employeeCount'],
  });
  const webhook = await post(key, '/webhooks', { savedSearchId: saved.id, url });
  return webhook.id as string;
}

describe('the webhooks view in headless Chromium', () => {
  it("lists the user's webhooks with their state, shows a delivery log, and restarts a stopped one", async () => {
    const key = await newUser('webhooks-view');
    const active = await webhookOf(key, 'http://127.0.0.1:9/active');
    const stopped = await webhookOf(key, 'http://127.0.0.1:9/stopped');
    await webhookOf(await newUser('webhooks-view-other'), 'http://127.0.0.1:9/someone-else');
    // the worker's doings, written as it writes them: two attempts, and a receiver's 410
    const store = new WebhookStore(services.redis as never, services.config.redisPrefix);
    const attempt = { eventType: 'company.entered', error: null, durationMs: 12 };
    await store.logAttempt(active, {
      ...attempt,
      eventId: 'evt_1',
      attempt: 1,
      outcome: 'failed',
      statusCode: 500,
      error: 'answered 500',
      at: '2026-11-30T01:00:00.000Z',
    });
    await store.logAttempt(active, {
      ...attempt,
      eventId: 'evt_1',
      attempt: 2,
      outcome: 'delivered',
      statusCode: 200,
      at: '2026-11-30T01:00:05.000Z',
    });
    expect(await store.disable(stopped, 'the receiver answered 410 Gone')).toBe(true);

    const context = await browser.newContext({ viewport: { width: 1300, height: 1000 } });
    const page = await context.newPage();
    const problems = problemsOf(page);
    await page.goto(`${baseUrl}/console/#webhooks`);
    await page.waitForSelector('body[data-ready="true"]');
    expect(await page.isVisible('#webhooks-view')).toBe(true);
    expect(await page.isVisible('#search-view')).toBe(false);
    await page.fill('#api-key', key);
    await page.click('#use-key');
    await page.waitForSelector('#webhooks-summary[data-done="true"]');
    expect(await page.textContent('#webhooks-summary')).toBe('2 件 (停止中 1 件)');
    const rows = () =>
      page.locator('#webhooks-list tbody tr').evaluateAll((trs) =>
        trs.map((tr) => ({
          id: tr.getAttribute('data-id'),
          state: tr.getAttribute('data-state'),
          url: tr.querySelector('td')?.textContent,
          restart: tr.querySelector('button.enable') !== null,
        })),
      );
    expect((await rows()).sort((a, b) => String(a.url).localeCompare(String(b.url)))).toEqual([
      { id: active, state: 'active', url: 'http://127.0.0.1:9/active', restart: false },
      { id: stopped, state: 'disabled', url: 'http://127.0.0.1:9/stopped', restart: true },
    ]);
    expect(await page.textContent(`#webhooks-list tr[data-id="${stopped}"] .state`)).toContain(
      'the receiver answered 410 Gone',
    );

    // the delivery log, newest first
    await page.click(`#webhooks-list tr[data-id="${active}"] button.show-deliveries`);
    await page.waitForSelector(`#webhook-deliveries-section[data-webhook="${active}"]`);
    const deliveries = await page
      .locator('#webhook-deliveries tbody tr')
      .evaluateAll((trs) =>
        trs.map((tr) => [...tr.querySelectorAll('td')].slice(1).map((td) => td.textContent)),
      );
    expect(deliveries).toEqual([
      ['company.entered', '2', '配信済み', '200', '', '12'],
      ['company.entered', '1', '失敗 (再送予定)', '500', 'answered 500', '12'],
    ]);

    // restarted from the page: active again for the API as for the page
    await page.click(`#webhooks-list tr[data-id="${stopped}"] button.enable`);
    await page.waitForSelector(`#webhooks-list tr[data-id="${stopped}"][data-state="active"]`);
    expect(await page.textContent('#webhooks-summary')).toBe('2 件 (停止中 0 件)');
    const again = await fetch(`${baseUrl}/rest/v1/webhooks/${stopped}`, { headers: { 'x-api-key': key } });
    const answer = (await again.json()) as { disabledAt: unknown };
    expect(again.status, JSON.stringify(answer)).toBe(200);
    expect(answer.disabledAt).toBeNull();
    expect(problems).toEqual([]);
    await context.close();
  });
});
