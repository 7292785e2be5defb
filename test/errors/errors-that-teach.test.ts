/**
 * Errors that teach, through the real app on the real engine and Redis (credit ledger in
 * Redis, engine reads counted from the statistics of every index of the file, so a job
 * operation's query shows as much as a company one's):
 * - an id or code a master lacks is a 400 naming the field, the value and the master's path,
 *   uncharged and with no engine query; every master-backed filter of both searches checks, and
 *   a job count, export and detail refuse as the searches do;
 * - every error body carries `requestId` (the X-Request-Id header) and `docUrl`, whose anchor
 *   the served page `/docs/errors` has;
 * - an unknown condition lists the ones the filter takes;
 * - a name of the other search kind points to its twin under the right name;
 * - a 402 says how credits are granted, and its docUrl's row says it too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corporateSearch, jobSearch, type SearchCatalogue } from '../../src/catalogue/searches.js';
import type { FilterDef } from '../../src/catalogue/types.js';
import { errorCodes } from '../../src/errors/catalogue.js';
import { createLimits, type Limits } from '../../src/limits/limits.js';
import { readMasterFile } from '../../src/masters/masters.js';
import { masterOfFilter } from '../../src/search/master-values.js';
import type { Services } from '../../src/services.js';
import { setUpServices } from '../support/env.js';
import {
  detailJobId,
  queryTotal,
  startLimitsTestApp,
  type TestApp,
  userHeaders,
} from '../support/limits-test-app.js';

let services: Services;
let limits: Limits;
let app: TestApp;
const user = 'teach-user';
const startBalance = 1000;

beforeAll(async () => {
  services = await setUpServices('errors-teach');
  if (!services.redis) throw new Error('these tests need Redis');
  limits = createLimits({
    redis: services.redis,
    keyPrefix: services.config.redisPrefix,
    // out of the way: this file tests error bodies, not the rate
    config: { ratePerSecond: 1_000_000 },
  });
  app = await startLimitsTestApp({
    limits,
    opensearch: services.opensearch,
    indexPrefix: services.config.indexPrefix,
  });
  await limits.ledger.grant(user, startBalance);
});

afterAll(async () => {
  await app?.close();
  await services?.close();
});

/** Reads the engine ran on every index of the file (queries and gets), from its own statistics. */
const engineQueries = () => queryTotal(services.opensearch, services.config.indexPrefix);

interface Answer {
  status: number;
  headers: Headers;
  body: {
    message: string;
    code: string;
    errors?: Array<{ field: string; reason: string; value?: unknown }>;
    requestId?: string;
    docUrl?: string;
  };
}

async function post(path: string, body: unknown, who = user): Promise<Answer> {
  const res = await fetch(`${app.url}/rest/v1${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(await userHeaders(who)) },
    body: JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, body: await res.json() };
}

/** A 400 that was neither charged nor searched: the ledger and the engine are as before. */
async function refusedUncharged(path: string, body: unknown): Promise<Answer> {
  const balance = await limits.ledger.balance(user);
  const queries = await engineQueries();
  const answer = await post(path, body);
  expect(answer.status, JSON.stringify(answer.body)).toBe(400);
  expect(answer.body.code).toBe('invalid_request');
  expect(answer.headers.get('x-credits-remaining')).toBeNull();
  expect(await limits.ledger.balance(user)).toBe(balance);
  expect(await engineQueries()).toBe(queries);
  return answer;
}

const searchPath = (search: SearchCatalogue) =>
  search.index === 'corporates' ? '/corporates/search' : '/jobs/search';

/** The filters of a search whose values are master entries, one per nested key. */
function masterFilters(search: SearchCatalogue): FilterDef[] {
  return search.filters.filter((def) => masterOfFilter(def) !== undefined);
}

/** A value the filter's master has, and one it lacks. */
function knownAndUnknown(def: FilterDef): [unknown, unknown] {
  const master = masterOfFilter(def);
  if (!master) throw new Error(`${def.key} takes no master`);
  const items = readMasterFile(master.name).items;
  const rows =
    master.level === 'sub'
      ? items.flatMap((item) => item.subCategories as Array<Record<string, unknown>>)
      : items;
  const known = rows[0]?.[master.valueField];
  return master.valueField === 'code' ? [known, 'no_such_market'] : [known, 99_999];
}

describe('an id or code the master lacks', () => {
  it('every ids filter of both searches, and the market codes, are checked against a master', () => {
    for (const search of [corporateSearch, jobSearch]) {
      for (const def of search.filters.filter((candidate) => candidate.kind === 'ids'))
        expect(masterOfFilter(def), `${search.index} ${def.key}`).toBeDefined();
      expect(masterFilters(search).some((def) => def.master?.name === 'markets')).toBe(true);
    }
  });

  it('jobMediaIdOr: [999] -> 400 naming the value and the media master, not charged, not searched', async () => {
    const { body } = await refusedUncharged('/corporates/search', { jobMediaIdOr: [1, 999] });
    expect(body.errors).toEqual([
      {
        field: 'jobMediaIdOr[1]',
        value: 999,
        reason: 'is not an id of the media master; the valid ones are listed at GET /rest/v1/master/media',
      },
    ]);
  });

  it('prefectureId 48 -> 400 (the prefectures are 1-47), in filters and in a filter group', async () => {
    const { body } = await refusedUncharged('/corporates/search', {
      filters: { prefectureId: { any: [13] } },
      filterGroups: [{ prefectureId: { none: [48] } }],
    });
    expect(body.errors).toEqual([
      {
        field: 'filterGroups[0].prefectureId.none[0]',
        value: 48,
        reason:
          'is not an id of the prefectures master; the valid ones are listed at GET /rest/v1/master/prefectures',
      },
    ]);
  });

  it('a sub-category filter takes the ids under subCategories, not the top-level ones', async () => {
    // job-categories: top ids 1.., sub ids 101..; a top id is no sub-category id
    const { body } = await refusedUncharged('/jobs/search', { filters: { jobSubCategoryId: { any: [1] } } });
    expect(body.errors).toEqual([
      {
        field: 'filters.jobSubCategoryId.any[0]',
        value: 1,
        reason:
          'is not a sub-category id of the job-categories master; the valid ones are listed in subCategories at GET /rest/v1/master/job-categories',
      },
    ]);
  });

  it.each(
    [corporateSearch, jobSearch].flatMap((search) =>
      masterFilters(search).map((def) => [search.index, def.key, search, def] as const),
    ),
  )(
    '%s %s: a known value is searched, an unknown one is a 400 on that value',
    async (_i, _k, search, def) => {
      const [known, unknown] = knownAndUnknown(def);
      const op = def.ops[0] as string;
      const nested = { filters: { [def.key]: { [op]: [known] } } };
      const ok = await post(searchPath(search), nested);
      expect(ok.status, JSON.stringify(ok.body)).toBe(200);
      const refused = await refusedUncharged(searchPath(search), {
        filters: { [def.key]: { [op]: [known, unknown] } },
      });
      expect(refused.body.errors).toEqual([
        expect.objectContaining({
          field: `filters.${def.key}.${op}[1]`,
          value: unknown,
          reason: expect.stringContaining(`GET /rest/v1/master/${masterOfFilter(def)?.name}`),
        }),
      ]);
    },
  );

  it('an export and a count refuse it the same way', async () => {
    await refusedUncharged('/jobs/export', { format: 'jsonl', mediaIdOr: [999] });
    await refusedUncharged('/jobs/count', { corporatePrefectureIdOr: [0] });
  });

  it("a job detail's id out of bounds is a 400 before the detail is read", async () => {
    const read = async (id: string) => {
      const res = await fetch(`${app.url}/rest/v1/jobs/${id}/detail`, { headers: await userHeaders(user) });
      return { status: res.status, body: (await res.json()) as Answer['body'] };
    };
    // the same measure sees the read of a detail that is served
    const before = await engineQueries();
    expect((await read(detailJobId)).status).toBe(200);
    expect(await engineQueries()).toBeGreaterThan(before);
    const queries = await engineQueries();
    const refused = await read('J'.repeat(201));
    expect(refused.status, JSON.stringify(refused.body)).toBe(400);
    expect(refused.body.code).toBe('invalid_request');
    expect(await engineQueries()).toBe(queries);
  });
});

describe('every error body carries requestId and docUrl', () => {
  it('requestId is the X-Request-Id header; docUrl is /docs/errors#<code>', async () => {
    const answer = await post('/corporates/search', { limit: 0 });
    expect(answer.status).toBe(400);
    expect(answer.body.requestId).toMatch(/\S/);
    expect(answer.body.requestId).toBe(answer.headers.get('x-request-id'));
    expect(answer.body.docUrl).toBe('/docs/errors#invalid_request');
  });

  it("a caller's own request id comes back in the body", async () => {
    const res = await fetch(`${app.url}/rest/v1/no-such-path`, {
      headers: { 'x-request-id': 'client-abc.123', ...(await userHeaders(user)) },
    });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({
      code: 'route_not_found',
      requestId: 'client-abc.123',
      docUrl: '/docs/errors#route_not_found',
    });
  });

  it('the served page /docs/errors has an anchor for every code, with its status', async () => {
    const res = await fetch(`${app.url}/docs/errors`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const page = await res.text();
    for (const code of errorCodes)
      expect(page, code).toMatch(new RegExp(`<tr id="${code}">.*<td>\\d{3}</td>`));
    // the docUrl of an actual answer lands on an anchor of that page
    const answer = await post('/corporates/search', { limit: 0 });
    const anchor = new URL(answer.body.docUrl ?? '', app.url).hash.slice(1);
    expect(page).toContain(`id="${anchor}"`);
  });
});

describe('an unknown condition lists the ones the filter takes', () => {
  it.each([
    [{ filters: { prefectureId: { in: [13] } } }, 'filters.prefectureId.in', 'prefectureId takes: any, none'],
    [
      { filters: { employeeCount: { atLeast: 5 } } },
      'filters.employeeCount.atLeast',
      'employeeCount takes: min, max',
    ],
    [{ prefectureIdAny: [13] }, 'prefectureIdAny', 'prefectureId takes: prefectureIdOr, prefectureIdNot'],
    [
      { employeeCountAtLeast: 5 },
      'employeeCountAtLeast',
      'employeeCount takes: employeeCountMin, employeeCountMax',
    ],
    [
      { workLocationCountMin: 2 },
      'workLocationCountMin',
      'workLocationCount is a nested filter only: filters.workLocationCount with min, max',
    ],
  ])('%j -> %s: %s', async (body, field, takes) => {
    const { body: answer } = await refusedUncharged('/corporates/search', body);
    expect(answer.errors).toHaveLength(1);
    expect(answer.errors?.[0]?.field).toBe(field);
    expect(answer.errors?.[0]?.reason).toContain(takes);
  });
});

describe('did you mean, across the two search kinds', () => {
  it.each([
    ['/jobs/search', { prefectureIdOr: [13] }, 'prefectureIdOr', 'company search', 'corporatePrefectureIdOr'],
    ['/jobs/search', { jobMediaIdOr: [1] }, 'jobMediaIdOr', 'company search', 'mediaIdOr'],
    ['/corporates/search', { mediaIdOr: [1] }, 'mediaIdOr', 'job search', 'jobMediaIdOr'],
    ['/corporates/search', { salaryMin: 200000 }, 'salaryMin', 'job search', 'jobSalaryMin'],
    [
      '/corporates/search',
      { corporatePrefectureIdOr: [13] },
      'corporatePrefectureIdOr',
      'job search',
      'prefectureIdOr',
    ],
    ['/corporates/search', { filters: { salary: { min: 1 } } }, 'filters.salary', 'job search', 'jobSalary'],
  ])('%s %j -> %s points to %s', async (path, body, field, otherKind, twin) => {
    const { body: answer } = await refusedUncharged(path, body);
    expect(answer.errors).toEqual([
      {
        field,
        reason: `is a field of ${otherKind}, not of ${path.startsWith('/jobs') ? 'job search' : 'company search'}: here the same condition is "${twin}"`,
      },
    ]);
    // the name it points to is one this search takes
    const fixed = JSON.parse(JSON.stringify(body).replace(`"${field.split('.').at(-1)}"`, `"${twin}"`));
    expect((await post(path, fixed)).status).toBe(200);
  });

  it('a name of the other kind with no twin here says so', async () => {
    const { body } = await refusedUncharged('/jobs/search', { furiganaPrefixOr: ['かぶ'] });
    expect(body.errors).toEqual([
      { field: 'furiganaPrefixOr', reason: 'is a field of company search only, not of job search' },
    ]);
  });
});

describe('a 402 says how credits are granted', () => {
  it('says the operator grants them, names no operator command, and its docUrl row says the same', async () => {
    const broke = 'teach-broke';
    const queries = await engineQueries();
    const answer = await post('/corporates/search', { limit: 1 }, broke);
    expect(answer.status).toBe(402);
    expect(answer.body.code).toBe('insufficient_credits');
    expect(answer.body.message).toContain("the API's operator grants them");
    expect(answer.body.message).not.toMatch(/npm run|--grant/);
    expect(answer.body.docUrl).toBe('/docs/errors#insufficient_credits');
    expect(answer.body.requestId).toBe(answer.headers.get('x-request-id'));
    expect(await engineQueries()).toBe(queries);
    const page = await (await fetch(`${app.url}/docs/errors`)).text();
    const row = page.split('\n').find((line) => line.startsWith('<tr id="insufficient_credits">'));
    expect(row).toContain("the API's operator grants them to a user");
    expect(row).not.toMatch(/npm run|--grant/);
  });
});
