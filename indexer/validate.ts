/**
 * Source-record validation against the published JSON Schemas in schemas/ (ajv). A record
 * that fails gets every problem it has, each naming its field, so one round of fixes is enough:
 *   { salaryMin: 'many', unknownField: 1 } -> reasons [
 *     { field: 'salaryMin', reason: 'must be integer,null' },
 *     { field: 'unknownField', reason: 'unknown field' } ]
 * and `reason`, the same joined by `; ` (the one line a log or a table shows).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { projectRoot } from '../src/project-root.js';
import { isValidCorporateNumber } from './corporate-number.js';
import { type DeadLetterReason, joinReasons } from './dead-letter.js';
import type { SourceRecord, SourceType } from './source-types.js';

// ajv-formats is CommonJS; under NodeNext its default export arrives as the module object
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

function readSchema(name: string): object {
  return JSON.parse(readFileSync(path.join(projectRoot, 'schemas', `${name}.schema.json`), 'utf8')) as object;
}

function compileAll(): Record<SourceType, ValidateFunction> {
  const ajv = new Ajv({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true });
  addFormats(ajv);
  ajv.addFormat('corporate-number', isValidCorporateNumber);
  const deleteRecord = ajv.compile(readSchema('delete'));
  return {
    corporate: ajv.compile(readSchema('corporate')),
    job: ajv.compile(readSchema('job')),
    master: ajv.compile(readSchema('master')),
    delete_corporate: deleteRecord,
    delete_job: deleteRecord,
  };
}

let validators: Record<SourceType, ValidateFunction> | undefined;

type Properties = Record<string, { type?: string | string[]; properties?: Properties }>;

/** The fields a schema lets be null, by record type: `phoneNumber`, `workLocation.address`, … */
function nullableFields(): Map<string, Set<string>> {
  const byType = new Map<string, Set<string>>();
  const collect = (properties: Properties, prefix: string, into: Set<string>) => {
    for (const [name, property] of Object.entries(properties)) {
      const types = Array.isArray(property.type) ? property.type : [property.type];
      if (types.includes('null') && types.includes('string')) into.add(`${prefix}${name}`);
      if (property.properties) collect(property.properties, `${prefix}${name}.`, into);
    }
  };
  for (const name of ['corporate', 'job']) {
    const schema = readSchema(name) as { properties: Properties };
    const fields = new Set<string>();
    collect(schema.properties, '', fields);
    byType.set(name, fields);
  }
  return byType;
}

let nullable: Map<string, Set<string>> | undefined;

/**
 * An optional text that is empty or only white space means "none": stored as null, so every
 * filter on it ("has a phone number", presence and flags alike) sees the same thing.
 *   { phoneNumber: '', workLocation: { address: ' ' } } -> { phoneNumber: null, workLocation: { address: null } }
 */
function emptyToNull(value: Record<string, unknown>): Record<string, unknown> {
  nullable ??= nullableFields();
  const fields = nullable.get(String(value.type));
  if (!fields) return value;
  const fix = (node: Record<string, unknown>, prefix: string): Record<string, unknown> => {
    const out: Record<string, unknown> = { ...node };
    for (const [key, item] of Object.entries(node)) {
      const field = `${prefix}${key}`;
      if (typeof item === 'string' && item.trim() === '' && fields.has(field)) out[key] = null;
      else if (item && typeof item === 'object' && !Array.isArray(item))
        out[key] = fix(item as Record<string, unknown>, `${field}.`);
    }
    return out;
  };
  return fix(value, '');
}

export type Validated =
  | { ok: true; record: SourceRecord }
  /**
   * `reasons`: every problem, field by field; `reason`: them joined by `; `.
   * `value`: the parsed record when the line was JSON, so the dead-letter entry keeps it whole.
   */
  | { ok: false; type: string; reason: string; reasons: DeadLetterReason[]; value?: unknown };

function refusal(type: string, reasons: DeadLetterReason[], value?: unknown): Validated {
  return {
    ok: false,
    type,
    reason: joinReasons(reasons),
    reasons,
    ...(value === undefined ? {} : { value }),
  };
}

function fieldOf(error: ErrorObject): string {
  return error.instancePath.replace(/^\//, '').replaceAll('/', '.') || '(record)';
}

function describe(error: ErrorObject, branches: ErrorObject[]): DeadLetterReason {
  const field = fieldOf(error);
  if (error.keyword === 'additionalProperties')
    return {
      field: `${field === '(record)' ? '' : `${field}.`}${String(error.params.additionalProperty)}`,
      reason: 'unknown field',
    };
  // the missing field itself, as the API's 400s name it (`sort.order: is required`)
  if (error.keyword === 'required')
    return {
      field: `${field === '(record)' ? '' : `${field}.`}${String(error.params.missingProperty)}`,
      reason: 'is required',
    };
  if (error.keyword === 'format' && error.params.format === 'corporate-number')
    return { field, reason: 'must be a 13-digit corporate number with a valid check digit' };
  // an anyOf of required fields (a master item: id or code) reads as the choice it is
  if (error.keyword === 'anyOf' && branches.length > 0 && branches.every((b) => b.keyword === 'required'))
    return {
      field,
      reason: `must have ${branches.map((b) => String(b.params.missingProperty)).join(' or ')}`,
    };
  return { field, reason: error.message ?? 'is invalid' };
}

/**
 * ajv's errors (allErrors) as one reason per problem: the branch of the delete schema that
 * matches the record's type only, an anyOf as one reason instead of one per branch, no repeats.
 */
function reasonsOf(type: string, errors: ErrorObject[]): DeadLetterReason[] {
  const branch = type === 'delete_corporate' ? '#/oneOf/0/' : type === 'delete_job' ? '#/oneOf/1/' : '';
  const relevant = errors.filter(
    (error) =>
      error.keyword !== 'oneOf' &&
      !(error.keyword === 'const' && error.instancePath === '/type') &&
      (!branch || error.schemaPath.startsWith(branch)),
  );
  const anyOfs = relevant.filter((error) => error.keyword === 'anyOf');
  const underAnyOf = (error: ErrorObject) =>
    anyOfs.filter(
      (parent) =>
        error !== parent &&
        error.instancePath === parent.instancePath &&
        error.schemaPath.startsWith(`${parent.schemaPath}/`),
    );
  const seen = new Set<string>();
  const reasons: DeadLetterReason[] = [];
  for (const error of relevant) {
    if (underAnyOf(error).length > 0) continue;
    const branches = error.keyword === 'anyOf' ? relevant.filter((e) => underAnyOf(e).includes(error)) : [];
    const reason = describe(error, branches);
    const key = `${reason.field}\u0000${reason.reason}`;
    if (seen.has(key)) continue;
    seen.add(key);
    reasons.push(reason);
  }
  return reasons.length > 0 ? reasons : [{ field: '(record)', reason: 'does not match the schema' }];
}

/** Parses one NDJSON line and validates it; never throws. */
export function validateLine(line: string): Validated {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return refusal('unknown', [{ field: '(record)', reason: 'not valid JSON' }]);
  }
  const result = validateRecord(value);
  return result.ok ? result : { ...result, value };
}

export function validateRecord(value: unknown): Validated {
  validators ??= compileAll();
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return refusal('unknown', [{ field: '(record)', reason: 'a record must be a JSON object' }]);
  const type = (value as { type?: unknown }).type;
  if (typeof type !== 'string' || !(type in validators))
    return refusal('unknown', [
      { field: 'type', reason: `must be one of ${Object.keys(validators).join(', ')}` },
    ]);
  const validate = validators[type as SourceType];
  const record = emptyToNull(value as Record<string, unknown>);
  if (validate(record)) return { ok: true, record: record as unknown as SourceRecord };
  return refusal(type, reasonsOf(type, validate.errors ?? []), value);
}
