/**
 * Reasons that teach, for the names in a search body that the catalogue does not know
 * (src/search/parse-request.ts). Beyond the generic "did you mean" of src/errors/suggest.ts:
 *
 * - a name of the other search kind is pointed to its twin here, under the right name:
 *     job search, `prefectureIdOr`   -> is a field of company search, not of job search: here
 *                                       the same condition is "corporatePrefectureIdOr"
 *     company search, `mediaIdOr`    -> ... here the same condition is "jobMediaIdOr"
 * - a condition a filter does not take lists the ones it does:
 *     filters.employeeCount.mni      -> is not a condition of employeeCount; did you mean
 *                                       "min"? employeeCount takes: min, max
 *     prefectureIdAny                -> is not a field of this request; prefectureId takes:
 *                                       prefectureIdOr, prefectureIdNot
 *
 * Twins are found by the catalogue's own naming rule (src/catalogue/define.ts): job search
 * prefixes company conditions with `corporate`, company search prefixes posting conditions
 * with `job`; so a name is tried with such a prefix added or removed.
 */
import { type SearchCatalogue, searches } from '../catalogue/searches.js';
import type { FilterDef } from '../catalogue/types.js';
import { unknownFieldReason } from '../errors/suggest.js';

/** Where a name stands: top of the body (flat names) or inside `filters`/`filterGroups[i]`. */
export type NameLevel = 'flat' | 'nested';

const twinPrefixes = ['corporate', 'job'] as const;

const kindName = (search: SearchCatalogue) => search.label;

const otherKind = (search: SearchCatalogue) => searches[search.twin];

const upperFirst = (text: string) => `${text[0]?.toUpperCase() ?? ''}${text.slice(1)}`;
const lowerFirst = (text: string) => `${text[0]?.toLowerCase() ?? ''}${text.slice(1)}`;

const namesCache = new Map<string, ReadonlySet<string>>();

/** The filter names a search accepts at a level (flat request names, or nested keys). */
function filterNames(search: SearchCatalogue, level: NameLevel): ReadonlySet<string> {
  const cacheKey = `${search.index}/${level}`;
  let names = namesCache.get(cacheKey);
  if (!names) {
    names = new Set(
      search.filters.flatMap((def) => (level === 'flat' ? Object.keys(def.flat) : [...def.nested])),
    );
    namesCache.set(cacheKey, names);
  }
  return names;
}

/** `prefectureIdOr` -> corporatePrefectureIdOr, jobPrefectureIdOr; `jobMediaIdOr` -> mediaIdOr too. */
export function twinNames(name: string): string[] {
  const twins: string[] = [];
  for (const prefix of twinPrefixes) {
    twins.push(`${prefix}${upperFirst(name)}`);
    const rest = name.slice(prefix.length);
    if (name.startsWith(prefix) && /^[A-Z]/.test(rest)) twins.push(lowerFirst(rest));
  }
  return twins;
}

/**
 * "takes: ..." for a flat name that starts with a filter's key but is none of its names
 * (`prefectureIdAny`, `jobSalaryMinimum`, `prefectureId`): that filter's flat names, or its
 * nested form when it has no flat one. The longest matching key wins (jobSubCategoryId over
 * jobCategoryId cannot both match; employeeDiff6mMin over employeeCount can).
 */
function flatNamesOfStem(search: SearchCatalogue, name: string): string | undefined {
  let stem: FilterDef[] = [];
  for (const def of search.filters) {
    if (!name.startsWith(def.key)) continue;
    if (stem.length === 0 || def.key.length > (stem[0]?.key.length ?? 0)) stem = [def];
    else if (def.key === stem[0]?.key) stem.push(def);
  }
  const key = stem[0]?.key;
  if (key === undefined) return undefined;
  const flat = stem.flatMap((def) => Object.keys(def.flat));
  if (flat.length > 0) return `${key} takes: ${flat.join(', ')}`;
  const ops = [...new Set(stem.flatMap((def) => def.ops))];
  return `${key} is a nested filter only: filters.${key} with ${ops.join(', ')}`;
}

function joinHint(reason: string, hint: string | undefined): string {
  if (hint === undefined) return reason;
  return reason.endsWith('?') ? `${reason} ${hint}` : `${reason}; ${hint}`;
}

/**
 * The reason for a name a search does not accept at `level`; `allowed` are the names it does
 * accept there (filters and, at the top, limit, sort, ...).
 */
export function unknownNameReason(
  search: SearchCatalogue,
  level: NameLevel,
  name: string,
  allowed: readonly string[],
): string {
  const here = new Set(allowed);
  const other = otherKind(search);
  const inOther = filterNames(other, level).has(name);
  const twin = twinNames(name).find((candidate) => here.has(candidate));
  if (twin && inOther)
    return `is a field of ${kindName(other)}, not of ${kindName(search)}: here the same condition is "${twin}"`;
  if (twin) return `is not a field of this request; did you mean "${twin}"?`;
  if (inOther) return `is a field of ${kindName(other)} only, not of ${kindName(search)}`;
  const reason = unknownFieldReason(name, allowed);
  return level === 'flat' ? joinHint(reason, flatNamesOfStem(search, name)) : reason;
}

/** The reason for a condition (`filters.<key>.<op>`) the filter does not take, with the ones it does. */
export function unknownConditionReason(key: string, op: string, allowed: readonly string[]): string {
  const reason = unknownFieldReason(op, allowed).replace(
    'is not a field of this request',
    `is not a condition of ${key}`,
  );
  return joinHint(reason, `${key} takes: ${allowed.join(', ')}`);
}
