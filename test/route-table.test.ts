/**
 * The route table (src/http/route-table.ts) and the operations table
 * (src/catalogue/operations.ts) say the same thing of every operation: one row each, and the
 * row's chain runs the steps its limit calls for (a limited operation is rate limited and
 * validated, an operation charged per request reserves its credits, an export charges itself,
 * a master list is free and unlimited). Pure: no server, no engine.
 */
import { describe, expect, it } from 'vitest';
import { operations } from '../src/catalogue/operations.js';
import { otherMethodChain, routeKey, routeTable } from '../src/http/route-table.js';

const chargedPerRequest = new Set(['search', 'detail', 'match']);

describe('the route table', () => {
  it('has one row per operation, and no row without one', () => {
    expect(Object.keys(routeTable).sort()).toEqual(operations.map(routeKey).sort());
  });

  it.each(operations.map((operation) => [routeKey(operation), operation] as const))(
    '%s runs the steps its limit calls for, in order',
    (key, operation) => {
      const row = routeTable[key];
      const chain: readonly string[] = row?.chain ?? [];
      const handler = row?.handler;
      expect(chain[0]).toBe('auth');
      expect(chain.includes('rate limit')).toBe(operation.limit !== undefined);
      // the upload of a match job is a CSV or JSONL stream: its handler checks its parameters
      const upload = key === 'POST /corporates/match-jobs';
      expect(chain.includes('validation')).toBe(operation.limit !== undefined && !upload);
      expect(chain.includes('credits')).toBe(chargedPerRequest.has(operation.limit ?? ''));
      if (operation.limit === 'search' || operation.limit === 'count') expect(chain).toContain('search plan');
      if (operation.limit === 'export') expect(chain).toContain('export plan');
      const order = ['auth', 'rate limit', 'validation', 'search plan', 'export plan', 'credits'];
      expect([...chain].sort((a, b) => order.indexOf(a) - order.indexOf(b))).toEqual(chain);
      if (operation.limit === 'matchJob') expect(handler).toMatch(/^matchJob/);
      else expect(handler).toBe(operation.limit ?? 'master');
    },
  );

  it('another method on a known path is authenticated, then validated (its 405)', () => {
    expect(otherMethodChain).toEqual(['auth', 'validation']);
  });
});
