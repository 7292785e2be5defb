/**
 * The API step of bench/registry-1m.ts: the API over the loaded register (its own redis-server
 * on a free port, the API as a child process), measured as a user meets it:
 *
 * - search p50/p95 of typical company searches (name filters among them), through the API and
 *   the same compiled request straight on the engine, one connection and four;
 * - match throughput: 5,000 names drawn from the register, in other spellings, 1,000 a request;
 * - the day's diff imported (`import:registry`, a child process) while two connections search
 *   without pause: errors (must be 0) and the longest answer during the import.
 * Every process it starts is stopped by its pid at the end.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { registrySources } from '../indexer/registry/input.js';
import { toHalfWidthKana } from '../sample-data/index.js';
import { corporateSearch } from '../src/catalogue/searches.js';
import { compileSearch } from '../src/search/compile-search.js';
import { parseSearchRequest } from '../src/search/parse-request.js';
import { readCsvStream } from '../src/text/csv.js';
import { type LoadRequest, runLoad, summarize } from './load.js';
import { stopAll } from './processes.js';
import {
  type BenchOptions,
  memoryOf,
  runChild,
  saveFigures,
  startBenchApi,
} from './registry-bench-support.js';

interface Drawn {
  corporateNumber: string;
  name: string;
  prefectureId: number;
}

/** Every `step`-th open, shown company of the full files, up to `count`. */
export async function drawCompanies(dataDir: string, count: number, every: number): Promise<Drawn[]> {
  const drawn: Drawn[] = [];
  const full = readdirSync(dataDir)
    .filter((file) => /_all_/.test(file))
    .sort();
  let seen = 0;
  for (const file of full)
    for await (const source of registrySources(path.join(dataDir, file)))
      for await (const record of readCsvStream(source.open(), 'utf8')) {
        const [, number, process, , , , name, , , , , , , prefecture] = record.fields;
        const latest = record.fields[23];
        const hidden = record.fields[29];
        const closeDate = record.fields[18];
        if (latest !== '1' || hidden === '1' || closeDate || process === '21' || !prefecture) continue;
        if (seen++ % every !== 0) continue;
        drawn.push({
          corporateNumber: number as string,
          name: name as string,
          prefectureId: Number(prefecture),
        });
        if (drawn.length >= count) return drawn;
      }
  return drawn;
}

/**
 * How many of the drawn names name one company only, in the whole register and in the drawn
 * company's prefecture: a name several companies share is never a certain match by itself
 * (docs/names.md), so this bounds what match can decide from the name (and prefecture) alone.
 */
export async function nameUniqueness(dataDir: string, sample: Drawn[]) {
  const wanted = new Set(sample.map((entry) => entry.name));
  const everywhere = new Map<string, number>();
  const inPrefecture = new Map<string, number>();
  for (const file of readdirSync(dataDir).filter((name) => /_all_/.test(name)))
    for await (const source of registrySources(path.join(dataDir, file)))
      for await (const record of readCsvStream(source.open(), 'utf8')) {
        const name = record.fields[6] as string;
        if (record.fields[23] !== '1' || !wanted.has(name)) continue;
        everywhere.set(name, (everywhere.get(name) ?? 0) + 1);
        const key = `${record.fields[13]}:${name}`;
        inPrefecture.set(key, (inPrefecture.get(key) ?? 0) + 1);
      }
  return {
    uniqueInRegister: sample.filter((entry) => everywhere.get(entry.name) === 1).length,
    uniqueInPrefecture: sample.filter(
      (entry) => inPrefecture.get(`${String(entry.prefectureId).padStart(2, '0')}:${entry.name}`) === 1,
    ).length,
  };
}

/** The name as a list would write it: the legal form moved or abbreviated, kana half-width. */
export function variant(name: string, i: number): string {
  switch (i % 5) {
    case 0:
      return name;
    case 1:
      return name.replace(/^株式会社(.+)$/, '$1株式会社').replace(/^(.+)株式会社$/, '株式会社$1');
    case 2:
      return name.replace('株式会社', '(株)').replace('有限会社', '(有)');
    case 3:
      return toHalfWidthKana(name);
    default:
      return name.replace('株式会社', '㈱ ').replace('合同会社', '(同)');
  }
}

function searches(sample: Drawn[]): Array<{ name: string; body: Record<string, unknown> }> {
  const one = sample[0] as Drawn;
  return [
    {
      name: 'name contains + prefecture',
      body: { corporateNamePartialMatchOr: ['桜'], prefectureIdOr: [13], limit: 25 },
    },
    {
      name: 'name contains, two words',
      body: { corporateNamePartialMatchOr: ['物流', 'システムズ'], limit: 25 },
    },
    { name: 'exact name', body: { corporateNameOr: [one.name], limit: 25 } },
    { name: 'reading prefix', body: { furiganaPrefixOr: ['サクラ'], limit: 25 } },
    {
      name: 'prefecture + city contains + legal form',
      body: {
        prefectureIdOr: [27],
        cityNamePartialMatchOr: ['北区'],
        corporateTypeOr: ['godo_gaisha'],
        limit: 25,
      },
    },
    {
      name: '100 corporate numbers',
      body: { corporateNumberOr: sample.slice(0, 100).map((entry) => entry.corporateNumber), limit: 100 },
    },
  ];
}

export interface Prepared {
  name: string;
  api: LoadRequest;
  raw: LoadRequest;
}

export function prepare(
  key: string,
  list: Array<{ name: string; body: Record<string, unknown> }>,
): Prepared[] {
  return list.map((query) => {
    const compiled = compileSearch(corporateSearch, parseSearchRequest(corporateSearch, query.body), '');
    const params = new URLSearchParams({
      allow_partial_search_results: String(compiled.allow_partial_search_results),
      timeout: String(compiled.timeout),
    });
    return {
      name: query.name,
      api: {
        method: 'POST',
        path: '/rest/v1/corporates/search',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify(query.body),
      },
      raw: {
        method: 'POST',
        path: `/${compiled.index as string}/_search?${params}`,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(compiled.body),
      },
    };
  });
}

async function measureSearches(apiUrl: string, engineUrl: string, prepared: Prepared[], seconds: number) {
  const each = [];
  for (const query of prepared) {
    const check = await fetch(`${apiUrl}${query.api.path}`, {
      method: 'POST',
      headers: query.api.headers,
      body: query.api.body,
    });
    const body = (await check.json()) as { totalResults?: number | null };
    if (check.status !== 200) throw new Error(`${query.name}: the API answered ${check.status}`);
    const api = await runLoad({ url: apiUrl, requests: [query.api], connections: 1, amount: 30 });
    const raw = await runLoad({ url: engineUrl, requests: [query.raw], connections: 1, amount: 30 });
    each.push({ query: query.name, hits: body.totalResults ?? null, api: api.latencyMs, raw: raw.latencyMs });
  }
  const mix = [];
  for (const connections of [1, 4]) {
    const api = await runLoad({ url: apiUrl, requests: prepared.map((q) => q.api), connections, seconds });
    const raw = await runLoad({ url: engineUrl, requests: prepared.map((q) => q.raw), connections, seconds });
    mix.push({
      connections,
      api: { rps: api.rps, latencyMs: api.latencyMs, non2xx: api.non2xx, errors: api.errors },
      raw: { rps: raw.rps, latencyMs: raw.latencyMs, non2xx: raw.non2xx, errors: raw.errors },
    });
  }
  return { each, mix };
}

/**
 * `perRequest` records a request (the production deadline, REQUEST_DEADLINE_MS, stays as it
 * is: a request over it is a 503, counted, not retried).
 */
async function measureMatch(apiUrl: string, key: string, names: Drawn[], perRequest: number) {
  let right = 0;
  let wrong = 0;
  let unmatched = 0;
  let failedRequests = 0;
  let answered = 0;
  const latencies: number[] = [];
  const started = Date.now();
  for (let from = 0; from < names.length; from += perRequest) {
    const slice = names.slice(from, from + perRequest);
    const records = slice.map((entry, i) => ({
      name: variant(entry.name, from + i),
      ...((from + i) % 2 === 0 ? { prefectureId: entry.prefectureId } : {}),
    }));
    const sent = performance.now();
    const response = await fetch(`${apiUrl}/rest/v1/corporates/match`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ records }),
    });
    latencies.push(performance.now() - sent);
    if (response.status !== 200) {
      await response.arrayBuffer();
      failedRequests++;
      continue;
    }
    answered += slice.length;
    const body = (await response.json()) as { results: Array<{ match: { corporateNumber: string } | null }> };
    body.results.forEach((result, i) => {
      if (!result.match) unmatched++;
      else if (result.match.corporateNumber === slice[i]?.corporateNumber) right++;
      else wrong++;
    });
  }
  const seconds = (Date.now() - started) / 1000;
  return {
    records: names.length,
    perRequest,
    seconds,
    recordsPerSecond: Math.round(answered / seconds),
    failedRequests,
    requestMs: summarize(latencies),
    right,
    wrong,
    unmatched,
  };
}

/** Two connections searching without pause until `done` settles: every latency and every failure. */
export async function searchDuring(apiUrl: string, prepared: Prepared[], done: Promise<unknown>) {
  let running = true;
  void done.finally(() => {
    running = false;
  });
  const latencies: number[] = [];
  let errors = 0;
  let statuses: Record<string, number> = {};
  const loop = async (offset: number) => {
    for (let i = offset; running; i++) {
      const query = prepared[i % prepared.length] as Prepared;
      const started = performance.now();
      try {
        const response = await fetch(`${apiUrl}${query.api.path}`, {
          method: 'POST',
          headers: query.api.headers,
          body: query.api.body,
        });
        await response.arrayBuffer();
        if (response.status !== 200) {
          errors++;
          statuses = { ...statuses, [response.status]: (statuses[response.status] ?? 0) + 1 };
        }
      } catch {
        errors++;
      }
      latencies.push(performance.now() - started);
    }
  };
  await Promise.all([loop(0), loop(3)]);
  return { requests: latencies.length, errors, statuses, latencyMs: summarize(latencies) };
}

export async function apiStep(engineUrl: string, options: BenchOptions, workDir: string, dataDir: string) {
  const stops: Array<() => Promise<void>> = [];
  try {
    const { api, key } = await startBenchApi(engineUrl, workDir, stops);
    const rssAtStart = memoryOf(api.pid)?.rssMiB ?? null;
    const sample = await drawCompanies(dataDir, 5000, Math.max(1, Math.floor(options.companies / 5500)));
    const prepared = prepare(key, searches(sample));
    const figures: Record<string, unknown> = { sample: sample.length };
    const memory = () => ({
      rssAtStartMiB: rssAtStart,
      peakRssMiB: api.peakRssMiB(),
      rssMiB: memoryOf(api.pid)?.rssMiB,
    });
    figures.search = await measureSearches(api.url, engineUrl, prepared, options.seconds);
    saveFigures('api', { api: memory(), ...figures });
    figures.match = {
      ...(await measureMatch(api.url, key, sample, options.matchBatch)),
      names: await nameUniqueness(dataDir, sample),
    };
    saveFigures('api', { api: memory(), ...figures });

    const diffFile = readdirSync(dataDir).find((file) => file.startsWith('diff_'));
    if (!diffFile) throw new Error('no diff file: run the load step first');
    const importing = runChild(
      'indexer/bin/import-registry.ts',
      [path.join(dataDir, diffFile), '--restart', '--state-dir', path.join(workDir, 'state')],
      { OPENSEARCH_URL: engineUrl, LOG_LEVEL: 'warn' },
    );
    const during = await searchDuring(api.url, prepared, importing);
    const diffRun = await importing;
    const diffSummary = /read \d+.*rejected \d+/.exec(diffRun.output)?.[0] ?? diffRun.output.slice(-500);
    saveFigures('api', {
      api: memory(),
      ...figures,
      diffWhileSearching: {
        file: diffFile,
        importSeconds: diffRun.seconds,
        importExit: diffRun.code,
        importPeakRssMiB: Math.round(diffRun.peakMiB),
        summary: diffSummary,
        searches: during,
      },
    });
  } finally {
    await stopAll(stops, console.log);
  }
}
