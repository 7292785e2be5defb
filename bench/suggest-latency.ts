/**
 * Latency of GET /rest/v1/corporates/suggest against a running API, as a user typing would
 * send it: for the first 400 companies of the data file the API was loaded with, the first 1,
 * 2 and 3 characters of the name (legal form left out) and the first 2 of the reading, one
 * request at a time. Prints p50/p95/p99.
 *
 *   API_KEY_FILE=.local/me.key npx tsx bench/suggest-latency.ts http://127.0.0.1:8080 .local/sample/corporates.ndjson
 *
 * The key's user should be in RATE_LIMIT_EXEMPT_USERS: 1,600 requests run past suggest's own limit.
 */
import { readFileSync } from 'node:fs';
import { apiKeyFromEnvironment } from '../ops/cli.js';

const [apiUrl = 'http://127.0.0.1:8080', dataFile = '.local/sample/corporates.ndjson'] =
  process.argv.slice(2);
const key = apiKeyFromEnvironment();
const companies = readFileSync(dataFile, 'utf8')
  .trim()
  .split('\n')
  .slice(0, 400)
  .map((line) => JSON.parse(line) as { name: string; furigana?: string | null });
const queries = companies.flatMap((company) => {
  const bare = company.name.replace(/株式会社|有限会社|合同会社/g, '');
  const reading = company.furigana?.replace(/^カブシキガイシャ/, '').slice(0, 2);
  return [bare.slice(0, 1), bare.slice(0, 2), bare.slice(0, 3), ...(reading ? [reading] : [])];
});
const times: number[] = [];
for (const q of queries) {
  const started = performance.now();
  const res = await fetch(`${apiUrl}/rest/v1/corporates/suggest?q=${encodeURIComponent(q)}&limit=10`, {
    headers: { 'x-api-key': key },
  });
  await res.text();
  if (res.status !== 200) throw new Error(`suggest answered ${res.status}`);
  times.push(performance.now() - started);
}
times.sort((a, b) => a - b);
const at = (p: number) => (times[Math.min(times.length - 1, Math.floor(p * times.length))] ?? 0).toFixed(1);
console.log(
  `${times.length} suggest requests (${companies.length} companies' prefixes): p50 ${at(0.5)} ms, p95 ${at(0.95)} ms, p99 ${at(0.99)} ms`,
);
