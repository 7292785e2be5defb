/**
 * The shape of a filter catalogue entry. Each request filter is declared once, as data
 * (src/catalogue/corporate-filters.ts, src/catalogue/job-filters.ts); the request schema,
 * the request parser, the compiler and the test coverage check are all derived from it.
 */
import type { MasterName } from '../masters/masters.js';

/** Item or value schema, OpenAPI 3.0.3 dialect (a subset). */
export interface SchemaObject {
  type?: 'string' | 'integer' | 'number' | 'boolean' | 'object' | 'array';
  format?: string;
  description?: string;
  enum?: readonly (string | number | boolean | null)[];
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  nullable?: boolean;
  default?: unknown;
  items?: SchemaObject;
  properties?: Record<string, SchemaObject>;
  required?: string[];
  additionalProperties?: boolean;
  minProperties?: number;
  example?: unknown;
  $ref?: string;
  anyOf?: SchemaObject[];
}

/**
 * What a condition asks, independent of how it is spelled. Flat names are the nested key plus a
 * suffix (see `flatSuffix`): `prefectureId` + `any` = `prefectureIdOr`, nested
 * `filters.prefectureId.any`.
 */
export type Op =
  | 'any'
  | 'none'
  | 'anyContains'
  | 'allContains'
  | 'noneContains'
  | 'min'
  | 'max'
  | 'from'
  | 'to'
  | 'is';

export const flatSuffix: Record<Op, string> = {
  any: 'Or',
  none: 'Not',
  anyContains: 'PartialMatchOr',
  allContains: 'PartialMatchAnd',
  noneContains: 'PartialMatchNot',
  min: 'Min',
  max: 'Max',
  from: 'From',
  to: 'To',
  is: '',
};

/** Ops that exclude records; on postings they exclude companies having ANY matching posting. */
export const excludingOps: ReadonlySet<Op> = new Set(['none', 'noneContains']);

/**
 * One compiler per kind (src/search/compile-kinds.ts).
 * - ids: integer master ids, `terms`.
 * - exact: keyword compared exactly, `terms` (enums, codes, names, corporate numbers).
 * - contains: substring of a short text, `match_phrase` on the 1-2 gram field.
 * - detailText: substring of the posting detail text, only text collected within the last month.
 * - range: inclusive numeric bounds.
 * - dateRange: inclusive `YYYY-MM-DD` bounds.
 * - presence: true = the field has a value, false = it has none.
 * - flag: true = the boolean field is true, false = it is not true (false or unknown).
 * - listed: true = has at least one market, false = none, null = no condition.
 * - prefix: a name key (src/names/keys.ts) starts with one of the strings, folded the same way.
 * - inclusion: true brings back records the search leaves out by default (closed companies);
 *   the condition filters nothing itself, its absence does (src/search/compile-query.ts).
 * - validOn: a period with a start (`field`) and an optional end (`endField`) holds on a day:
 *   it started on or before the day and did not end on or before it. The value is that day
 *   (YYYY-MM-DD), or true / false for today in Japan (false: it does not hold, or there is none).
 */
export type Kind =
  | 'ids'
  | 'exact'
  | 'contains'
  | 'detailText'
  | 'range'
  | 'dateRange'
  | 'presence'
  | 'flag'
  | 'listed'
  | 'prefix'
  | 'inclusion'
  | 'validOn';

/**
 * Where the index field lives.
 * - company: a top-level field of a `corporates` document.
 * - posting: a field of the company's nested `postings`; positive posting conditions must hold
 *   for ONE posting together (same-posting rule), each excluding one is checked on its own.
 * - job: a top-level field of a `jobs` document.
 * - jobCorporate: a field of the job's denormalised `corporate` object.
 */
export type Scope = 'company' | 'posting' | 'job' | 'jobCorporate';

/** The master list a filter's values come from (`GET /rest/v1/master/<name>`). */
export interface MasterRef {
  name: MasterName;
  /** top: the list's own entries; sub: their `subCategories`. */
  level: 'top' | 'sub';
  /** The entry field the filter takes: `id`, or `code` for markets. */
  valueField: 'id' | 'code';
}

export interface FilterDef {
  /** Canonical nested key: `filters.<key>.<op>`; also the stem of the flat names. */
  key: string;
  kind: Kind;
  scope: Scope;
  /** The index field queried (full path, e.g. `postings.mediaId`, `corporate.name.substring`). */
  field: string;
  ops: readonly Op[];
  /** Schema of one value: an array item for any/none/…Contains, the bound for min/max/from/to, the scalar for `is`. */
  item: SchemaObject;
  description: string;
  /** Flat request names, name -> op. Empty when the filter exists only in the nested form. */
  flat: Readonly<Record<string, Op>>;
  /** Nested keys accepted in `filters` / `filterGroups[i]`, canonical first, then aliases. */
  nested: readonly string[];
  /** The master list its values must come from (a 400 names any other), its facet's names. */
  master?: MasterRef;
  /** detailText only: the date the text was collected; conditions see the last month only. */
  collectedAtField?: string;
  /** validOn only: the date the period ended (absent: it has not). */
  endField?: string;
  /** Why this entry is not the plain derivation from its key (aliases, renamed flat names, ...). */
  hook?: string;
}
