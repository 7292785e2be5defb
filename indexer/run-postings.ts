/**
 * Company rebuilds during a file load, from the postings the load itself wrote, instead of a
 * scan of `jobs` after the last record. The pre-scan of the files (./ingest.ts) counts each
 * company's corporate and job records; the load holds the postings it writes (the fields
 * the rebuild reads, ./rebuild.ts `postingSourceFields`) until every record of their company
 * has been written, and the company is then complete: its rebuild can run while later
 * records are still being written, and reads none of its postings back.
 *
 * Only where the postings held are exactly what the scan would find: the load began with an
 * empty `jobs` index (the caller checks), and every record of the company was indexed. A
 * company is left to the rebuild after the load (the scan, as before) when one of its records
 * was refused, older or deferred, when a posting id comes twice, when the files delete it, or
 * when holding its postings would pass `maxHeld`. The caller checks the postings each
 * company was rebuilt with against the index after the load (`postingCountsByCompany`).
 *
 *   const run = new RunPostings(expected, { excluded, maxHeld: 20_000, jobsIndex });
 *   const complete = run.settle(records, outcomes, plan); // [['7000012050002', [posting, ...]], ...]
 */
import type { API, Engine } from '../src/opensearch/engine.js';
import { withRetry } from '../src/opensearch/retry.js';
import type { BatchPlan, RecordOutcome } from './batch-plan.js';
import { type PostingSource, postingSourceFields, type RebuildResult, rebuildCompanies } from './rebuild.js';
import type { SourceRecord } from './source-types.js';

/** Companies per rebuild round, as the rebuild after the load (./ingest.ts). */
const roundSize = 200;

/** A complete company and its postings, in the order the rebuild's scan reads them (by id). */
export type CompleteCompany = [corporateNumber: string, postings: PostingSource[]];

/** Byte order of UTF-8, as the engine sorts a keyword (`id asc` in the rebuild's scan). */
function byId(a: PostingSource, b: PostingSource): number {
  return Buffer.compare(Buffer.from(a.id), Buffer.from(b.id));
}

export class RunPostings {
  /** postings held, by company then id */
  private readonly held = new Map<string, Map<string, PostingSource>>();
  private readonly settled = new Map<string, number>();
  private readonly excluded: Set<string>;
  private heldCount = 0;

  /**
   * `expected`: corporate and job records of each company in the files. `excluded`: companies
   * rebuilt after the load whatever happens (the files delete them).
   */
  constructor(
    private readonly expected: ReadonlyMap<string, number>,
    private readonly options: { excluded: Iterable<string>; maxHeld: number; jobsIndex: string },
  ) {
    this.excluded = new Set(options.excluded);
  }

  /** Whether the company is left to the rebuild after the load. */
  isExcluded(corporateNumber: string): boolean {
    return this.excluded.has(corporateNumber);
  }

  /** One batch, written and counted: the companies it completed, with their postings. */
  settle(
    records: readonly SourceRecord[],
    outcomes: readonly RecordOutcome[],
    plan: BatchPlan,
  ): CompleteCompany[] {
    const written = new Map<number, Record<string, unknown>>();
    for (const op of plan.ops)
      if (op.action === 'index' && op.index === this.options.jobsIndex && op.body)
        written.set(op.ref, op.body);
    const seen = new Set<string>();
    records.forEach((record, position) => {
      if (record.type !== 'corporate' && record.type !== 'job') return;
      const company = record.corporateNumber;
      seen.add(company);
      this.settled.set(company, (this.settled.get(company) ?? 0) + 1);
      if (outcomes[position]?.status !== 'indexed') this.exclude(company);
      else if (record.type === 'job') this.hold(company, record.id, written.get(position));
    });
    const complete: CompleteCompany[] = [];
    for (const company of seen) {
      const settled = this.settled.get(company) ?? 0;
      const expected = this.expected.get(company) ?? 0;
      if (this.excluded.has(company) || settled < expected) continue;
      // more records than the pre-scan counted: the files are not what it read
      if (settled > expected) {
        this.exclude(company);
        continue;
      }
      complete.push([company, [...(this.held.get(company)?.values() ?? [])].sort(byId)]);
      this.release(company);
    }
    return complete;
  }

  private hold(company: string, id: string, body: Record<string, unknown> | undefined): void {
    if (this.excluded.has(company)) return;
    const postings = this.held.get(company) ?? new Map<string, PostingSource>();
    // a posting written twice in one load: which write the index kept is the index's to say
    if (!body || postings.has(id) || this.heldCount >= this.options.maxHeld) {
      this.exclude(company);
      return;
    }
    const posting: Record<string, unknown> = {};
    for (const field of postingSourceFields) if (field in body) posting[field] = body[field];
    postings.set(id, posting as PostingSource);
    this.held.set(company, postings);
    this.heldCount++;
  }

  private release(company: string): void {
    this.heldCount -= this.held.get(company)?.size ?? 0;
    this.held.delete(company);
  }

  private exclude(company: string): void {
    this.excluded.add(company);
    this.release(company);
  }
}

/** Postings per company in `index` (a composite aggregation, no `_source` read). */
export async function postingCountsByCompany(client: Engine, index: string): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  let after: Record<string, unknown> | undefined;
  for (;;) {
    const request: Record<string, unknown> = {
      size: 0,
      aggs: {
        companies: {
          composite: {
            size: 10_000,
            sources: [{ corporateNumber: { terms: { field: 'corporateNumber' } } }],
            ...(after ? { after } : {}),
          },
        },
      },
    };
    const { body } = await withRetry(() => client.search({ index, body: request as API.Search_RequestBody }));
    const result = (body.aggregations as Record<string, unknown> | undefined)?.companies as
      | {
          buckets: Array<{ key: { corporateNumber: string }; doc_count: number }>;
          after_key?: Record<string, unknown>;
        }
      | undefined;
    for (const bucket of result?.buckets ?? []) counts.set(bucket.key.corporateNumber, bucket.doc_count);
    if (!result?.after_key || result.buckets.length === 0) return counts;
    after = result.after_key;
  }
}

/**
 * The rebuilds of complete companies while the load goes on: one round of up to 200
 * companies at a time (as the rebuild after the load), beside the load's own writes.
 */
export class EarlyRebuilds {
  /** postings each company was rebuilt with, for the check after the load */
  readonly rebuilt = new Map<string, number>();
  readonly result: RebuildResult = { rebuilt: 0, missing: 0, fannedOut: 0, failures: [] };
  private queue: CompleteCompany[] = [];
  private queuedPostings = 0;
  private running: Promise<void> | undefined;
  private failure: unknown;

  constructor(
    private readonly client: Engine,
    private readonly prefix: string,
    private readonly options: { now?: () => Date; maxQueued: number },
  ) {}

  add(complete: readonly CompleteCompany[]): void {
    for (const entry of complete) {
      this.queue.push(entry);
      this.queuedPostings += entry[1].length;
    }
    if (this.queue.length >= roundSize) this.start(false);
  }

  /** Waits while more companies or postings wait than `maxQueued` allows (the load's memory). */
  async keepUp(): Promise<void> {
    if (this.queuedPostings > this.options.maxQueued) this.start(true);
    while (
      this.running &&
      (this.queue.length > 2 * roundSize || this.queuedPostings > this.options.maxQueued)
    )
      await this.running;
    if (this.failure) throw this.failure;
  }

  /** Rebuilds every company still waiting. */
  async finish(): Promise<void> {
    while (this.running) await this.running;
    this.start(true);
    while (this.running) await this.running;
    if (this.failure) throw this.failure;
  }

  private start(all: boolean): void {
    if (this.running || this.failure) return;
    this.running = this.drain(all)
      .catch((error: unknown) => {
        this.failure = error;
      })
      .finally(() => {
        this.running = undefined;
      });
  }

  private async drain(all: boolean): Promise<void> {
    while (this.queue.length >= (all ? 1 : roundSize)) {
      const round = this.queue.splice(0, roundSize);
      for (const [, postings] of round) this.queuedPostings -= postings.length;
      const part = await rebuildCompanies(
        this.client,
        this.prefix,
        round.map(([number]) => number),
        {
          refresh: false,
          postings: new Map(round),
          ...(this.options.now ? { now: this.options.now() } : {}),
        },
      );
      for (const [number, postings] of round) this.rebuilt.set(number, postings.length);
      this.result.rebuilt += part.rebuilt;
      this.result.missing += part.missing;
      this.result.fannedOut += part.fannedOut;
      this.result.failures.push(...part.failures);
    }
  }
}
