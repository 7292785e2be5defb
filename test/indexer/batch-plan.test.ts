/**
 * The pipeline's planning step on its own: records and what the run knows in, `_bulk`
 * operations, refusals, deferrals and touched companies out. Pure functions, so no engine:
 * what the engine then does with the operations is covered by test/indexer/indexer.test.ts,
 * test/indexer/ordered-updates.test.ts and the other ingestion tests.
 */
import { describe, expect, it } from 'vitest';
import {
  type BatchPlan,
  emptyPlan,
  type KnownState,
  lookupsFor,
  outcomesOf,
  type PlanContext,
  planBatch,
  versionedCompanyUpdate,
} from '../../indexer/batch-plan.js';
import { indexNames } from '../../indexer/index-names.js';
import { loadMasters } from '../../indexer/masters.js';
import type { DeleteJobSource, SourceRecord } from '../../indexer/source-types.js';
import type { Doc } from '../../indexer/transform.js';
import type { BulkFailure } from '../../ops/engine/bulk.js';
import { corporate, job, numbers } from '../fixtures/indexer/records.js';

const names = indexNames('plan-test');
const now = new Date('2026-11-20T00:00:00Z');

function context(overrides: Partial<PlanContext> = {}): PlanContext {
  return {
    names,
    masters: loadMasters(),
    now,
    workLocationCounts: new Map(),
    deferMissingCompany: false,
    ...overrides,
  };
}

function known(overrides: Partial<KnownState> = {}): KnownState {
  return { cached: new Map(), indexed: new Map(), jobOwners: new Map(), ...overrides };
}

function deleteJob(id: string, sourceUpdatedAt?: string): DeleteJobSource {
  return { type: 'delete_job', id, ...(sourceUpdatedAt ? { sourceUpdatedAt } : {}) };
}

/** The body of the plan's `n`th operation (an index or update). */
function bodyOf(plan: BatchPlan, n: number): Doc {
  const body = plan.ops[n]?.body;
  if (!body) throw new Error(`operation ${n} has no body`);
  return body;
}

const indexedGamma: Doc = { corporateNumber: numbers.gamma, name: '株式会社ガンマ', workLocationCount: 4 };

describe('planBatch', () => {
  it('leaves out a versioned company record at or before its company delete, and not one after it', () => {
    const deleted = Date.parse('2026-11-20T10:00:00+09:00');
    const records = [
      corporate({ corporateNumber: numbers.alpha, sourceUpdatedAt: '2026-11-20T09:00:00+09:00' }),
      corporate({ corporateNumber: numbers.beta, sourceUpdatedAt: '2026-11-20T10:00:00+09:00' }),
      corporate({ corporateNumber: numbers.gamma, sourceUpdatedAt: '2026-11-20T11:00:00+09:00' }),
      corporate({ corporateNumber: numbers.delta }),
    ];
    expect(lookupsFor(records, new Map()).deletions).toEqual([numbers.alpha, numbers.beta, numbers.gamma]);
    const deletions = new Map([
      [numbers.alpha, deleted],
      [numbers.beta, deleted],
      [numbers.gamma, deleted],
      [numbers.delta, deleted],
    ]);
    const plan = planBatch(records, context(), known({ deletions }));
    expect([...plan.deleted]).toEqual([0, 1]);
    expect(plan.ops.map((op) => op.id)).toEqual([numbers.gamma, numbers.delta]);
    expect(plan.companies.has(numbers.alpha)).toBe(false);
    expect(outcomesOf(records.length, plan, []).map((outcome) => outcome.status)).toEqual([
      'older',
      'older',
      'indexed',
      'indexed',
    ]);
  });

  it('writes the companies first, and a posting of the same batch gets its company as the record leaves it', () => {
    const posting = job({ corporateNumber: numbers.alpha });
    const company = corporate({ corporateNumber: numbers.alpha, name: '株式会社アルファ新社名' });
    const plan = planBatch([posting, company], context(), known());

    expect(plan.ops.map((op) => [op.action, op.index, op.id, op.ref])).toEqual([
      ['update', names.corporates, numbers.alpha, 1],
      ['index', names.jobs, posting.id, 0],
      ['index', names.jobDetails, posting.id, 0],
    ]);
    const jobBody = plan.ops[1]?.body as { corporateName: string; corporate: { name: string } };
    expect(jobBody.corporateName).toBe('株式会社アルファ新社名');
    expect(jobBody.corporate.name).toBe('株式会社アルファ新社名');
    expect([...plan.touches]).toEqual([
      [1, numbers.alpha],
      [0, numbers.alpha],
    ]);
    expect(plan.rejected.size).toBe(0);
    expect(plan.deferred.size).toBe(0);
    expect(plan.deletesPostings).toBe(false);
    expect(plan.companies.get(numbers.alpha)).toMatchObject({ name: '株式会社アルファ新社名' });
  });

  it('a company without a version is a scripted update + upsert that clears the stored version', () => {
    const plan = planBatch([corporate()], context(), known());
    const op = plan.ops[0];
    expect(op?.versioned).toBeUndefined();
    const body = op?.body as {
      script: { source: string; params: { doc: Doc; version: number | null; owned: string[] } };
      upsert: Doc;
    };
    expect(body.script.source).toBe(versionedCompanyUpdate);
    expect(body.script.params.version).toBeNull();
    expect(body.script.params.doc).toMatchObject({ name: corporate().name, updatedAt: now.toISOString() });
    // the registry's fields are named, so the script leaves them on a registry company
    expect(body.script.params.owned).toEqual(expect.arrayContaining(['name', 'cityName', 'nameKey']));
    expect(body.upsert).toMatchObject({ name: corporate().name, sourceVersion: null, postings: [] });
    // the doc carries only the company's fields: the rebuild owns postings and aggregates
    expect(body.script.params.doc).not.toHaveProperty('postings');
    expect(body.script.params.doc).not.toHaveProperty('aggregates');
  });

  it("a company the registry wrote keeps the registry's name in the doc, the copy and its postings", () => {
    const registered = new Map([[numbers.alpha, { name: '株式会社登記名', nameKey: 'とうきめい' }]]);
    const plan = planBatch([corporate({ name: '旧名株式会社', phoneNumber: '03-1111-2222' })], context(), {
      ...known(),
      registered,
    });
    const body = plan.ops[0]?.body as { script: { params: { doc: Doc } } };
    expect(body.script.params.doc).toMatchObject({
      name: '株式会社登記名',
      nameKey: 'とうきめい',
      phoneNumber: '03-1111-2222',
    });
    const copy = JSON.parse(
      Buffer.from(String(body.script.params.doc.compactRecord), 'base64').toString('utf8'),
    ) as Doc;
    expect(copy.name).toBe('株式会社登記名');
    expect(plan.companies.get(numbers.alpha)?.name).toBe('株式会社登記名');
  });

  it('a company with sourceUpdatedAt is a scripted update that may decline an older version', () => {
    const at = '2026-11-19T08:00:00Z';
    const plan = planBatch([corporate({ sourceUpdatedAt: at })], context(), known());
    const op = plan.ops[0];
    expect(op?.versioned).toBe(true);
    expect(op?.version).toBeUndefined(); // external versions are for postings only
    const body = op?.body as { script: { source: string; params: { version: number } }; upsert: Doc };
    expect(body.script.source).toBe(versionedCompanyUpdate);
    expect(body.script.params.version).toBe(Date.parse(at));
    expect(body.upsert.sourceVersion).toBe(Date.parse(at));
  });

  it('a posting with sourceUpdatedAt is written with that external version to both indices', () => {
    const at = '2026-11-19T09:30:00Z';
    const posting = job({ sourceUpdatedAt: at });
    const plan = planBatch(
      [posting],
      context(),
      known({ cached: new Map([[numbers.alpha, { name: 'A' }]]) }),
    );
    expect(plan.ops.map((op) => [op.index, op.version])).toEqual([
      [names.jobs, Date.parse(at)],
      [names.jobDetails, Date.parse(at)],
    ]);
    const unversioned = planBatch(
      [job()],
      context(),
      known({ cached: new Map([[numbers.alpha, { name: 'A' }]]) }),
    );
    expect(unversioned.ops.every((op) => op.version === undefined)).toBe(true);
  });

  it('finds a posting company in the run, else in what was read from the index', () => {
    const cachedAlpha: Doc = { corporateNumber: numbers.alpha, name: '株式会社アルファ(cache)' };
    const fromCache = job({ corporateNumber: numbers.alpha });
    const fromIndex = job({ corporateNumber: numbers.gamma });
    const plan = planBatch(
      [fromCache, fromIndex],
      context(),
      known({
        cached: new Map([[numbers.alpha, cachedAlpha]]),
        indexed: new Map([[numbers.gamma, indexedGamma]]),
      }),
    );
    const companyNames = plan.ops.filter((op) => op.index === names.jobs).map((op) => op.body?.corporateName);
    expect(companyNames).toEqual(['株式会社アルファ(cache)', '株式会社ガンマ']);
    // only companies written by the batch are handed back for the cache
    expect(plan.companies.size).toBe(0);
  });

  it('gives a posting the run-wide workLocationCount when the CLI scanned one', () => {
    const plan = planBatch(
      [job({ corporateNumber: numbers.gamma })],
      context({ workLocationCounts: new Map([[numbers.gamma, 9]]) }),
      known({ indexed: new Map([[numbers.gamma, indexedGamma]]) }),
    );
    expect((bodyOf(plan, 0) as { corporate: Doc }).corporate.workLocationCount).toBe(9);
    const unscanned = planBatch(
      [job({ corporateNumber: numbers.gamma })],
      context(),
      known({ indexed: new Map([[numbers.gamma, indexedGamma]]) }),
    );
    expect((bodyOf(unscanned, 0) as { corporate: Doc }).corporate.workLocationCount).toBe(4);
  });

  it('refuses a posting whose company is unknown, or holds it back when told to defer', () => {
    const orphan = job({ corporateNumber: numbers.delta });
    const refused = planBatch([orphan], context(), known());
    expect(refused.ops).toEqual([]);
    expect(refused.rejected.get(0)).toBe(
      `corporateNumber: company ${numbers.delta} is not indexed; ingest its corporate record first`,
    );
    expect(refused.touches.size).toBe(0);

    const held = planBatch([orphan], context({ deferMissingCompany: true }), known());
    expect(held.ops).toEqual([]);
    expect([...held.deferred]).toEqual([0]);
    expect(held.rejected.size).toBe(0);
  });

  it('refuses a company the masters do not know, and its posting falls back to the indexed company', () => {
    const bad = corporate({ corporateNumber: numbers.gamma, marketCodes: ['no_such_market'] });
    const posting = job({ corporateNumber: numbers.gamma });
    const plan = planBatch(
      [bad, posting],
      context(),
      known({ indexed: new Map([[numbers.gamma, indexedGamma]]) }),
    );
    expect(plan.rejected.get(0)).toBe('marketCodes: no_such_market is not in the markets master');
    expect(plan.touches.has(0)).toBe(false);
    expect(plan.companies.has(numbers.gamma)).toBe(false);
    expect(plan.ops.map((op) => op.ref)).toEqual([1, 1]);
    expect(plan.ops[0]?.body?.corporateName).toBe('株式会社ガンマ');
  });

  it('refuses a posting the masters do not know, with the field in the reason', () => {
    const plan = planBatch(
      [job({ mediaId: 999_999 })],
      context(),
      known({ cached: new Map([[numbers.alpha, { name: 'A' }]]) }),
    );
    expect(plan.ops).toEqual([]);
    expect(plan.rejected.get(0)).toBe('mediaId: 999999 is not in the media master');
  });

  it('deletes a posting from both indices and touches the company the index says owned it', () => {
    const at = '2026-11-19T10:00:00Z';
    const plan = planBatch(
      [deleteJob('J-1', at), deleteJob('J-unknown')],
      context(),
      known({ jobOwners: new Map([['J-1', numbers.beta]]) }),
    );
    expect(plan.deletesPostings).toBe(true);
    expect(plan.ops).toEqual([
      { action: 'delete', index: names.jobs, id: 'J-1', ref: 0, version: Date.parse(at) },
      { action: 'delete', index: names.jobDetails, id: 'J-1', ref: 0, version: Date.parse(at) },
      { action: 'delete', index: names.jobs, id: 'J-unknown', ref: 1 },
      { action: 'delete', index: names.jobDetails, id: 'J-unknown', ref: 1 },
    ]);
    expect([...plan.touches]).toEqual([[0, numbers.beta]]);
  });

  it('folds two records of one company in order, over what the run had cached, and leaves its inputs alone', () => {
    const cached = new Map<string, Doc>([[numbers.alpha, { name: 'old', workLocationCount: 3 }]]);
    const records: SourceRecord[] = [
      corporate({ name: '一つ目' }),
      corporate({ name: '二つ目', employeeCount: 7 }),
      job(),
    ];
    const state = known({ cached });
    const plan = planBatch(records, context(), state);
    expect(plan.companies.get(numbers.alpha)).toMatchObject({
      name: '二つ目',
      employeeCount: 7,
      workLocationCount: 3,
    });
    expect((bodyOf(plan, 2) as { corporate: Doc }).corporate).toMatchObject({
      name: '二つ目',
      workLocationCount: 3,
    });
    expect(cached.get(numbers.alpha)).toEqual({ name: 'old', workLocationCount: 3 });
    // the same inputs plan the same batch
    expect(planBatch(records, context(), state)).toEqual(plan);
  });
});

describe('lookupsFor', () => {
  it('names the uncached companies of the postings once, and the postings deleted', () => {
    const records: SourceRecord[] = [
      corporate({ corporateNumber: numbers.gamma }),
      job({ corporateNumber: numbers.alpha }),
      job({ corporateNumber: numbers.beta }),
      job({ corporateNumber: numbers.beta }),
      // its corporate record is in the batch, but may be refused: read it too
      job({ corporateNumber: numbers.gamma }),
      deleteJob('J-9'),
    ];
    expect(lookupsFor(records, new Map([[numbers.alpha, {}]]))).toEqual({
      companies: [numbers.beta, numbers.gamma],
      jobs: ['J-9'],
      deletions: [],
      // every corporate record's company: does the registry own its name (indexer/ownership.ts)
      registered: [numbers.gamma],
    });
    expect(lookupsFor([corporate()], new Map())).toEqual({
      companies: [],
      jobs: [],
      deletions: [],
      registered: [corporate().corporateNumber],
    });
  });
});

describe('outcomesOf', () => {
  const plan = (overrides: Partial<BatchPlan>): BatchPlan => ({ ...emptyPlan(), ...overrides });
  const failure = (ref: number, reason: string, older?: boolean): BulkFailure<number> => ({
    op: { action: 'index', index: names.jobs, id: `J-${ref}`, ref },
    reason,
    ...(older ? { older } : {}),
  });

  it('maps the engine failures back to records: held back, refused, older, else indexed', () => {
    const outcomes = outcomesOf(
      6,
      plan({
        deferred: new Set([0]),
        rejected: new Map([[1, 'mediaId: 9 is not in the media master']]),
        touches: new Map([
          [3, numbers.alpha],
          [4, numbers.beta],
          [5, numbers.gamma],
        ]),
      }),
      [
        failure(1, 'rejected by OpenSearch: mapper_parsing_exception: x'),
        failure(2, 'rejected by OpenSearch: mapper_parsing_exception: y'),
        failure(3, 'older', true),
        // a posting is refused when either of its writes is, even if the other was older
        failure(5, 'older', true),
        failure(5, 'rejected by OpenSearch: es_rejected_execution_exception: z'),
      ],
    );
    expect(outcomes).toEqual([
      { status: 'deferred' },
      { status: 'rejected', reason: 'mediaId: 9 is not in the media master' },
      { status: 'rejected', reason: 'rejected by OpenSearch: mapper_parsing_exception: y' },
      { status: 'older' },
      { status: 'indexed', touches: numbers.beta },
      { status: 'rejected', reason: 'rejected by OpenSearch: es_rejected_execution_exception: z' },
    ]);
  });

  it('an indexed record that changes no known company touches none', () => {
    expect(outcomesOf(1, plan({}), [])).toEqual([{ status: 'indexed', touches: undefined }]);
  });
});
