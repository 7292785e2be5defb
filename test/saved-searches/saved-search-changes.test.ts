/**
 * What changed in a watched saved company search (src/saved-searches/), through the real app,
 * the pipeline and the worker's rebuild job, on OpenSearch and Redis: the companies in its
 * results when saved are not reported; one that comes in is `entered`, one that goes out
 * `left`, a watched field changing `changed`; each once, in order, paged by cursor or started
 * from a time; a page is charged as a search page; two rebuilds of a company at once report
 * its change once; searches over the watch cap are saved unwatched; a deleted search reports
 * nothing more. A watched job search the same for postings: a new one `entered`, a watched
 * field `changed`, a deleted one `left`, and a company change that takes its postings out of
 * (or back into) the search through their company copy.
 */

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Redis } from 'ioredis';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { importWatch } from '../../indexer/bin/file-import-cli.js';
import { MemoryDeadLetter } from '../../indexer/dead-letter.js';
import type { RecordKind } from '../../indexer/gbizinfo/format.js';
import { importRecordFile } from '../../indexer/gbizinfo/import.js';
import { importInvoiceFiles } from '../../indexer/invoice/import.js';
import { rebuildCompanies } from '../../indexer/rebuild.js';
import type { SourceRecord } from '../../indexer/source-types.js';
import { createApiKey, keyStoreFor } from '../../src/auth/key-admin.js';
import { corporateSearch } from '../../src/catalogue/searches.js';
import { defaultConfig } from '../../src/config.js';
import { createApp } from '../../src/http/app.js';
import { Membership } from '../../src/saved-searches/membership.js';
import { membershipOf, startWatching, stopWatching } from '../../src/saved-searches/start-watch.js';
import {
  percolate,
  registerQuery,
  unregisterQuery,
  watchedSearchCount,
  watchedSearchCounts,
} from '../../src/saved-searches/watch.js';
import { parseSearchRequest } from '../../src/search/parse-request.js';
import type { Services } from '../../src/services.js';
import {
  certification,
  certificationHeader,
  csv as gbizCsv,
  workplace,
  workplaceHeader,
} from '../fixtures/gbizinfo/build-fixtures.js';
import { corporate, job, numbers } from '../fixtures/indexer/records.js';
import { csv as invoiceCsv, row as invoiceRow } from '../fixtures/invoice/build-fixtures.js';
import { setUpServices } from '../support/env.js';
import { changeAsTheWorker, steppingClock, writeRecords } from '../support/pipeline-write.js';

let services: Services;
let app: ReturnType<typeof createApp>;
const tick = steppingClock('2026-11-29T01:00:00.000Z');
const { alpha, beta, gamma, delta } = numbers;

/** Writes the records, then rebuilds their companies as the worker does. */
const change = (records: SourceRecord[]) => changeAsTheWorker(services, records, tick);
const queryFields = () => new Membership(services.redis as never, services.config.redisPrefix).queryFields;

async function newUser(credits = 100): Promise<{ key: string; userId: string }> {
  const userId = `u-${Math.random().toString(36).slice(2)}`;
  const { key } = await createApiKey(keyStoreFor(services.redis, services.config.redisPrefix), { userId });
  await services.limits.ledger.grant(userId, credits);
  return { key, userId };
}

const save = (key: string, body: unknown) =>
  request(app)
    .post('/rest/v1/saved-searches')
    .set('X-API-Key', key)
    .send(body as object);
const changes = (key: string, id: string, query = '') =>
  request(app).get(`/rest/v1/saved-searches/${id}/changes${query}`).set('X-API-Key', key);
const brief = (page: { changes: Array<{ type: string; corporateNumber: string; fields?: string[] }> }) =>
  page.changes.map(({ type, corporateNumber, fields }) => [type, corporateNumber, ...(fields ?? [])]);
const briefJobs = (page: {
  changes: Array<{ type: string; jobId?: string; corporateNumber: string; fields?: string[] }>;
}) =>
  page.changes.map(({ type, jobId, corporateNumber, fields }) => [
    type,
    jobId,
    corporateNumber,
    ...(fields ?? []),
  ]);

beforeAll(async () => {
  services = await setUpServices('saved-search-changes', {
    limits: { ...defaultConfig().limits, ratePerSecond: 10_000 },
    savedSearchWatchMaxResults: 2,
  });
  app = createApp(services);
  await change([
    corporate({ corporateNumber: alpha, name: '株式会社アルファ', prefectureId: 13, employeeCount: 100 }),
    corporate({ corporateNumber: beta, name: '株式会社ベータ', prefectureId: 27, employeeCount: 50 }),
    corporate({ corporateNumber: gamma, name: '株式会社ガンマ', prefectureId: 27, employeeCount: 10 }),
  ]);
});
afterAll(async () => {
  await services?.close();
});

// one saved search, change after change: the steps run in order (the suite is shuffled elsewhere)
describe('a watched company search', { shuffle: false }, () => {
  let user: { key: string; userId: string };
  let id = '';

  it('is watched from when it is saved; the companies in it then are not reported', async () => {
    user = await newUser();
    const saved = await save(user.key, {
      name: '東京',
      search: 'corporates',
      // its own three companies: the job blocks write others in Tokyo, in whatever order they run
      body: { prefectureIdOr: [13], corporateNumberOr: [alpha, beta, gamma] },
      watchFields: ['employeeCount'],
    }).expect(201);
    expect(saved.body).toMatchObject({
      watching: true,
      notWatchingReason: null,
      watchFields: ['employeeCount'],
    });
    id = saved.body.id;
    const page = await changes(user.key, id).expect(200);
    expect(page.body).toEqual({ changes: [], nextCursor: null });
  });

  it('reports who entered, who changed a watched field, who left; each once, in order, by cursor', async () => {
    const startedAt = new Date().toISOString();
    // beta moves to Tokyo (enters); alpha's headcount changes (a watched field); a posting of
    // alpha changes nothing watched (no change)
    await change([
      corporate({ corporateNumber: beta, name: '株式会社ベータ', prefectureId: 13, employeeCount: 50 }),
      corporate({ corporateNumber: alpha, name: '株式会社アルファ', prefectureId: 13, employeeCount: 120 }),
    ]);
    await change([job({ corporateNumber: alpha })]);
    await change([
      corporate({ corporateNumber: alpha, name: '株式会社アルファ', prefectureId: 27, employeeCount: 120 }),
    ]);
    const balance = await services.limits.ledger.balance(user.userId);
    const all = await changes(user.key, id).expect(200);
    expect(brief(all.body)).toEqual([
      ['entered', beta],
      ['changed', alpha, 'employeeCount'],
      ['left', alpha],
    ]);
    expect(await services.limits.ledger.balance(user.userId)).toBe(
      balance - services.config.limits.searchCost,
    );
    // one at a time by cursor: the same changes, each once
    const seen: unknown[] = [];
    let cursor: string | null = null;
    for (let i = 0; i < 4; i++) {
      const page: { body: { nextCursor: string | null; changes: [] } } = await changes(
        user.key,
        id,
        `?limit=1${cursor ? `&cursor=${cursor}` : ''}`,
      ).expect(200);
      seen.push(...brief(page.body));
      cursor = page.body.nextCursor;
    }
    expect(seen).toEqual(brief(all.body));
    // a caller that lost its cursor starts from a time
    const fromTime = await changes(user.key, id, `?since=${encodeURIComponent(startedAt)}`).expect(200);
    expect(brief(fromTime.body)).toEqual(brief(all.body));
    // a time before stream ids begin (1970) is everything kept, not an engine error
    const ancient = await changes(
      user.key,
      id,
      `?since=${encodeURIComponent('0876-07-02T07:37:34.38956Z')}`,
    ).expect(200);
    expect(brief(ancient.body)).toEqual(brief(all.body));
    const future = await changes(user.key, id, `?since=${encodeURIComponent('2099-01-01T00:00:00Z')}`).expect(
      200,
    );
    expect(future.body.changes).toEqual([]);
  });

  it('reports a change once when two rebuilds of the company run at once', async () => {
    await writeRecords(
      services,
      [corporate({ corporateNumber: gamma, name: '株式会社ガンマ', prefectureId: 13, employeeCount: 10 })],
      tick,
    );
    const watch = new Membership(services.redis as never, services.config.redisPrefix);
    const before = (await changes(user.key, id).expect(200)).body.nextCursor as string;
    await Promise.all([
      rebuildCompanies(services.opensearch, services.config.indexPrefix, [gamma], { watch }),
      rebuildCompanies(services.opensearch, services.config.indexPrefix, [gamma], { watch }),
    ]);
    const after = await changes(user.key, id, `?cursor=${before}`).expect(200);
    expect(brief(after.body)).toEqual([['entered', gamma]]);
  });

  it('records no sighting of a company whose rebuilt write was refused', async () => {
    const watch = new Membership(services.redis as never, services.config.redisPrefix);
    const seen: string[] = [];
    const spy = Object.assign(Object.create(watch) as Membership, {
      seen: (companies: Parameters<Membership['seen']>[0], now: Date) => {
        seen.push(...companies.map((company) => company.corporateNumber));
        return watch.seen(companies, now);
      },
    });
    // a backfill's write made conditional on a version the company no longer has: refused
    const result = await rebuildCompanies(services.opensearch, services.config.indexPrefix, [gamma, alpha], {
      watch: spy,
      copies: new Map([[gamma, { seqNo: 1_000_000, primaryTerm: 1 }]]),
    });
    expect(result.failures.map((failure) => failure.op.id)).toEqual([gamma]);
    expect(seen).toEqual([alpha]);
  });

  it('refuses a bad cursor, a cursor with since, another user', async () => {
    await changes(user.key, id, '?cursor=abc').expect(400);
    await changes(user.key, id, '?cursor=1-0&since=2026-11-01T00:00:00Z').expect(400);
    const other = await newUser();
    await changes(other.key, id).expect(404);
  });

  it('stops when deleted: its query leaves the percolator', async () => {
    const count = await watchedSearchCount(services.opensearch, services.config.indexPrefix);
    await request(app).delete(`/rest/v1/saved-searches/${id}`).set('X-API-Key', user.key).expect(204);
    expect(await watchedSearchCount(services.opensearch, services.config.indexPrefix)).toBe(count - 1);
    expect(await services.redis?.exists(`${services.config.redisPrefix}ss-members:${id}`)).toBe(0);
    await changes(user.key, id).expect(404);
  });
});

// one saved job search, change after change, over its own company (delta)
describe('a watched job search', { shuffle: false }, () => {
  let user: { key: string; userId: string };
  let id = '';
  const first = job({ corporateNumber: delta, salaryMax: 6_000_000 });
  const second = job({ corporateNumber: delta, salaryMax: 5_000_000 });
  const deltaAt = (employeeCount: number) =>
    corporate({ corporateNumber: delta, name: '株式会社デルタ', prefectureId: 13, employeeCount });

  it('is watched from when it is saved; the postings in it then are not reported', async () => {
    await change([deltaAt(200), first]);
    user = await newUser();
    const saved = await save(user.key, {
      name: 'デルタの求人',
      search: 'jobs',
      body: { corporateNumberOr: [delta], corporateEmployeeCountMin: 100 },
      watchFields: ['salaryMax'],
    }).expect(201);
    expect(saved.body).toMatchObject({ watching: true, notWatchingReason: null, watchFields: ['salaryMax'] });
    id = saved.body.id;
    expect((await changes(user.key, id).expect(200)).body).toEqual({ changes: [], nextCursor: null });
  });

  it('reports a new posting, a watched field, a deleted posting, and postings a company change moves', async () => {
    // a new posting enters
    await change([second]);
    // the first one's salary changes (watched)
    await change([{ ...first, salaryMax: 7_000_000, sourceUpdatedAt: '2026-11-29T02:00:00Z' }]);
    // the second one is deleted
    await change([{ type: 'delete_job', id: second.id }]);
    // the company shrinks below the search's headcount: its posting's company copy leaves it
    await change([deltaAt(50)]);
    // and grows back: it enters again
    await change([deltaAt(150)]);
    const page = await changes(user.key, id).expect(200);
    expect(briefJobs(page.body)).toEqual([
      ['entered', second.id, delta],
      ['changed', first.id, delta, 'salaryMax'],
      ['left', second.id, delta],
      ['left', first.id, delta],
      ['entered', first.id, delta],
    ]);
  });

  it('a rebuild that finds nothing changed runs no membership script, but once a day', async () => {
    const { watch, scripts } = countedMembership();
    await rebuildCompanies(services.opensearch, services.config.indexPrefix, [delta], { watch });
    const before = scripts();
    await rebuildCompanies(services.opensearch, services.config.indexPrefix, [delta], { watch });
    expect(scripts()).toBe(before);
    // the next day in Japan its postings are percolated again (a condition relative to today),
    // once: the changes stay as they were
    const tomorrow = new Date(Date.now() + 24 * 60 * 60 * 1000);
    await rebuildCompanies(services.opensearch, services.config.indexPrefix, [delta], {
      watch,
      now: tomorrow,
    });
    expect(scripts()).toBe(before + 1);
    await rebuildCompanies(services.opensearch, services.config.indexPrefix, [delta], {
      watch,
      now: tomorrow,
    });
    expect(scripts()).toBe(before + 1);
    expect((await changes(user.key, id).expect(200)).body.changes).toHaveLength(5);
    // a rebuild that watches the companies only (a public-records import's) leaves the
    // postings alone, though a new day would percolate them
    const dayAfter = new Date(Date.now() + 2 * 24 * 60 * 60 * 1000);
    await rebuildCompanies(services.opensearch, services.config.indexPrefix, [delta], {
      watch,
      watchPostings: false,
      now: dayAfter,
    });
    expect(scripts()).toBe(before + 1);
  });

  it("stops when deleted: its query leaves the job searches' percolator", async () => {
    const prefix = services.config.indexPrefix;
    const count = await watchedSearchCount(services.opensearch, prefix, 'jobs');
    await request(app).delete(`/rest/v1/saved-searches/${id}`).set('X-API-Key', user.key).expect(204);
    expect(await watchedSearchCount(services.opensearch, prefix, 'jobs')).toBe(count - 1);
    expect(await services.redis?.exists(`${services.config.redisPrefix}ss-members:${id}`)).toBe(0);
    expect(await services.redis?.sismember(`${services.config.redisPrefix}ss-in-job:${first.id}`, id)).toBe(
      0,
    );
  });
});

describe('the starting members', () => {
  it('are read page after page, every one', async () => {
    const saved = {
      id: `ss_pages${Math.random().toString(36).slice(2, 14)}`,
      name: 'pages',
      search: 'corporates' as const,
      body: { corporateNumberOr: [alpha, beta] },
      watchFields: ['employeeCount'],
      createdAt: new Date().toISOString(),
      watching: false,
      notWatchingReason: null,
    };
    const plan = parseSearchRequest(corporateSearch, saved.body);
    try {
      expect(await startWatching(services, 'u-pages', saved, plan, 1)).toEqual({
        watching: true,
        notWatchingReason: null,
      });
      const members = await services.redis?.smembers(`${services.config.redisPrefix}ss-members:${saved.id}`);
      expect(members?.sort()).toEqual([alpha, beta].sort());
    } finally {
      await stopWatching(services, saved);
    }
  });
});

describe('a posting in a job search from when it was saved', () => {
  it('leaves it when deleted, though no rebuild percolated it since', async () => {
    const epsilon = '7010401000005';
    const posting = job({ corporateNumber: epsilon });
    await change([
      corporate({
        corporateNumber: epsilon,
        name: '株式会社イプシロン',
        prefectureId: 13,
        employeeCount: 30,
      }),
      posting,
    ]);
    const { key } = await newUser();
    const saved = await save(key, {
      name: 'e',
      search: 'jobs',
      body: { corporateNumberOr: [epsilon] },
    }).expect(201);
    expect(saved.body.watching).toBe(true);
    await change([{ type: 'delete_job', id: posting.id }]);
    const page = await changes(key, saved.body.id).expect(200);
    expect(briefJobs(page.body)).toEqual([['left', posting.id, epsilon]]);
  });
});

/** A Membership whose membership scripts are counted (sent in pipelines: ../src/saved-searches/membership.ts). */
function countedMembership(): { watch: Membership; scripts: () => number } {
  const redis = services.redis as Redis;
  let scripts = 0;
  const counted = new Proxy(redis, {
    get(target, property) {
      if (property === 'pipeline')
        return () => {
          const pipeline = target.pipeline();
          const send = pipeline.eval.bind(pipeline);
          pipeline.eval = ((...args: Parameters<typeof send>) => {
            scripts++;
            return send(...args);
          }) as typeof pipeline.eval;
          return pipeline;
        };
      const value = Reflect.get(target, property);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { watch: new Membership(counted, services.config.redisPrefix), scripts: () => scripts };
}

describe('a company seen as it was last seen', () => {
  it('is skipped without a script; a change of its sightings still runs it', async () => {
    const { watch, scripts } = countedMembership();
    const search = `ss_same${Math.random().toString(36).slice(2, 14)}`;
    const at = new Date('2026-11-29T04:00:00Z');
    const company = (employeeCount: number) => ({
      corporateNumber: '7000012050002',
      sightings: [{ savedSearchId: search, values: { employeeCount: String(employeeCount) } }],
    });
    expect(await watch.seen([company(10)], at)).toBe(1);
    expect(await watch.seen([company(10)], at)).toBe(0);
    expect(scripts()).toBe(1);
    expect(await watch.seen([company(11)], at)).toBe(1);
    expect(scripts()).toBe(2);
    // in no search now: it leaves; in none still, the script runs again (no digest of none is
    // kept) and finds nothing
    expect(await watch.seen([{ corporateNumber: '7000012050002', sightings: [] }], at)).toBe(1);
    expect(await watch.seen([{ corporateNumber: '7000012050002', sightings: [] }], at)).toBe(0);
    expect(scripts()).toBe(4);
    expect((await watch.changes(search, { limit: 10 })).changes.map((c) => c.type)).toEqual([
      'entered',
      'changed',
      'left',
    ]);
    await watch.forget(search);
  });
});

describe('a company in many searches watching the same fields', () => {
  it('each search compares its own last values; one text per distinct values is sent', async () => {
    const { watch, scripts } = countedMembership();
    const id = () => `ss_many${Math.random().toString(36).slice(2, 14)}`;
    const [a, b, c, d, e] = [id(), id(), id(), id(), id()];
    const company = '7000012050003';
    const at = new Date('2026-11-29T04:30:00Z');
    // a and b start with the company, b with another name than it has now
    await watch.start(a, [{ corporateNumber: company, values: { employeeCount: '10', name: '"A"' } }]);
    await watch.start(b, [{ corporateNumber: company, values: { employeeCount: '10', name: '"Old"' } }]);
    const sightings = (employeeCount: number, shared = true) => {
      // one object for every search watching both fields, as the rebuild hands them out
      const one = { employeeCount: String(employeeCount), name: '"A"' };
      const both = () => (shared ? one : { ...one });
      return [
        { savedSearchId: a, values: both() },
        { savedSearchId: b, values: both() },
        { savedSearchId: c, values: both() },
        { savedSearchId: d, values: { employeeCount: String(employeeCount) } },
        { savedSearchId: e },
      ];
    };
    const types = async (search: string) =>
      (await watch.changes(search, { limit: 10 })).changes.map((change) => [
        change.type,
        ...(change.fields ?? []),
      ]);

    expect(await watch.seen([{ corporateNumber: company, sightings: sightings(10) }], at)).toBe(4);
    expect(await types(a)).toEqual([]);
    expect(await types(b)).toEqual([['changed', 'name']]);
    expect(await types(c)).toEqual([['entered']]);
    expect(await types(d)).toEqual([['entered']]);
    expect(await types(e)).toEqual([['entered']]);

    // the same sightings in new objects, one per search: the same digest, no script
    const before = scripts();
    expect(await watch.seen([{ corporateNumber: company, sightings: sightings(10, false) }], at)).toBe(0);
    expect(scripts()).toBe(before);

    expect(await watch.seen([{ corporateNumber: company, sightings: sightings(11) }], at)).toBe(4);
    expect(await types(a)).toEqual([['changed', 'employeeCount']]);
    expect(await types(b)).toEqual([
      ['changed', 'name'],
      ['changed', 'employeeCount'],
    ]);
    expect(await types(c)).toEqual([['entered'], ['changed', 'employeeCount']]);
    expect(await types(d)).toEqual([['entered'], ['changed', 'employeeCount']]);
    expect(await types(e)).toEqual([['entered']]);
    for (const search of [a, b, c, d, e]) await watch.forget(search);
  });

  it('postings sharing new values, each with its own last values, report their own changes', async () => {
    const watch = new Membership(services.redis as never, services.config.redisPrefix);
    const search = `ss_jobs${Math.random().toString(36).slice(2, 14)}`;
    const company = '7000012050004';
    const [first, second] = ['JMANY0001', 'JMANY0002'];
    await watch.startJobs(search, [
      { jobId: first, corporateNumber: company, values: { salaryMax: '100' } },
      { jobId: second, corporateNumber: company, values: { salaryMax: '200' } },
    ]);
    const values = { salaryMax: '200' };
    const written = await watch.seenJobs(
      [
        {
          corporateNumber: company,
          present: [first, second],
          jobs: [
            { jobId: first, version: '1:1@2026-11-29', sightings: [{ savedSearchId: search, values }] },
            { jobId: second, version: '1:1@2026-11-29', sightings: [{ savedSearchId: search, values }] },
          ],
        },
      ],
      new Date('2026-11-29T04:40:00Z'),
    );
    expect(written).toBe(1);
    const { changes } = await watch.changes(search, { limit: 10 });
    expect(changes.map(({ type, jobId, fields }) => [type, jobId, ...(fields ?? [])])).toEqual([
      ['changed', first, 'salaryMax'],
    ]);
    await watch.forget(search, 'jobs');
  });
});

describe('a starting member', () => {
  it('that leaves before any other change is reported left', async () => {
    const watch = new Membership(services.redis as never, services.config.redisPrefix);
    const search = `ss_start${Math.random().toString(36).slice(2, 14)}`;
    await watch.start(search, [{ corporateNumber: '7000012050010' }]);
    expect(
      await watch.seen(
        [{ corporateNumber: '7000012050010', sightings: [] }],
        new Date('2026-11-29T05:00:00Z'),
      ),
    ).toBe(1);
    expect((await watch.changes(search, { limit: 10 })).changes.map((c) => c.type)).toEqual(['left']);
    await watch.forget(search);
  });
});

describe('postings that change company', () => {
  it('a posting another company claimed before its old company was rebuilt has not left', async () => {
    const watch = new Membership(services.redis as never, services.config.redisPrefix);
    const search = `ss_moved${Math.random().toString(36).slice(2, 14)}`;
    const at = new Date('2026-11-29T03:00:00Z');
    const seenIn = [{ savedSearchId: search }];
    const stream = async () =>
      (await watch.changes(search, { limit: 10 })).changes.map((c) => [c.type, c.jobId, c.corporateNumber]);
    const sighted = { jobId: 'MOVED1', version: '1:1', sightings: seenIn };
    await watch.seenJobs([{ corporateNumber: alpha, present: ['MOVED1'], jobs: [sighted] }], at);
    // the posting is now beta's: beta's rebuild sees it first, then alpha's no longer has it
    await watch.seenJobs([{ corporateNumber: beta, present: ['MOVED1'], jobs: [sighted] }], at);
    await watch.seenJobs([{ corporateNumber: alpha, present: [], jobs: [] }], at);
    expect(await stream()).toEqual([['entered', 'MOVED1', alpha]]);
    // gone from beta too (deleted): it leaves
    await watch.seenJobs([{ corporateNumber: beta, present: [], jobs: [] }], at);
    expect(await stream()).toEqual([
      ['entered', 'MOVED1', alpha],
      ['left', 'MOVED1', beta],
    ]);
    await watch.forget(search, 'jobs');
  });
});

describe('the percolation', () => {
  it('counts the watched searches of each kind in one request; none without the indices', async () => {
    const prefix = services.config.indexPrefix;
    expect(await watchedSearchCounts(services.opensearch, 'no-such-prefix-')).toEqual({
      corporates: 0,
      jobs: 0,
    });
    const before = await watchedSearchCounts(services.opensearch, prefix);
    const savedSearchId = 'ss_count00000000000000a';
    await registerQuery(
      services.opensearch,
      prefix,
      { savedSearchId, userId: 'counting', watchFields: [], query: { match_all: {} } },
      { kind: 'jobs', fields: queryFields() },
    );
    try {
      expect(await watchedSearchCounts(services.opensearch, prefix)).toEqual({
        ...before,
        jobs: before.jobs + 1,
      });
    } finally {
      await unregisterQuery(services.opensearch, prefix, savedSearchId, 'jobs');
    }
  });

  it('reads every matched search, page after page', async () => {
    const prefix = services.config.indexPrefix;
    const ids = ['ss_page000000000000000a', 'ss_page000000000000000b', 'ss_page000000000000000c'];
    for (const savedSearchId of ids)
      await registerQuery(
        services.opensearch,
        prefix,
        { savedSearchId, userId: 'paging', watchFields: [], query: { term: { prefectureId: 47 } } },
        { fields: queryFields() },
      );
    try {
      // percolated in groups of one prefecture: each answer goes back to its document's slot
      const documents = [
        { corporateNumber: alpha, prefectureId: 47 },
        { corporateNumber: beta, prefectureId: 1 },
        { corporateNumber: gamma, prefectureId: 47 },
      ];
      const ours = (found: Awaited<ReturnType<typeof percolate>>) =>
        found.map((list) =>
          list
            .map((match) => match.savedSearchId)
            .filter((id) => ids.includes(id))
            .sort(),
        );
      const whole = await percolate(services.opensearch, prefix, documents);
      expect(ours(whole)).toEqual([ids, [], ids]);
      expect(ours(await percolate(services.opensearch, prefix, documents, { pageSize: 1 }))).toEqual(
        ours(whole),
      );
    } finally {
      for (const savedSearchId of ids) await unregisterQuery(services.opensearch, prefix, savedSearchId);
    }
  });
});

describe('searches saved unwatched', () => {
  it('searches with more results than the watch cap: saved, with the reason', async () => {
    const { key } = await newUser();
    // three postings or more are written before this (the first block, the job search's)
    await change([
      job({ corporateNumber: gamma }),
      job({ corporateNumber: gamma }),
      job({ corporateNumber: gamma }),
    ]);
    const jobs = await save(key, { name: 'j', search: 'jobs', body: {} }).expect(201);
    expect(jobs.body).toMatchObject({
      watching: false,
      notWatchingReason: expect.stringContaining('more than 2 postings'),
    });
    const wide = await save(key, { name: 'all', search: 'corporates', body: {} }).expect(201);
    expect(wide.body).toMatchObject({
      watching: false,
      notWatchingReason: expect.stringContaining('more than 2'),
    });
    const refused = await changes(key, wide.body.id).expect(400);
    expect(refused.body.errors[0]).toMatchObject({ field: 'savedSearchId' });
    const badField = await save(key, {
      name: 'x',
      search: 'corporates',
      body: {},
      watchFields: ['nope'],
    }).expect(400);
    expect(badField.body.errors[0]).toMatchObject({ field: 'watchFields[0]', value: 'nope' });
    // a job search watches the Job record's fields, not a company's, nor the snippets
    const badJobFields = await save(key, {
      name: 'x',
      search: 'jobs',
      body: {},
      watchFields: ['salaryMax', 'employeeCount', 'descriptionSnippets'],
    }).expect(400);
    expect(badJobFields.body.errors).toMatchObject([
      { field: 'watchFields[1]', reason: 'is not a field of the Job record', value: 'employeeCount' },
      { field: 'watchFields[2]', value: 'descriptionSnippets' },
    ]);
  });
});

// one saved search, load after load: the steps run in order
describe('public records reach a watched company search as they are loaded', { shuffle: false }, () => {
  let user: { key: string; userId: string };
  let id = '';
  const dir = mkdtempSync(path.join(tmpdir(), 'watched-records-'));
  // the other blocks count the work of rebuilds with no company search watched: stop watching
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    if (id) await request(app).delete(`/rest/v1/saved-searches/${id}`).set('X-API-Key', user.key).expect(204);
  });

  /** A gBizINFO file loaded as `import:gbizinfo` with REDIS_URL set loads it. */
  const loadRecords = async (kind: RecordKind, header: string[], rows: string[][]) => {
    const file = path.join(dir, `${kind}-${Math.random().toString(36).slice(2)}.csv`);
    writeFileSync(file, `\uFEFF${gbizCsv(header, rows)}`);
    const summary = await importRecordFile(kind, file, {
      client: services.opensearch,
      indexPrefix: services.config.indexPrefix,
      deadLetter: new MemoryDeadLetter(),
      stateDir: dir,
      watch: membershipOf(services) as Membership,
      allowShrink: true,
    });
    expect(summary.rejected).toBe(0);
    return summary;
  };
  const next = async () => {
    const page = await changes(user.key, id, cursor ? `?cursor=${cursor}` : '').expect(200);
    cursor = page.body.nextCursor ?? cursor;
    return brief(page.body);
  };
  let cursor: string | null = null;

  it('a company certified enters; another kind does not', async () => {
    user = await newUser();
    const saved = await save(user.key, {
      name: 'くるみん',
      search: 'corporates',
      body: { certificationKindIdOr: [3, 4] },
      watchFields: ['certifications', 'workplace'],
    }).expect(201);
    expect(saved.body).toMatchObject({ watching: true });
    id = saved.body.id;
    await loadRecords('certifications', certificationHeader, [
      certification(alpha, '2024-04-01', 'くるみん認定', '', '厚生労働省'),
      certification(beta, '2024-05-01', 'えるぼし認定', '', '厚生労働省'),
    ]);
    expect(await next()).toEqual([['entered', alpha]]);
  });

  it('a watched public record of a member changes: reported with its field', async () => {
    await loadRecords('workplace', workplaceHeader, [workplace(alpha, { age: '39.5' })]);
    expect(await next()).toEqual([['changed', alpha, 'workplace']]);
  });

  it('the next whole file: a member moves on to another kind in the search, another enters, a third leaves', async () => {
    await loadRecords('certifications', certificationHeader, [
      certification(alpha, '2025-04-01', 'プラチナくるみん認定', '', '厚生労働省'),
      certification(beta, '2025-05-01', 'くるみん認定', '', '厚生労働省'),
    ]);
    expect((await next()).sort()).toEqual(
      [
        ['changed', alpha, 'certifications'],
        ['entered', beta],
      ].sort(),
    );
    await loadRecords('certifications', certificationHeader, [
      certification(beta, '2025-05-01', 'くるみん認定', '', '厚生労働省'),
    ]);
    expect(await next()).toEqual([['left', alpha]]);
  });

  it('a load stopped between its writes and their report reports them when resumed', async () => {
    const file = path.join(dir, 'stopped.csv');
    writeFileSync(
      file,
      `\uFEFF${gbizCsv(certificationHeader, [
        certification(alpha, '2025-07-01', 'くるみん認定', '', '厚生労働省'),
        certification(beta, '2025-05-01', 'くるみん認定', '', '厚生労働省'),
      ])}`,
    );
    const options = {
      client: services.opensearch,
      indexPrefix: services.config.indexPrefix,
      deadLetter: new MemoryDeadLetter(),
      stateDir: dir,
      allowShrink: true,
    };
    // the membership fails as a Redis gone away would: alpha's record is written, not reported
    const gone = async () => {
      throw new Error('Redis went away');
    };
    const away = new Proxy({} as Membership, {
      // its watched queries' fields are in the same Redis
      get: (_target, key) => (key === 'queryFields' ? new Proxy({}, { get: () => gone }) : gone),
    });
    await expect(importRecordFile('certifications', file, { ...options, watch: away })).rejects.toThrow(
      'Redis went away',
    );
    expect(await next()).toEqual([]);
    const resumed = await importRecordFile('certifications', file, {
      ...options,
      watch: membershipOf(services) as Membership,
    });
    // alpha written before the stop, beta as it was: both unchanged now, alpha reported all the same
    expect(resumed).toMatchObject({ set: 0, unchanged: 2 });
    expect(await next()).toEqual([['entered', alpha]]);
  });

  it('a load without the watch reports nothing itself; the next rebuild with the watch does', async () => {
    const file = path.join(dir, 'no-watch.csv');
    writeFileSync(
      file,
      `\uFEFF${gbizCsv(certificationHeader, [certification(gamma, '2025-06-01', 'くるみん', '', '')])}`,
    );
    await importRecordFile('certifications', file, {
      client: services.opensearch,
      indexPrefix: services.config.indexPrefix,
      deadLetter: new MemoryDeadLetter(),
      stateDir: dir,
      allowShrink: true,
    });
    expect(await next()).toEqual([]);
    await rebuildCompanies(services.opensearch, services.config.indexPrefix, [gamma], {
      watch: membershipOf(services) as Membership,
    });
    // beta, no longer in the file, left too: found at its own next rebuild (only gamma's ran)
    expect(await next()).toEqual([['entered', gamma]]);
  });
});

describe('an invoice registration reaches a watched company search as it is loaded', () => {
  it('a company registered enters', async () => {
    const { key } = await newUser();
    const saved = await save(key, {
      name: 'インボイス',
      search: 'corporates',
      body: { hasInvoiceRecord: true, invoiceEndReasonOr: ['cancelled'] },
    }).expect(201);
    expect(saved.body).toMatchObject({ watching: true });
    const dir = mkdtempSync(path.join(tmpdir(), 'watched-invoices-'));
    try {
      const file = path.join(dir, 'invoice.csv');
      writeFileSync(
        file,
        invoiceCsv([
          invoiceRow(beta, { 事業者処理区分: '04', 取消年月日: '2025-03-31', 更新年月日: '2025-03-31' }),
          invoiceRow(gamma),
        ]),
      );
      const loaded = await importInvoiceFiles([file], {
        client: services.opensearch,
        indexPrefix: services.config.indexPrefix,
        deadLetter: new MemoryDeadLetter(),
        stateDir: dir,
        watch: membershipOf(services) as Membership,
      });
      expect(loaded.total).toMatchObject({ rejected: 0 });
      const page = await changes(key, saved.body.id).expect(200);
      // beta's registration was cancelled: it enters; gamma's stands: it does not
      expect(brief(page.body)).toEqual([['entered', beta]]);
      writeFileSync(
        file,
        invoiceCsv([
          invoiceRow(gamma, { 事業者処理区分: '04', 取消年月日: '2025-06-30', 更新年月日: '2025-06-30' }),
        ]),
      );
      await importInvoiceFiles([file], {
        client: services.opensearch,
        indexPrefix: services.config.indexPrefix,
        deadLetter: new MemoryDeadLetter(),
        stateDir: dir,
        restart: true,
        watch: membershipOf(services) as Membership,
      });
      const after = await changes(key, saved.body.id, `?cursor=${page.body.nextCursor}`).expect(200);
      expect(brief(after.body)).toEqual([['entered', gamma]]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
      // the other blocks count the work of rebuilds with no company search watched
      await request(app).delete(`/rest/v1/saved-searches/${saved.body.id}`).set('X-API-Key', key).expect(204);
    }
  });
});

describe('an import command without REDIS_URL', () => {
  it('says the watched searches are not fed by it', async () => {
    const prefix = services.config.indexPrefix;
    const savedSearchId = `ss_warn${Math.random().toString(36).slice(2, 14)}`;
    await registerQuery(
      services.opensearch,
      prefix,
      { savedSearchId, userId: 'u-warn', watchFields: [], query: { match_all: {} } },
      { fields: queryFields() },
    );
    const said = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const watching = await importWatch({
        opensearch: services.opensearch,
        indexPrefix: prefix,
        redisUrl: undefined,
        redisPrefix: services.config.redisPrefix,
        index: services.config.index,
        close: async () => {},
      });
      expect(watching.watch).toBeUndefined();
      expect(said.mock.calls.flat().join('\n')).toMatch(
        /^\d+ saved searches are watched, and REDIS_URL is not set: the companies this import changes are not reported/,
      );
    } finally {
      said.mockRestore();
      await unregisterQuery(services.opensearch, prefix, savedSearchId);
    }
  });
});
