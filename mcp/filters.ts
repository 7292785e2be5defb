/**
 * The `filters` parameter of the search tools: the contract's nested filter schema
 * (openapi.yaml, CorporateFilters / JobFilters), one property per canonical filter key of
 * the console catalogue (aliases left out), each described for a model choosing filters:
 *
 *   都道府県（本社） prefectureId: Prefecture of the head office (...).
 *   Ids of the prefectures master: 1 北海道, 2 青森県, ..., 47 沖縄県.
 *
 * Values of an enumeration carry their Japanese labels; a small master without sub-categories
 * is written out, a larger one is named with the tool that lists it.
 */

import { filterLabel, valueLabels } from '../src/catalogue/labels.js';
import type { PublicFilter, PublicMaster, PublicSearch } from '../src/catalogue/public-catalogue.js';
import { readMasterFile } from '../src/masters/masters.js';
import { contractSchema, type JsonSchema } from './contract.js';

/** The name of the tool that lists a master (mcp/tools.ts registers it). */
export const mastersToolName = 'list_master';

/** A master with at most this many entries and no sub-categories is written into the description. */
const inlineMasterMax = 50;

function masterText(master: PublicMaster): string {
  const { items } = readMasterFile(master.name);
  const what = master.valueField === 'code' ? 'Codes' : 'Ids';
  const small = items.length <= inlineMasterMax && items.every((item) => item.subCategories === undefined);
  if (master.level === 'top' && small) {
    const entries = items.map((item) => `${String(item[master.valueField])} ${String(item.name)}`);
    return `${what} of the ${master.name} master: ${entries.join(', ')}.`;
  }
  const where =
    master.level === 'sub' ? 'the ids of the entries under subCategories' : `the ${master.valueField}s`;
  return `${what}: ${where} of the ${master.name} master (tool ${mastersToolName}, name "${master.name}").`;
}

function enumText(filter: PublicFilter): string | undefined {
  const values = filter.conditions.flatMap((condition) => condition.item.enum ?? []);
  if (values.length === 0) return undefined;
  const unique = [...new Set(values.map(String))];
  return `Values: ${unique.map((value) => `${value} (${valueLabels[value] ?? value})`).join(', ')}.`;
}

/** `都道府県（本社） prefectureId: <catalogue description> <values or master>` */
export function filterDescription(search: PublicSearch['name'], filter: PublicFilter): string {
  const label = filterLabel(search, filter.key);
  return [
    `${label ? `${label} ` : ''}${filter.key}: ${filter.description}`,
    enumText(filter),
    filter.master ? masterText(filter.master) : undefined,
  ]
    .filter((part) => part !== undefined)
    .join(' ');
}

/** Bounds and lengths the API checks anyway; a listing without them is a third shorter. */
const unlisted = new Set([
  'description',
  'minItems',
  'maxItems',
  'minimum',
  'maximum',
  'minLength',
  'maxLength',
]);

function compact(schema: JsonSchema): JsonSchema {
  const kept = Object.entries(schema).filter(([key]) => !unlisted.has(key));
  return Object.fromEntries(
    kept.map(([key, value]) => [key, key === 'items' ? compact(value as JsonSchema) : value]),
  );
}

/**
 * A filter's schema with its conditions stripped to their types and values: what each
 * condition means is said once for all filters (the `filters` description), what the filter
 * means once in its own description.
 */
function conditionsOnly(schema: JsonSchema): JsonSchema {
  const properties = schema.properties as Record<string, JsonSchema> | undefined;
  if (!properties) return compact(schema);
  const conditions = Object.entries(properties).map(([op, condition]) => [op, compact(condition)]);
  return { ...compact(schema), properties: Object.fromEntries(conditions) };
}

const conditionsHelp =
  'Conditions by filter, all of which must hold. List conditions: any (the value is one of these), none (it is none of these), anyContains / allContains / noneContains (the text contains one / all / none of these strings); bounds: min / max (numbers), from / to (YYYY-MM-DD, inclusive); a yes/no filter takes true or false. Lists hold 1 to 1,000 values.';

/** The `filters` parameter of a search tool. */
export function filtersSchema(search: PublicSearch, contractName: string): JsonSchema {
  const contract = contractSchema(contractName);
  const properties = contract.properties as Record<string, JsonSchema>;
  const described = search.filters.map((filter) => {
    const schema = properties[filter.key];
    if (!schema) throw new Error(`${contractName} in openapi.yaml lacks the filter ${filter.key}`);
    return [filter.key, { ...conditionsOnly(schema), description: filterDescription(search.name, filter) }];
  });
  return { ...contract, description: conditionsHelp, properties: Object.fromEntries(described) };
}
