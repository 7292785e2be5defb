/**
 * The typed client's `match` / `eachMatch` and `suggest` against the real app, the shared
 * OpenSearch node (companies indexed through the real indexer) and redis-server (the real
 * credit ledger). 2,500 records go in 3 requests (1000, 1000, 500), in order, each under its
 * own Idempotency-Key; a chunk whose answer is lost (the server charged it, the client saw a
 * 503) is retried under the same key and charged once; `maxCredits` caps the whole run.
 *
 * The requests pass through a loopback proxy that records them and, when told, answers one
 * with a 503 after the app has answered it (the worst case for a retry: already charged).
 */
import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createCorpsearchClient,
  type IndexedMatchResult,
  type MatchProgress,
  type MatchRecord,
} from '../../client/src/index.js';
import { createApiKey, keyStoreFor } from '../../src/auth/key-admin.js';
import { createApp } from '../../src/http/app.js';
import type { Services } from '../../src/services.js';
import { companies, indexCompanies } from '../fixtures/match/companies.js';
import { setUpServices } from '../support/env.js';

let services: Services;
const servers: Server[] = [];
let appUrl = '';
let proxyUrl = '';

interface Seen {
  key: string | null;
  records: number;
  maxCredits: number | undefined;
  status: number;
}
const seen: Seen[] = [];
/** The n-th match request (1-based, counted from `failAt.reset`) the proxy answers with a 503. */
const failAt = { n: 0, count: 0 };

/**
 * Seven spellings with known outcomes; 1000 is not a multiple of 7, so a chunk answered out of
 * place, or results shifted within a chunk, puts the wrong outcome at an index.
 */
const pattern: Array<{ record: MatchRecord; match: string | null }> = [
  { record: { name: '㈱マルカ物流' }, match: companies.maruka.corporateNumber },
  { record: { name: 'アオイ工業' }, match: null }, // two of that name in Tokyo
  { record: { name: '株式会社日本' }, match: null }, // a generic name
  { record: { name: 'サクラ精機', prefectureId: 27 }, match: companies.sakuraOsaka.corporateNumber },
  { record: { name: 'ＮＯＶＡ Ｓｙｓｔｅｍｓ' }, match: companies.nova.corporateNumber },
  { record: { name: 'サクラ精機' }, match: null }, // Tokyo and Osaka
  { record: { name: 'アオイ工業', phoneNumber: '03-3333-4444' }, match: companies.aoiNerima.corporateNumber },
];
const records = Array.from({ length: 2500 }, (_, i) => (pattern[i % 7] as (typeof pattern)[number]).record);
const expected = Array.from({ length: 2500 }, (_, i) => (pattern[i % 7] as (typeof pattern)[number]).match);
const certain = expected.filter((number) => number !== null).length;

async function listen(server: Server): Promise<string> {
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Forwards every request to the app; the `failAt.n`-th match request's answer is replaced by a 503. */
function proxy(): Server {
  return http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers))
      if (typeof value === 'string' && !['host', 'connection', 'content-length'].includes(name))
        headers.set(name, value);
    const answer = await fetch(`${appUrl}${req.url}`, {
      method: req.method,
      headers,
      body: body.length > 0 ? body : undefined,
    });
    const answerBody = Buffer.from(await answer.arrayBuffer());
    let status = answer.status;
    if (req.url?.endsWith('/corporates/match')) {
      failAt.count += 1;
      const sent = JSON.parse(body.toString()) as { records: unknown[]; maxCredits?: number };
      if (failAt.count === failAt.n) status = 503;
      seen.push({
        key: req.headers['idempotency-key'] as string | null,
        records: sent.records.length,
        maxCredits: sent.maxCredits,
        status,
      });
    }
    if (status === 503) {
      res.writeHead(503, { 'Content-Type': 'application/json', 'Retry-After': '0' });
      res.end(JSON.stringify({ code: 'service_unavailable', message: 'lost on the way' }));
      return;
    }
    const out: Record<string, string> = {};
    answer.headers.forEach((value, name) => {
      if (name !== 'content-length' && name !== 'transfer-encoding' && name !== 'connection')
        out[name] = value;
    });
    res.writeHead(status, out);
    res.end(answerBody);
  });
}

function resetProxy(n = 0): void {
  seen.length = 0;
  failAt.n = n;
  failAt.count = 0;
}

async function newUser(credits: number): Promise<{ userId: string; key: string }> {
  const userId = `client-match-${Math.random().toString(36).slice(2, 10)}`;
  const { key } = await createApiKey(keyStoreFor(services.redis, services.config.redisPrefix), { userId });
  await services.limits.ledger.grant(userId, credits);
  return { userId, key };
}

beforeAll(async () => {
  services = await setUpServices('client-match');
  await indexCompanies(services.opensearch, services.config.indexPrefix);
  appUrl = await listen(http.createServer(createApp(services)));
  proxyUrl = await listen(proxy());
});
afterAll(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  await services?.close();
});

describe('client.match: lists of any length', () => {
  it('sends 2,500 records as 1000 + 1000 + 500 in order, one key per chunk, with progress', async () => {
    resetProxy();
    const { userId, key } = await newUser(5000);
    const api = createCorpsearchClient({ baseUrl: proxyUrl, apiKey: key });
    const progress: MatchProgress[] = [];
    const summary = await api.match(records, { onProgress: (p) => progress.push(p) });

    expect(seen.map((request) => request.records)).toEqual([1000, 1000, 500]);
    const keys = seen.map((request) => request.key);
    expect(new Set(keys).size).toBe(3);
    for (const k of keys) expect(k).toMatch(/^[0-9a-f-]{36}$/);

    expect(summary.results.map((result) => result.index)).toEqual(records.map((_, i) => i));
    expect(summary.results.map((result) => result.match?.corporateNumber ?? null)).toEqual(expected);
    // an unsure record carries its candidates: アオイ工業 alone names two companies
    expect(summary.results[1]?.candidates.map((c) => c.corporateNumber).sort()).toEqual(
      [companies.aoiShibuya.corporateNumber, companies.aoiNerima.corporateNumber].sort(),
    );

    const matchedUpTo = (n: number) => expected.slice(0, n).filter((number) => number !== null).length;
    expect(progress).toEqual(
      [1000, 2000, 2500].map((done, i) => ({
        done,
        total: 2500,
        matched: matchedUpTo(done),
        overMaxCredits: 0,
        creditsCharged: matchedUpTo(done),
        chunks: i + 1,
      })),
    );
    expect(summary).toMatchObject({
      matched: certain,
      creditsCharged: certain,
      chunks: 3,
      overMaxCredits: 0,
    });
    expect(await services.limits.ledger.balance(userId)).toBe(5000 - certain);
  });

  it('takes an async iterable and a chunk size, yielding as each chunk is answered', async () => {
    resetProxy();
    const { key } = await newUser(100);
    const api = createCorpsearchClient({ baseUrl: proxyUrl, apiKey: key });
    async function* rows() {
      for (const record of records.slice(0, 20)) yield record;
    }
    const got: IndexedMatchResult[] = [];
    const requestsWhenYielded: number[] = [];
    for await (const result of api.eachMatch(rows(), { chunkSize: 8, candidates: 1 })) {
      got.push(result);
      requestsWhenYielded.push(seen.length);
    }
    expect(seen.map((request) => request.records)).toEqual([8, 8, 4]);
    // the first result comes before the second request is sent
    expect(requestsWhenYielded.slice(0, 9)).toEqual([1, 1, 1, 1, 1, 1, 1, 1, 2]);
    expect(got.map((result) => result.match?.corporateNumber ?? null)).toEqual(expected.slice(0, 20));
    expect(Math.max(...got.map((result) => result.candidates.length))).toBe(1);
    await expect(api.match(records, { chunkSize: 1001 })).rejects.toThrow(/chunkSize must be .* 1 to 1000/);
  });

  it('a chunk whose answer is lost (503 after the app charged it) is retried under its key and charged once', async () => {
    resetProxy(2);
    const { userId, key } = await newUser(5000);
    const api = createCorpsearchClient({ baseUrl: proxyUrl, apiKey: key });
    const summary = await api.match(records);
    // the ledger: the second chunk was charged when first answered, not again on the retry
    expect(await services.limits.ledger.balance(userId)).toBe(5000 - certain);

    expect(seen.map((request) => [request.records, request.status])).toEqual([
      [1000, 200],
      [1000, 503],
      [1000, 200],
      [500, 200],
    ]);
    expect(seen[2]?.key).toBe(seen[1]?.key);
    expect(new Set(seen.map((request) => request.key)).size).toBe(3);
    expect(summary.results.map((result) => result.match?.corporateNumber ?? null)).toEqual(expected);
    expect(summary.creditsCharged).toBe(certain);
  });

  it('maxCredits caps the whole run: each chunk gets what is left, the matches past it are withheld', async () => {
    resetProxy();
    const { userId, key } = await newUser(5000);
    const api = createCorpsearchClient({ baseUrl: proxyUrl, apiKey: key });
    const firstChunk = expected.slice(0, 1000).filter((number) => number !== null).length;
    const cap = firstChunk + 100;
    const summary = await api.match(records, { maxCredits: cap });

    expect(seen.map((request) => request.maxCredits)).toEqual([cap, 100, 0]);
    expect(summary.creditsCharged).toBe(cap);
    expect(summary.matched).toBe(cap);
    expect(summary.overMaxCredits).toBe(certain - cap);
    // withheld in input order: the first `cap` certain matches are answered, the rest are not
    const certainIndexes = expected.flatMap((number, i) => (number === null ? [] : [i]));
    const withheld = summary.results.filter((result) => result.overMaxCredits).map((result) => result.index);
    expect(withheld).toEqual(certainIndexes.slice(cap));
    expect(await services.limits.ledger.balance(userId)).toBe(5000 - cap);
  });
});

describe('client.suggest', () => {
  it('lists the companies whose name starts with what was typed, free', async () => {
    const { userId, key } = await newUser(3);
    const api = createCorpsearchClient({ baseUrl: appUrl, apiKey: key });
    const { suggestions, meta } = await api.suggest('マルカ');
    expect(meta.status).toBe(200);
    expect(suggestions.map((s) => s.corporateNumber)).toEqual([
      companies.maruka.corporateNumber,
      companies.marukaService.corporateNumber,
    ]);
    expect((await api.suggest('まるか', { limit: 1 })).suggestions.map((s) => s.name)).toEqual([
      companies.maruka.name,
    ]);
    expect(await services.limits.ledger.balance(userId)).toBe(3);
  });
});
