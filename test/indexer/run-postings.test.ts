/**
 * The bookkeeping of the file load's early rebuilds (indexer/run-postings.ts) on its own: when
 * a company is complete, which postings it is rebuilt with and in what order, and which
 * companies are left to the rebuild from the index. Pure, so no engine: the documents the
 * early rebuilds write are compared with those of the rebuild from the index in
 * test/indexer/early-rebuild.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { type BatchPlan, emptyPlan, type RecordOutcome } from '../../indexer/batch-plan.js';
import { RunPostings } from '../../indexer/run-postings.js';
import type { SourceRecord } from '../../indexer/source-types.js';
import { corporate, job, numbers } from '../fixtures/indexer/records.js';

const jobsIndex = 'run-test-jobs';
const indexed: RecordOutcome = { status: 'indexed', touches: undefined };

/** The plan of a batch as the pipeline writes it: each job record's jobs document, all fields. */
function planOf(records: SourceRecord[]): BatchPlan {
  const plan = emptyPlan();
  records.forEach((record, position) => {
    if (record.type !== 'job') return;
    plan.ops.push(
      {
        action: 'index',
        index: jobsIndex,
        id: record.id,
        ref: position,
        body: { ...record, description: 'text', compactRecord: 'copy', notRead: 1 },
      },
      { action: 'index', index: 'run-test-job-details', id: record.id, ref: position, body: {} },
    );
  });
  return plan;
}

function settle(run: RunPostings, records: SourceRecord[], outcomes?: RecordOutcome[]) {
  return run.settle(records, outcomes ?? records.map(() => indexed), planOf(records));
}

const expected = (entries: Array<[string, number]>) => new Map(entries);
const options = { excluded: [] as string[], maxHeld: 100, jobsIndex };

describe('RunPostings', () => {
  it('completes a company when its last record is written, with its postings by id and only the fields the rebuild reads', () => {
    const run = new RunPostings(expected([[numbers.alpha, 3]]), options);
    const b = job({ id: 'B', corporateNumber: numbers.alpha });
    const a = job({ id: 'A', corporateNumber: numbers.alpha });
    expect(settle(run, [corporate({ corporateNumber: numbers.alpha }), b])).toEqual([]);
    const complete = settle(run, [a]);
    expect(complete.map(([number, postings]) => [number, postings.map((p) => p.id)])).toEqual([
      [numbers.alpha, ['A', 'B']],
    ]);
    const posting = complete[0]?.[1][0];
    expect(posting?.description).toBe('text');
    expect(posting?.corporateNumber).toBe(numbers.alpha);
    expect(posting).not.toHaveProperty('compactRecord');
    expect(posting).not.toHaveProperty('notRead');
  });

  it('orders ids as the engine sorts a keyword (UTF-8 bytes), not by UTF-16 units', () => {
    // U+FF5E (3 bytes in UTF-8) sorts before U+1F600 (4 bytes) as bytes, after it as UTF-16 units
    const ids = ['\u{1F600}', '\uFF5E', 'Z'];
    const run = new RunPostings(expected([[numbers.alpha, 3]]), options);
    const complete = settle(
      run,
      ids.map((id) => job({ id, corporateNumber: numbers.alpha })),
    );
    expect(complete[0]?.[1].map((p) => p.id)).toEqual(['Z', '\uFF5E', '\u{1F600}']);
  });

  it('completes a company with no postings when its corporate records are written', () => {
    const run = new RunPostings(expected([[numbers.beta, 2]]), options);
    expect(settle(run, [corporate({ corporateNumber: numbers.beta })])).toEqual([]);
    expect(settle(run, [corporate({ corporateNumber: numbers.beta })])).toEqual([[numbers.beta, []]]);
  });

  it('leaves a company to the rebuild from the index when one of its records was not indexed', () => {
    for (const outcome of [
      { status: 'rejected', reason: 'rejected by OpenSearch' },
      { status: 'older' },
      { status: 'deferred' },
    ] satisfies RecordOutcome[]) {
      const run = new RunPostings(expected([[numbers.alpha, 2]]), options);
      const records = [job({ corporateNumber: numbers.alpha }), job({ corporateNumber: numbers.alpha })];
      expect(settle(run, records, [indexed, outcome])).toEqual([]);
      expect(run.isExcluded(numbers.alpha)).toBe(true);
    }
  });

  it('leaves a company to the index when a posting id comes twice, when the files delete it, or when it has more records than counted', () => {
    const twice = new RunPostings(expected([[numbers.alpha, 2]]), options);
    const posting = job({ id: 'SAME', corporateNumber: numbers.alpha });
    expect(settle(twice, [posting, { ...posting, title: 'second' }])).toEqual([]);
    expect(twice.isExcluded(numbers.alpha)).toBe(true);

    const deleted = new RunPostings(expected([[numbers.gamma, 1]]), {
      ...options,
      excluded: [numbers.gamma],
    });
    expect(settle(deleted, [job({ corporateNumber: numbers.gamma })])).toEqual([]);

    const more = new RunPostings(expected([[numbers.delta, 1]]), options);
    expect(
      settle(more, [job({ corporateNumber: numbers.delta }), job({ corporateNumber: numbers.delta })]),
    ).toEqual([]);
    expect(more.isExcluded(numbers.delta)).toBe(true);
  });

  it('holds at most maxHeld postings: the company that would pass it goes to the index, the others go on', () => {
    const run = new RunPostings(
      expected([
        [numbers.alpha, 3],
        [numbers.beta, 1],
      ]),
      { ...options, maxHeld: 2 },
    );
    const alpha = [1, 2, 3].map(() => job({ corporateNumber: numbers.alpha }));
    expect(settle(run, alpha)).toEqual([]);
    expect(run.isExcluded(numbers.alpha)).toBe(true);
    // alpha's postings were let go: beta fits again
    expect(
      settle(run, [job({ id: 'BETA', corporateNumber: numbers.beta })]).map(([number]) => number),
    ).toEqual([numbers.beta]);
  });
});
