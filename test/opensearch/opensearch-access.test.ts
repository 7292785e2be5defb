/**
 * The OpenSearch access layer (src/opensearch): the scan generator on the real engine (pages,
 * order, a consistent view while documents change, the point in time closed after, early exit
 * included), typed reads by id, and the one transient-error rule.
 */
import { errors as clientErrors } from '@opensearch-project/opensearch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scan } from '../../ops/engine/scan.js';
import { deleteMatching, getSources } from '../../src/opensearch/documents.js';
import type { Engine } from '../../src/opensearch/engine.js';
import { isTransientError, isTransientStatus } from '../../src/opensearch/retry.js';
import { testOpenSearch, uniquePrefix } from '../support/env.js';

let client: Engine;
const index = `${uniquePrefix('scan')}docs`;
const ids = Array.from({ length: 25 }, (_, i) => `d${String(i).padStart(2, '0')}`);

/**
 * The points in time open on this file's index. Other test files scan their own indices at the
 * same time (their points in time are on the same engine), so each id is kept only when it
 * names this index: a point in time's id is the URL-safe base64 of its shards, index names
 * included.
 */
async function openPits(): Promise<string[]> {
  const { body } = await client.getAllPits();
  return (body.pits ?? [])
    .map((pit) => String(pit.pit_id))
    .filter((id) => Buffer.from(id, 'base64url').includes(index));
}

beforeAll(async () => {
  client = testOpenSearch();
  await client.indices.create({
    index,
    body: { mappings: { properties: { id: { type: 'keyword' }, group: { type: 'keyword' } } } },
  });
  await client.writer().bulk({
    refresh: true,
    body: ids.flatMap((id, i) => [
      { index: { _index: index, _id: id } },
      { id, group: i % 2 ? 'odd' : 'even' },
    ]),
  });
});
afterAll(async () => {
  await client.indices.delete({ index, ignore_unavailable: true });
  await client.close();
});

describe('scan', () => {
  it('reads every match once, in sort order, in pages of pageSize', async () => {
    const pages: string[][] = [];
    for await (const page of scan<{ id: string }>(client, {
      index,
      query: { match_all: {} },
      sort: [{ id: 'desc' }],
      pageSize: 10,
    }))
      pages.push(page.map((hit) => hit.source.id));
    expect(pages.map((page) => page.length)).toEqual([10, 10, 5]);
    expect(pages.flat()).toEqual([...ids].reverse());
  });

  it('sees the index as it was when the scan began, even when matches are deleted meanwhile', async () => {
    const seen: string[] = [];
    let deleted = false;
    for await (const page of scan(client, {
      index,
      query: { term: { group: 'even' } },
      sort: [{ id: 'asc' }],
      source: ['id'],
      pageSize: 4,
    })) {
      seen.push(...page.map((hit) => hit.id));
      if (!deleted) {
        await deleteMatching(client, index, { term: { group: 'even' } });
        deleted = true;
      }
    }
    expect(seen).toEqual(ids.filter((_, i) => i % 2 === 0));
    const { body } = await client.count({ index, body: { query: { term: { group: 'even' } } } });
    expect(body.count).toBe(0);
    // put them back: the other tests read the whole index, in whatever order they run
    await client.writer().bulk({
      refresh: true,
      body: ids.flatMap((id, i) =>
        i % 2 === 0 ? [{ index: { _index: index, _id: id } }, { id, group: 'even' }] : [],
      ),
    });
  });

  it('closes its point in time, also when the caller stops early', async () => {
    const before = new Set(await openPits());
    for await (const page of scan(client, {
      index,
      query: { match_all: {} },
      sort: [{ id: 'asc' }],
      pageSize: 2,
    })) {
      expect(page).toHaveLength(2);
      expect((await openPits()).filter((id) => !before.has(id)).length).toBeGreaterThan(0);
      break;
    }
    expect((await openPits()).filter((id) => !before.has(id))).toEqual([]);
  });
});

describe('getSources', () => {
  it('returns each id asked, in order, with its source (and version) or undefined', async () => {
    const found = await getSources<{ id: string }>(client, index, ['d01', 'nope', 'd03'], {
      includes: ['id'],
    });
    const version = expect.stringMatching(/^\d+:\d+$/);
    expect(found).toEqual([
      { id: 'd01', source: { id: 'd01' }, version },
      { id: 'nope', source: undefined },
      { id: 'd03', source: { id: 'd03' }, version },
    ]);
  });
});

describe('the transient-error rule', () => {
  const response = (statusCode: number) =>
    new clientErrors.ResponseError({ body: {}, statusCode, headers: {}, warnings: null, meta: {} as never });

  it.each([408, 429, 500, 502, 503, 504])('status %i is transient', (status) => {
    expect(isTransientStatus(status)).toBe(true);
    expect(isTransientError(response(status))).toBe(true);
  });

  it.each([400, 404, 409])('status %i is not', (status) => {
    expect(isTransientStatus(status)).toBe(false);
    expect(isTransientError(response(status))).toBe(false);
  });

  it('connection trouble is transient; anything else is not', () => {
    expect(isTransientError(new clientErrors.ConnectionError('refused'))).toBe(true);
    expect(isTransientError(new clientErrors.TimeoutError('slow', {} as never))).toBe(true);
    expect(isTransientError(new clientErrors.NoLivingConnectionsError('none', {} as never))).toBe(true);
    expect(isTransientError(new clientErrors.RequestAbortedError('aborted', {} as never))).toBe(true);
    expect(isTransientError(new Error('TimeoutError'))).toBe(false);
    expect(isTransientError('a string')).toBe(false);
  });
});
