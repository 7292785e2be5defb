/**
 * The search plan: what a search body asks for, in the catalogue's terms, after validation
 * (./parse-request.ts). The compilers (./compile-*.ts) read only this, never the body.
 *
 *   { conditions: [prefectureId any [13], jobTitle anyContains ['営業']], groups: [],
 *     limit: 10, offset: 0, includeTotalResults: true, sort: { field: 'name', order: 'asc' } }
 */
import type { FilterDef, Op } from '../catalogue/types.js';

export interface Condition {
  def: FilterDef;
  op: Op;
  /** An array for any/none/…Contains, a scalar for the others. */
  value: unknown;
  /** The request path, for error reasons: `prefectureIdOr`, `filters.jobTitle.anyContains`. */
  path: string;
}

export interface SearchPlan {
  /** Flat fields and `filters`, all required (AND). */
  conditions: Condition[];
  /** `filterGroups`: at least one group must hold as well. */
  groups: Condition[][];
  limit: number;
  offset: number;
  includeTotalResults: boolean;
  sort: { field: string; order: 'asc' | 'desc' };
  /** Cursor paging: `*` for the first page, else the `nextCursor` of the page before. */
  cursor?: string;
  /** Facet names (src/search/facets.ts), in the order asked. */
  facets: string[];
  /** `fields`: only these record fields; undefined = all. */
  fields?: string[];
}
