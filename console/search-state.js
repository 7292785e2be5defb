// The search as a small plain object, written into the URL and kept as a saved search by the API:
//
//   { kind: 'corporates', filters: { prefectureId: { any: [13] } }, sort: 'name:asc', limit: 25 }
//
// `filters` is the API's own nested filter form, so the URL reads like the request body and a
// saved search is a body a program could send. The API key is never part of it.
//
//   #search?kind=corporates&filters={"prefectureId":{"any":[13]}}&sort=name:asc&limit=25

/** The URL hash holding a search state. */
export function stateToHash(searchState) {
  const params = [['kind', searchState.kind]];
  if (Object.keys(searchState.filters).length > 0)
    params.push(['filters', JSON.stringify(searchState.filters)]);
  if (searchState.sort) params.push(['sort', searchState.sort]);
  if (searchState.limit) params.push(['limit', String(searchState.limit)]);
  return `#search?${params.map(([name, value]) => `${name}=${readableComponent(value)}`).join('&')}`;
}

/** encodeURIComponent, but JSON's brackets, colons and commas stay as they are (legal in a hash). */
function readableComponent(value) {
  return encodeURIComponent(value).replace(/%(5B|5D|7B|7D|3A|2C)/g, (escaped) => decodeURIComponent(escaped));
}

/** The search state of a URL hash, or null when the hash holds none (or cannot be read). */
export function hashToState(hash) {
  if (!hash.startsWith('#search?')) return null;
  const params = new URLSearchParams(hash.slice('#search?'.length));
  const kind = params.get('kind');
  if (kind !== 'corporates' && kind !== 'jobs') return null;
  let filters = {};
  try {
    filters = JSON.parse(params.get('filters') ?? '{}');
  } catch {
    return null;
  }
  if (filters === null || typeof filters !== 'object' || Array.isArray(filters)) return null;
  const limit = Number(params.get('limit'));
  return {
    kind,
    filters,
    sort: params.get('sort') ?? '',
    limit: Number.isInteger(limit) && limit > 0 ? limit : 25,
  };
}

/**
 * The conditions of a nested `filters` object: `{ min: 10, max: 50 }` gives one condition per
 * operator, a bare value the `is` operator. A key or operator the search does not offer is
 * left out and reported, so a stale link never sends a field the API refuses.
 */
export function conditionsOf(search, filters) {
  const conditions = [];
  const dropped = [];
  for (const [key, value] of Object.entries(filters)) {
    const filter = search.filters.find((entry) => entry.key === key);
    if (!filter) {
      dropped.push(key);
      continue;
    }
    const ops = new Set(filter.conditions.map((entry) => entry.op));
    const isOps = value !== null && typeof value === 'object' && !Array.isArray(value);
    const pairs = isOps ? Object.entries(value) : [['is', value]];
    for (const [op, opValue] of pairs) {
      if (ops.has(op)) conditions.push({ filter, op, value: opValue });
      else dropped.push(`${key}.${op}`);
    }
  }
  return { conditions, dropped };
}

/**
 * A search state as the API keeps it (`POST /rest/v1/saved-searches`): the search it names and
 * a body that search takes.
 *   { kind: 'corporates', filters: {...}, sort: 'name:asc', limit: 25 }
 *   -> { search: 'corporates', body: { filters: {...}, sort: { field: 'name', order: 'asc' }, limit: 25 } }
 */
export function toSavedSearch(searchState) {
  const body = {};
  if (Object.keys(searchState.filters).length > 0) body.filters = searchState.filters;
  if (searchState.sort) {
    const [field, order] = searchState.sort.split(':');
    body.sort = { field, order };
  }
  if (searchState.limit) body.limit = searchState.limit;
  return { search: searchState.kind, body };
}

/** Flat request names' endings -> the nested operator (`prefectureIdOr` -> prefectureId.any). */
const flatEndings = [
  ['PartialMatchOr', 'anyContains'],
  ['PartialMatchAnd', 'allContains'],
  ['PartialMatchNot', 'noneContains'],
  ['Or', 'any'],
  ['Not', 'none'],
  ['Min', 'min'],
  ['Max', 'max'],
  ['From', 'from'],
  ['To', 'to'],
];
const bodyFields = new Set([
  'filters',
  'filterGroups',
  'sort',
  'limit',
  'offset',
  'cursor',
  'fields',
  'facets',
  'includeTotalResults',
]);

/**
 * A saved search (from the console, a program or the MCP server) as a search state: its
 * nested filters, with the flat names folded in (`prefectureIdOr: [13]` -> prefectureId.any);
 * `filterGroups`, which the console does not build, are reported in `dropped`.
 */
export function fromSavedSearch(saved) {
  const body = saved.body ?? {};
  const filters = { ...(body.filters ?? {}) };
  const dropped = body.filterGroups ? ['filterGroups'] : [];
  for (const [name, value] of Object.entries(body)) {
    if (bodyFields.has(name)) continue;
    const ending = flatEndings.find(([suffix]) => name.endsWith(suffix) && name.length > suffix.length);
    if (!ending) {
      filters[name] = value;
      continue;
    }
    const key = name.slice(0, -ending[0].length);
    filters[key] = { ...(filters[key] ?? {}), [ending[1]]: value };
  }
  const sort = body.sort?.field ? `${body.sort.field}:${body.sort.order ?? 'asc'}` : '';
  return { state: { kind: saved.search, filters, sort, limit: body.limit ?? 25 }, dropped };
}

/** Searches saved in this browser by an earlier console (before they were kept by the API). */
const localSaved = 'corpsearch.savedSearches';

export function browserSavedSearches() {
  try {
    const list = JSON.parse(localStorage.getItem(localSaved) ?? '[]');
    return Array.isArray(list) ? list.filter((entry) => entry && typeof entry.name === 'string') : [];
  } catch {
    return [];
  }
}

/** Keeps only these of the browser's saved searches (the others were moved to the API). */
export function keepBrowserSavedSearches(list) {
  if (list.length === 0) localStorage.removeItem(localSaved);
  else localStorage.setItem(localSaved, JSON.stringify(list));
}
