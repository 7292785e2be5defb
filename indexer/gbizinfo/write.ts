/**
 * Writes one gBizINFO kind's company summaries (./format.ts) into the corporates index,
 * touching only what that kind owns: the field of its name (`subsidies`, `certifications`,
 * `workplace`, …) and its record text `<kind>Record` (the doc value a search splices into the
 * record, src/search/records.ts), with the company's `updatedAt`. Each company is read with its
 * sequence number and written only when its summary differs, with `if_seq_no` (a write of
 * another feed in between is redone, never lost); a company with postings is then rebuilt,
 * since a partial update drops their detail text (indexer/rebuild.ts). A corporate number the
 * index does not hold is counted `noCompany`.
 */
import { type BulkOp, writeBulkChunked } from '../../ops/engine/bulk.js';
import { canonicalJson } from '../../src/canonical-json.js';
import { presenceField, summaryKeys } from '../../src/catalogue/gbizinfo-kinds.js';
import { getSources } from '../../src/opensearch/documents.js';
import { withRetry } from '../../src/opensearch/retry.js';
import { indexNames } from '../index-names.js';
import { RecordRebuild, type RecordRebuildOptions } from '../record-rebuild.js';
import type { RecordKind, Summary } from './format.js';

export type RecordOutcome = 'set' | 'unchanged' | 'noCompany' | 'cleared';

const maxConflictRounds = 5;

/** The record text a search splices: the summary's JSON, base64 (a binary doc value). */
export function recordValue(summary: Summary): string {
  return Buffer.from(JSON.stringify(summary), 'utf8').toString('base64');
}

/**
 * On the kind's keys, key order aside (the engine gives a merged object back in its own key
 * order, and a key the summary no longer has would survive a partial update's merge).
 */
function sameSummary(kind: RecordKind, a: Summary | null, b: Summary | null): boolean {
  if (a === null || b === null) return a === b;
  const keys = summaryKeys[kind];
  const picked = (summary: Summary) => keys.map((key) => canonicalJson(summary[key] ?? null)).join(',');
  return picked(a) === picked(b);
}

interface Stored {
  summary: Summary | null;
  postings: boolean;
  seqNo: number;
  primaryTerm: number;
}

export class RecordWriter {
  readonly index: string;
  private readonly after: RecordRebuild;

  constructor(
    readonly kind: RecordKind,
    readonly options: RecordRebuildOptions,
  ) {
    this.index = indexNames(options.indexPrefix).corporates;
    this.after = new RecordRebuild(options);
  }

  private async read(numbers: string[]): Promise<Map<string, Stored>> {
    const docs = await getSources<Record<string, unknown>>(this.options.client, this.index, numbers, {
      includes: [this.kind, 'postings.id'],
    });
    const found = new Map<string, Stored>();
    for (const doc of docs) {
      if (!doc.source || !doc.version) continue;
      const [seqNo, primaryTerm] = doc.version.split(':').map(Number) as [number, number];
      const postings = doc.source.postings;
      found.set(doc.id, {
        summary: (doc.source[this.kind] as Summary | undefined) ?? null,
        postings: Array.isArray(postings) && postings.length > 0,
        seqNo,
        primaryTerm,
      });
    }
    return found;
  }

  /**
   * Sets (or, with null, clears) each company's summary; one outcome per entry, in order.
   * `resumed`: the first batch of a resumed run (its writes may have landed before the stop
   * without what follows them): every company of the batch is followed up, changed or not.
   */
  async apply(entries: Array<[string, Summary | null]>, resumed = false): Promise<RecordOutcome[]> {
    const outcomes: RecordOutcome[] = new Array(entries.length).fill('unchanged');
    const written = new Set<string>();
    const rebuild = new Set<string>();
    let pending = entries.map((_, i) => i);
    for (let round = 1; pending.length > 0; round++) {
      const stored = await this.read(pending.map((i) => entries[i]?.[0] ?? ''));
      const now = (this.options.now?.() ?? new Date()).toISOString();
      const ops: BulkOp<number>[] = [];
      for (const i of pending) {
        const [number, summary] = entries[i] as [string, Summary | null];
        const existing = stored.get(number);
        if (!existing) {
          outcomes[i] = 'noCompany';
          continue;
        }
        if (resumed) {
          written.add(number);
          if (existing.postings) rebuild.add(number);
        }
        if (sameSummary(this.kind, existing.summary, summary)) continue;
        outcomes[i] = summary === null ? 'cleared' : 'set';
        written.add(number);
        if (existing.postings) rebuild.add(number);
        ops.push({
          action: 'update',
          index: this.index,
          id: number,
          ref: i,
          ifUnchanged: { seqNo: existing.seqNo, primaryTerm: existing.primaryTerm },
          body: {
            doc: {
              [this.kind]: summary,
              [`${this.kind}Record`]: summary === null ? null : recordValue(summary),
              updatedAt: now,
            },
          },
        });
      }
      const all = await writeBulkChunked(this.options.client, ops);
      // a company deleted since it was read (the register's delete): as one never held
      const failures = all.filter((failure) => {
        if (!/document_missing/.test(failure.reason)) return true;
        outcomes[failure.op.ref] = 'noCompany';
        written.delete(failure.op.id);
        rebuild.delete(failure.op.id);
        return false;
      });
      const unexpected = failures.find((failure) => !failure.conflict || round === maxConflictRounds);
      if (unexpected)
        throw new Error(`OpenSearch did not accept a company's ${this.kind}: ${unexpected.reason}`);
      pending = failures.map((failure) => failure.op.ref);
    }
    await this.after.rebuild(written, rebuild);
    return outcomes;
  }
}

/** Step 3: every company holding the kind's summary that `keep` lacks loses it; how many did. */
export async function clearMissing(
  kind: RecordKind,
  keep: Set<string>,
  writer: RecordWriter,
): Promise<number> {
  const { client } = writer.options;
  await withRetry(() => client.indices.refresh({ index: writer.index }));
  let after: Array<string | number> | undefined;
  const gone: string[] = [];
  for (;;) {
    const { body } = await withRetry(() =>
      client.search({
        index: writer.index,
        body: {
          size: 5000,
          _source: false,
          query: { exists: { field: presenceField(kind) } },
          sort: [{ corporateNumber: 'asc' }],
          ...(after ? { search_after: after } : {}),
        },
      }),
    );
    const hits = body.hits.hits as Array<{ _id: string; sort?: Array<string | number> }>;
    for (const hit of hits) if (!keep.has(hit._id)) gone.push(hit._id);
    if (hits.length < 5000) break;
    after = hits.at(-1)?.sort;
  }
  let cleared = 0;
  for (let start = 0; start < gone.length; start += 1000) {
    const outcomes = await writer.apply(gone.slice(start, start + 1000).map((number) => [number, null]));
    cleared += outcomes.filter((outcome) => outcome === 'cleared').length;
  }
  return cleared;
}
