/**
 * Throughput of POST /corporates/match and latency of GET /corporates/suggest through the real
 * app, on a throw-away index of synthetic companies (default 100,000) on the engine and Redis
 * of OPENSEARCH_URL / REDIS_URL; everything it wrote is deleted at the end.
 *
 *   OPENSEARCH_URL=http://127.0.0.1:9201 REDIS_URL=redis://127.0.0.1:6390 \
 *     npx tsx bench/match-throughput.ts [companies] [requests]
 *
 * Prints records per second for requests of 1,000 records (70% names of indexed companies in
 * other spellings, some with a prefecture; 30% unknown names, which take the near-name lookup),
 * sequential and two at a time, and the p50/p95 of suggest for prefixes of 1-4 characters.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { nameKeyFields } from '../indexer/name-keys.js';
import { FileKeyStore } from '../src/auth/file-key-store.js';
import { createApiKey } from '../src/auth/key-admin.js';
import { defaultConfig } from '../src/config.js';
import { createApp } from '../src/http/app.js';
import { warmUpValidation } from '../src/http/validation.js';
import { createLogger } from '../src/logger.js';
import { bootstrapIndices, dropIndices, indexName } from '../src/opensearch/indices.js';
import { createServices } from '../src/services.js';
import { corporateCheckDigit } from '../src/text/corporate-number.js';
import { deleteKeys } from './redis-keys.js';

const companyCount = Number(process.argv[2] ?? 100_000);
const requestCount = Number(process.argv[3] ?? 10);
const prefix = `bench-match-${randomBytes(3).toString('hex')}-`;
const user = 'bench-match';

const heads = [
  'アオイ',
  'サクラ',
  'マルカ',
  'ヤマト',
  'ミドリ',
  'ヒカリ',
  'ツバサ',
  'カエデ',
  'ホクト',
  'アサヒ',
];
const middles = ['精機', '物流', '電機', '化学', '食品', '製作所', '技研', '設計', '印刷', '繊維'];
const tails = Array.from({ length: 1000 }, (_, i) => String.fromCodePoint(0x4e00 + i * 7));

function companyName(i: number): string {
  return `株式会社${heads[i % 10]}${middles[Math.floor(i / 10) % 10]}${tails[Math.floor(i / 100) % 1000]}`;
}

function numberOf(i: number): string {
  const base = String(i + 1).padStart(12, '0');
  return `${corporateCheckDigit(base)}${base}`;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

/** The real app's services on the throw-away prefix; the bench user is not rate limited. */
function benchServices(opensearchUrl: string) {
  const base = defaultConfig();
  const config = {
    ...base,
    opensearchUrl,
    redisUrl: process.env.REDIS_URL,
    indexPrefix: prefix,
    redisPrefix: prefix,
    loadSampleData: false,
    logLevel: 'silent' as const,
    limits: { ...base.limits, rateLimitExemptUsers: new Set([user]) },
  };
  return createServices(config, createLogger('silent'));
}

type Services = ReturnType<typeof benchServices>;

/** `companyCount` synthetic companies bulk-indexed 5,000 at a time, then merged to one segment. */
async function indexCompanies(services: Services): Promise<void> {
  await bootstrapIndices(services.opensearch, prefix, { shards: 1, replicas: 0, refreshInterval: '30s' });
  const index = indexName(prefix, 'corporates');
  const started = Date.now();
  for (let start = 0; start < companyCount; start += 5000) {
    const body = [];
    for (let i = start; i < Math.min(companyCount, start + 5000); i++) {
      const name = companyName(i);
      body.push({ index: { _index: index, _id: numberOf(i) } });
      body.push({
        corporateNumber: numberOf(i),
        name,
        prefectureId: (i % 47) + 1,
        cityName: '中央区',
        phoneNumber: `03-${String(i).padStart(8, '0')}`,
        markets: [],
        paidMedias: [],
        ...nameKeyFields(name, null),
      });
    }
    const { body: result } = await services.opensearch.bulk({ body }, { timeoutMs: 120_000 });
    if (result.errors) throw new Error('bulk failed');
  }
  await services.opensearch.indices.refresh({ index });
  await services.opensearch.indices.forcemerge({ index, max_num_segments: 1 }, { timeoutMs: 300_000 });
  console.log(`indexed ${companyCount} companies in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

/** Request `r` of 1,000 records: 70% indexed names in other spellings (some with a prefecture), 30% unknown. */
function requestBody(r: number) {
  return {
    records: Array.from({ length: 1000 }, (_, j) => {
      const i = (r * 7919 + j * 104_729) % companyCount;
      if (j % 10 >= 7) return { name: `${heads[j % 10]}未登録${j}` };
      const name = companyName(i).replace('株式会社', j % 2 ? '㈱' : '');
      return j % 3 === 0 ? { name, prefectureId: (i % 47) + 1 } : { name };
    }),
  };
}

/** Records per second of `requestCount` match requests, one at a time and then two at a time. */
async function measureMatch(url: string, key: string): Promise<void> {
  const send = async (r: number) => {
    const res = await fetch(`${url}/corporates/match`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify(requestBody(r)),
    });
    if (res.status !== 200) throw new Error(`match answered ${res.status}: ${await res.text()}`);
    return (await res.json()) as { results: Array<{ match: unknown }> };
  };
  await send(0); // warm
  let t = Date.now();
  let matched = 0;
  for (let r = 1; r <= requestCount; r++) matched += (await send(r)).results.filter((x) => x.match).length;
  const sequential = (requestCount * 1000) / ((Date.now() - t) / 1000);
  t = Date.now();
  await Promise.all(
    Array.from({ length: 2 }, async (_, lane) => {
      for (let r = lane; r < requestCount; r += 2) await send(100 + r);
    }),
  );
  const parallel = (requestCount * 1000) / ((Date.now() - t) / 1000);
  console.log(
    `match: ${Math.round(sequential)} records/s sequential, ${Math.round(parallel)} records/s two at a time (requests of 1,000; ${matched} of ${requestCount * 1000} matched)`,
  );
}

/** p50/p95 of suggest for prefixes of 1-4 characters, when the API has suggest. */
async function measureSuggest(url: string, key: string): Promise<void> {
  const suggestTimes: number[] = [];
  const queries = heads.flatMap((head) => [head.slice(0, 1), head.slice(0, 2), head, `${head}精`]);
  const exists = await fetch(`${url}/corporates/suggest?q=a`, { headers: { 'x-api-key': key } });
  if (exists.status !== 200) return;
  for (let round = 0; round < 5; round++)
    for (const q of queries) {
      const s = performance.now();
      const res = await fetch(`${url}/corporates/suggest?q=${encodeURIComponent(q)}&limit=10`, {
        headers: { 'x-api-key': key },
      });
      await res.arrayBuffer();
      suggestTimes.push(performance.now() - s);
      // under the suggest rate limit
      await new Promise((resolve) => setTimeout(resolve, 60));
    }
  console.log(
    `suggest: p50 ${percentile(suggestTimes, 50).toFixed(1)} ms, p95 ${percentile(suggestTimes, 95).toFixed(1)} ms over ${suggestTimes.length} requests`,
  );
}

async function main(): Promise<void> {
  const opensearchUrl = process.env.OPENSEARCH_URL;
  if (!opensearchUrl) throw new Error('set OPENSEARCH_URL');
  const services = benchServices(opensearchUrl);
  const keyStore = new FileKeyStore(
    path.join(mkdtempSync(path.join(os.tmpdir(), 'bench-match-')), 'keys.json'),
  );
  const server = createApp(services, { keyStore }).listen(0, '127.0.0.1');
  try {
    await indexCompanies(services);
    await warmUpValidation();
    if (!server.listening) await new Promise((resolve) => server.once('listening', resolve));
    const { port } = server.address() as AddressInfo;
    const { key } = await createApiKey(keyStore, { userId: user });
    await services.limits.ledger.grant(user, 1_000_000_000);
    const url = `http://127.0.0.1:${port}/rest/v1`;
    await measureMatch(url, key);
    await measureSuggest(url, key);
  } finally {
    server.close();
    await dropIndices(services.opensearch, prefix);
    if (services.redis) await deleteKeys(services.redis, `${prefix}*`);
    await services.close();
  }
}

await main();
