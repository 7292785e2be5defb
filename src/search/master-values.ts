/**
 * Filter values that name a master entry (prefectures, industries, business types, media, job
 * categories, markets, employment types) must be one: an id the master does not have would
 * match nothing and still be charged, so it is a 400 naming the value and where the valid
 * ones are listed, found before credits are reserved or the engine is asked.
 *
 *   { prefectureIdOr: [13, 48] }
 *   -> { field: 'prefectureIdOr[1]', value: 48,
 *        reason: 'is not an id of the prefectures master; the valid ones are listed at GET /rest/v1/master/prefectures' }
 *
 * Which master a filter takes is a field of its definition (`master`, src/catalogue/define.ts
 * `masters`): a list's own entries or their `subCategories` (industrySubCategoryId,
 * businessSubCategoryId, jobSubCategoryId). The masters are the ones the API serves
 * (data/masters/), read once into one Set per list.
 */
import type { FilterDef, MasterRef } from '../catalogue/types.js';
import type { FieldError } from '../errors/catalogue.js';
import { readMasterFile } from '../masters/masters.js';
import type { Condition } from './plan.js';

const knownValues = new Map<string, ReadonlySet<unknown>>();

function valuesOf(master: MasterRef): ReadonlySet<unknown> {
  const cacheKey = `${master.name}/${master.level}/${master.valueField}`;
  let values = knownValues.get(cacheKey);
  if (!values) {
    const items = readMasterFile(master.name).items;
    const rows =
      master.level === 'sub'
        ? items.flatMap((item) => (item.subCategories as Array<Record<string, unknown>> | undefined) ?? [])
        : items;
    values = new Set(rows.map((row) => row[master.valueField]));
    knownValues.set(cacheKey, values);
  }
  return values;
}

/** The master a filter's values come from; undefined for a filter of free values. */
export function masterOfFilter(def: FilterDef): MasterRef | undefined {
  return def.master;
}

/** The values a master-backed filter takes, in master order; undefined for a filter of free values. */
export function knownMasterValues(def: FilterDef): unknown[] | undefined {
  const master = masterOfFilter(def);
  return master ? [...valuesOf(master)] : undefined;
}

/** The path that lists a master's valid values. */
export const masterPath = (master: MasterRef) => `GET /rest/v1/master/${master.name}`;

function reasonFor(master: MasterRef): string {
  const what =
    master.level === 'sub'
      ? `a sub-category ${master.valueField} of the ${master.name} master`
      : `${master.valueField === 'id' ? 'an' : 'a'} ${master.valueField} of the ${master.name} master`;
  const where =
    master.level === 'sub' ? `in subCategories at ${masterPath(master)}` : `at ${masterPath(master)}`;
  return `is not ${what}; the valid ones are listed ${where}`;
}

/** One field error per value that is not in its filter's master (each value's own path). */
export function unknownMasterValues(conditions: readonly Condition[]): FieldError[] {
  const found: FieldError[] = [];
  for (const { def, value, path } of conditions) {
    const master = masterOfFilter(def);
    if (!master || !Array.isArray(value)) continue;
    const known = valuesOf(master);
    value.forEach((item, index) => {
      if (!known.has(item))
        found.push({ field: `${path}[${index}]`, reason: reasonFor(master), value: item });
    });
  }
  return found;
}
