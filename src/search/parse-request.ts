/**
 * Request body -> a search plan the compiler reads (./plan.ts). This is the one validation of
 * a search body: against the same schemas openapi.yaml is generated from
 * (src/catalogue/request-schema.ts), then the bounds a schema cannot say. The HTTP layer's
 * openapi validator checks only that the body is an object (src/http/validation.ts); a field
 * the catalogue does not know is a 400, never dropped, and so is an id or code its master
 * lacks (./master-values.ts). Unknown names get reasons that teach (./request-hints.ts).
 *
 *   { prefectureIdOr: [13], filters: { jobTitle: { anyContains: ['営業'] } }, limit: 10 }
 *   -> { conditions: [prefectureId any [13], jobTitle anyContains ['営業']], groups: [],
 *        limit: 10, offset: 0, includeTotalResults: true, sort: { field: 'name', order: 'asc' } }
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { paging } from '../catalogue/paging.js';
import { requestSchemas } from '../catalogue/request-schema.js';
import type { SearchCatalogue } from '../catalogue/searches.js';
import type { FilterDef, Op } from '../catalogue/types.js';
import { errors, type FieldError } from '../errors/catalogue.js';
import { toFieldPath, toReason } from '../errors/field-errors.js';
import { unknownFieldReason } from '../errors/suggest.js';
import { unknownMasterValues } from './master-values.js';
import type { Condition, SearchPlan } from './plan.js';
import { unknownConditionReason, unknownNameReason } from './request-hints.js';

const reservedFields = new Set([
  'limit',
  'offset',
  'includeTotalResults',
  'sort',
  'filters',
  'filterGroups',
  'cursor',
  'facets',
  'fields',
]);

// ajv-formats is CommonJS; its default export arrives wrapped under NodeNext
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

// verbose: an error carries its schema, so an unknown field's reason can name the closest allowed one
const ajv = new Ajv({
  allErrors: true,
  strict: false,
  coerceTypes: false,
  useDefaults: false,
  verbose: true,
});
addFormats(ajv, ['date', 'date-time']);
// OpenAPI's int64: any whole number JSON can carry exactly; the bounds are the schema's min/max
ajv.addFormat('int64', { type: 'number', validate: (value: number) => Number.isSafeInteger(value) });
const validators = new Map<string, ValidateFunction>();

function validatorFor(search: SearchCatalogue): ValidateFunction {
  const name = search.schemaNames.request;
  let validate = validators.get(name);
  if (!validate) {
    const schemas = requestSchemas(search);
    ajv.addSchema({ $id: name, components: { schemas } });
    validate = ajv.compile({ $ref: `${name}#/components/schemas/${name}` });
    validators.set(name, validate);
  }
  return validate;
}

/** Compiles the request checks now rather than on each search's first request (start-up). */
export function compileRequestChecks(searches: SearchCatalogue[]): void {
  for (const search of searches) validatorFor(search);
}

/**
 * The reason for a name the schema refused (additionalProperties), by where it stands: at the
 * top of the body or in a filters object (did you mean, the other search kind's twin), or in
 * one filter's conditions (the conditions that filter takes); src/search/request-hints.ts.
 */
function unknownNameAt(search: SearchCatalogue, instancePath: string, name: string, allowed: string[]) {
  if (instancePath === '') return unknownNameReason(search, 'flat', name, allowed);
  if (/^\/(filters|filterGroups\/\d+)$/.test(instancePath))
    return unknownNameReason(search, 'nested', name, allowed);
  const condition = /^\/(?:filters|filterGroups\/\d+)\/([^/]+)$/.exec(instancePath);
  if (condition?.[1])
    return unknownConditionReason(condition[1].replaceAll('~1', '/').replaceAll('~0', '~'), name, allowed);
  return unknownFieldReason(name, allowed);
}

function toFieldError(search: SearchCatalogue, error: ErrorObject): FieldError {
  const params = error.params as {
    additionalProperty?: string;
    missingProperty?: string;
    allowedValues?: unknown[];
  };
  const extra = params.additionalProperty ?? params.missingProperty;
  const pointer = `/body${error.instancePath}${extra ? `/${extra}` : ''}`;
  const message =
    error.keyword === 'enum'
      ? `must be equal to one of the allowed values: ${params.allowedValues?.join(', ')}`
      : (error.message ?? '');
  if (error.keyword === 'additionalProperties') {
    const allowed = Object.keys(
      (error.parentSchema as { properties?: object } | undefined)?.properties ?? {},
    );
    return {
      field: toFieldPath(pointer),
      reason: unknownNameAt(search, error.instancePath, params.additionalProperty ?? '', allowed),
    };
  }
  return { field: toFieldPath(pointer), reason: toReason(error.keyword, message) };
}

function schemaErrors(search: SearchCatalogue, body: unknown): FieldError[] {
  const validate = validatorFor(search);
  if (validate(body)) return [];
  const seen = new Set<string>();
  return (validate.errors ?? [])
    .map((error) => toFieldError(search, error))
    .filter(({ field, reason }) => {
      const key = `${field}\u0000${reason}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
}

interface Indexes {
  flat: Map<string, { def: FilterDef; op: Op }>;
  nested: Map<string, FilterDef[]>;
}

const indexCache = new WeakMap<SearchCatalogue, Indexes>();

function indexesOf(search: SearchCatalogue): Indexes {
  let indexes = indexCache.get(search);
  if (!indexes) {
    indexes = { flat: new Map(), nested: new Map() };
    for (const def of search.filters) {
      for (const [name, op] of Object.entries(def.flat)) indexes.flat.set(name, { def, op });
      for (const key of def.nested) indexes.nested.set(key, [...(indexes.nested.get(key) ?? []), def]);
    }
    indexCache.set(search, indexes);
  }
  return indexes;
}

function push(out: Condition[], def: FilterDef, op: Op, value: unknown, path: string): void {
  // listed: null = no condition (contract: "boolean, nullable")
  if (value === null || value === undefined) return;
  out.push({ def, op, value, path });
}

function parseFilters(
  search: SearchCatalogue,
  filters: Record<string, unknown>,
  path: string,
  problems: FieldError[],
): Condition[] {
  const out: Condition[] = [];
  for (const [key, value] of Object.entries(filters)) {
    const defs = indexesOf(search).nested.get(key);
    const scalarDef = defs?.find((def) => def.ops.includes('is'));
    if (scalarDef) {
      push(out, scalarDef, 'is', value, `${path}.${key}`);
      continue;
    }
    if (!defs || typeof value !== 'object' || value === null) {
      problems.push({
        field: `${path}.${key}`,
        reason: defs
          ? unknownFieldReason(undefined, [])
          : unknownNameReason(search, 'nested', key, [...indexesOf(search).nested.keys()]),
      });
      continue;
    }
    for (const [op, operand] of Object.entries(value)) {
      const def = defs.find((candidate) => candidate.ops.includes(op as Op));
      if (!def)
        problems.push({
          field: `${path}.${key}.${op}`,
          reason: unknownConditionReason(key, op, [...new Set(defs.flatMap((candidate) => candidate.ops))]),
        });
      else push(out, def, op as Op, operand, `${path}.${key}.${op}`);
    }
  }
  return out;
}

/** An RFC 3339 date-time as epoch ms; NaN for one the calendar lacks (a leap second). */
const instantOf = (value: unknown) =>
  typeof value === 'string' && value.includes('T') ? Date.parse(value) : null;
/** 0000-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z: an instant the engine's dates can hold. */
const instantRange = [Date.parse('0000-01-01T00:00:00Z'), Date.parse('9999-12-31T23:59:59.999Z')];

/** Bounds the schema cannot express: min <= max, from <= to, no offset beside a cursor. */
function boundErrors(conditions: Condition[], plan: Pick<SearchPlan, 'offset' | 'cursor'>): FieldError[] {
  const found: FieldError[] = [];
  for (const { path, value } of conditions) {
    const at = instantOf(value);
    if (at !== null && !(at >= (instantRange[0] as number) && at <= (instantRange[1] as number)))
      found.push({
        field: path,
        reason: 'must be an instant between years 0000 and 9999 in UTC (no leap second)',
      });
  }
  const comparable = (value: unknown) => instantOf(value) ?? (value as number | string);
  const lowers = conditions.filter(({ op }) => op === 'min' || op === 'from');
  for (const lower of lowers) {
    const upperOp = lower.op === 'min' ? 'max' : 'to';
    for (const upper of conditions.filter(({ def, op }) => def === lower.def && op === upperOp)) {
      // instants compare as instants (offsets differ); dates and numbers as written
      const [a, b] = [comparable(lower.value), comparable(upper.value)];
      if (typeof a === typeof b && a > b)
        found.push({
          field: lower.path,
          reason: `must not be greater than ${upper.path} (${String(upper.value)})`,
        });
    }
  }
  if (plan.cursor !== undefined && plan.offset > 0)
    found.push({
      field: 'offset',
      reason: 'cannot be combined with cursor: a cursor page starts where the cursor points',
    });
  return found;
}

/** Validates a request body and turns it into a plan; throws the 400 of the error catalogue. */
export function parseSearchRequest(search: SearchCatalogue, body: unknown): SearchPlan {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw errors.validation([{ field: 'body', reason: 'must be a JSON object' }]);
  const problems = schemaErrors(search, body);
  if (problems.length > 0) throw errors.validation(problems);

  const request = body as Record<string, unknown>;
  const conditions: Condition[] = [];
  for (const [name, value] of Object.entries(request)) {
    if (reservedFields.has(name)) continue;
    const entry = indexesOf(search).flat.get(name);
    if (!entry)
      problems.push({
        field: name,
        reason: unknownNameReason(search, 'flat', name, [
          ...reservedFields,
          ...indexesOf(search).flat.keys(),
        ]),
      });
    else push(conditions, entry.def, entry.op, value, name);
  }
  if (request.filters)
    conditions.push(...parseFilters(search, request.filters as Record<string, unknown>, 'filters', problems));
  const groups = ((request.filterGroups as Record<string, unknown>[] | undefined) ?? []).map((group, i) =>
    parseFilters(search, group, `filterGroups[${i}]`, problems),
  );
  const plan: SearchPlan = {
    conditions,
    groups,
    limit: (request.limit as number | undefined) ?? paging.limit.default,
    offset: (request.offset as number | undefined) ?? paging.offset.default,
    includeTotalResults:
      (request.includeTotalResults as boolean | undefined) ?? paging.includeTotalResults.default,
    sort: (request.sort as SearchPlan['sort'] | undefined) ?? search.sort.default,
    ...(typeof request.cursor === 'string' ? { cursor: request.cursor } : {}),
    facets: (request.facets as string[] | undefined) ?? [],
    ...(Array.isArray(request.fields) ? { fields: request.fields as string[] } : {}),
  };
  problems.push(
    ...unknownMasterValues([...conditions, ...groups.flat()]),
    ...boundErrors(conditions, plan),
    ...groups.flatMap((group) => boundErrors(group, { offset: 0 })),
  );
  if (problems.length > 0) throw errors.validation(problems);
  return plan;
}
