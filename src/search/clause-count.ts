/**
 * The clauses the engine will count in a search's query, so that a search it could never run
 * (more than indices.query.bool.max_clause_count, OPENSEARCH_MAX_CLAUSE_COUNT) is a 400 at
 * validation, before credits or the engine, naming the field that needs most.
 *
 * Lucene counts every leaf query of the rewritten query (IndexSearcher's clause check) and
 * refuses a single bool of that many clauses. What one compiled query becomes, measured on
 * OpenSearch 3.3.2 (docs/decisions/errors-and-validation.md):
 *   match_phrase, exists, term, terms on a keyword field   1
 *   terms on a number field, range                          2 (an index-or-doc-values pair: both visited)
 *   nested                                                  its query + 1 (the engine's nested-documents filter)
 *   the whole query                                         + 1 (the engine's top-level-documents filter)
 * A bool is the sum of its clauses. The count errs high by one or two, never low, in the
 * shapes measured.
 *
 *   { bool: { filter: [ { terms: { prefectureId: [13, 14] } },
 *                       { nested: { path: 'postings', query: { match_phrase: { 'postings.title.substring': '営業' } } } } ] } }
 *   -> 2 + (1 + 1) = 4 clauses; the search counts 4 + 1 = 5
 */
import { errors, type FieldError } from '../errors/catalogue.js';
import { compileCondition, type Query } from './compile-kinds.js';
import { compileQuery } from './compile-query.js';
import type { Condition, SearchPlan } from './plan.js';

const boolClauses = ['filter', 'must', 'should', 'must_not'] as const;

export function countClauses(query: Query): number {
  const [type, body] = Object.entries(query)[0] ?? [];
  if (type === 'bool') {
    const bool = body as Partial<Record<(typeof boolClauses)[number], Query[]>>;
    let sum = 0;
    for (const occur of boolClauses) for (const clause of bool[occur] ?? []) sum += countClauses(clause);
    return sum;
  }
  if (type === 'nested') return countClauses((body as { query: Query }).query) + 1;
  if (type === 'range') return 2;
  if (type === 'terms') {
    const values = Object.values(body as Record<string, unknown>)[0];
    return Array.isArray(values) && typeof values[0] === 'number' ? 2 : 1;
  }
  return 1;
}

/** The clauses the engine counts for the search's query: the compiled query's, + 1. */
export function searchClauses(plan: Pick<SearchPlan, 'conditions' | 'groups'>): number {
  return countClauses(compileQuery(plan)) + 1;
}

/**
 * The filter that needs most clauses: a top-level condition counts once per group it is
 * compiled into, a group's condition together with the same filter in the other groups.
 */
function largestContributor(plan: Pick<SearchPlan, 'conditions' | 'groups'>, total: number, limit: number) {
  const sets = Math.max(1, plan.groups.length);
  const byFilter = new Map<string, { path: string; clauses: number; groups: number; topLevel: boolean }>();
  const add = (condition: Condition, clauses: number, topLevel: boolean) => {
    const key = topLevel ? condition.path : condition.path.replace(/^filterGroups\[\d+\]/, 'filterGroups[]');
    const seen = byFilter.get(key);
    if (seen) {
      seen.clauses += clauses;
      seen.groups += 1;
    } else byFilter.set(key, { path: condition.path, clauses, groups: 1, topLevel });
  };
  for (const condition of plan.conditions)
    add(condition, countClauses(compileCondition(condition)) * sets, true);
  for (const group of plan.groups)
    for (const condition of group) add(condition, countClauses(compileCondition(condition)), false);
  const largest = [...byFilter.values()].sort((a, b) => b.clauses - a.clauses)[0];
  if (!largest) return { field: 'body', reason: `needs ${total} query clauses; at most ${limit} run` };
  const where = largest.topLevel
    ? plan.groups.length > 1
      ? ` (it is applied within each of the ${plan.groups.length} filterGroups)`
      : ''
    : largest.groups > 1
      ? ` (with the same filter in ${largest.groups - 1} other filterGroups)`
      : '';
  return {
    field: largest.path,
    reason: `needs ${largest.clauses.toLocaleString('en-US')} of the search's ${total.toLocaleString('en-US')} query clauses${where}; the search engine runs at most ${limit.toLocaleString('en-US')}: send fewer values here, or split the search`,
  } satisfies FieldError;
}

/** Throws the 400 `query_too_complex` when the search's query would pass the engine's clause limit. */
export function assertWithinClauseLimit(
  plan: Pick<SearchPlan, 'conditions' | 'groups'>,
  limit: number,
): void {
  const clauses = searchClauses(plan);
  if (clauses <= limit) return;
  throw errors.queryTooComplex({ limit, clauses, field: largestContributor(plan, clauses, limit) });
}
