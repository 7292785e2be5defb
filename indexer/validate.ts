/**
 * Source-record validation against the published JSON Schemas in schemas/ (ajv). A record
 * that fails gets one reason naming the field, e.g. `salaryMin: must be integer`.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { projectRoot } from '../src/project-root.js';
import { isValidCorporateNumber } from './corporate-number.js';
import type { SourceRecord, SourceType } from './source-types.js';

// ajv-formats is CommonJS; under NodeNext its default export arrives as the module object
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

function readSchema(name: string): object {
  return JSON.parse(readFileSync(path.join(projectRoot, 'schemas', `${name}.schema.json`), 'utf8')) as object;
}

function compileAll(): Record<SourceType, ValidateFunction> {
  const ajv = new Ajv({ allErrors: false, strict: true, strictRequired: false, allowUnionTypes: true });
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
  /** `value`: the parsed record when the line was JSON, so the dead-letter entry keeps it whole */
  | { ok: false; type: string; reason: string; value?: unknown };

function describe(error: ErrorObject | undefined): string {
  if (!error) return 'does not match the schema';
  const field = error.instancePath.replace(/^\//, '').replaceAll('/', '.') || '(record)';
  if (error.keyword === 'additionalProperties')
    return `${field === '(record)' ? '' : `${field}.`}${String(error.params.additionalProperty)}: unknown field`;
  if (error.keyword === 'format' && error.params.format === 'corporate-number')
    return `${field}: must be a 13-digit corporate number with a valid check digit`;
  return `${field}: ${error.message ?? 'is invalid'}`;
}

/** Parses one NDJSON line and validates it; never throws. */
export function validateLine(line: string): Validated {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { ok: false, type: 'unknown', reason: 'not valid JSON' };
  }
  const result = validateRecord(value);
  return result.ok ? result : { ...result, value };
}

export function validateRecord(value: unknown): Validated {
  validators ??= compileAll();
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { ok: false, type: 'unknown', reason: 'a record must be a JSON object' };
  const type = (value as { type?: unknown }).type;
  if (typeof type !== 'string' || !(type in validators))
    return {
      ok: false,
      type: 'unknown',
      reason: `type: must be one of ${Object.keys(validators).join(', ')}`,
    };
  const validate = validators[type as SourceType];
  const record = emptyToNull(value as Record<string, unknown>);
  if (validate(record)) return { ok: true, record: record as unknown as SourceRecord };
  const errorsOf = validate.errors ?? [];
  // delete records share one oneOf schema: report the branch matching the type
  const errors = errorsOf.filter((error) => error.keyword !== 'oneOf' && error.keyword !== 'const');
  return { ok: false, type, reason: describe(errors[0] ?? errorsOf[0]), value };
}
