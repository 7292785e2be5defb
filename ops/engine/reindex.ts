/**
 * Zero-downtime reindex (`npm run reindex`): new versioned indices built from mappings/, the
 * data copied into them while searches and writes go on through the aliases, then all three
 * aliases moved in one `_aliases` call. The design and its limits are in
 * docs/decisions/reindex.md;
 * in short, per alias:
 *
 *   1. create `<alias>-v<version>` (or `-v<version>-<suffix>` when that name is taken), refresh off;
 *   2. pass 0: note the old index's global checkpoint, refresh it, `_reindex` everything with
 *      `version_type: external_gte` (the copy keeps each document's `_version`);
 *   3. catch-up passes: `_reindex` only what was written since the last checkpoint
 *      (`_seq_no` above it), then delete from the new index the ids the old one no longer has
 *      (a merge of both id lists), until a pass finds little to do;
 *   4. write block on the old indices (the engine waits for writes in flight), one last pass,
 *      refresh on, counts checked, then the one `_aliases` call. Writers retry a blocked
 *      write (./retry.ts) and it lands in the new index once the alias has moved.
 *
 * The old indices stay, write-blocked, so open cursors keep reading their snapshot; the
 * operator drops them later (`dropRetiredIndices`).
 */

import type { IndexShape } from '../../src/config.js';
import { type API, type Engine, writeRequestTimeoutMs } from '../../src/opensearch/engine.js';
import { indexName, settingsFor, versionedIndices, versionedPattern } from '../../src/opensearch/indices.js';
import { type IndexDefinition, indexDefinitions } from '../../src/opensearch/mappings.js';
import { withRetry } from '../../src/opensearch/retry.js';
import { type BulkOp, writeBulkChunked } from './bulk.js';
import { type ScanHit, scan } from './scan.js';

export interface ReindexOptions {
  /** Shards, replicas and refresh of the new indices (the entry point passes `config.index`). */
  shape?: IndexShape;
  /** Appended to the new index names when `<alias>-v<version>` exists; default a UTC time stamp. */
  suffix?: string;
  /** Throttle of the first copy, documents per second (default: unthrottled). */
  requestsPerSecond?: number;
  /** Catch-up passes before the write block at most (default 5). */
  maxPasses?: number;
  /** Block writes once a pass copies and deletes fewer documents than this (default 500). */
  settleBelow?: number;
  onProgress?: (message: string) => void;
  now?: () => Date;
}

export interface IndexMove {
  name: string;
  alias: string;
  from: string;
  to: string;
  /** Documents written by the first copy. */
  copied: number;
  /** Documents copied again by the catch-up passes (written meanwhile). */
  caughtUp: number;
  /** Documents deleted from the new index because the old one no longer had them. */
  deleted: number;
  /** Documents in the new index when the alias moved (= the old index's count then). */
  count: number;
}

export interface ReindexResult {
  moves: IndexMove[];
  /** Catch-up passes run, the last one (under the write block) included. */
  passes: number;
  /** How long writes were blocked, ms. */
  blockedMs: number;
  tookMs: number;
}

/** The field each index holds its document id in, for an id-ordered scan. */
const idField: Record<string, string> = {
  corporates: 'corporateNumber',
  'deleted-corporates': 'corporateNumber',
  'saved-search-queries': 'savedSearchId',
  'saved-job-search-queries': 'savedSearchId',
};

interface Move extends IndexMove {
  def: IndexDefinition;
  /** `_seq_no` up to which the old index has been copied */
  checkpoint: number;
}

/** The one index an alias points at; anything else is refused. */
export async function aliasTarget(client: Engine, alias: string): Promise<string | undefined> {
  const { body } = await client.indices.getAlias(
    { name: alias, index: versionedPattern(alias) },
    { ignore: [404] },
  );
  const indices = Object.keys(body ?? {}).filter((key) => key !== 'error' && key !== 'status');
  if (indices.length > 1)
    throw new Error(`alias ${alias} points at ${indices.length} indices (${indices.join(', ')})`);
  return indices[0];
}

async function writeBlocked(client: Engine, index: string): Promise<boolean> {
  const { body } = await client.indices.getSettings({
    index,
    name: 'index.blocks.write',
    flat_settings: true,
  });
  const settings = (body as Record<string, { settings?: Record<string, string> }>)[index]?.settings;
  return settings?.['index.blocks.write'] === 'true';
}

function stamp(now: Date): string {
  return now.toISOString().replace(/[-:]/g, '').replace(/\.\d+/, '').toLowerCase();
}

/**
 * Lowest global checkpoint over the primaries: every operation up to it is indexed on every
 * in-sync copy, so a primary that fails over later cannot hand out a number at or below it.
 */
async function globalCheckpoint(client: Engine, index: string): Promise<number> {
  const { body } = await withRetry(() => client.indices.stats({ index, level: 'shards' }));
  const shards = (body.indices?.[index] as { shards?: Record<string, unknown[]> } | undefined)?.shards ?? {};
  let lowest = Number.POSITIVE_INFINITY;
  for (const copies of Object.values(shards))
    for (const copy of copies as Array<{
      routing?: { primary?: boolean };
      seq_no?: { global_checkpoint?: number };
    }>)
      if (copy.routing?.primary) lowest = Math.min(lowest, copy.seq_no?.global_checkpoint ?? -1);
  return Number.isFinite(lowest) ? lowest : -1;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface CopyCounts {
  created: number;
  updated: number;
}

/**
 * A `_reindex`: the first copy as a task, polled to its end (it outlasts any request
 * timeout), a catch-up (a few writes' worth) as one request.
 */
async function runCopy(
  client: Engine,
  body: API.Reindex_Request['body'],
  options: { requestsPerSecond?: number; slices?: number | 'auto'; asTask?: boolean } = {},
): Promise<CopyCounts> {
  const throttle = options.requestsPerSecond ? { requests_per_second: options.requestsPerSecond } : {};
  if (!options.asTask) {
    const { body: answer } = await withRetry(() =>
      client.reindex({ body, refresh: false, ...throttle }, { timeoutMs: writeRequestTimeoutMs }),
    );
    const done = answer as { created?: number; updated?: number; failures?: unknown[] };
    if ((done.failures?.length ?? 0) > 0) throw new Error('a catch-up copy failed');
    return { created: done.created ?? 0, updated: done.updated ?? 0 };
  }
  const { body: started } = await withRetry(() =>
    client.reindex({
      body,
      wait_for_completion: false,
      refresh: false,
      slices: options.slices ?? 1,
      ...throttle,
    }),
  );
  const task = String((started as { task?: string }).task);
  for (;;) {
    const { body: status } = await withRetry(() => client.tasks.get({ task_id: task }));
    if (status.completed) {
      const response = status.response as
        | { created?: number; updated?: number; failures?: unknown[] }
        | undefined;
      if (status.error || (response?.failures?.length ?? 0) > 0)
        throw new Error(`the copy (task ${task}) failed; see the engine's task result`);
      return { created: response?.created ?? 0, updated: response?.updated ?? 0 };
    }
    await sleep(250);
  }
}

/** Byte order of UTF-8, the order of a keyword sort. */
function compareIds(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

async function* idsOf(client: Engine, index: string, field: string): AsyncGenerator<ScanHit<unknown>> {
  for await (const page of scan(client, {
    index,
    query: { match_all: {} },
    sort: [{ [field]: 'asc' }],
    source: false,
    version: true,
    pageSize: 10_000,
  }))
    yield* page;
}

/**
 * Deletes from `to` every id `from` no longer has (deleted there after the copy read it).
 * Each delete carries the version the copy wrote, so a tombstone remains (`gc_deletes`) and
 * a later copy of an older state of that id is refused; a newer one (re-created) still lands.
 */
async function deleteGone(client: Engine, move: Move): Promise<number> {
  const field = idField[move.name] ?? 'id';
  const source = idsOf(client, move.from, field);
  let current = await source.next();
  const ops: BulkOp<string>[] = [];
  for await (const hit of idsOf(client, move.to, field)) {
    while (!current.done && compareIds(current.value.id, hit.id) < 0) current = await source.next();
    if (!current.done && current.value.id === hit.id) continue;
    ops.push({ action: 'delete', index: move.to, id: hit.id, ref: hit.id, version: hit.version });
  }
  await source.return(undefined);
  const failures = await writeBulkChunked(client, ops);
  // a 409 here means the id came back newer meanwhile: nothing to delete
  const failed = failures.filter((failure) => !failure.older);
  if (failed.length > 0)
    throw new Error(`${failed.length} deletes in ${move.to} failed: ${failed[0]?.reason}`);
  return ops.length - failures.length;
}

/** Copies what was written to `from` since the move's checkpoint, then removes what was deleted. */
async function catchUp(
  client: Engine,
  move: Move,
  copyOptions: { requestsPerSecond?: number; slices?: number | 'auto'; asTask?: boolean } = {},
  frozen = false,
): Promise<{ copied: number; deleted: number }> {
  const checkpoint = await globalCheckpoint(client, move.from);
  // everything up to the checkpoint is indexed; the refresh makes it visible to the copy
  await withRetry(() => client.indices.refresh({ index: move.from }));
  const copied = await runCopy(
    client,
    {
      conflicts: 'proceed',
      source: {
        index: move.from,
        ...(move.checkpoint >= 0 ? { query: { range: { _seq_no: { gt: move.checkpoint } } } } : {}),
        size: 1000,
      },
      dest: { index: move.to, version_type: 'external_gte' },
    },
    copyOptions,
  );
  move.checkpoint = checkpoint;
  await withRetry(() => client.indices.refresh({ index: move.to }));
  // With writes blocked the new index holds every id of the old one (each was copied), so
  // equal counts mean equal id sets and the id merge can be skipped. While writes go on,
  // counts prove nothing, so every earlier pass merges.
  if (frozen && (await countOf(client, move.from)) === (await countOf(client, move.to)))
    return { copied: copied.created + copied.updated, deleted: 0 };
  const deleted = await deleteGone(client, move);
  if (deleted > 0) await withRetry(() => client.indices.refresh({ index: move.to }));
  return { copied: copied.created + copied.updated, deleted };
}

/** One catch-up of every move, side by side (the last one runs while writes wait). */
async function catchUpAll(client: Engine, moves: Move[], frozen = false) {
  return Promise.all(
    moves.map(async (move) => {
      const counts = await catchUp(client, move, {}, frozen);
      move.caughtUp += counts.copied;
      move.deleted += counts.deleted;
      return counts;
    }),
  );
}

async function countOf(client: Engine, index: string): Promise<number> {
  const { body } = await withRetry(() => client.count({ index }));
  return body.count;
}

async function setWriteBlock(client: Engine, indices: string[], on: boolean): Promise<void> {
  if (on) {
    // the add-block API returns once no write is in flight on any shard of these indices
    await withRetry(() => client.indices.addBlock({ index: indices.join(','), block: 'write' }));
  } else {
    await withRetry(() =>
      client.indices.putSettings({ index: indices.join(','), body: { 'index.blocks.write': false } }),
    );
  }
}

/** Builds new indices from mappings/, copies and catches up, then moves all three aliases at once. */
export async function reindexAll(
  client: Engine,
  prefix: string,
  options: ReindexOptions = {},
): Promise<ReindexResult> {
  const started = Date.now();
  const say = options.onProgress ?? (() => {});
  const shape = options.shape ?? { shards: 1, replicas: undefined, refreshInterval: '1s' };
  const moves = await planMoves(client, prefix, options.suffix, options.now ?? (() => new Date()));
  const run: RunState = { created: [], blockedAt: undefined, swapped: false };
  try {
    await createTargets(client, moves, shape, run, say);
    await firstCopies(client, moves, options.requestsPerSecond, say);
    let passes = await catchUpUntilSettled(client, moves, options, say);
    await readyTargets(client, moves, shape);
    run.blockedAt = Date.now();
    await blockWritesAndCatchUp(client, moves, run.blockedAt, say);
    passes++;
    await checkCounts(client, moves);
    await swapAliases(client, moves);
    run.swapped = true;
    const blockedMs = Date.now() - run.blockedAt;
    for (const move of moves) say(`${move.alias}: ${move.from} -> ${move.to} (${move.count} documents)`);
    return {
      moves: moves.map(({ def: _def, checkpoint: _checkpoint, ...move }) => move),
      passes,
      blockedMs,
      tookMs: Date.now() - started,
    };
  } finally {
    if (!run.swapped) await undoUnswapped(client, moves, run);
  }
}

/** What a run has done so far, for the clean-up of a run that stops before the swap. */
interface RunState {
  /** The new indices created so far. */
  created: string[];
  /** When the write block was asked for (undefined: never). */
  blockedAt: number | undefined;
  swapped: boolean;
}

/** One move per index definition: its alias, the index it points at, the new index's name. */
async function planMoves(
  client: Engine,
  prefix: string,
  suffix: string | undefined,
  now: () => Date,
): Promise<Move[]> {
  const moves: Move[] = [];
  for (const def of indexDefinitions()) {
    const alias = indexName(prefix, def.name);
    const from = await aliasTarget(client, alias);
    if (!from)
      throw new Error(`alias ${alias} does not exist; start the API or a tool once to create the indices`);
    if (await writeBlocked(client, from))
      throw new Error(
        `${from} refuses writes (another reindex is running, or one stopped half-way); ` +
          'if none is running, `npm run reindex -- --release` lifts the block',
      );
    let to = `${alias}-v${def.version}`;
    if ((await client.indices.exists({ index: to })).body) to = `${to}-${suffix ?? stamp(now())}`;
    if ((await client.indices.exists({ index: to })).body)
      throw new Error(`${to} exists already; pick another --suffix`);
    moves.push({
      name: def.name,
      alias,
      from,
      to,
      def,
      checkpoint: -1,
      copied: 0,
      caughtUp: 0,
      deleted: 0,
      count: 0,
    });
  }
  return moves;
}

/** The new indices, refresh off while the copy runs; each noted in `run.created` once made. */
async function createTargets(
  client: Engine,
  moves: Move[],
  shape: IndexShape,
  run: RunState,
  say: (message: string) => void,
): Promise<void> {
  for (const move of moves) {
    const settings = { ...settingsFor(move.def, shape), refresh_interval: '-1' };
    await client.indices.create(
      {
        index: move.to,
        body: {
          settings: settings as NonNullable<API.Indices_Create_Request['body']>['settings'],
          mappings: move.def.mappings as NonNullable<API.Indices_Create_Request['body']>['mappings'],
        },
      },
      { timeoutMs: writeRequestTimeoutMs },
    );
    run.created.push(move.to);
    say(`created ${move.to} (mappings/${move.name}.json version ${move.def.version})`);
  }
}

/** Pass 0: everything in each old index, copied as a task (throttled when asked). */
async function firstCopies(
  client: Engine,
  moves: Move[],
  requestsPerSecond: number | undefined,
  say: (message: string) => void,
): Promise<void> {
  for (const move of moves) {
    const first = await catchUp(client, move, { requestsPerSecond, slices: 'auto', asTask: true });
    move.copied = first.copied;
    move.deleted += first.deleted;
    say(`copied ${first.copied} documents ${move.from} -> ${move.to}`);
  }
}

/** Catch-up passes while writes go on, until one changes little; the number of passes run. */
async function catchUpUntilSettled(
  client: Engine,
  moves: Move[],
  options: Pick<ReindexOptions, 'maxPasses' | 'settleBelow'>,
  say: (message: string) => void,
): Promise<number> {
  const settleBelow = options.settleBelow ?? 500;
  let passes = 0;
  for (let pass = 1; pass <= (options.maxPasses ?? 5); pass++) {
    passes++;
    let changed = 0;
    for (const { copied, deleted } of await catchUpAll(client, moves)) changed += copied + deleted;
    say(`catch-up pass ${pass}: ${changed} documents written or deleted meanwhile`);
    if (changed < settleBelow) break;
  }
  return passes;
}

/** The new indices take their configured refresh and are allocated before writes stop. */
async function readyTargets(client: Engine, moves: Move[], shape: IndexShape): Promise<void> {
  await Promise.all(
    moves.map(async (move) => {
      await withRetry(() =>
        client.indices.putSettings({
          index: move.to,
          body: { 'index.refresh_interval': shape.refreshInterval },
        }),
      );
      // as available as the index it replaces (green on a cluster, green or yellow on one node)
      const { body: health } = await client.cluster.health({ index: move.from });
      await client.cluster.health({ index: move.to, wait_for_status: health.status, timeout: '120s' });
    }),
  );
}

/** The write block on the old indices, then the last catch-up under it. */
async function blockWritesAndCatchUp(
  client: Engine,
  moves: Move[],
  blockedAt: number,
  say: (message: string) => void,
): Promise<void> {
  await setWriteBlock(
    client,
    moves.map((move) => move.from),
    true,
  );
  say(
    `writes to the old indices blocked (writers wait and retry) after ${Date.now() - blockedAt} ms; last catch-up`,
  );
  const last = await catchUpAll(client, moves, true);
  say(
    `last catch-up: ${last.reduce((sum, counts) => sum + counts.copied, 0)} copied, ` +
      `${last.reduce((sum, counts) => sum + counts.deleted, 0)} deleted, ${Date.now() - blockedAt} ms into the block`,
  );
}

/** Under the write block each new index must hold as many documents as the old one. */
async function checkCounts(client: Engine, moves: Move[]): Promise<void> {
  await Promise.all(
    moves.map(async (move) => {
      const [was, is] = [await countOf(client, move.from), await countOf(client, move.to)];
      if (was !== is)
        throw new Error(`${move.to} holds ${is} documents, ${move.from} ${was}; nothing was swapped`);
      move.count = is;
    }),
  );
}

/** Every alias moved in one `_aliases` call. */
async function swapAliases(client: Engine, moves: Move[]): Promise<void> {
  const actions = moves.flatMap((move) => [
    { remove: { index: move.from, alias: move.alias, must_exist: true } },
    { add: { index: move.to, alias: move.alias } },
  ]);
  try {
    await withRetry(() => client.indices.updateAliases({ body: { actions } }));
  } catch (error) {
    // an answer lost after the engine applied the call (a timeout, a resend refused by
    // must_exist) is still a swap: the aliases say which
    if (!(await movedAll(client, moves))) throw error;
  }
}

/** Nothing moved: writes go on into the old indices, the half-built ones go. */
async function undoUnswapped(client: Engine, moves: Move[], run: RunState): Promise<void> {
  if (run.blockedAt !== undefined)
    await setWriteBlock(
      client,
      moves.map((move) => move.from),
      false,
    ).catch(() => undefined);
  // never an index an alias points at (a swap whose answer got lost)
  const inUse = await movedTo(client, moves).catch(() => new Set(run.created));
  for (const index of run.created)
    if (!inUse.has(index)) await client.indices.delete({ index }).catch(() => undefined);
}

/** The new indices the moves' aliases point at now. */
async function movedTo(client: Engine, moves: Move[]): Promise<Set<string>> {
  const targets = new Set<string>();
  for (const move of moves) {
    const { body } = await client.indices.getAlias(
      { name: move.alias, index: versionedPattern(move.alias) },
      { ignore: [404] },
    );
    if (Object.hasOwn(body ?? {}, move.to)) targets.add(move.to);
  }
  return targets;
}

async function movedAll(client: Engine, moves: Move[]): Promise<boolean> {
  const targets = await movedTo(client, moves).catch(() => new Set<string>());
  return moves.every((move) => targets.has(move.to));
}

export interface AliasStatus {
  alias: string;
  /** The index the alias points at (undefined: no alias yet). */
  index: string | undefined;
  /** The version in that index's name. */
  indexVersion: number | undefined;
  /** The version in mappings/<name>.json: a reindex brings the alias to it. */
  mappingVersion: number;
  writeBlocked: boolean;
  /** Versioned indices of this alias it does not point at (left by reindexes). */
  retired: string[];
}

export async function reindexStatus(client: Engine, prefix: string): Promise<AliasStatus[]> {
  const statuses: AliasStatus[] = [];
  for (const def of indexDefinitions()) {
    const alias = indexName(prefix, def.name);
    const index = await aliasTarget(client, alias);
    const version = index?.slice(alias.length).match(/^-v(\d+)/)?.[1];
    statuses.push({
      alias,
      index,
      indexVersion: version === undefined ? undefined : Number(version),
      mappingVersion: def.version,
      writeBlocked: index ? await writeBlocked(client, index) : false,
      retired: (await versionedIndices(client, alias)).filter((name) => name !== index),
    });
  }
  return statuses;
}

/**
 * Deletes the versioned indices no alias points at. Open cursors and deep pages on them end
 * (their point in time goes with the index): run it once they have expired (10 minutes).
 */
export async function dropRetiredIndices(client: Engine, prefix: string): Promise<string[]> {
  const dropped: string[] = [];
  for (const status of await reindexStatus(client, prefix)) {
    for (const index of status.retired) {
      await client.indices.delete({ index });
      dropped.push(index);
    }
  }
  return dropped;
}

/** Lifts the write block a reindex stopped half-way left on the indices the aliases point at. */
export async function releaseWriteBlocks(client: Engine, prefix: string): Promise<string[]> {
  const blocked = (await reindexStatus(client, prefix))
    .filter((status) => status.writeBlocked && status.index)
    .map((status) => status.index as string);
  if (blocked.length > 0) await setWriteBlock(client, blocked, false);
  return blocked;
}
