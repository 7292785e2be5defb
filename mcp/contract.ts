/**
 * The API's contract (openapi.yaml, generated from src/catalogue by `npm run gen:openapi`)
 * as JSON Schema for tool inputs: the schemas the API itself validates requests against,
 * with every `$ref` written out and OpenAPI's `nullable` turned into a type list.
 *
 *   contractSchema('SortCorporate') -> { type: 'object', properties: { field: {enum: [...]}, ... } }
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { projectRoot } from '../src/project-root.js';

export type JsonSchema = Record<string, unknown>;

interface Parameter {
  name: string;
  in: string;
  description?: string;
  schema: JsonSchema;
}

interface Contract {
  paths: Record<string, Record<string, { parameters?: Array<Parameter | { $ref: string }> }>>;
  components: { schemas: Record<string, JsonSchema>; parameters?: Record<string, Parameter> };
}

const contract = parse(readFileSync(path.join(projectRoot, 'openapi.yaml'), 'utf8')) as Contract;

function toJsonSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(toJsonSchema);
  if (node === null || typeof node !== 'object') return node;
  const { $ref, nullable, example: _example, ...rest } = node as Record<string, unknown>;
  if (typeof $ref === 'string') return contractSchema($ref.slice($ref.lastIndexOf('/') + 1));
  const schema = Object.fromEntries(Object.entries(rest).map(([key, value]) => [key, toJsonSchema(value)]));
  if (nullable === true && typeof schema.type === 'string') schema.type = [schema.type, 'null'];
  return schema;
}

/** A component schema of openapi.yaml, `$ref`s inlined. */
export function contractSchema(name: string): JsonSchema {
  const schema = contract.components.schemas[name];
  if (!schema) throw new Error(`openapi.yaml has no schema ${name}`);
  return toJsonSchema(schema) as JsonSchema;
}

/** The schema of a query or path parameter of an operation, its description included. */
export function parameterSchema(method: 'get' | 'post', apiPath: string, name: string): JsonSchema {
  const parameter = contract.paths[apiPath]?.[method]?.parameters
    ?.map((p) =>
      '$ref' in p ? contract.components.parameters?.[p.$ref.slice(p.$ref.lastIndexOf('/') + 1)] : p,
    )
    .find((p) => p?.name === name);
  if (!parameter) throw new Error(`openapi.yaml has no parameter ${name} on ${method} ${apiPath}`);
  const schema = toJsonSchema(parameter.schema) as JsonSchema;
  return parameter.description ? { ...schema, description: parameter.description.trim() } : schema;
}

/** The properties of a component schema, each inlined. */
export function contractProperties(name: string): Record<string, JsonSchema> {
  return (contractSchema(name).properties ?? {}) as Record<string, JsonSchema>;
}
