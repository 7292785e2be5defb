/**
 * What the jobs-first step for companies past the nested posting limit costs
 * (docs/decisions/nested-postings.md). On its own node (or OPENSEARCH_URL):
 * the production limit (50,000), one company with limit + 10 postings, `--companies` others
 * with 5 postings each, all rebuilt by the indexer's rebuild. Each company search runs
 * `--runs` times three ways, one after another:
 *  - nested only: the plain compiled query (what company search answered before; inexact for
 *    the big company),
 *  - full: src/search/run-search.ts, the jobs-first step included,
 *  - the jobs-first step alone (resolvePostingOverflow).
 * Both counts are printed: they differ where the big company's cut postings matter.
 *
 *   npx tsx bench/nested-limit-study.ts [--companies 2000] [--runs 30]
 */
import path from 'node:path';
import { rebuildCompanies } from '../indexer/rebuild.js';
import { cliProgram } from '../ops/cli.js';
import { projectRoot, startLocalOpenSearch } from '../ops/local/opensearch-node.js';
import { corporateSearch } from '../src/catalogue/searches.js';
import { defaultConfig } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import { createBulkClient, createOpenSearchClient, type OpenSearchClient } from '../src/opensearch/client.js';
import { bootstrapIndices, dropIndices, indexName } from '../src/opensearch/indices.js';
import { nestedObjectsLimit } from '../src/opensearch/mappings.js';
import { compileSearch } from '../src/search/compile-search.js';
import { parseSearchRequest } from '../src/search/parse-request.js';
import { resolvePostingOverflow } from '../src/search/posting-overflow.js';
import { countPlan, searchCorporates } from '../src/search/run-search.js';
import { createPaging } from '../src/services.js';
import { summarize } from './load.js';

const options = cliProgram('nested-limit-study', 'Cost of the jobs-first step past the nested limit')
  .option('--companies <n>', 'other companies (5 postings each)', (v) => Number(v), 2_000)
  .option('--runs <n>', 'runs per search and way', (v) => Number(v), 30)
  .parse()
  .opts<{ companies: number; runs: number }>();

const log = (line: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${line}\n`);
const prefix = 'nested-study-';
const limit = nestedObjectsLimit('corporates');
const big = '7000000000001';

function corporateDoc(corporateNumber: string, i: number) {
  return {
    corporateNumber,
    name: `調査${i}`,
    prefectureId: 1 + (i % 47),
    markets: [],
    paidMedias: [],
    workLocationCount: 0,
    postings: [],
  };
}

function jobDoc(id: string, corporateNumber: string, i: number, extra: Record<string, unknown> = {}) {
  return {
    id,
    corporateNumber,
    corporateName: corporateNumber,
    title: ['営業', '事務', '開発', '倉庫', '販売'][i % 5],
    mediaId: 1 + (i % 10),
    employmentTypeId: 1 + (i % 4),
    jobCategoryId: 1 + (i % 12),
    jobCreatedAt: new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString(),
    corporate: { corporateNumber, name: corporateNumber, markets: [], paidMedias: [] },
    ...extra,
  };
}

const searches: Array<[string, Record<string, unknown>]> = [
  ['no posting condition (no extra step)', { prefectureIdOr: [13] }],
  ['two conditions on one posting', { jobMediaIdOr: [3], jobEmploymentTypeIdOr: [3] }],
  ['a title only the cut postings have', { jobTitlePartialMatchOr: ['古参'] }],
  ['negated: no posting on a medium only the cut postings have', { jobMediaIdNot: [99] }],
  ['two groups', { filterGroups: [{ jobMediaId: { any: [1] } }, { jobCategoryId: { any: [5] } }] }],
];

async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

/** The big company with limit + 10 postings (the 10 oldest unlike any other), and the others with 5 each. */
function studyDocuments() {
  const numbers = [
    big,
    ...Array.from({ length: options.companies }, (_, i) => `71${String(i).padStart(11, '0')}`),
  ];
  const corporates = numbers.map((n, i) => corporateDoc(n, i));
  const jobs = [
    ...Array.from({ length: limit + 10 }, (_, i) =>
      // the 10 oldest carry what no other posting has
      jobDoc(`big-${i}`, big, i, i < 10 ? { title: '古参の倉庫管理', mediaId: 99 } : {}),
    ),
    ...numbers
      .slice(1)
      .flatMap((n, c) => Array.from({ length: 5 }, (_, k) => jobDoc(`o-${c}-${k}`, n, c * 5 + k + 20))),
  ];
  return { numbers, corporates, jobs };
}

/** The documents bulk-indexed, every company rebuilt by the indexer's rebuild, the indices refreshed. */
async function indexStudy(
  client: OpenSearchClient,
  documents: ReturnType<typeof studyDocuments>,
): Promise<void> {
  const { numbers, corporates, jobs } = documents;
  log(`indexing ${corporates.length} companies and ${jobs.length} postings (limit ${limit})`);
  for (let i = 0; i < Math.max(corporates.length, jobs.length); i += 5_000) {
    const body = [
      ...corporates
        .slice(i, i + 5_000)
        .flatMap((doc) => [
          { index: { _index: indexName(prefix, 'corporates'), _id: doc.corporateNumber } },
          doc,
        ]),
      ...jobs
        .slice(i, i + 5_000)
        .flatMap((doc) => [{ index: { _index: indexName(prefix, 'jobs'), _id: doc.id } }, doc]),
    ];
    if (body.length === 0) continue;
    const { body: res } = await client.bulk({ body }, { requestTimeout: 120_000 });
    if (res.errors) throw new Error('bulk failed');
  }
  log('rebuilding the companies');
  const rebuildStarted = performance.now();
  const rebuilt = await rebuildCompanies(createBulkClient(client), prefix, numbers);
  log(
    `rebuilt ${rebuilt.rebuilt} in ${Math.round(performance.now() - rebuildStarted)} ms, ${rebuilt.failures.length} failures`,
  );
  await client.indices.refresh({
    index: `${indexName(prefix, 'corporates')},${indexName(prefix, 'jobs')}`,
  });
  const { body: sizes } = await client.cat.indices({ index: `${prefix}*`, format: 'json', bytes: 'kb' });
  log(
    `index sizes (kb): ${JSON.stringify((sizes as Array<Record<string, string>>).map((r) => [r.index, r['store.size']]))}`,
  );
}

/** What the searches run with: the study's client and prefix, quiet logs. */
function studyServices(client: OpenSearchClient, url: string) {
  const config = { ...defaultConfig(), indexPrefix: prefix, opensearchUrl: url };
  return {
    opensearch: client,
    config,
    logger: createLogger('warn'),
    paging: createPaging(config, undefined),
  };
}

/** One search's table row: both counts, and the three ways timed `--runs` times after 5 unmeasured. */
async function studyRow(
  services: ReturnType<typeof studyServices>,
  label: string,
  body: Record<string, unknown>,
): Promise<string> {
  const client = services.opensearch;
  const plan = parseSearchRequest(corporateSearch, { ...body, limit: 25 });
  const nested = compileSearch(corporateSearch, plan, prefix);
  const nestedCount = (
    await client.search({
      ...nested,
      body: {
        query: (nested.body as { query: unknown }).query,
        size: 0,
        track_total_hits: true,
      } as never,
    })
  ).body.hits.total as { value: number };
  const exactCount = await countPlan(services, corporateSearch, plan);
  const ways = {
    nested: () => client.search(nested),
    full: () => searchCorporates(services, { ...body, limit: 25 }),
    step: () => resolvePostingOverflow(services, plan),
  };
  const times: Record<string, number[]> = { nested: [], full: [], step: [] };
  for (let run = -5; run < options.runs; run++)
    for (const [way, work] of Object.entries(ways)) {
      const ms = await timed(work);
      if (run >= 0) times[way]?.push(ms);
    }
  const fmt = (way: string) => {
    const s = summarize(times[way] ?? []);
    return `${s.p50} / ${s.p95}`;
  };
  return `| ${label} | ${nestedCount.value} / ${exactCount} | ${fmt('nested')} | ${fmt('full')} | ${fmt('step')} |`;
}

async function main() {
  let url = process.env.OPENSEARCH_URL;
  let stop = async () => {};
  if (!url) {
    const node = await startLocalOpenSearch({
      baseDir: path.join(projectRoot, '.local', 'opensearch', 'nested-study'),
      clusterName: 'nested-study',
      heap: '1g',
      ephemeral: true,
      log,
    });
    url = node.url;
    stop = () => node.stop();
  }
  const client = createOpenSearchClient(url);
  const services = studyServices(client, url);
  try {
    await dropIndices(client, prefix);
    await bootstrapIndices(client, prefix);
    await indexStudy(client, studyDocuments());
    const rows: string[] = [
      '| search | companies nested only / exact | nested only p50 / p95 ms | full p50 / p95 ms | jobs-first step p50 / p95 ms |',
      '|---|---|---|---|---|',
    ];
    for (const [label, body] of searches) rows.push(await studyRow(services, label, body));
    process.stdout.write(`${rows.join('\n')}\n`);
  } finally {
    await dropIndices(client, prefix).catch(() => {});
    await client.close();
    await stop();
  }
}

main().catch((error) => {
  process.stderr.write(`${(error as Error).stack}\n`);
  process.exitCode = 1;
});
