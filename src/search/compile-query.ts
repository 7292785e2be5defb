/**
 * A search plan -> one bool query. Company conditions and job conditions go to `filter`
 * (or `must_not` for the excluding ops). Posting conditions follow the same-posting rule
 * (docs/decisions.md): all positive ones go into ONE nested query, so one posting must satisfy them
 * together; each excluding one is its own `must_not` nested query, so a company with ANY
 * posting matching it is excluded.
 *
 *   { jobMediaIdOr: [1], jobEmploymentTypeIdOr: [2], jobMediaIdNot: [9] }
 *   -> { bool: {
 *        filter: [{ nested: { path: 'postings', query: { bool: { filter: [
 *                   { terms: { 'postings.mediaId': [1] } }, { terms: { 'postings.employmentTypeId': [2] } } ] } } } }],
 *        must_not: [{ nested: { path: 'postings', query: { terms: { 'postings.mediaId': [9] } } } }] } }
 *
 * `filterGroups`: every group is compiled together with the top-level conditions (so the
 * same-posting rule spans both), and at least one group must match.
 */
import { excludingOps } from '../catalogue/types.js';
import { compileCondition, type Query } from './compile-kinds.js';
import type { Condition, SearchPlan } from './plan.js';

const postingsPath = 'postings';

function nested(query: Query): Query {
  return { nested: { path: postingsPath, query, score_mode: 'none' } };
}

export function compileConditions(conditions: Condition[]): Query {
  const filter: Query[] = [];
  const mustNot: Query[] = [];
  const samePosting: Query[] = [];
  for (const condition of conditions) {
    const query = compileCondition(condition);
    const excluding = excludingOps.has(condition.op);
    if (condition.def.scope === 'posting') {
      if (excluding) mustNot.push(nested(query));
      else samePosting.push(query);
    } else if (excluding) mustNot.push(query);
    else filter.push(query);
  }
  if (samePosting.length > 0) filter.push(nested({ bool: { filter: samePosting } }));
  if (filter.length === 0 && mustNot.length === 0) return { match_all: {} };
  return {
    bool: { ...(filter.length > 0 ? { filter } : {}), ...(mustNot.length > 0 ? { must_not: mustNot } : {}) },
  };
}

export function compileQuery(plan: Pick<SearchPlan, 'conditions' | 'groups'>): Query {
  if (plan.groups.length === 0) return compileConditions(plan.conditions);
  return {
    bool: {
      should: plan.groups.map((group) => compileConditions([...plan.conditions, ...group])),
      minimum_should_match: 1,
    },
  };
}
