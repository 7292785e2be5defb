/**
 * A search plan -> one bool query. Company conditions and job conditions go to `filter`
 * (or `must_not` for the excluding ops). Posting conditions follow the same-posting rule
 * (docs/decisions/filters.md): all positive ones go into ONE nested query, so one posting must satisfy them
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
 *
 * Companies with more postings than the nested limit (`overflow`, src/search/posting-overflow.ts)
 * take each posting query's answer from the jobs index instead of their cut nested copy:
 *   nested(P) -> { bool: { should: [
 *                  { bool: { filter: [nested(P)], must_not: [{ terms: { corporateNumber: <over the limit> } }] } },
 *                  { terms: { corporateNumber: <over the limit, with a posting matching P in jobs> } } ],
 *                minimum_should_match: 1 } }
 */
import stableStringify from 'safe-stable-stringify';
import { excludingOps, type FilterDef } from '../catalogue/types.js';
import { compileCondition, type Query } from './compile-kinds.js';
import type { Condition, SearchPlan } from './plan.js';

const postingsPath = 'postings';

/**
 * The jobs-first answers for the companies past the nested limit: `companies` are those
 * companies, `matches` maps a posting query (`postingQueryKey`) to the ones among them that
 * have a posting in the jobs index satisfying it.
 */
export interface PostingOverflow {
  companies: string[];
  matches: ReadonlyMap<string, readonly string[]>;
}

function nested(query: Query): Query {
  return { nested: { path: postingsPath, query, score_mode: 'none' } };
}

/**
 * The query on one posting of a posting query, as the company query nests it: an excluding
 * condition alone, positive ones together (`{ bool: { filter } }`).
 */
function postingQueryBody(conditions: Condition[], excluding: boolean): Query {
  const [first] = conditions;
  return excluding && first
    ? compileCondition(first)
    : { bool: { filter: conditions.map(compileCondition) } };
}

/** A posting query as the plain company query asks it: on the nested postings. */
export function nestedPostingQuery(query: { conditions: Condition[]; excluding: boolean }): Query {
  return nested(postingQueryBody(query.conditions, query.excluding));
}

/** One posting query: conditions that one posting must meet together. */
export function postingQueryKey(conditions: Condition[]): string {
  return (
    stableStringify(
      conditions.map(({ def, op, value }) => ({ field: def.field, kind: def.kind, op, value })),
    ) ?? ''
  );
}

/**
 * The posting queries of a plan, each asked of one posting: per group (or the top level when
 * there are no groups) its positive posting conditions together, and every excluding posting
 * condition alone. Deduplicated by key.
 */
export function postingQueries(
  plan: Pick<SearchPlan, 'conditions' | 'groups'>,
): Array<{ key: string; conditions: Condition[]; excluding: boolean }> {
  const found = new Map<string, { key: string; conditions: Condition[]; excluding: boolean }>();
  const add = (conditions: Condition[], excluding: boolean) => {
    const key = postingQueryKey(conditions);
    if (!found.has(key)) found.set(key, { key, conditions, excluding });
  };
  const sets =
    plan.groups.length === 0 ? [plan.conditions] : plan.groups.map((g) => [...plan.conditions, ...g]);
  for (const conditions of sets) {
    const posting = conditions.filter((condition) => condition.def.scope === 'posting');
    const positive = posting.filter((condition) => !excludingOps.has(condition.op));
    if (positive.length > 0) add(positive, false);
    for (const condition of posting) if (excludingOps.has(condition.op)) add([condition], true);
  }
  return [...found.values()];
}

/** nested(query), with the jobs-first answer for the companies past the nested limit. */
function onPostings(query: Query, conditions: Condition[], overflow: PostingOverflow | undefined): Query {
  if (!overflow || overflow.companies.length === 0) return nested(query);
  const matched = overflow.matches.get(postingQueryKey(conditions));
  if (!matched) throw new Error('posting query without a jobs-first answer');
  return {
    bool: {
      should: [
        {
          bool: {
            filter: [nested(query)],
            must_not: [{ terms: { corporateNumber: [...overflow.companies] } }],
          },
        },
        { terms: { corporateNumber: [...matched] } },
      ],
      minimum_should_match: 1,
    },
  };
}

export function compileConditions(conditions: Condition[], overflow?: PostingOverflow): Query {
  const filter: Query[] = [];
  const mustNot: Query[] = [];
  const samePosting: Condition[] = [];
  for (const condition of conditions) {
    const excluding = excludingOps.has(condition.op);
    if (condition.def.scope === 'posting') {
      if (excluding) mustNot.push(onPostings(postingQueryBody([condition], true), [condition], overflow));
      else samePosting.push(condition);
    } else if (excluding) mustNot.push(compileCondition(condition));
    else filter.push(compileCondition(condition));
  }
  if (samePosting.length > 0)
    filter.push(onPostings(postingQueryBody(samePosting, false), samePosting, overflow));
  if (filter.length === 0 && mustNot.length === 0) return { match_all: {} };
  return {
    bool: { ...(filter.length > 0 ? { filter } : {}), ...(mustNot.length > 0 ? { must_not: mustNot } : {}) },
  };
}

/**
 * `leftOut`: the boolean field of the records a search leaves out unless an inclusion condition
 * (kind `inclusion`, `includeClosed: true`) anywhere in the request brings them back; the
 * catalogue names it (`leftOutField`). Closed companies, and postings of closed companies:
 *   { prefectureIdOr: [13] } -> { bool: { filter: [<the query>], must_not: [{ term: { closed: true } }] } }
 * A document without the field (a company the registry never closed) is never left out.
 */
export function compileQuery(
  plan: Pick<SearchPlan, 'conditions' | 'groups'>,
  overflow?: PostingOverflow,
  leftOut?: string,
): Query {
  const query: Query =
    plan.groups.length === 0
      ? compileConditions(plan.conditions, overflow)
      : {
          bool: {
            should: plan.groups.map((group) => compileConditions([...plan.conditions, ...group], overflow)),
            minimum_should_match: 1,
          },
        };
  if (!leftOut || includesLeftOut(plan)) return query;
  const exclude: Query = { term: { [leftOut]: true } };
  return 'match_all' in query
    ? { bool: { must_not: [exclude] } }
    : { bool: { filter: [query], must_not: [exclude] } };
}

function includesLeftOut(plan: Pick<SearchPlan, 'conditions' | 'groups'>): boolean {
  return [...plan.conditions, ...plan.groups.flat()].some(
    ({ def, value }) => def.kind === 'inclusion' && value === true,
  );
}

/** The field of the records a search of this catalogue leaves out by default (its inclusion filter's). */
export function leftOutField(filters: readonly FilterDef[]): string | undefined {
  return filters.find((def) => def.kind === 'inclusion')?.field;
}
