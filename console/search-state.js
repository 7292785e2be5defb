// The search as a small plain object, written into the URL and into saved searches:
//
//   { kind: 'corporates', filters: { prefectureId: { any: [13] } }, sort: 'name:asc', limit: 25 }
//
// `filters` is the API's own nested filter form, so the URL reads like the request body and a
// saved search is a body a program could send. The API key is never part of it.
//
//   #search?kind=corporates&filters={"prefectureId":{"any":[13]}}&sort=name:asc&limit=25

const savedStorage = 'corpsearch.savedSearches';

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

export function savedSearches() {
  try {
    const list = JSON.parse(localStorage.getItem(savedStorage) ?? '[]');
    return Array.isArray(list) ? list.filter((entry) => entry && typeof entry.name === 'string') : [];
  } catch {
    return [];
  }
}

/** Saves (or replaces, by name) a search; the list is kept in name order. */
export function saveSearch(name, searchState) {
  const list = savedSearches().filter((entry) => entry.name !== name);
  list.push({ name, savedAt: new Date().toISOString(), ...searchState });
  list.sort((a, b) => a.name.localeCompare(b.name, 'ja'));
  localStorage.setItem(savedStorage, JSON.stringify(list));
}

export function deleteSearch(name) {
  localStorage.setItem(savedStorage, JSON.stringify(savedSearches().filter((entry) => entry.name !== name)));
}
