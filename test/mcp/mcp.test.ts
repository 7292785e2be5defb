/**
 * The MCP server (mcp/) as an assistant uses it: the SDK's own Client, over stdio (the server
 * a child process, as a desktop assistant starts it) and over streamable HTTP (the server a
 * child listening on a loopback port), against the real app on a loopback port, the shared
 * OpenSearch node and redis-server (the real credit ledger). Each tool's answer is compared
 * with what the HTTP API answers to the same request with the same key, and each call's
 * charge with the API's (the ledger before and after); a bad filter, an unknown posting and
 * a wrong key come back as tool errors carrying the API's code and field.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, keyStoreFor } from '../../src/auth/key-admin.js';
import { publicCatalogue } from '../../src/catalogue/public-catalogue.js';
import { createApp } from '../../src/http/app.js';
import { fileLedgerTail, ledgerIndex } from '../../src/limits/ledger-filing.js';
import { createLimits } from '../../src/limits/limits.js';
import { projectRoot } from '../../src/project-root.js';
import type { Services } from '../../src/services.js';
import { companies, indexCompanies } from '../fixtures/match/companies.js';
import { indexFixture, job } from '../fixtures/search/docs.js';
import { runToEnd } from '../support/child-runs.js';
import { setUpServices } from '../support/env.js';

const tsx = path.join(projectRoot, 'node_modules', '.bin', 'tsx');
const dir = mkdtempSync(path.join(os.tmpdir(), 'mcp-'));
let services: Services;
let api: Server;
let apiUrl = '';
const children: ChildProcess[] = [];
/**
 * The users here, out of the rate limiter's way: each test compares a tool's answer with the
 * API's to the same request, so they send several searches in a second (pauses between the
 * steps did not hold in a shuffled order, seed 31337: a direct search answered 429); credits
 * still apply.
 */
const exemptUsers = new Set<string>();

const maruka = companies.maruka;
const postings = [
  job({
    corporateNumber: maruka.corporateNumber,
    corporateName: maruka.name,
    title: '倉庫作業スタッフ',
    mediaId: 3,
  }),
  job({
    corporateNumber: maruka.corporateNumber,
    corporateName: maruka.name,
    title: '配送ドライバー',
    mediaId: 5,
  }),
];
const posting = postings[0] as { id: string };

async function newUser(credits: number): Promise<{ userId: string; key: string; keyFile: string }> {
  const userId = `mcp-${Math.random().toString(36).slice(2, 10)}`;
  exemptUsers.add(userId);
  const { key } = await createApiKey(keyStoreFor(services.redis, services.config.redisPrefix), { userId });
  await services.limits.ledger.grant(userId, credits);
  const keyFile = path.join(dir, `${userId}.key`);
  writeFileSync(keyFile, `${key}\n`, { mode: 0o600 });
  return { userId, key, keyFile };
}

/** The same request sent to the HTTP API directly. */
async function viaHttp(key: string, method: 'GET' | 'POST', apiPath: string, body?: unknown) {
  const response = await fetch(`${apiUrl}/rest/v1${apiPath}`, {
    method,
    headers: { 'X-API-Key': key, ...(body ? { 'Content-Type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const serverEnv = (keyFile: string) => ({
  PATH: process.env.PATH ?? '',
  HOME: process.env.HOME ?? '',
  API_URL: apiUrl,
  API_KEY_FILE: keyFile,
});

async function stdioClient(keyFile: string): Promise<Client> {
  const client = new Client({ name: 'mcp-test', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: tsx,
      args: ['mcp/main.ts'],
      cwd: projectRoot,
      env: serverEnv(keyFile),
    }),
  );
  return client;
}

/** Starts `npm run mcp -- --http --port 0` as a child and reads back the URL it serves. */
async function httpServerUrl(keyFile: string): Promise<string> {
  const child = spawn(tsx, ['mcp/main.ts', '--http', '--port', '0'], {
    cwd: projectRoot,
    env: serverEnv(keyFile),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  children.push(child);
  let stderr = '';
  return new Promise((resolve, reject) => {
    child.stderr?.on('data', (chunk) => {
      stderr += chunk;
      const url = /serving streamable HTTP at (\S+)/.exec(stderr)?.[1];
      if (url) resolve(url);
    });
    child.once('exit', (code) => reject(new Error(`mcp --http exited ${code}: ${stderr}`)));
  });
}

async function httpClient(keyFile: string): Promise<Client> {
  const client = new Client({ name: 'mcp-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(await httpServerUrl(keyFile))));
  return client;
}

beforeAll(async () => {
  services = await setUpServices('mcp');
  services = {
    ...services,
    limits: createLimits({
      redis: services.redis,
      keyPrefix: services.config.redisPrefix,
      config: { rateLimitExemptUsers: exemptUsers },
    }),
  };
  await indexCompanies(services.opensearch, services.config.indexPrefix);
  await indexFixture(services.opensearch, services.config.indexPrefix, {
    jobs: postings,
    jobDetails: [
      { id: posting.id, corporateNumber: maruka.corporateNumber, description: '倉庫での入出荷作業です。' },
    ],
  });
  api = http.createServer(createApp(services));
  api.listen(0, '127.0.0.1');
  await new Promise((resolve) => api.once('listening', resolve));
  apiUrl = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
}, 120_000);

afterAll(async () => {
  for (const child of children) child.kill();
  api?.closeAllConnections();
  await new Promise((resolve) => api?.close(resolve));
  await services?.close();
  rmSync(dir, { recursive: true, force: true });
});

const call = async (client: Client, name: string, args: Record<string, unknown>) =>
  (await client.callTool({ name, arguments: args })) as CallToolResult;

const transports = [
  { name: 'stdio', connect: stdioClient },
  { name: 'streamable HTTP', connect: httpClient },
];

describe.each(transports)('the MCP server over $name', ({ connect }) => {
  let client: Client;
  let user: Awaited<ReturnType<typeof newUser>>;
  const balance = () => services.limits.ledger.balance(user.userId);

  beforeAll(async () => {
    user = await newUser(100);
    client = await connect(user.keyFile);
  }, 120_000);
  afterAll(async () => {
    await client?.close();
  });

  it('lists the tools, their filters from the catalogue with Japanese labels, values, masters and costs', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(
      [
        'search_companies',
        'count_companies',
        'facet_counts_companies',
        'search_jobs',
        'count_jobs',
        'facet_counts_jobs',
        'match_companies',
        'suggest_companies',
        'get_job_detail',
        'list_master',
        'save_search',
        'list_saved_searches',
        'open_saved_search',
        'delete_saved_search',
        'saved_search_changes',
        'create_webhook',
        'list_webhooks',
        'webhook_deliveries',
        'enable_webhook',
        'delete_webhook',
        'get_usage',
        'ledger_entries',
      ].sort(),
    );
    // only the tools that save or delete say they change something
    const changing = tools
      .filter((tool) => tool.annotations?.readOnlyHint === false)
      .map((tool) => tool.name);
    expect(changing.sort()).toEqual([
      'create_webhook',
      'delete_saved_search',
      'delete_webhook',
      'enable_webhook',
      'save_search',
    ]);
    for (const tool of tools) expect(tool.description, tool.name).toMatch(/Costs [A-Z_]+ per|Free/);
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    const [corporates, jobs] = publicCatalogue();
    const filtersOf = (name: string) => {
      const filters = byName.get(name)?.inputSchema.properties?.filters as
        | { properties: Record<string, { description: string }> }
        | undefined;
      return filters?.properties ?? {};
    };
    expect(Object.keys(filtersOf('search_companies'))).toEqual(corporates?.filters.map((f) => f.key));
    expect(Object.keys(filtersOf('count_jobs'))).toEqual(jobs?.filters.map((f) => f.key));
    const companyFilters = filtersOf('search_companies');
    expect(companyFilters.prefectureId?.description).toMatch(
      /^都道府県（本社） prefectureId: .*13 東京都, 14 神奈川県/,
    );
    expect(companyFilters.corporateType?.description).toContain('kabushiki_gaisha (株式会社)');
    expect(companyFilters.industrySubCategoryId?.description).toContain(
      'subCategories of the industries master (tool list_master, name "industries")',
    );
    expect(filtersOf('search_jobs').corporateMarketCode?.description).toMatch(
      /^企業の上場市場 .*tse_prime 東証プライム/,
    );
    expect(byName.get('search_companies')?.description).toContain('SEARCH_CREDIT_COST per call (1 credit');
    expect(byName.get('count_companies')?.description).toContain('Free;');
    expect(byName.get('match_companies')?.inputSchema.required).toEqual(['records']);
  });

  it('search_companies answers what the API answers, and is charged as the API charges', async () => {
    const body = {
      filters: { prefectureId: { any: [13] } },
      sort: { field: 'name', order: 'asc' },
      limit: 3,
    };
    const before = await balance();
    const result = await call(client, 'search_companies', body);
    const afterTool = await balance();
    const direct = await viaHttp(user.key, 'POST', '/corporates/search', body);
    const afterHttp = await balance();
    expect(result.isError).toBeFalsy();
    expect(direct.status).toBe(200);
    expect(result.structuredContent).toEqual(direct.body);
    expect(before - afterTool).toBe(afterTool - afterHttp);
    expect(before - afterTool).toBe(services.config.limits.searchCost);
    expect(result.content[0]).toMatchObject({
      type: 'text',
      text: expect.stringMatching(
        new RegExp(`^${String(direct.body.totalResults)} companies match; 3 returned`),
      ),
    });
    expect((result.content[0] as { text: string }).text).toContain(`Credits remaining: ${afterTool}.`);
  });

  it('search_jobs, count and facet counts answer what the API answers; counting is free', async () => {
    const filters = { corporateNumber: { any: [maruka.corporateNumber] } };
    const search = await call(client, 'search_jobs', { filters });
    expect(search.structuredContent).toEqual(
      (await viaHttp(user.key, 'POST', '/jobs/search', { filters })).body,
    );
    expect((search.structuredContent as { totalResults: number }).totalResults).toBe(2);

    const before = await balance();
    const count = await call(client, 'count_companies', { filters: { prefectureId: { any: [13] } } });
    expect(await balance()).toBe(before);
    const countDirect = await viaHttp(user.key, 'POST', '/corporates/count', {
      filters: { prefectureId: { any: [13] } },
    });
    expect(count.structuredContent).toEqual(countDirect.body);
    expect((count.content[0] as { text: string }).text).toContain('Exporting them all would cost');

    const facets = await call(client, 'facet_counts_companies', { facets: ['prefectureId'] });
    const facetsDirect = await viaHttp(user.key, 'POST', '/corporates/search', { facets: ['prefectureId'] });
    expect(facets.structuredContent).toEqual({
      totalResults: facetsDirect.body.totalResults,
      facets: facetsDirect.body.facets,
    });
    expect((facets.content[0] as { text: string }).text).toMatch(/prefectureId: 東京都 \(13\) \d+/);

    const jobFacets = await call(client, 'facet_counts_jobs', { filters, facets: ['mediaId'] });
    const jobFacetsDirect = await viaHttp(user.key, 'POST', '/jobs/search', { filters, facets: ['mediaId'] });
    expect(jobFacets.structuredContent).toEqual({
      totalResults: 2,
      facets: jobFacetsDirect.body.facets,
    });
    expect((jobFacetsDirect.body.facets as { mediaId: unknown[] }).mediaId).toHaveLength(2);
  });

  it('match_companies answers what the API answers, charged per certain match as the API charges', async () => {
    const body = { records: [{ name: '㈱マルカ物流', prefectureId: 14 }, { name: 'アオイ工業' }] };
    const before = await balance();
    const result = await call(client, 'match_companies', body);
    const afterTool = await balance();
    const direct = await viaHttp(user.key, 'POST', '/corporates/match', body);
    expect(result.structuredContent).toEqual(direct.body);
    expect(direct.body.creditsCharged).toBe(1);
    expect(before - afterTool).toBe(direct.body.creditsCharged);
    expect(before - afterTool).toBe(afterTool - (await balance()));
    expect((result.content[0] as { text: string }).text).toMatch(
      /^2 records: 1 matched to one company, 1 with candidates only, 0 without candidates\. Credits charged: 1\./,
    );
  });

  it('suggest, job detail and masters answer what the API answers', async () => {
    const suggest = await call(client, 'suggest_companies', { q: 'マルカ', limit: 5 });
    expect(suggest.structuredContent).toEqual(
      (await viaHttp(user.key, 'GET', `/corporates/suggest?q=${encodeURIComponent('マルカ')}&limit=5`)).body,
    );
    expect((suggest.content[0] as { text: string }).text).toContain(maruka.corporateNumber);
    expect((suggest.content[0] as { text: string }).text).toMatch(/^\d+ suggestions: /);
    // a mistyped text: the names like it, said to be so
    const typo = await call(client, 'suggest_companies', { q: 'マルカ物留サ' });
    expect((typo.content[0] as { text: string }).text).toMatch(
      /^\d+ names like it \(none starts with it\): .*マルカ/,
    );

    const detail = await call(client, 'get_job_detail', { jobId: posting.id });
    expect(detail.structuredContent).toEqual(
      (await viaHttp(user.key, 'GET', `/jobs/${posting.id}/detail`)).body,
    );
    expect((detail.structuredContent as { description: string }).description).toBe(
      '倉庫での入出荷作業です。',
    );

    const master = await call(client, 'list_master', { name: 'prefectures' });
    expect(master.structuredContent).toEqual({
      items: (await viaHttp(user.key, 'GET', '/master/prefectures')).body,
    });
  });

  it('a bad filter is a tool error with the API code and field, uncharged; no stack trace', async () => {
    const before = await balance();
    const result = await call(client, 'search_companies', { filters: { prefectureID: { any: [13] } } });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({
      status: 400,
      code: 'invalid_request',
      errors: [
        {
          field: 'filters.prefectureID',
          reason: 'is not a field of this request; did you mean "prefectureId"?',
        },
      ],
    });
    const text = (result.content[0] as { text: string }).text;
    expect(text).toMatch(/^invalid_request: /);
    expect(text).toContain('filters.prefectureID: is not a field of this request');
    expect(text).not.toMatch(/\n\s+at /);
    expect(await balance()).toBe(before);

    const outOfRange = await call(client, 'count_jobs', { filters: { salary: { min: 500, max: 100 } } });
    expect(outOfRange.structuredContent).toMatchObject({ code: 'invalid_request' });
    expect(JSON.stringify(outOfRange.structuredContent)).toContain('filters.salary');
  });

  it('saves, lists, opens (charged as the search), sends to a webhook and deletes a saved search, as the API does', async () => {
    const saved = await call(client, 'save_search', {
      name: '東京の企業',
      search: 'corporates',
      body: { prefectureIdOr: [13], sort: { field: 'name', order: 'asc' } },
    });
    expect(saved.isError).toBeFalsy();
    const id = String((saved.structuredContent as { id: string }).id);
    const listed = await call(client, 'list_saved_searches', {});
    const direct = await viaHttp(user.key, 'GET', '/saved-searches');
    expect(listed.structuredContent).toEqual(direct.body);
    expect((direct.body.results as Array<{ id: string }>).map((entry) => entry.id)).toContain(id);
    const before = await balance();
    const opened = await call(client, 'open_saved_search', { savedSearchId: id, limit: 2 });
    expect(before - (await balance())).toBe(services.config.limits.searchCost);
    const searched = await viaHttp(user.key, 'POST', '/corporates/search', {
      prefectureIdOr: [13],
      sort: { field: 'name', order: 'asc' },
      limit: 2,
    });
    expect((opened.structuredContent as { results: unknown }).results).toEqual(searched.body.results);
    // watched from when saved: nothing changed yet, charged as a search page, as the API answers
    const beforeChanges = await balance();
    const changes = await call(client, 'saved_search_changes', { savedSearchId: id });
    expect(changes.structuredContent).toEqual({ changes: [], nextCursor: null });
    expect(beforeChanges - (await balance())).toBe(services.config.limits.searchCost);
    const refused = await call(client, 'save_search', {
      name: 'x',
      search: 'jobs',
      body: { prefectureIdOr: [13] },
    });
    expect(refused.isError).toBe(true);
    expect(JSON.stringify(refused.structuredContent)).toContain('body.prefectureIdOr');
    // its changes sent to a URL: the secret shown once, listed without it, an empty log, deleted
    const webhook = await call(client, 'create_webhook', {
      savedSearchId: id,
      url: 'https://hooks.example.com/corpsearch',
      events: ['company.entered'],
    });
    expect(webhook.isError).toBeFalsy();
    const created = webhook.structuredContent as { id: string; secret: string; events: string[] };
    expect(created.secret).toMatch(/^whsec_/);
    expect(created.events).toEqual(['company.entered']);
    const hooks = await call(client, 'list_webhooks', {});
    expect(hooks.structuredContent).toEqual((await viaHttp(user.key, 'GET', '/webhooks')).body);
    expect(JSON.stringify(hooks.structuredContent)).not.toContain(created.secret);
    const log = await call(client, 'webhook_deliveries', { webhookId: created.id });
    expect(log.structuredContent).toEqual({ deliveries: [] });
    const wrongKind = await call(client, 'create_webhook', {
      savedSearchId: id,
      url: 'https://hooks.example.com/corpsearch',
      events: ['job.entered'],
    });
    expect(JSON.stringify(wrongKind.structuredContent)).toContain('events[0]');
    // an active webhook: enabling it answers it as it is, as the API does
    const enabled = await call(client, 'enable_webhook', { webhookId: created.id });
    expect(enabled.structuredContent).toEqual(
      (await viaHttp(user.key, 'GET', `/webhooks/${created.id}`)).body,
    );
    expect((await call(client, 'delete_webhook', { webhookId: created.id })).isError).toBeFalsy();
    expect((await viaHttp(user.key, 'GET', `/webhooks/${created.id}`)).status).toBe(404);
    expect((await call(client, 'delete_saved_search', { savedSearchId: id })).isError).toBeFalsy();
    const gone = await call(client, 'open_saved_search', { savedSearchId: id });
    expect(gone.structuredContent).toMatchObject({ status: 404, code: 'not_found' });
  });

  it('shows the usage and the ledger entries as the API does, free', async () => {
    const searched = await viaHttp(user.key, 'POST', '/corporates/search', { limit: 1 });
    expect(searched.status).toBe(200);
    await expect
      .poll(async () => (await services.limits.ledger.account(user.userId)).open.reservations)
      .toBe(0);
    await fileLedgerTail(
      services.limits.ledger,
      services.opensearch,
      ledgerIndex(services.config.indexPrefix),
    );
    await services.opensearch.indices.refresh({ index: ledgerIndex(services.config.indexPrefix) });
    const before = await balance();
    const usage = await call(client, 'get_usage', {});
    expect(usage.isError).toBeFalsy();
    expect(usage.structuredContent).toEqual((await viaHttp(user.key, 'GET', '/usage')).body);
    const spent = (usage.structuredContent as { totals: { creditsSpent: number; requests: number } }).totals;
    expect(spent.requests).toBeGreaterThanOrEqual(1);
    expect((usage.content[0] as { text: string }).text).toContain(`${spent.creditsSpent} credits spent`);
    const entries = await call(client, 'ledger_entries', { kind: 'charge', limit: 5 });
    expect(entries.structuredContent).toEqual(
      (await viaHttp(user.key, 'GET', '/usage/entries?kind=charge&limit=5')).body,
    );
    expect(JSON.stringify(entries.structuredContent)).toContain('POST /corporates/search');
    expect(await balance()).toBe(before);
  });

  it('an unknown posting is the API not_found, an unknown master its route_not_found', async () => {
    const result = await call(client, 'get_job_detail', { jobId: 'no-such-job' });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({ status: 404, code: 'not_found' });
    const master = await call(client, 'list_master', { name: 'cities' });
    expect(master.isError).toBe(true);
    expect(master.structuredContent).toMatchObject({ status: 404, code: 'route_not_found' });
  });
});

/** A POST to the HTTP endpoint with the Host header a browser would send for `host`. */
function postWithHost(url: string, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      {
        method: 'POST',
        headers: {
          Host: host,
          'Content-Type': 'application/json',
          Accept: 'application/json, text/event-stream',
        },
      },
      (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      },
    );
    request.once('error', reject);
    request.end(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }));
  });
}

describe('the streamable HTTP endpoint on loopback', () => {
  it('refuses a Host naming another host (DNS rebinding), serves its own, and only at /mcp', async () => {
    const { keyFile } = await newUser(0);
    const url = await httpServerUrl(keyFile);
    const port = new URL(url).port;
    expect(await postWithHost(url, `evil.example:${port}`)).toBe(403);
    expect(await postWithHost(url, `localhost:${port}`)).toBe(200);
    expect(await postWithHost(url.replace(/\/mcp$/, '/other'), `127.0.0.1:${port}`)).toBe(404);
  });
});

describe('the MCP server without a key', () => {
  it('stops at once with one line saying where the key comes from, exit 1', async () => {
    const run = await runToEnd(
      spawn(tsx, ['mcp/main.ts'], {
        cwd: projectRoot,
        env: { PATH: process.env.PATH ?? '', API_URL: apiUrl },
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^mcp: an API key is needed: API_KEY_FILE=.* or an exported API_KEY\n$/);
    expect(run.stdout).toBe('');
  });
});

describe('the MCP server with a key the API does not know', () => {
  it('answers each tool with the API code api_key_invalid, never the key', async () => {
    const keyFile = path.join(dir, 'wrong.key');
    writeFileSync(keyFile, 'csk_not-a-real-key\n', { mode: 0o600 });
    const client = await stdioClient(keyFile);
    try {
      const result = await call(client, 'count_companies', {});
      expect(result.isError).toBe(true);
      expect(result.structuredContent).toMatchObject({ status: 401, code: 'api_key_invalid' });
      expect(JSON.stringify(result)).not.toContain('not-a-real-key');
    } finally {
      await client.close();
    }
  });
});
