/**
 * Credits through HTTP on the real redis-server and the real OpenSearch: exact under 1,000
 * concurrent searches on two app instances, no charge for a search that fails in OpenSearch,
 * 402 before OpenSearch is asked, X-Credits-Remaining on every charged response.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createLimits, type Limits } from '../../src/limits/limits.js';
import { createCreditLedger } from '../../src/limits/open-credit-ledger.js';
import { createEngine } from '../../src/opensearch/engine.js';
import type { Services } from '../../src/services.js';
import { startDeadEndpoint } from '../support/dead-endpoint.js';
import { setUpServices } from '../support/env.js';
import { type LedgerHistory, recordLedger } from '../support/ledger-history.js';
import {
  carriesSeededRecord,
  queryTotal,
  search,
  seededCorporateNumber,
  seededJob,
  startLimitsTestApp,
  type TestApp,
  userHeaders,
} from '../support/limits-test-app.js';

let services: Services;
let limits: Limits;
/** Every ledger call the apps made, with the ledger's answers. */
let history: LedgerHistory;
let appA: TestApp;
let appB: TestApp;
/** Same limits and Redis, but its OpenSearch is a closed port: every search fails (503). */
let broken: TestApp;
const deadEngine = await startDeadEndpoint();
const closedOpenSearch = createEngine(deadEngine.url);

beforeAll(async () => {
  services = await setUpServices('credits');
  const real = createLimits({
    redis: services.redis,
    keyPrefix: services.config.redisPrefix,
    // out of the way: this file tests credits, not the rate
    config: { ratePerSecond: 1_000_000, searchCost: 3 },
  });
  history = recordLedger(real.ledger);
  limits = { ...real, ledger: history.ledger };
  const deps = { limits, opensearch: services.opensearch, indexPrefix: services.config.indexPrefix };
  appA = await startLimitsTestApp(deps);
  appB = await startLimitsTestApp(deps);
  broken = await startLimitsTestApp({ ...deps, opensearch: closedOpenSearch, seed: false });
});
afterAll(async () => {
  await Promise.all([appA?.close(), appB?.close(), broken?.close()]);
  await closedOpenSearch.close();
  await deadEngine.close();
  await services?.close();
});

describe('credits under concurrency', () => {
  it('1,000 concurrent searches on two instances: balance = start - cost x successes, never negative', async () => {
    const start = 1000;
    await limits.ledger.grant('heavy', start);
    // every tenth through the instance whose OpenSearch is down: reserved, failed, refunded
    const instance = (i: number) => (i % 10 === 9 ? broken : i % 2 === 0 ? appA : appB);
    const responses = await Promise.all(
      Array.from({ length: 1000 }, (_, i) => search(instance(i).url, 'heavy')),
    );

    const ok = responses.filter((res) => res.status === 200).length;
    const short = responses.filter((res) => res.status === 402).length;
    const failed = responses.filter((res) => res.status === 503).length;
    expect(ok + short + failed).toBe(1000);
    // every balance the ledger reported after a debit, refund or grant: none below zero
    expect(history.lowest('heavy')).toBeGreaterThanOrEqual(0);
    expect(failed).toBeGreaterThan(0);
    expect(ok).toBeGreaterThan(0);
    expect(ok).toBeLessThanOrEqual(333);
    // a route writing its own 503 would be refunded just after the response: let it settle
    await vi.waitFor(async () => expect(await limits.ledger.balance('heavy')).toBe(start - 3 * ok));
    expect(history.reservations('heavy').length).toBe(ok + failed);
    expect(short).toBeGreaterThan(0);
    console.log(`1,000 concurrent: ${ok} x 200, ${short} x 402, ${failed} x 503; balance ${start - 3 * ok}`);
    // a bound on a loaded machine, not a speed claim: 1,000 searches through one OpenSearch
  }, 240_000);
});

describe('charging', () => {
  it('charges a successful search its cost and shows the balance left', async () => {
    await limits.ledger.grant('paying', 10);
    const res = await search(appA.url, 'paying');
    expect(res.status).toBe(200);
    expect(res.headers.get('x-credits-remaining')).toBe('7');
    expect(await limits.ledger.balance('paying')).toBe(7);
  });

  it('does not charge a search that fails in OpenSearch (refunded exactly once)', async () => {
    await limits.ledger.grant('unlucky', 10);
    const one = await search(broken.url, 'unlucky');
    expect(one.status).toBe(503);
    expect(one.headers.get('retry-after')).toBe('1');
    expect(one.headers.get('x-credits-remaining')).toBe('10');
    expect((await one.json()).message).toMatch(/No credits were charged/);
    // refunded before the 503 went out
    expect(await limits.ledger.balance('unlucky')).toBe(10);

    const results = await Promise.all(Array.from({ length: 3 }, () => search(broken.url, 'unlucky')));
    expect(results.map((res) => res.status)).toEqual([503, 503, 503]);
    expect(await limits.ledger.balance('unlucky')).toBe(10);
    // refunded exactly once, shown by the ledger's state: each of the four reservations was
    // paid back once, and a further refund of any of them gives nothing back
    const reservations = history.reservations('unlucky');
    expect(reservations).toHaveLength(4);
    await vi.waitFor(() => {
      for (const id of reservations) expect(history.refundsPaid(id)).toBe(1);
    });
    const direct = createCreditLedger({ redis: services.redis, keyPrefix: services.config.redisPrefix });
    for (const id of reservations) expect(await direct.refund(id)).toBeNull();
    expect(await limits.ledger.balance('unlucky')).toBe(10);
  });

  it('balance 0 -> 402, and OpenSearch receives no query', async () => {
    const queriesBefore = await queryTotal(services.opensearch, services.config.indexPrefix);
    const responses = await Promise.all(Array.from({ length: 5 }, () => search(appA.url, 'broke')));
    for (const res of responses) {
      expect(res.status).toBe(402);
      expect(res.headers.get('x-credits-remaining')).toBe('0');
      expect(await res.json()).toEqual({
        message: expect.stringMatching(
          /^Not enough API credits: this search costs 3, the balance is 0\. Nothing was searched or charged\. Credits do not renew by themselves: the API's operator grants them to your user; ask them for more \(docUrl\)\.$/,
        ),
        code: 'insufficient_credits',
        requestId: res.headers.get('x-request-id'),
        docUrl: '/docs/errors#insufficient_credits',
      });
    }
    // a job search is refused the same way, before the job index is asked
    const jobs = await search(appA.url, 'broke', { path: '/rest/v1/jobs/search' });
    expect(jobs.status).toBe(402);
    const refused = await jobs.text();
    expect(JSON.parse(refused)).toMatchObject({ code: 'insufficient_credits' });
    expect(carriesSeededRecord(refused)).toBe(false);
    expect(await queryTotal(services.opensearch, services.config.indexPrefix)).toBe(queriesBefore);
    // the same measure does see a query when the user can pay, and the answer then is the
    // app's one company and one posting, which the 402s above did not carry
    await limits.ledger.grant('broke', 6);
    const paid = await search(appA.url, 'broke');
    expect(paid.status).toBe(200);
    expect(await queryTotal(services.opensearch, services.config.indexPrefix)).toBeGreaterThan(queriesBefore);
    const afterCompanies = await queryTotal(services.opensearch, services.config.indexPrefix);
    const paidJobs = await search(appA.url, 'broke', { path: '/rest/v1/jobs/search' });
    expect(paidJobs.status).toBe(200);
    expect(await queryTotal(services.opensearch, services.config.indexPrefix)).toBeGreaterThan(
      afterCompanies,
    );
    const served = await paid.text();
    expect(JSON.parse(served).results.map((r: { corporateNumber: string }) => r.corporateNumber)).toEqual([
      seededCorporateNumber,
    ]);
    expect(carriesSeededRecord(served)).toBe(true);
    expect((await paidJobs.json()).results.map((r: { id: string }) => r.id)).toEqual([seededJob.id]);
    expect(await limits.ledger.balance('broke')).toBe(0);
  });

  it('a balance short of the cost is a 402 and is left as it was', async () => {
    await limits.ledger.grant('almost', 2);
    const res = await search(appA.url, 'almost');
    expect(res.status).toBe(402);
    expect(await limits.ledger.balance('almost')).toBe(2);
  });

  it('job detail is free by default and touches no balance', async () => {
    await limits.ledger.grant('reader', 3);
    const res = await fetch(`${appA.url}/rest/v1/jobs/J-1/detail`, { headers: await userHeaders('reader') });
    expect(res.status).toBe(200);
    expect(await limits.ledger.balance('reader')).toBe(3);
  });

  it('charges job detail when DETAIL_CREDIT_COST says so', async () => {
    const priced = createLimits({
      redis: services.redis,
      keyPrefix: `${services.config.redisPrefix}priced:`,
      config: { detailCost: 2 },
    });
    await priced.ledger.grant('reader', 3);
    const app = await startLimitsTestApp({
      limits: priced,
      opensearch: services.opensearch,
      indexPrefix: services.config.indexPrefix,
    });
    try {
      const first = await fetch(`${app.url}/rest/v1/jobs/J-1/detail`, {
        headers: await userHeaders('reader'),
      });
      expect(first.status).toBe(200);
      expect(first.headers.get('x-credits-remaining')).toBe('1');
      expect(await first.json()).toMatchObject({ id: 'J-1', description: '仕事内容' });
      // refused before the detail is read: no engine read, and not the description
      const before = await queryTotal(services.opensearch, services.config.indexPrefix);
      const second = await fetch(`${app.url}/rest/v1/jobs/J-1/detail`, {
        headers: await userHeaders('reader'),
      });
      expect(second.status).toBe(402);
      const refused = await second.text();
      expect(JSON.parse(refused)).not.toHaveProperty('description');
      expect(carriesSeededRecord(refused)).toBe(false);
      expect(await queryTotal(services.opensearch, services.config.indexPrefix)).toBe(before);
    } finally {
      await app.close();
    }
  });
});
