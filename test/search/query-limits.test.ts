/**
 * Searches the engine can never run are a 400, never a 503 to retry: the real app on the real
 * engine refuses a query past the clause limit before the engine and the ledger (search and
 * count, nothing charged), still answers one just under it, and turns the engine's own
 * permanent refusals (past its clause limit, or an invalid query) into a 400 without
 * Retry-After, refunded, with no engine text in the answer or the log.
 */
import { errors as clientErrors } from '@opensearch-project/opensearch';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, keyStoreFor } from '../../src/auth/key-admin.js';
import { corporateSearch } from '../../src/catalogue/searches.js';
import { createApp } from '../../src/http/app.js';
import { createLogger } from '../../src/logger.js';
import { isTransientError, queryRejection } from '../../src/opensearch/retry.js';
import { countClauses, searchClauses } from '../../src/search/clause-count.js';
import { compileSearch } from '../../src/search/compile-search.js';
import { toSearchError } from '../../src/search/opensearch-errors.js';
import { parseSearchRequest } from '../../src/search/parse-request.js';
import type { Services } from '../../src/services.js';
import { corporate, daysAgo, indexFixture, job, posting } from '../fixtures/search/docs.js';
import { setUpServices } from '../support/env.js';

let services: Services;
let app: ReturnType<typeof createApp>;

const texts = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => `${prefix}${i}語`);

/** 20 filterGroups x 50 text terms each, with a posting condition: 20 x (50 + 1 + 2) + 1 = 1,061 clauses. */
const twentyByFifty = {
  filterGroups: Array.from({ length: 20 }, (_, g) => ({
    jobTitle: { anyContains: texts(50, `g${g}-`) },
    prefectureId: { any: [13] },
  })),
};
/** 1,023 phrases + 1: exactly the limit of 1,024. */
const atTheLimit = { corporateNamePartialMatchOr: texts(1000, 'a'), cityNamePartialMatchOr: texts(23, 'c') };
const oneOver = { corporateNamePartialMatchOr: texts(1000, 'a'), cityNamePartialMatchOr: texts(24, 'c') };

function capture() {
  const lines: string[] = [];
  return { logger: createLogger('info', { write: (line: string) => lines.push(line) }), lines };
}

async function newUser(credits = 10): Promise<{ userId: string; key: string }> {
  const userId = `ql-${Math.random().toString(36).slice(2, 10)}`;
  const { key } = await createApiKey(keyStoreFor(services.redis, services.config.redisPrefix), { userId });
  await services.limits.ledger.grant(userId, credits);
  return { userId, key };
}

/** The engine's own answer to a body compiled as the app compiles it, sent straight to it. */
async function engineError(body: Record<string, unknown>): Promise<unknown> {
  const compiled = compileSearch(
    corporateSearch,
    parseSearchRequest(corporateSearch, body),
    services.config.indexPrefix,
  );
  return services.opensearch.search(compiled as never).then(
    () => undefined,
    (error: unknown) => error,
  );
}

beforeAll(async () => {
  services = await setUpServices('query-limits');
  app = createApp(services);
  const company = corporate({
    name: 'アクメ物流',
    cityName: '港区',
    prefectureId: 13,
    postings: [posting({ title: '倉庫スタッフ', mediaId: 3 })],
  });
  await indexFixture(services.opensearch, services.config.indexPrefix, {
    corporates: [company, corporate({ name: '大阪商事', prefectureId: 27 })],
    jobs: [
      job({
        corporateNumber: company.corporateNumber,
        title: '倉庫スタッフ',
        description: '未経験歓迎',
        descriptionCollectedAt: daysAgo(1),
      }),
    ],
  });
});
afterAll(async () => {
  await services?.close();
});

describe('clause count', () => {
  it('counts leaves 1, number terms and ranges 2, nested +1, and the search +1', () => {
    expect(
      countClauses({
        bool: {
          filter: [
            { terms: { prefectureId: [13, 14] } },
            { nested: { path: 'postings', query: { match_phrase: { 'postings.title.substring': '営業' } } } },
          ],
        },
      }),
    ).toBe(4);
    expect(countClauses({ terms: { corporateType: ['kabushiki_gaisha', 'godo_gaisha'] } })).toBe(1);
    expect(countClauses({ range: { employeeCount: { gte: 5 } } })).toBe(2);
    const plan = (body: Record<string, unknown>) => parseSearchRequest(corporateSearch, body);
    expect(searchClauses(plan({}))).toBe(2);
    expect(searchClauses(plan(atTheLimit))).toBe(1024);
    expect(searchClauses(plan(oneOver))).toBe(1025);
    // a top-level condition is compiled into every group
    expect(
      searchClauses(plan({ cityNamePartialMatchOr: texts(3, 'x'), filterGroups: [{ isListed: true }, {}] })),
    ).toBe(2 * 3 + 1 + 1);
    expect(searchClauses(plan(twentyByFifty))).toBe(1061);
  });
});

describe('past the clause limit, through the app on the engine', () => {
  it.each(['search', 'count', 'export'])(
    '20 filterGroups x 50 terms on /%s: 400 query_too_complex naming the field, nothing charged',
    async (action) => {
      const { userId, key } = await newUser();
      const res = await request(app)
        .post(`/rest/v1/corporates/${action}`)
        .set('X-API-Key', key)
        .send(twentyByFifty);
      expect(res.status).toBe(400);
      expect(res.headers['retry-after']).toBeUndefined();
      expect(res.body.code).toBe('query_too_complex');
      expect(res.body.message).toContain('1,061 query clauses');
      expect(res.body.message).toContain('at most 1,024');
      expect(res.body.errors).toEqual([
        {
          field: 'filterGroups[0].jobTitle.anyContains',
          reason: expect.stringContaining('needs 1,000 of the search'),
        },
      ]);
      expect(res.body.errors[0].reason).toContain('19 other filterGroups');
      expect(await services.limits.ledger.balance(userId)).toBe(10);
    },
  );

  it('names a top-level filter that every group repeats', async () => {
    const { key } = await newUser();
    const res = await request(app)
      .post('/rest/v1/corporates/count')
      .set('X-API-Key', key)
      .send({
        corporateNamePartialMatchOr: texts(60, 'n'),
        filterGroups: Array.from({ length: 20 }, (_, g) => ({ prefectureId: { any: [g + 1] } })),
      });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].field).toBe('corporateNamePartialMatchOr');
    expect(res.body.errors[0].reason).toContain('each of the 20 filterGroups');
  });

  it('just under the limit still answers 200, and one clause more is the 400', async () => {
    const { userId, key } = await newUser();
    const under = await request(app)
      .post('/rest/v1/corporates/search')
      .set('X-API-Key', key)
      .send(atTheLimit);
    expect(under.status).toBe(200);
    const groups = await request(app)
      .post('/rest/v1/corporates/search')
      .set('X-API-Key', key)
      .send({
        filterGroups: Array.from({ length: 20 }, (_, g) => ({
          corporateName: { anyContains: texts(51, `g${g}`) },
        })),
      });
    expect(groups.status).toBe(200);
    expect(await services.limits.ledger.balance(userId)).toBe(8);
    const over = await request(app).post('/rest/v1/corporates/search').set('X-API-Key', key).send(oneOver);
    expect(over.status).toBe(400);
    expect(over.body.code).toBe('query_too_complex');
    expect(await services.limits.ledger.balance(userId)).toBe(8);
  });
});

describe('permanent errors the engine itself gives', () => {
  it('past its clause limit (validation set too high): 400 query_too_complex, refunded, no engine text', async () => {
    const { logger, lines } = capture();
    const lenient = createApp({
      ...services,
      logger,
      config: { ...services.config, maxClauseCount: 100_000 },
    });
    const { userId, key } = await newUser();
    const res = await request(lenient)
      .post('/rest/v1/corporates/search')
      .set('X-API-Key', key)
      .send(twentyByFifty);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('query_too_complex');
    expect(res.body.errors).toBeUndefined();
    expect(res.headers['retry-after']).toBeUndefined();
    expect(await services.limits.ledger.balance(userId)).toBe(10);
    const said = JSON.stringify(res.body) + lines.join('');
    expect(said).not.toContain(services.config.indexPrefix);
    expect(said).not.toMatch(/maxClauseCount|too many/i);
    expect(lines.join('')).toContain('"rejection":"tooComplex"');
  });

  it('a real engine refusal of an invalid query is a 400 query_rejected, not a retry', async () => {
    const error = await services.opensearch
      .search({
        index: `${services.config.indexPrefix}corporates`,
        body: { query: { range: { employeeCount: { gte: 'not-a-count-q7' } } } },
      })
      .then(
        () => undefined,
        (caught: unknown) => caught,
      );
    expect(error).toBeInstanceOf(clientErrors.ResponseError);
    expect(queryRejection(error)).toBe('invalid');
    expect(isTransientError(error)).toBe(false);
    const { logger, lines } = capture();
    const mapped = toSearchError(error, logger);
    expect(mapped.status).toBe(400);
    expect(mapped.code).toBe('query_rejected');
    expect(mapped.headers['Retry-After']).toBeUndefined();
    const said = JSON.stringify(mapped.toBody()) + lines.join('');
    expect(said).not.toContain(services.config.indexPrefix);
    expect(said).not.toContain('not-a-count-q7');
  });

  it('the engine refuses what the count refuses (the count is not stricter than the engine by more than one)', async () => {
    const over = await engineError(twentyByFifty);
    expect(queryRejection(over)).toBe('tooComplex');
    expect(isTransientError(over)).toBe(false);
    expect(toSearchError(over, capture().logger, 1024).message).toContain('at most 1,024');
    expect(await engineError(atTheLimit)).toBeUndefined();
  });
});
