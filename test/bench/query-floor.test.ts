/**
 * The size-0 floor every "within 2x of its floor" figure of the bench divides by
 * (bench/query-mix.ts `floorBody`): the compiled query matching and counting as the page does,
 * nothing fetched, sorted or paged. Pure: the mix's queries compiled here.
 */
import { describe, expect, it } from 'vitest';
import { buildQueryMix, floorBody, rawMixRequest } from '../../bench/query-mix.js';

const numbers = Array.from({ length: 100 }, (_, i) => String(1_010_001_000_000 + i));
const compiledBodies = buildQueryMix(numbers).map((query) => ({
  name: query.name,
  body: rawMixRequest(query, 'p-').compiled.body as Record<string, unknown>,
}));

describe('floorBody', () => {
  it.each(compiledBodies)('$name: the same query, counted as the page counts, nothing read', ({ body }) => {
    const floor = floorBody(body);
    expect(floor.size).toBe(0);
    for (const part of ['from', 'sort', '_source', 'highlight']) expect(floor).not.toHaveProperty(part);
    expect(floor.query).toEqual(body.query);
    // a floor counting only to 10,000 would be cheaper than the page's exact count
    expect(floor.track_total_hits).toEqual(body.track_total_hits);
  });

  it('leaves the compiled body as it was', () => {
    const body = compiledBodies[0]?.body ?? {};
    const before = structuredClone(body);
    floorBody(body);
    expect(body).toEqual(before);
  });
});
