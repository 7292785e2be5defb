/**
 * The sort of a search: the requested field (aliases resolved) with documents lacking it last
 * in both orders, then the unique key so equal values never reorder between pages.
 *
 *   { field: 'jobSalaryMin', order: 'desc' } (company search)
 *   -> [ { 'aggregates.jobSalaryMinMax': { order: 'desc', missing: '_last' } },
 *        { corporateNumber: { order: 'asc' } } ]
 */

import type { SortCatalogue } from '../catalogue/sort-fields.js';
import type { Types } from '../opensearch/engine.js';
import type { SearchPlan } from './plan.js';

export type Sort = Types.Common.SortCombinations[];

export function compileSort(catalogue: SortCatalogue, sort: SearchPlan['sort']): Sort {
  const name = catalogue.aliases[sort.field] ?? sort.field;
  const field = catalogue.fields[name];
  if (!field) throw new Error(`sort field ${sort.field} is not in the catalogue`);
  return [
    { [field]: { order: sort.order, missing: '_last' } },
    { [catalogue.tieBreaker]: { order: 'asc' } },
  ] satisfies Sort;
}
