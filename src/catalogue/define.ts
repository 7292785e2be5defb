/**
 * Builders for catalogue entries: everything that follows from the key and the kind is
 * derived here, so an entry states only what is particular to it.
 *
 *   define('prefectureId', 'ids', { scope: 'company', field: 'prefectureId', ... })
 *   -> flat { prefectureIdOr: 'any', prefectureIdNot: 'none' }, nested ['prefectureId']
 */
import {
  type FilterDef,
  flatSuffix,
  type Kind,
  type MasterRef,
  type Op,
  type SchemaObject,
  type Scope,
} from './types.js';

/** The master lists, as a filter names its own (`master: masters.prefectures`). */
export const masters = {
  prefectures: { name: 'prefectures', level: 'top', valueField: 'id' },
  industries: { name: 'industries', level: 'top', valueField: 'id' },
  industrySubCategories: { name: 'industries', level: 'sub', valueField: 'id' },
  businessTypes: { name: 'business-types', level: 'top', valueField: 'id' },
  businessSubCategories: { name: 'business-types', level: 'sub', valueField: 'id' },
  media: { name: 'media', level: 'top', valueField: 'id' },
  jobCategories: { name: 'job-categories', level: 'top', valueField: 'id' },
  jobSubCategories: { name: 'job-categories', level: 'sub', valueField: 'id' },
  markets: { name: 'markets', level: 'top', valueField: 'code' },
  employmentTypes: { name: 'employment-types', level: 'top', valueField: 'id' },
  governmentBodies: { name: 'government-bodies', level: 'top', valueField: 'id' },
  certificationKinds: { name: 'certification-kinds', level: 'top', valueField: 'id' },
  awardKinds: { name: 'award-kinds', level: 'top', valueField: 'id' },
} as const satisfies Record<string, MasterRef>;

const defaultOps: Record<Kind, readonly Op[]> = {
  ids: ['any', 'none'],
  exact: ['any', 'none'],
  contains: ['anyContains', 'noneContains'],
  detailText: ['anyContains', 'allContains', 'noneContains'],
  range: ['min', 'max'],
  dateRange: ['from', 'to'],
  presence: ['is'],
  flag: ['is'],
  listed: ['is'],
  prefix: ['any'],
  inclusion: ['is'],
  validOn: ['is'],
};

export const items = {
  id: { type: 'integer', minimum: 0, maximum: 2_147_483_647 },
  text: { type: 'string', minLength: 1, maxLength: 200 },
  fragment: { type: 'string', minLength: 1, maxLength: 100 },
  integer: { type: 'integer', minimum: -2_147_483_648, maximum: 2_147_483_647 },
  count: { type: 'integer', minimum: 0, maximum: 2_147_483_647 },
  yen: { type: 'integer', format: 'int64', minimum: 0, maximum: 9_007_199_254_740_991 },
  millionYen: { type: 'number', minimum: 0 },
  /** a figure kept to one decimal (gBizINFO's workplace figures) */
  decimal: { type: 'number', minimum: 0, maximum: 1_000_000 },
  date: { type: 'string', format: 'date', pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$', example: '2025-04-01' },
  boolean: { type: 'boolean' },
  /** A whole day (Japan), or an exact instant for a change feed. */
  dateOrInstant: {
    type: 'string',
    anyOf: [
      { format: 'date', pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$' },
      { format: 'date-time', pattern: 'T' },
    ],
    example: '2026-11-01T09:00:00+09:00',
  },
  corporateNumber: { type: 'string', pattern: '^[0-9]{13}$', example: '1010001000001' },
  enumOf: (values: readonly string[]): SchemaObject => ({ type: 'string', enum: values }),
} satisfies Record<string, SchemaObject | ((values: readonly string[]) => SchemaObject)>;

const defaultItem: Record<Kind, SchemaObject> = {
  ids: items.id,
  exact: items.text,
  contains: items.fragment,
  detailText: items.fragment,
  range: items.integer,
  dateRange: items.date,
  presence: items.boolean,
  flag: items.boolean,
  listed: { type: 'boolean', nullable: true },
  prefix: items.fragment,
  inclusion: items.boolean,
  validOn: items.boolean,
};

export interface DefineOptions {
  scope: Scope;
  field: string;
  description: string;
  item?: SchemaObject;
  ops?: readonly Op[];
  /** Replaces the derived flat names; `{}` = nested form only. */
  flat?: Record<string, Op>;
  /** Extra flat names beside the derived ones. */
  flatAliases?: Record<string, Op>;
  /** Extra nested keys beside the canonical one. */
  aliases?: readonly string[];
  hook?: string;
  collectedAtField?: string;
  endField?: string;
  master?: MasterRef;
}

export function flatNames(key: string, ops: readonly Op[]): Record<string, Op> {
  return Object.fromEntries(ops.map((op) => [`${key}${flatSuffix[op]}`, op]));
}

export function define(key: string, kind: Kind, options: DefineOptions): FilterDef {
  const ops = options.ops ?? defaultOps[kind];
  return {
    key,
    kind,
    scope: options.scope,
    field: options.field,
    ops,
    item: options.item ?? defaultItem[kind],
    description: options.description,
    flat: { ...(options.flat ?? flatNames(key, ops)), ...options.flatAliases },
    nested: [key, ...(options.aliases ?? [])],
    ...(options.hook ? { hook: options.hook } : {}),
    ...(options.collectedAtField ? { collectedAtField: options.collectedAtField } : {}),
    ...(options.endField ? { endField: options.endField } : {}),
    ...(options.master ? { master: options.master } : {}),
  };
}

/**
 * The job-search twin of a company filter: the same condition on the job's denormalised
 * `corporate` object, under the name prefixed with `corporate`.
 *   prefectureId (company) -> corporatePrefectureId on `corporate.prefectureId`
 */
export function onJobCorporate(
  def: FilterDef,
  extra: Pick<DefineOptions, 'aliases' | 'flatAliases' | 'hook' | 'flat'> = {},
): FilterDef {
  const key = `corporate${def.key[0]?.toUpperCase()}${def.key.slice(1)}`;
  const derivedFlat = Object.keys(def.flat).length === 0 ? {} : flatNames(key, def.ops);
  const { hook: _companyHook, ...rest } = def;
  return {
    ...rest,
    key,
    scope: 'jobCorporate',
    field: `corporate.${def.field}`,
    description: `Linked company: ${def.description[0]?.toLowerCase()}${def.description.slice(1)}`,
    flat: { ...(extra.flat ?? derivedFlat), ...extra.flatAliases },
    nested: [key, ...(extra.aliases ?? [])],
    ...(extra.hook ? { hook: extra.hook } : {}),
  };
}
