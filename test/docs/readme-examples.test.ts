/**
 * The consumer guide runs: the README's quickstart and docs/guide.md, which goes on from it in
 * the same shell. Every `search corporates|jobs '<body>'` example in them is sent through the
 * real app and must be answered 200, except the one showing an error, which must be the 400 it
 * describes. And their shell blocks (the README's "Open a second terminal" and "Using the API",
 * then every block of docs/guide.md) run as a reader pastes them: in order, in one bash, with
 * `BASE` pointing at the real app on a loopback port, the keys and match commands run through
 * npm as written; every HTTP answer must be 2xx (the error example's own 400 aside), no block
 * may hit a 429, and every block must finish without a failing command.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createApiKey, keyStoreFor } from '../../src/auth/key-admin.js';
import { findOperation } from '../../src/catalogue/operations.js';
import { defaultConfig } from '../../src/config.js';
import { createApp } from '../../src/http/app.js';
import type { MatchJobWorker } from '../../src/match-jobs/worker.js';
import { projectRoot } from '../../src/project-root.js';
import type { Services } from '../../src/services.js';
import { corporate, indexFixture, job } from '../fixtures/search/docs.js';
import { setUpServices } from '../support/env.js';
import { startTestWorker } from '../support/match-jobs.js';

const readme = readFileSync(path.join(projectRoot, 'README.md'), 'utf8');
const guide = readFileSync(path.join(projectRoot, 'docs', 'guide.md'), 'utf8');
/** The README's quickstart and the guide that goes on from it: one text for the examples. */
const consumerDocs = `${readme}\n${guide}`;
const examples = [...consumerDocs.matchAll(/^search (corporates|jobs) '(.+)'$/gm)].map((match) => ({
  search: match[1] as string,
  body: JSON.parse(match[2] as string) as Record<string, unknown>,
}));

/** `match '<json body>'` and `suggest '<text>'` lines: the match and suggest examples. */
const matchExamples = [...consumerDocs.matchAll(/^match '(.+)'$/gm)].map(
  (match) => JSON.parse(match[1] as string) as Record<string, unknown>,
);
const suggestExamples = [...consumerDocs.matchAll(/^suggest '(.+)'$/gm)].map((match) => match[1] as string);

let services: Services;
let app: ReturnType<typeof createApp>;
let jobsDir = '';
let jobsWorker: MatchJobWorker | undefined;
let key = '';

beforeAll(async () => {
  jobsDir = mkdtempSync(path.join(os.tmpdir(), 'readme-jobs-'));
  services = await setUpServices('readme', {
    matchJobs: { ...defaultConfig().matchJobs, dir: jobsDir },
  });
  // the README's match job runs on a worker, as npm start runs one
  jobsWorker = startTestWorker(services, jobsDir);
  // a company with one posting and its detail text, for the examples that read them
  const company = corporate({ name: '株式会社マルカ物流', prefectureId: 14 });
  const posting = job({
    corporateNumber: company.corporateNumber,
    corporateName: company.name,
    title: '倉庫管理',
  });
  await indexFixture(services.opensearch, services.config.indexPrefix, {
    corporates: [company, corporate({ name: 'サクラ精機株式会社', prefectureId: 13 })],
    jobs: [posting],
    jobDetails: [
      { id: posting.id, corporateNumber: company.corporateNumber, description: '未経験歓迎の倉庫管理' },
    ],
  });
  const userId = 'readme-reader';
  ({ key } = await createApiKey(keyStoreFor(services.redis, services.config.redisPrefix), { userId }));
  await services.limits.ledger.grant(userId, 100);
  app = createApp(services);
});
afterAll(async () => {
  await jobsWorker?.close();
  if (jobsDir) rmSync(jobsDir, { recursive: true, force: true });
  server?.closeAllConnections();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  await services?.close();
  if (reader) rmSync(reader, { recursive: true, force: true });
});

describe('README and guide search examples', () => {
  it('has examples for both searches', () => {
    expect(examples.length).toBeGreaterThanOrEqual(8);
    expect(new Set(examples.map((example) => example.search))).toEqual(new Set(['corporates', 'jobs']));
  });

  it('each is answered as the README says', async () => {
    for (const { search, body } of examples) {
      const res = await request(app).post(`/rest/v1/${search}/search`).set('X-API-Key', key).send(body);
      if (JSON.stringify(body).includes('prefectureID')) {
        expect(res.status).toBe(400);
        expect(res.body.errors).toContainEqual({
          field: 'filters.prefectureID',
          reason: 'is not a field of this request; did you mean "prefectureId"?',
        });
      } else {
        expect({ body, status: res.status, errors: res.body.errors }).toEqual({
          body,
          status: 200,
          errors: undefined,
        });
      }
      // stay under 5 searches per second per user
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  });
});

describe('README and guide match and suggest examples', () => {
  it('are answered 200 with their shapes', async () => {
    expect(matchExamples.length).toBeGreaterThanOrEqual(1);
    expect(suggestExamples.length).toBeGreaterThanOrEqual(1);
    for (const body of matchExamples) {
      const res = await request(app).post('/rest/v1/corporates/match').set('X-API-Key', key).send(body);
      expect({ body, status: res.status, errors: res.body.errors }).toEqual({
        body,
        status: 200,
        errors: undefined,
      });
      expect(res.body.results).toHaveLength((body.records as unknown[]).length);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    for (const q of suggestExamples) {
      const res = await request(app)
        .get('/rest/v1/corporates/suggest')
        .query({ q, limit: 5 })
        .set('X-API-Key', key);
      expect({ q, status: res.status }).toEqual({ q, status: 200 });
      expect(Array.isArray(res.body.suggestions)).toBe(true);
    }
  });
});

/** The ```sh blocks of a document's sections with these `## ` headings (all if none), in order. */
function shellBlocks(markdown: string, headings?: string[]): string[] {
  return markdown
    .split(/^## /m)
    .filter((section) => !headings || headings.some((heading) => section.startsWith(`${heading}\n`)))
    .flatMap((section) =>
      [...section.matchAll(/^```sh\n([\s\S]*?)^```/gm)].map((match) => match[1] as string),
    );
}

/**
 * A reader's checkout: the repository's files through symlinks, and a `.local/` of its own, so
 * the files the examples write (.local/alice.key, crm.csv, kanto.csv) land there, not in ours.
 */
function readerCheckout(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'readme-reader-'));
  for (const entry of readdirSync(projectRoot))
    if (entry !== '.local' && entry !== '.git')
      symlinkSync(path.join(projectRoot, entry), path.join(dir, entry));
  mkdirSync(path.join(dir, '.local'));
  return dir;
}

/**
 * The script a reader's shell runs: curl reports each answer's status on stderr (`HTTP <code>
 * <url>`), `BLOCK <n>` marks where each pasted block starts, a second's pause stands for the
 * pasting, and any failing command ends the run.
 */
function readerScript(blocks: string[]): string {
  const preamble = [
    'set -euo pipefail',
    `curl() { command curl -w '%{stderr}HTTP %{http_code} %{method} %{url_effective}\n' "$@"; }`,
  ];
  const pasted = blocks.flatMap((block, index) => [`echo "BLOCK ${index}" >&2`, block, 'sleep 1.1']);
  return [...preamble, ...pasted].join('\n');
}

let server: Server | undefined;
let reader = '';

describe('README and guide shell examples, pasted in order into one shell', () => {
  const blocks = [...shellBlocks(readme, ['Open a second terminal', 'Using the API']), ...shellBlocks(guide)];

  it('use $BASE, never the default address itself', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(15);
    const hardCoded = blocks
      .flatMap((block) => block.split('\n'))
      .filter((line) => line.includes('127.0.0.1:') && !line.startsWith('BASE=${BASE:-'));
    expect(hardCoded).toEqual([]);
  });

  it('run against the API, every answer 2xx (the error example 400), no 429', async () => {
    server = createApp(services).listen(0, '127.0.0.1');
    await new Promise((resolve) => server?.once('listening', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    reader = readerCheckout();
    const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)));
    const result = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = execFile(
        'bash',
        ['-c', readerScript(blocks)],
        {
          cwd: reader,
          maxBuffer: 64 * 1024 * 1024,
          env: {
            ...env,
            BASE: base,
            // the keys command writes to the store this app reads
            REDIS_URL: inject('redisUrl'),
            REDIS_PREFIX: services.config.redisPrefix,
            NO_COLOR: '1',
          },
        },
        (error, stdout, stderr) => resolve({ code: error ? (child.exitCode ?? 1) : 0, stdout, stderr }),
      );
    });
    const answers = new Map<number, number[]>();
    // requests counted by the searches' rate limit, per block
    const limited = new Map<number, string[]>();
    let block = -1;
    for (const line of result.stderr.split('\n')) {
      const marker = /^BLOCK (\d+)$/.exec(line);
      if (marker) block = Number(marker[1]);
      const answer = /^HTTP (\d{3}) (\w+) (\S+)$/.exec(line);
      if (!answer) continue;
      answers.set(block, [...(answers.get(block) ?? []), Number(answer[1])]);
      const apiPath = new URL(answer[3] as string).pathname.replace(/^\/rest\/v1/, '');
      const kind = findOperation(answer[2] as string, apiPath)?.limit;
      if (kind && kind !== 'suggest') limited.set(block, [...(limited.get(block) ?? []), apiPath]);
    }
    expect({ code: result.code, stderr: result.code === 0 ? '' : result.stderr }).toEqual({
      code: 0,
      stderr: '',
    });
    const unexpected = [...answers].flatMap(([index, statuses]) => {
      const expected = (status: number) =>
        blocks[index]?.includes('prefectureID') ? status === 400 : status >= 200 && status < 300;
      return statuses
        .filter((status) => !expected(status))
        .map((status) => ({ block: blocks[index], status }));
    });
    expect(unexpected).toEqual([]);
    // every block was answered, but one that only defines a function and the match command's
    // (its requests go through the client, not curl; it fails the run on any error)
    const silent = blocks.flatMap((text, index) => (answers.has(index) ? [] : [text]));
    expect(silent.filter((text) => !text.trim().endsWith('}') && !text.includes('npm run -s match'))).toEqual(
      [],
    );
    // a reader pastes a block in well under a second: one block may not need more than a
    // second's budget (the pause between blocks starts a new window)
    const perSecond = services.limits.config.ratePerSecond;
    expect([...limited].filter(([, paths]) => paths.length > perSecond)).toEqual([]);
    expect([...answers.values()].flat().length).toBeGreaterThanOrEqual(20);
    // the match job's results were read: the upload's columns, then the match columns
    expect(result.stdout).toContain('会社名,都道府県,rowNumber,matchStatus');
  }, 300_000);
});
