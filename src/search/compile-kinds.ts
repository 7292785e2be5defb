/**
 * One small compiler per filter kind (src/catalogue/types.ts `Kind`). Each turns one condition
 * into the query of the records it names: for `any`/`anyContains`/… the records to keep, for
 * `none`/`noneContains` the records to exclude (src/search/compile-query.ts puts those under
 * `must_not` and wraps posting conditions in `nested`).
 */

import type { Kind } from '../catalogue/types.js';
import { nameKey, readingKey, romajiKey } from '../names/keys.js';
import type { Types } from '../opensearch/engine.js';
import type { Condition } from './plan.js';

export type Query = Types.Common_QueryDsl.QueryContainer;

/** Day boundaries of date conditions, and of the one-month window, are Japan's. */
export const timeZone = 'Asia/Tokyo';
/** Detail text is searchable for one calendar month back from today (docs/decisions/filters.md). */
export const detailTextWindow = 'now-1M/d';

type KindCompiler = (condition: Condition) => Query;

/**
 * { def: prefectureId, op: 'any', value: [13, 14] } -> { terms: { prefectureId: [13, 14] } }
 * (also `none`: the same query names the records to exclude)
 */
function compileTerms({ def, value }: Condition): Query {
  const values = value as (string | number)[];
  if (!def.field.endsWith(foldedSuffix)) return { terms: { [def.field]: values } } satisfies Query;
  return anyOf([
    { terms: { [def.field]: values } },
    { terms: { [def.field.slice(0, -foldedSuffix.length)]: values } },
  ]);
}

/**
 * An exact name compares folded (the `.folded` keyword sub-field's normalizer is the contains
 * filters' `text_fold`: ㈱ equals (株), ＡＢＣ equals abc); the stored value as written is asked
 * too, for an index created before the sub-field existed (it matches a subset of the folded
 * answers, and the only answers until `npm run reindex` gives the index the sub-field).
 *
 *   { def: corporateName (name.folded), op: 'any', value: ['㈱ABC'] }
 *   -> { bool: { should: [{ terms: { 'name.folded': ['㈱ABC'] } }, { terms: { name: ['㈱ABC'] } }],
 *                minimum_should_match: 1 } }
 */
const foldedSuffix = '.folded';

/**
 * The text goes as the user wrote it: the field's analyzer folds it (mappings/analysis.json
 * `text_fold`: NFKC, case, ㈱ -> (株)) exactly as it folded the indexed text.
 */
function phrase(field: string, text: string): Query {
  return { match_phrase: { [field]: text } } satisfies Query;
}

function anyOf(queries: Query[]): Query {
  return queries.length === 1
    ? (queries[0] as Query)
    : { bool: { should: queries, minimum_should_match: 1 } };
}

/**
 * { def: cityName, op: 'anyContains', value: ['ＡＢＣ', '港'] }
 * -> { bool: { should: [{ match_phrase: { 'cityName.substring': 'ＡＢＣ' } },
 *                      { match_phrase: { 'cityName.substring': '港' } }], minimum_should_match: 1 } }
 * allContains -> { bool: { filter: [...] } }; noneContains names the texts to exclude, as anyContains.
 */
function compileContains({ def, op, value }: Condition): Query {
  const phrases = (value as string[]).map((text) => phrase(def.field, text));
  return op === 'allContains' ? { bool: { filter: phrases } } : anyOf(phrases);
}

/**
 * { def: jobDescription, op: 'anyContains', value: ['Java'] }
 * -> { bool: { filter: [ { range: { descriptionCollectedAt: { gte: 'now-1M/d', time_zone: 'Asia/Tokyo' } } },
 *                        { match_phrase: { description: 'Java' } } ] } }
 * The window is part of every detail-text condition, so text older than a month never matches
 * (and never excludes) anything.
 */
function compileDetailText(condition: Condition): Query {
  const window: Query = {
    range: { [condition.def.collectedAtField as string]: { gte: detailTextWindow, time_zone: timeZone } },
  };
  return { bool: { filter: [window, compileContains(condition)] } };
}

/** { def: employeeCount, op: 'min', value: 50 } -> { range: { employeeCount: { gte: 50 } } } */
function compileRange({ def, op, value }: Condition): Query {
  return { range: { [def.field]: op === 'min' ? { gte: value as number } : { lte: value as number } } };
}

/**
 * { def: foundedAt, op: 'to', value: '2020-03-31' }
 * -> { range: { foundedAt: { lte: '2020-03-31||/d', time_zone: 'Asia/Tokyo' } } }
 * `||/d` makes both bounds whole days: `to` takes in the last millisecond of its day.
 */
function compileDateRange({ def, op, value }: Condition): Query {
  // a date-time (updatedAt) is an exact instant: no rounding. Sent in UTC: the engine's parser
  // takes offsets up to ±18:00 only, RFC 3339 up to ±23:59 (the parser checked the range)
  const bound = (value as string).includes('T')
    ? new Date(Date.parse(value as string)).toISOString()
    : `${value as string}||/d`;
  return {
    range: { [def.field]: { ...(op === 'from' ? { gte: bound } : { lte: bound }), time_zone: timeZone } },
  };
}

/**
 * { def: hasFax, value: true } -> { exists: { field: 'fax' } }
 * { def: hasFax, value: false } -> { bool: { must_not: [{ exists: { field: 'fax' } }] } }
 * (listed: the same on markets.code; null never reaches the compiler)
 */
function compilePresence({ def, value }: Condition): Query {
  const exists: Query = { exists: { field: def.field } };
  return value === true ? exists : { bool: { must_not: [exists] } };
}

/**
 * { def: hasDispatchLicense, value: true } -> { term: { hasDispatchLicense: true } }
 * false: not true, i.e. false or unknown -> { bool: { must_not: [{ term: { hasDispatchLicense: true } }] } }
 */
function compileFlag({ def, value }: Condition): Query {
  const isTrue: Query = { term: { [def.field]: true } };
  return value === true ? isTrue : { bool: { must_not: [isTrue] } };
}

/** How the text of a prefix condition is folded: as the key field it is compared with was. */
const keyFolds: Record<string, (text: string) => string> = { nameKey, readingKey, romajiKey };

/**
 * { def: furiganaPrefix, op: 'any', value: ['マルカ', 'サクラ '] }
 * -> { bool: { should: [{ prefix: { readingKey: readingKey('マルカ') } },
 *                      { prefix: { readingKey: readingKey('サクラ ') } }], minimum_should_match: 1 } }
 * A text that folds to nothing names no prefix (it would match every company with a reading).
 */
function compilePrefix({ def, value }: Condition): Query {
  const fold = keyFolds[def.field];
  if (!fold) throw new Error(`prefix filter ${def.key} on ${def.field}, which is not a name key field`);
  const keys = [...new Set((value as string[]).map(fold).filter((key) => key !== ''))];
  if (keys.length === 0) return { match_none: {} };
  return anyOf(keys.map((key) => ({ prefix: { [def.field]: key } }) satisfies Query));
}

/**
 * { def: includeClosed, value: true } -> { match_all: {} }: the condition removes nothing; the
 * default it lifts (closed companies left out) is compileQuery's (./compile-query.ts).
 */
function compileInclusion(): Query {
  return { match_all: {} };
}

/**
 * { def: invoiceRegisteredOn, value: '2024-04-01' }
 * -> { bool: { filter: [{ range: { 'invoice.registeredOn': { lte: '2024-04-01||/d', time_zone: 'Asia/Tokyo' } } }],
 *              must_not: [{ range: { 'invoice.endedOn': { lte: '2024-04-01||/d', time_zone: 'Asia/Tokyo' } } }] } }
 * true: the same on today in Japan (`now/d`); false: every record that one does not name.
 */
function compileValidOn({ def, value }: Condition): Query {
  const day = typeof value === 'string' ? `${value}||/d` : 'now/d';
  const onOrBefore = (field: string): Query => ({ range: { [field]: { lte: day, time_zone: timeZone } } });
  const holds: Query = {
    bool: {
      filter: [onOrBefore(def.field)],
      ...(def.endField ? { must_not: [onOrBefore(def.endField)] } : {}),
    },
  };
  return value === false ? { bool: { must_not: [holds] } } : holds;
}

export const kindCompilers: Record<Kind, KindCompiler> = {
  ids: compileTerms,
  exact: compileTerms,
  contains: compileContains,
  detailText: compileDetailText,
  range: compileRange,
  dateRange: compileDateRange,
  presence: compilePresence,
  flag: compileFlag,
  listed: compilePresence,
  prefix: compilePrefix,
  inclusion: compileInclusion,
  validOn: compileValidOn,
};

export function compileCondition(condition: Condition): Query {
  return kindCompilers[condition.def.kind](condition);
}
