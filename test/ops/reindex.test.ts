/**
 * Zero-downtime reindex on the real engine: `reindexAll` (what `npm run reindex` runs) moves
 * every alias to new indices while users search through the app and the ingest
 * pipeline writes new postings, updates and deletes, with external versions on half of them
 * and internal ones on the rest. Afterwards: no failed search, every acknowledged write in
 * the new indices (counts, id checksums, titles), nothing deleted comes back, and a cursor
 * opened before the swap reads its snapshot to the end after it. Bounded: the load stops
 * after 36 records written past the swap (30 s at most), the test after 240 s.
 */
import { createHash } from 'node:crypto';
import pRetry from 'p-retry';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corporateCheckDigit } from '../../indexer/corporate-number.js';
import { MemoryDeadLetter } from '../../indexer/dead-letter.js';
import { indexNames } from '../../indexer/index-names.js';
import { IngestPipeline } from '../../indexer/pipeline.js';
import { rebuildCompanies } from '../../indexer/rebuild.js';
import type { SourceRecord } from '../../indexer/source-types.js';
import {
  aliasTarget,
  dropRetiredIndices,
  reindexAll,
  reindexStatus,
  releaseWriteBlocks,
} from '../../ops/engine/reindex.js';
import { scan } from '../../ops/engine/scan.js';
import { createApiKey, keyStoreFor } from '../../src/auth/key-admin.js';
import { defaultConfig } from '../../src/config.js';
import { createApp } from '../../src/http/app.js';
import { deleteMatching } from '../../src/opensearch/documents.js';
import { bootstrapIndices } from '../../src/opensearch/indices.js';
import type { Services } from '../../src/services.js';
import { corporate, job } from '../fixtures/indexer/records.js';
import { setUpServices } from '../support/env.js';

const searcher = 'reindex-searcher';
let services: Services;
let app: ReturnType<typeof createApp>;
let names: ReturnType<typeof indexNames>;
let key: string;

const companyCount = 40;
const initialJobs = 2_400;
const companies = Array.from({ length: companyCount }, (_, i) => {
  const base = `3${String(i).padStart(11, '0')}`;
  return `${corporateCheckDigit(base)}${base}`;
});

/** What the index must hold: every acknowledged posting with its latest title. */
const expected = new Map<string, string>();
const deletedDuringCopy: string[] = [];
const updatedDuringCopy = new Map<string, string>();
let clock = Date.parse('2026-11-22T00:00:00Z');
/** A strictly later source time for each versioned write. */
const nextVersion = () => new Date(++clock).toISOString();
/** Postings written with `sourceUpdatedAt` (external versions); the others use arrival order. */
const versioned = new Set<string>();

let pipeline: IngestPipeline;
const deadLetter = new MemoryDeadLetter();

async function write(records: SourceRecord[]): Promise<void> {
  for (const record of records) await pipeline.add(record);
  await pipeline.flush();
}

function newPosting(n: number): SourceRecord {
  const id = `RX${String(n).padStart(6, '0')}`;
  const withVersion = n % 2 === 0;
  if (withVersion) versioned.add(id);
  return job({
    id,
    corporateNumber: companies[n % companyCount],
    title: `求人${n}`,
    ...(withVersion ? { sourceUpdatedAt: nextVersion() } : {}),
  });
}

function sha(ids: Iterable<string>): string {
  return createHash('sha256')
    .update([...ids].sort().join('\n'))
    .digest('hex')
    .slice(0, 16);
}

async function titlesIn(index: string): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  for await (const page of scan<{ title?: string }>(services.opensearch, {
    index,
    query: { match_all: {} },
    sort: [{ id: 'asc' }],
    source: ['title'],
  }))
    for (const hit of page) found.set(hit.id, String(hit.source.title ?? ''));
  return found;
}

beforeAll(async () => {
  services = await setUpServices('reindex', {
    limits: { ...defaultConfig().limits, rateLimitExemptUsers: new Set([searcher]) },
    // what is counted is whether the reindex fails a search, not whether a machine shared with
    // the whole suite answers within the usual test deadline: in one full run at load ~22 a
    // search here got a 503 while the export test's searches got 503s too (the same run);
    // the deadline and Redis budget are raised so that only a real failure counts
    requestDeadlineMs: 60_000,
    redisBudgetMs: 20_000,
  });
  app = createApp(services);
  names = indexNames(services.config.indexPrefix);
  // the first Redis commands of a fresh redis-server have passed the 2 s command timeout on
  // this shared machine (seen twice in six runs): setup, not what is tested, so retried
  await pRetry(
    async () => {
      key = (
        await createApiKey(keyStoreFor(services.redis, services.config.redisPrefix), { userId: searcher })
      ).key;
      await services.limits.ledger.grant(searcher, 1_000_000);
    },
    { retries: 3 },
  );
  pipeline = new IngestPipeline({
    client: services.opensearch,
    indexPrefix: services.config.indexPrefix,
    deadLetter,
    batchSize: 500,
  });
  await write(
    companies.map((corporateNumber, i) => corporate({ corporateNumber, name: `再索引${i}株式会社` })),
  );
  const initial: SourceRecord[] = [];
  for (let n = 0; n < initialJobs; n++) initial.push(newPosting(n));
  await write(initial);
  for (const record of initial) if (record.type === 'job') expected.set(record.id, record.title);
  await rebuildCompanies(services.opensearch, services.config.indexPrefix, companies);
  await services.opensearch.indices.refresh({ index: `${services.config.indexPrefix}*` });
}, 180_000);

afterAll(async () => {
  await services?.close();
});

function search(body: object) {
  return request(app).post('/rest/v1/jobs/search').set('X-API-Key', key).send(body);
}

// one index set for all three: the write-block tests write records (RX900000) that the first
// test's count of what the copy kept would take for revived ones, so the order is kept
describe('npm run reindex under search load and ingestion', { shuffle: false }, () => {
  it('swaps every alias with zero failed searches and zero lost or revived records', async () => {
    const before = await reindexStatus(services.opensearch, services.config.indexPrefix);
    expect(before.map((status) => status.index)).toEqual(
      [
        'corporates',
        'credit-ledger',
        'deleted-corporates',
        'job-details',
        'jobs',
        'posting-history',
        'saved-job-search-queries',
        'saved-search-queries',
      ].map((name) => `${services.config.indexPrefix}${name}-v1`),
    );

    // a cursor opened before the reindex: its snapshot is the initial postings
    const firstPage = await search({ cursor: '*', limit: 500 }).expect(200);
    const cursorIds: string[] = firstPage.body.results.map((record: { id: string }) => record.id);
    const snapshot = new Set(expected.keys());

    type Phase = 'before' | 'copying' | 'blocked' | 'after';
    // read through a function: the reindex's progress callback changes it while writes run
    let current: Phase = 'before';
    const phase = () => current;
    const writes = { before: 0, copying: 0, blocked: 0, after: 0 };
    const kinds = { created: 0, updated: 0, deleted: 0 };
    let stop = false;

    const searches = {
      run: 0,
      failed: 0,
      statuses: new Map<number, number>(),
      failures: [] as Array<{ phase: string; status: number; code: unknown }>,
    };
    const searchers = Array.from({ length: 3 }, async (_, user) => {
      while (!stop) {
        const body =
          user === 0
            ? { jobTitlePartialMatchOr: ['求人1'], limit: 20 }
            : user === 1
              ? { prefectureIdOr: [13], limit: 20, sort: { field: 'jobSalaryMin', order: 'desc' } }
              : { limit: 10 };
        const path = user === 1 ? '/rest/v1/corporates/search' : '/rest/v1/jobs/search';
        const response = await request(app).post(path).set('X-API-Key', key).send(body);
        searches.run++;
        searches.statuses.set(response.status, (searches.statuses.get(response.status) ?? 0) + 1);
        if (response.status !== 200 || !(response.body.totalResults > 0)) {
          searches.failed++;
          searches.failures.push({ phase: phase(), status: response.status, code: response.body?.code });
        }
      }
    });

    let next = initialJobs;
    let slowestFlushMs = 0;
    let waitedThroughSwap = 0;
    let rebuildsThroughSwap = 0;
    const writer = (async () => {
      for (let round = 0; !stop; round++) {
        const batch: SourceRecord[] = [];
        const creates: string[] = [];
        for (let i = 0; i < 6; i++) {
          const record = newPosting(next++);
          batch.push(record);
          if (record.type === 'job') creates.push(record.id);
        }
        const live = [...expected.keys()];
        const updates = new Map<string, string>();
        for (let i = 0; i < 4; i++) {
          const id = live[(round * 37 + i * 101) % live.length] as string;
          if (updates.has(id)) continue;
          const title = `更新${round}-${i}`;
          updates.set(id, title);
          const n = Number(id.slice(2));
          batch.push(
            job({
              id,
              corporateNumber: companies[n % companyCount],
              title,
              ...(versioned.has(id) ? { sourceUpdatedAt: nextVersion() } : {}),
            }),
          );
        }
        const deletes: string[] = [];
        for (let i = 0; i < 2; i++) {
          const id = live[(round * 53 + i * 211 + 7) % live.length] as string;
          if (updates.has(id) || deletes.includes(id)) continue;
          deletes.push(id);
          batch.push({
            type: 'delete_job',
            id,
            ...(versioned.has(id) ? { sourceUpdatedAt: nextVersion() } : {}),
          });
        }
        const at = phase();
        const started = Date.now();
        await write(batch);
        slowestFlushMs = Math.max(slowestFlushMs, Date.now() - started);
        for (const id of creates)
          expected.set(id, (batch.find((r) => r.type === 'job' && r.id === id) as { title: string }).title);
        for (const [id, title] of updates) expected.set(id, title);
        for (const id of deletes) expected.delete(id);
        // acknowledged while the copy ran (the phase held from before the write to after it)
        if (at === 'copying' && phase() === 'copying') {
          for (const id of deletes) deletedDuringCopy.push(id);
          for (const [id, title] of updates) updatedDuringCopy.set(id, title);
        }
        writes[at] += batch.length;
        if (at !== 'after' && phase() === 'after') waitedThroughSwap += batch.length;
        kinds.created += creates.length;
        kinds.updated += updates.size;
        kinds.deleted += deletes.length;
        if (round % 5 === 4) {
          const touched = [...pipeline.touched];
          pipeline.touched.clear();
          const rebuildStarted = Date.now();
          const rebuildAt = phase();
          await rebuildCompanies(services.opensearch, services.config.indexPrefix, touched);
          slowestFlushMs = Math.max(slowestFlushMs, Date.now() - rebuildStarted);
          if (rebuildAt !== 'after' && phase() === 'after') rebuildsThroughSwap++;
        }
      }
    })();

    let result: Awaited<ReturnType<typeof reindexAll>>;
    const progress: string[] = [];
    try {
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      result = await reindexAll(services.opensearch, services.config.indexPrefix, {
        // about 2.5 s per index of postings: long enough for writes to land mid-copy
        requestsPerSecond: 1_000,
        onProgress: (message) => {
          progress.push(message);
          if (message.startsWith('created')) current = 'copying';
          if (message.startsWith('writes to the old indices blocked')) current = 'blocked';
        },
      });
      current = 'after';
      // a few rounds of writes into the new indices (bounded: 30 s)
      const until = Date.now() + 30_000;
      while (writes.after < 36 && Date.now() < until)
        await new Promise((resolve) => setTimeout(resolve, 200));
    } finally {
      stop = true;
      await Promise.allSettled([writer, ...searchers]);
    }
    await writer;
    await Promise.all(searchers);
    await rebuildCompanies(services.opensearch, services.config.indexPrefix, pipeline.touched);

    // the cursor opened before the swap reads its snapshot to the end
    let cursor: string | null = firstPage.body.nextCursor;
    let cursorPages = 1;
    while (cursor) {
      const page = await search({ cursor, limit: 500 }).expect(200);
      cursorIds.push(...page.body.results.map((record: { id: string }) => record.id));
      cursor = page.body.nextCursor;
      cursorPages++;
    }

    await services.opensearch.indices.refresh({ index: `${services.config.indexPrefix}*` });
    const jobs = await titlesIn(names.jobs);
    const details = await titlesIn(names.jobDetails);
    const { body: companiesCounted } = await services.opensearch.count({ index: names.corporates });

    console.log(
      `[reindex] searches run ${searches.run}, failed ${searches.failed} (statuses ${JSON.stringify(Object.fromEntries(searches.statuses))}); ` +
        `records written ${Object.values(writes).reduce((a, b) => a + b, 0)} ` +
        `(before ${writes.before}, during the copy ${writes.copying}, while blocked ${writes.blocked}, after the swap ${writes.after}; ` +
        `${kinds.created} new, ${kinds.updated} updates, ${kinds.deleted} deletes; ${deletedDuringCopy.length} deletes and ` +
        `${updatedDuringCopy.size} updates acknowledged mid-copy; ${waitedThroughSwap} records and ${rebuildsThroughSwap} company rebuilds sent before the swap, acknowledged after it); ` +
        `slowest write ${slowestFlushMs} ms; ` +
        `reindex ${result.tookMs} ms, ${result.passes} catch-up passes, writes blocked ${result.blockedMs} ms; ` +
        result.moves
          .map(
            (move) =>
              `${move.name}: copied ${move.copied}, caught up ${move.caughtUp}, deleted ${move.deleted}, ${move.count} docs`,
          )
          .join('; ') +
        `; jobs ${jobs.size} (expected ${expected.size}) checksum ${sha(jobs.keys())} vs ${sha(expected.keys())}; ` +
        `cursor ${cursorPages} pages, ${cursorIds.length} ids`,
    );

    console.log(`[reindex] progress:\n  ${progress.join('\n  ')}`);
    expect(searches.failures).toEqual([]);
    expect(searches.failed).toBe(0);
    expect(searches.run).toBeGreaterThan(0);
    // the interesting writes did happen while the copy ran
    expect(writes.copying).toBeGreaterThan(0);
    expect(deletedDuringCopy.length).toBeGreaterThan(0);
    expect(updatedDuringCopy.size).toBeGreaterThan(0);
    expect(writes.after).toBeGreaterThan(0);

    // the aliases point at the new indices; the old ones remain, write-blocked
    const after = await reindexStatus(services.opensearch, services.config.indexPrefix);
    for (const [i, status] of after.entries()) {
      expect(status.index).toBe(result.moves[i]?.to);
      expect(status.index).toMatch(/-v1-\d{8}t\d{6}z$/);
      expect(status.retired).toEqual([before[i]?.index]);
      expect(status.writeBlocked).toBe(false);
    }

    // zero lost, zero revived: the same ids (count and checksum) and the latest titles
    expect(deadLetter.entries).toEqual([]);
    for (const counts of Object.values(pipeline.report)) expect(counts.rejected).toBe(0);
    expect(jobs.size).toBe(expected.size);
    expect(sha(jobs.keys())).toBe(sha(expected.keys()));
    expect(Object.fromEntries(jobs)).toEqual(Object.fromEntries(expected));
    expect(new Set(details.keys())).toEqual(new Set(expected.keys()));
    for (const id of deletedDuringCopy) expect(jobs.has(id)).toBe(false);
    // an update acknowledged mid-copy is not lost: its title, or a later update's when the same
    // posting was written again after it (expected holds the last title written)
    for (const [id] of updatedDuringCopy) if (expected.has(id)) expect(jobs.get(id)).toBe(expected.get(id));
    expect(companiesCounted.count).toBe(companyCount);

    // a company rebuilt after the swap reflects its postings in the new index
    const alpha = companies[0] as string;
    const { body: company } = await services.opensearch.get({ index: names.corporates, id: alpha });
    const postingsOfAlpha = [...expected.keys()].filter((id) => Number(id.slice(2)) % companyCount === 0);
    expect((company._source as { aggregates: { postingCount: number } }).aggregates.postingCount).toBe(
      postingsOfAlpha.length,
    );

    // the cursor: every id of its snapshot once, nothing written later
    expect(cursorIds.length).toBe(snapshot.size);
    expect(new Set(cursorIds)).toEqual(snapshot);

    // retired indices go when asked; searching goes on
    const dropped = await dropRetiredIndices(services.opensearch, services.config.indexPrefix);
    expect(dropped.sort()).toEqual(before.map((status) => status.index).sort());
    // a process starting now (bootstrap) leaves the moved aliases alone, though `-v1` is gone
    expect(await bootstrapIndices(services.opensearch, services.config.indexPrefix)).toEqual([]);
    for (const move of result.moves) expect(await aliasTarget(services.opensearch, move.alias)).toBe(move.to);
    await search({ limit: 1 }).expect(200);
  }, 240_000);

  it('refuses to start while a write block is on an index (a reindex running or stopped half-way); --release lifts it', async () => {
    const before = await reindexStatus(services.opensearch, services.config.indexPrefix);
    const jobsIndex = (await aliasTarget(services.opensearch, names.jobs)) as string;
    await services.opensearch.indices.addBlock({ index: jobsIndex, block: 'write' });
    try {
      await expect(reindexAll(services.opensearch, services.config.indexPrefix)).rejects.toThrow(
        /refuses writes .*npm run reindex -- --release/,
      );
      // nothing was created or moved
      const status = await reindexStatus(services.opensearch, services.config.indexPrefix);
      expect(status.map(({ index, retired }) => ({ index, retired }))).toEqual(
        before.map(({ index, retired }) => ({ index, retired })),
      );
      expect(await releaseWriteBlocks(services.opensearch, services.config.indexPrefix)).toEqual([jobsIndex]);
      const released = await reindexStatus(services.opensearch, services.config.indexPrefix);
      expect(released.some((entry) => entry.writeBlocked)).toBe(false);
    } finally {
      await services.opensearch.indices
        .putSettings({ index: jobsIndex, body: { 'index.blocks.write': false } })
        .catch(() => undefined);
    }
  }, 60_000);

  it('a write refused by a write block waits and lands once writes are allowed again (bulk items and whole requests)', async () => {
    const blocked = [
      (await aliasTarget(services.opensearch, names.jobs)) as string,
      (await aliasTarget(services.opensearch, names.jobDetails)) as string,
    ];
    const gone = [...expected.keys()][0] as string;
    const record = newPosting(900_000);
    await services.opensearch.indices.addBlock({ index: blocked.join(','), block: 'write' });
    let settled = 0;
    try {
      const writing = write([record]).then(() => settled++);
      const deleting = deleteMatching(services.opensearch, names.jobs, { term: { id: gone } }).then(
        () => settled++,
      );
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      // both are still waiting, not failed
      expect(settled).toBe(0);
      await services.opensearch.indices.putSettings({
        index: blocked.join(','),
        body: { 'index.blocks.write': false },
      });
      await Promise.all([writing, deleting]);
    } finally {
      await services.opensearch.indices
        .putSettings({ index: blocked.join(','), body: { 'index.blocks.write': false } })
        .catch(() => undefined);
    }
    expect(deadLetter.entries).toEqual([]);
    const id = record.type === 'job' ? record.id : '';
    expect((await services.opensearch.exists({ index: names.jobs, id })).body).toBe(true);
    expect((await services.opensearch.exists({ index: names.jobDetails, id })).body).toBe(true);
    expect((await services.opensearch.exists({ index: names.jobs, id: gone })).body).toBe(false);

    // the index back as the reindex test expects it (the tests of this file run in any order):
    // without the new posting, with the deleted one written again (a newer version, same title)
    for (const index of [names.jobs, names.jobDetails])
      await deleteMatching(services.opensearch, index, { term: { id } });
    await write([newPosting(Number(gone.slice(2)))]);
    await services.opensearch.indices.refresh({ index: `${services.config.indexPrefix}*` });
    expect((await services.opensearch.exists({ index: names.jobs, id: gone })).body).toBe(true);
  }, 60_000);
});
