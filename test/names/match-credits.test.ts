/**
 * The price and limits of POST /rest/v1/corporates/match on the real redis-server and the real
 * engine: the worst case reserved (records x MATCH_CREDIT_COST, at most maxCredits), settled
 * at the certain matches, refunded when the engine fails, Idempotency-Key replayed without a
 * second charge, one rate-limit slot per request shared with the searches.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { createLimits, type Limits } from '../../src/limits/limits.js';
import { createEngine } from '../../src/opensearch/engine.js';
import type { Services } from '../../src/services.js';
import { indexCompanies, numberOf } from '../fixtures/match/companies.js';
import { startDeadEndpoint } from '../support/dead-endpoint.js';
import { setUpServices } from '../support/env.js';
import { type LedgerHistory, recordLedger } from '../support/ledger-history.js';
import { queryTotal, search, startLimitsTestApp, type TestApp } from '../support/limits-test-app.js';

let services: Services;
let limits: Limits;
let history: LedgerHistory;
let app: TestApp;
/** Same limits and Redis; its engine is a closed port. */
let broken: TestApp;
/** Its own limits: 2 requests per user per (widened) window, for the shared slot. */
let narrow: TestApp;
let narrowLimits: Limits;
const deadEngine = await startDeadEndpoint();
const closedOpenSearch = createEngine(deadEngine.url);

/** Two certain matches (the only companies of their names), two not (two of that name; generic). */
const fourRecords = [
  { name: '㈱マルカ物流' },
  { name: 'アオイ工業' },
  { name: 'ＮＯＶＡ Ｓｙｓｔｅｍｓ' },
  { name: '株式会社日本' },
];

beforeAll(async () => {
  services = await setUpServices('match-credits');
  const real = createLimits({
    redis: services.redis,
    keyPrefix: services.config.redisPrefix,
    config: { ratePerSecond: 1_000_000, searchCost: 2, matchCost: 1 },
  });
  history = recordLedger(real.ledger);
  limits = { ...real, ledger: history.ledger };
  await indexCompanies(services.opensearch, services.config.indexPrefix);
  const deps = {
    limits,
    opensearch: services.opensearch,
    indexPrefix: services.config.indexPrefix,
    seed: false,
  };
  app = await startLimitsTestApp(deps);
  broken = await startLimitsTestApp({ ...deps, opensearch: closedOpenSearch });
  narrowLimits = createLimits({
    redis: services.redis,
    keyPrefix: `${services.config.redisPrefix}narrow:`,
    config: { ratePerSecond: 2, rateWindowSeconds: 60, searchCost: 1, matchCost: 1 },
  });
  narrow = await startLimitsTestApp({ ...deps, limits: narrowLimits });
});
afterAll(async () => {
  await Promise.all([app?.close(), broken?.close(), narrow?.close()]);
  await closedOpenSearch.close();
  await deadEngine.close();
  await services?.close();
});

async function match(target: TestApp, user: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await search(target.url, user, { path: '/rest/v1/corporates/match', body, headers });
  return {
    status: res.status,
    headers: res.headers,
    body: (await res.json()) as {
      creditsCharged: number;
      results: Array<{
        match: { corporateNumber: string } | null;
        candidates: unknown[];
        overMaxCredits: boolean;
      }>;
      code?: string;
      message?: string;
    },
  };
}

describe('the price', () => {
  it('reserves the worst case, then charges one credit per certain match and nothing else', async () => {
    await limits.ledger.grant('payer', 100);
    const res = await match(app, 'payer', { records: fourRecords });
    expect(res.status).toBe(200);
    expect(res.body.results.map((r) => r.match !== null)).toEqual([true, false, true, false]);
    expect(res.body.creditsCharged).toBe(2);
    expect(history.lowest('payer')).toBe(96);
    expect(res.headers.get('x-credits-remaining')).toBe('98');
    await vi.waitFor(async () => expect(await limits.ledger.balance('payer')).toBe(98));
  });

  it('a request without a certain match costs nothing', async () => {
    await limits.ledger.grant('unmatched', 10);
    const res = await match(app, 'unmatched', { records: [{ name: 'アオイ工業' }, { name: '株式会社' }] });
    expect(res.status).toBe(200);
    expect(res.body.creditsCharged).toBe(0);
    await vi.waitFor(async () => expect(await limits.ledger.balance('unmatched')).toBe(10));
  });

  it('maxCredits caps the reservation; the certain matches past it are withheld and flagged', async () => {
    await limits.ledger.grant('capped', 10);
    const records = [
      { name: 'マルカ物流' },
      { name: 'アオイ工業' },
      { name: 'NOVA Systems' },
      { name: 'サクラ精機', prefectureId: 13 },
    ];
    const res = await match(app, 'capped', { records, maxCredits: 2 });
    expect(res.status).toBe(200);
    expect(history.lowest('capped')).toBe(8);
    expect(res.body.results.map((r) => r.match?.corporateNumber ?? null)).toEqual([
      numberOf(5),
      null,
      numberOf(6),
      null,
    ]);
    expect(res.body.results.map((r) => r.overMaxCredits)).toEqual([false, false, false, true]);
    // the withheld record names no company for free
    expect(res.body.results[3]?.candidates).toEqual([]);
    // the unmatched one keeps its candidates
    expect(res.body.results[1]?.candidates).toHaveLength(2);
    expect(res.body.creditsCharged).toBe(2);
    await vi.waitFor(async () => expect(await limits.ledger.balance('capped')).toBe(8));
    // maxCredits 0: nothing reserved, every certain match withheld
    const none = await match(app, 'capped', { records, maxCredits: 0 });
    expect(none.body.results.map((r) => r.overMaxCredits)).toEqual([true, false, true, true]);
    expect(await limits.ledger.balance('capped')).toBe(8);
  });

  it('a balance below the worst case is a 402 before the engine is asked', async () => {
    await limits.ledger.grant('short', 3);
    const before = await queryTotal(services.opensearch, services.config.indexPrefix);
    const res = await match(app, 'short', { records: fourRecords });
    expect(res.status).toBe(402);
    expect(res.body.code).toBe('insufficient_credits');
    expect(res.body.message).toContain('maxCredits');
    expect(await queryTotal(services.opensearch, services.config.indexPrefix)).toBe(before);
    expect(await limits.ledger.balance('short')).toBe(3);
    // within the balance through maxCredits
    expect((await match(app, 'short', { records: fourRecords, maxCredits: 3 })).status).toBe(200);
    await vi.waitFor(async () => expect(await limits.ledger.balance('short')).toBe(1));
  });

  it('a request the engine fails is refunded, exactly once', async () => {
    await limits.ledger.grant('unlucky', 10);
    const res = await match(broken, 'unlucky', { records: fourRecords });
    expect(res.status).toBe(503);
    expect(res.headers.get('x-credits-remaining')).toBe('10');
    expect(await limits.ledger.balance('unlucky')).toBe(10);
    const [reservation] = history.reservations('unlucky');
    expect(history.lowest('unlucky')).toBe(6);
    await vi.waitFor(() => expect(history.refundsPaid(reservation as string)).toBe(1));
  });

  it('Idempotency-Key: a retry gets the stored answer and is not charged again; another body is a 422', async () => {
    await limits.ledger.grant('retrier', 10);
    const headers = { 'Idempotency-Key': 'match-retry-1' };
    const first = await match(app, 'retrier', { records: fourRecords }, headers);
    expect(first.status).toBe(200);
    await vi.waitFor(async () => expect(await limits.ledger.balance('retrier')).toBe(8));
    const again = await match(app, 'retrier', { records: fourRecords }, headers);
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await limits.ledger.balance('retrier')).toBe(8);
    const other = await match(app, 'retrier', { records: [{ name: 'マルカ物流' }] }, headers);
    expect(other.status).toBe(422);
    expect(await limits.ledger.balance('retrier')).toBe(8);
  });
});

describe('the rate limit', () => {
  it('one slot per request, shared with the searches, whatever the number of records', async () => {
    await narrowLimits.ledger.grant('busy', 100);
    const records = Array.from({ length: 500 }, () => ({ name: 'アオイ工業' }));
    expect((await search(narrow.url, 'busy')).status).toBe(200);
    const matched = await match(narrow, 'busy', { records, maxCredits: 10 });
    expect(matched.status).toBe(200);
    expect(matched.headers.get('x-ratelimit-remaining')).toBe('0');
    expect((await match(narrow, 'busy', { records, maxCredits: 10 })).status).toBe(429);
  });
});

describe('MATCH_CREDIT_COST', () => {
  it('is at most SEARCH_CREDIT_COST: a record never costs more than a search', () => {
    expect(loadConfig({}).limits.matchCost).toBe(1);
    // free searches: matches free too unless set
    expect(loadConfig({ SEARCH_CREDIT_COST: '0' }).limits.matchCost).toBe(0);
    expect(() => loadConfig({ MATCH_CREDIT_COST: '-1' })).toThrow(/MATCH_CREDIT_COST must be a whole number/);
    expect(() => loadConfig({ MATCH_CREDIT_COST: '3', SEARCH_CREDIT_COST: '2' })).toThrow(ConfigError);
    expect(() => loadConfig({ MATCH_CREDIT_COST: '3', SEARCH_CREDIT_COST: '2' })).toThrow(
      /MATCH_CREDIT_COST/,
    );
  });
});
