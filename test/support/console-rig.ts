/**
 * What the console's browser tests share (test/console/): the app of the test's services on a
 * loopback port, Debian's Chromium headless (no browser download reaches the machine; as root,
 * as in CI containers, it needs --no-sandbox), and the script and CSP errors a page reports.
 *
 *   rig = await startConsoleRig(services);
 *   const page = await (await rig.browser.newContext()).newPage();
 *   const problems = problemsOf(page);
 *   await page.goto(`${rig.baseUrl}/console/#usage`);
 *   ...
 *   expect(problems).toEqual([]);
 *   await rig.close();
 */

import { once } from 'node:events';
import { existsSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { type Browser, chromium, type Page } from 'playwright-core';
import { createApp } from '../../src/http/app.js';
import type { Services } from '../../src/services.js';

export const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export interface ConsoleRig {
  /** `http://127.0.0.1:<port>`, the app's address. */
  baseUrl: string;
  browser: Browser;
  /** Closes the browser and the app's server (its open connections too). */
  close(): Promise<void>;
}

export async function startConsoleRig(services: Services): Promise<ConsoleRig> {
  if (!existsSync(chromiumPath))
    throw new Error(`no Chromium at ${chromiumPath}: run scripts/setup.sh (apt-get install chromium)`);
  const server = createApp(services).listen(0, '127.0.0.1');
  await once(server, 'listening');
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const browser = await chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: ['--no-sandbox'],
  });
  return {
    baseUrl,
    browser,
    async close() {
      await browser.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** The page's script errors and console errors (a CSP violation among them), as they come. */
export function problemsOf(page: Page): string[] {
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
  });
  return problems;
}
