/**
 * OpenAPI 3.0.3 Schema Objects of the two search request bodies, derived from the catalogue.
 * openapi.yaml is generated from these (the contract's generator imports this file), and the
 * compiler validates every request against the same schemas, so the document, the validator
 * and the compiler cannot disagree. Schemas reference each other only by
 * `$ref: '#/components/schemas/<Name>'`.
 */

import { sortOrders } from './enums.js';
import { paging } from './paging.js';
import { corporateSearch, jobSearch, type SearchCatalogue } from './searches.js';
import { sortFieldNames } from './sort-fields.js';
import type { FilterDef, Op, SchemaObject } from './types.js';

export type { SchemaObject } from './types.js';

const opMeaning: Record<Op, string> = {
  any: 'Matches when the value is any of the listed ones.',
  none: 'Excludes records with any of the listed values.',
  anyContains: 'Matches when the text contains any of the strings.',
  allContains: 'Matches when the text contains all of the strings.',
  noneContains: 'Excludes records whose text contains any of the strings.',
  min: 'Inclusive lower bound.',
  max: 'Inclusive upper bound.',
  from: 'Inclusive lower bound (YYYY-MM-DD).',
  to: 'Inclusive upper bound (YYYY-MM-DD).',
  is: '',
};

const listOps: ReadonlySet<Op> = new Set(['any', 'none', 'anyContains', 'allContains', 'noneContains']);

/** The schema of one condition value, as the flat field and the nested op both take it. */
export function valueSchema(def: FilterDef, op: Op): SchemaObject {
  const description = `${def.description}${opMeaning[op] ? ` ${opMeaning[op]}` : ''}`;
  if (listOps.has(op)) {
    return {
      type: 'array',
      description,
      items: def.item,
      minItems: 1,
      maxItems: paging.maxValues,
    };
  }
  return { ...def.item, description };
}

function nestedConditionSchemas(filters: readonly FilterDef[]): Record<string, SchemaObject> {
  const byKey = new Map<
    string,
    { scalar?: SchemaObject; ops: Record<string, SchemaObject>; descriptions: string[] }
  >();
  for (const def of filters) {
    for (const key of def.nested) {
      const entry = byKey.get(key) ?? { ops: {}, descriptions: [] };
      entry.descriptions.push(
        key === def.nested[0] ? def.description : `Alias of ${def.nested[0]}. ${def.description}`,
      );
      for (const op of def.ops) {
        if (op === 'is')
          entry.scalar = {
            ...valueSchema(def, op),
            description: entry.descriptions.at(-1) ?? def.description,
          };
        else entry.ops[op] = valueSchema(def, op);
      }
      byKey.set(key, entry);
    }
  }
  const properties: Record<string, SchemaObject> = {};
  for (const [key, { scalar, ops, descriptions }] of byKey) {
    properties[key] = scalar ?? {
      type: 'object',
      description: descriptions.join(' / '),
      properties: ops,
      additionalProperties: false,
      minProperties: 1,
    };
  }
  return properties;
}

function flatSchemas(filters: readonly FilterDef[]): Record<string, SchemaObject> {
  return Object.fromEntries(
    filters.flatMap((def) => Object.entries(def.flat).map(([name, op]) => [name, valueSchema(def, op)])),
  );
}

function ref(name: string): SchemaObject {
  return { $ref: `#/components/schemas/${name}` };
}

/** Request fields that page through results: not part of an export, which sends them all. */
export const pagingFields = ['limit', 'offset', 'includeTotalResults', 'cursor', 'facets'] as const;

export const exportFormats = ['csv', 'jsonl'] as const;
export const exportEncodings = ['utf-8', 'shift_jis'] as const;

function exportSchema(searchSchema: SchemaObject): SchemaObject {
  const properties = { ...(searchSchema.properties as Record<string, SchemaObject>) };
  for (const field of pagingFields) delete properties[field];
  return {
    type: 'object',
    description:
      'The search body without paging (every result is sent), with the file format, its encoding and a credit cap.',
    additionalProperties: false,
    properties: {
      format: {
        type: 'string',
        enum: [...exportFormats],
        default: 'csv',
        description:
          'csv: a header row of field names, then one row per record (CRLF; lists and objects as JSON text; null as an empty cell). jsonl: one JSON record per line.',
      },
      encoding: {
        type: 'string',
        enum: [...exportEncodings],
        default: 'utf-8',
        description:
          'CSV only. utf-8: with a byte order mark, so Excel detects it. shift_jis: Windows-31J (CP932), for older Excel and Japanese business tools; a character it cannot hold becomes `?`.',
      },
      maxCredits: {
        type: 'integer',
        minimum: 0,
        description:
          'The most this export may cost. Checked against the exact count before anything is sent: a larger cost is a 400 and nothing is charged.',
      },
      ...properties,
    },
  };
}

export function requestSchemas(search: SearchCatalogue): Record<string, SchemaObject> {
  const schemas = searchSchemas(search);
  const searchSchema = schemas[search.schemaNames.request] as SchemaObject;
  return { ...schemas, [search.schemaNames.export]: exportSchema(searchSchema) };
}

function searchSchemas(search: SearchCatalogue): Record<string, SchemaObject> {
  const { request, filters, sort } = search.schemaNames;
  return {
    [request]: {
      type: 'object',
      description:
        'Flat filter fields, `filters` and `filterGroups` combine with AND. A field not listed here is a 400.',
      additionalProperties: false,
      properties: {
        limit: {
          type: 'integer',
          minimum: paging.limit.min,
          maximum: paging.limit.max,
          default: paging.limit.default,
          description: 'Page size.',
        },
        offset: {
          type: 'integer',
          minimum: paging.offset.min,
          default: paging.offset.default,
          description: `Results to skip: any offset up to the total. Pages from offset ${paging.walkFrom.toLocaleString('en-US')} are read from a snapshot of the list (point in time) that each page keeps for ${paging.deepPagingTtlSeconds / 60} minutes, so the next page continues where this one ended at the cost of a first page; a jump more than ${paging.maxWalk.toLocaleString('en-US')} results past the furthest page reached is a 400 (page there in steps, or use \`cursor\`).`,
        },
        cursor: {
          type: 'string',
          minLength: 1,
          maxLength: 4096,
          description: `Cursor paging: \`"${'*'}"\` for the first page; then the \`nextCursor\` of the page before, with the same filters and sort (limit may change). Every result comes exactly once, in order, from a snapshot taken at the first page, also while the data changes. A cursor expires ${paging.cursorTtlSeconds / 60} minutes after its page was served. Not combinable with offset. Each page costs like a search.`,
        },
        includeTotalResults: {
          type: 'boolean',
          default: paging.includeTotalResults.default,
          description: 'true: totalResults is the exact count; false: totalResults is null (faster).',
        },
        facets: {
          type: 'array',
          description: `Exact counts per value under the current filters, with the master's name, in \`facets\` of the response (part of the search's credit). A facet is named like the filter on its field, so a value sent back as that filter gives a total equal to its count.${search.nestedPostings ? ' Posting facets (job…) count companies that have a matching posting, not postings.' : ''}`,
          items: { type: 'string', enum: [...search.facets] },
          minItems: 1,
          uniqueItems: true,
        },
        fields: {
          type: 'array',
          description:
            'Only these fields in each record (and only these are read from the index); default: every field.',
          items: { type: 'string', enum: [...search.recordFields] },
          minItems: 1,
          uniqueItems: true,
        },
        sort: ref(sort),
        filters: ref(filters),
        filterGroups: {
          type: 'array',
          description:
            'Alternatives: a record matches when it matches `filters` and at least one of these groups.',
          items: ref(filters),
          minItems: 1,
          maxItems: paging.maxGroups,
        },
        ...flatSchemas(search.filters),
      },
    },
    [filters]: {
      type: 'object',
      description:
        'Nested filter form: different fields combine with AND; any/none, anyContains/allContains/noneContains, min/max, from/to.',
      additionalProperties: false,
      properties: nestedConditionSchemas(search.filters),
    },
    [sort]: {
      type: 'object',
      description: `Sort order. Default: ${search.sort.default.field} ${search.sort.default.order}. Records without the value come last in both orders.`,
      additionalProperties: false,
      required: ['field', 'order'],
      properties: {
        field: { type: 'string', enum: sortFieldNames(search.sort) },
        order: { type: 'string', enum: sortOrders },
      },
    },
  };
}

/** Components CorporateSearchRequest, CorporateExportRequest, CorporateFilters, SortCorporate. */
export function corporateSearchRequestSchemas(): Record<string, SchemaObject> {
  return requestSchemas(corporateSearch);
}

/** Components JobSearchRequest, JobExportRequest, JobFilters, SortJob. */
export function jobSearchRequestSchemas(): Record<string, SchemaObject> {
  return requestSchemas(jobSearch);
}
