/**
 * The route table (src/http/route-table.ts) and the operations table
 * (src/catalogue/operations.ts) say the same thing of every operation: one row each, and the
 * row's chain runs the steps its limit calls for (a limited operation is rate limited and
 * validated, an operation charged per request reserves its credits, an export charges itself,
 * a master list is free and unlimited). Pure: no server, no engine.
 */
import { describe, expect, it } from 'vitest';
import { operations } from '../../src/catalogue/operations.js';
import { otherMethodChain, routeKey, routeTable } from '../../src/http/route-table.js';

const chargedPerRequest = new Set(['search', 'detail', 'match', 'changes']);

describe('the route table', () => {
  it('has one row per operation, and no row without one', () => {
    expect(Object.keys(routeTable).sort()).toEqual(operations.map(routeKey).sort());
  });

  const native = operations.filter((operation) => !operation.path.startsWith('/reconcile'));
  it.each(native.map((operation) => [routeKey(operation), operation] as const))(
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
      else if (operation.limit === 'savedSearch') expect(handler).toMatch(/^savedSearch/);
      else if (operation.limit === 'webhook') expect(handler).toMatch(/^webhook/);
      else if (operation.limit === 'usage') expect(handler).toMatch(/^usage/);
      else expect(handler).toBe(operation.limit ?? 'master');
    },
  );

  // the W3C Reconciliation API (docs/reconciliation.md): its key may come in the URL, so each
  // row starts by handing `?apiKey=` to auth; the manifest is free and needs no key
  it('the reconciliation rows: the key step first; the batch as a match, with its plan before credits', () => {
    const reconcile = operations.filter((operation) => operation.path.startsWith('/reconcile'));
    expect(reconcile.map(routeKey).sort()).toEqual([
      'GET /reconcile',
      'GET /reconcile/preview',
      'GET /reconcile/suggest/entity',
      'GET /reconcile/suggest/property',
      'POST /reconcile',
    ]);
    expect(routeTable['GET /reconcile']?.chain).toEqual(['reconcile key', 'optional auth']);
    expect(reconcile.find((operation) => routeKey(operation) === 'GET /reconcile')?.limit).toBeUndefined();
    expect(routeTable['POST /reconcile']?.chain).toEqual([
      'reconcile key',
      'auth',
      'rate limit',
      'validation',
      'reconcile plan',
      'credits',
    ]);
    expect(reconcile.find((operation) => routeKey(operation) === 'POST /reconcile')?.limit).toBe('match');
    for (const path of ['/reconcile/preview', '/reconcile/suggest/entity', '/reconcile/suggest/property']) {
      expect(routeTable[`GET ${path}`]?.chain).toEqual(['reconcile key', 'auth', 'rate limit', 'validation']);
      expect(reconcile.find((operation) => operation.path === path)?.limit).toBe('suggest');
    }
  });

  it('another method on a known path is authenticated, then validated (its 405)', () => {
    expect(otherMethodChain).toEqual(['auth', 'validation']);
  });
});
