/**
 * The record fields the watched searches' queries read, so that the rebuild percolates records
 * cut to them (./watch.ts `percolate`, `fields`). The percolator indexes every field of every
 * document it is given, with every analyzer of the mapping, and checks each stored query
 * against all of them: a company's nested postings are most of that work, though most watched
 * searches read few of a record's fields (docs/bench.md, "Percolated records cut to the
 * watched searches' fields").
 *
 * - `queryFieldsOf(query, kind)`: the fields a compiled query names, as the percolated
 *   document holds them: a top-level field (`prefectureId`, `hiringActivity` for
 *   `hiringActivity.openPostings`, `name` for `name.substring`), and for a nested field the
 *   fields of its items it names (`postings.mediaId`), or `postings.*` when the query names
 *   the nested field and none of its items' fields; `*` for a query with a script (it may read
 *   any field).
 * - `QueryFields`: the union of those fields over every query ever registered, per kind, in a
 *   Redis set that only grows (a field no search reads any more is kept: more than needed is
 *   never wrong). Every query is recorded there before it is put into the percolator index
 *   (./watch.ts `registerQuery`), so a query the percolator can see has its fields in the set.
 *   The set is known whole once a backfill has read the queries kept before it existed
 *   (`fillFrom`, run by the first percolation that finds it not so).
 * - `cutForPercolation(doc, fields)`: the record with those fields alone; the items of a nested
 *   field cut to the fields named, and items that became equal kept once (a nested condition
 *   asks whether some item matches, so a copy changes nothing).
 *
 *   queryFieldsOf({ terms: { prefectureId: [13] } }, 'corporates')   // -> ['prefectureId']
 *   const fields = new QueryFields(redis, prefix);     // Membership's `queryFields`
 *   await percolate(client, prefix, companies, { fields })   // ./watch.ts: the companies cut
 */
import type { Redis } from 'ioredis';
import { canonicalJson } from '../canonical-json.js';
import { indexDefinitions } from '../opensearch/mappings.js';
import type { SavedSearchKind } from './store.js';

type Doc = Record<string, unknown>;

/** The index whose records a kind of saved search finds (and whose mapping its queries index follows). */
const recordIndex: Record<SavedSearchKind, string> = { corporates: 'corporates', jobs: 'jobs' };

/** The top-level fields of an index's mapping, each with whether it is nested. */
function topFields(kind: SavedSearchKind): Map<string, boolean> {
  const def = indexDefinitions().find((candidate) => candidate.name === recordIndex[kind]);
  const properties = (def?.mappings.properties ?? {}) as Record<string, { type?: string }>;
  return new Map(Object.entries(properties).map(([name, property]) => [name, property.type === 'nested']));
}

const topFieldsOf: Partial<Record<SavedSearchKind, Map<string, boolean>>> = {};

/** Every string of a query (keys and values), and whether it has a script. */
function stringsOf(value: unknown, into: Set<string>): boolean {
  if (typeof value === 'string') {
    into.add(value);
    return false;
  }
  if (Array.isArray(value)) return value.map((item) => stringsOf(item, into)).some(Boolean);
  if (value === null || typeof value !== 'object') return false;
  let script = false;
  for (const [key, inner] of Object.entries(value)) {
    into.add(key);
    if (key === 'script') script = true;
    if (stringsOf(inner, into)) script = true;
  }
  return script;
}

/** The record fields a compiled query names (see the module's comment). */
export function queryFieldsOf(query: unknown, kind: SavedSearchKind): string[] {
  topFieldsOf[kind] ??= topFields(kind);
  const top = topFieldsOf[kind];
  const strings = new Set<string>();
  if (stringsOf(query, strings)) return ['*'];
  const fields = new Set<string>();
  const nestedNamed = new Set<string>();
  for (const text of strings) {
    // `name^2` (a boost), `name.substring` (a sub-field), `postings.title.substring`
    const [first, second] = (text.split('^')[0] as string).split('.');
    const nested = top.get(first as string);
    if (nested === undefined) continue;
    fields.add(first as string);
    if (nested && second !== undefined) {
      fields.add(`${first}.${second}`);
      nestedNamed.add(first as string);
    }
  }
  for (const [name, nested] of top)
    if (nested && fields.has(name) && !nestedNamed.has(name)) fields.add(`${name}.*`);
  return [...fields].sort();
}

/** A record with the fields a set names alone (see the module's comment); `*`: the record whole. */
export function cutForPercolation(doc: Doc, fields: ReadonlySet<string>): Doc {
  if (fields.has('*')) return doc;
  const cut: Doc = {};
  for (const [name, value] of Object.entries(doc)) {
    if (!fields.has(name)) continue;
    // only a nested field's item fields are named (`postings.mediaId`), each item cut to them
    const itemFields = fields.has(`${name}.*`)
      ? []
      : [...fields].filter((field) => field.startsWith(`${name}.`));
    if (itemFields.length === 0 || !Array.isArray(value)) {
      cut[name] = value;
      continue;
    }
    const kept = new Set(itemFields.map((field) => field.slice(name.length + 1)));
    const items = new Map<string, unknown>();
    for (const item of value) {
      const cutItem = isObject(item)
        ? Object.fromEntries(Object.entries(item).filter(([key]) => kept.has(key)))
        : item;
      items.set(canonicalJson(cutItem), cutItem);
    }
    cut[name] = [...items.values()];
  }
  return cut;
}

/** The member that marks a set whole: no record field is named so. */
const wholeMark = '@whole';

const isObject = (value: unknown): value is Doc =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** The watched queries' fields per kind, in Redis (see the module's comment). */
export class QueryFields {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  private key(kind: SavedSearchKind): string {
    return `${this.prefix}ss-query-fields:${kind}`;
  }

  /** Adds a query's fields: before the query goes into the percolator index. */
  async record(query: unknown, kind: SavedSearchKind): Promise<void> {
    const fields = queryFieldsOf(query, kind);
    // a query that names no field (every record) needs none
    if (fields.length > 0) await this.redis.sadd(this.key(kind), ...fields);
  }

  /**
   * The fields of every query recorded, or undefined while the set is not known whole. The
   * mark that it is whole is a member of the set itself, so the two are lost only together.
   */
  async read(kind: SavedSearchKind): Promise<Set<string> | undefined> {
    const fields = new Set(await this.redis.smembers(this.key(kind)));
    return fields.has(wholeMark) ? fields : undefined;
  }

  /** How many fields are recorded (the mark among them): a percolation compares it before and after. */
  async count(kind: SavedSearchKind): Promise<number> {
    return this.redis.scard(this.key(kind));
  }

  /** Records the fields of queries kept before the set existed, then marks it whole. */
  async fillFrom(queries: AsyncIterable<unknown[]>, kind: SavedSearchKind): Promise<void> {
    for await (const page of queries) {
      const fields = new Set(page.flatMap((query) => queryFieldsOf(query, kind)));
      if (fields.size > 0) await this.redis.sadd(this.key(kind), ...fields);
    }
    await this.redis.sadd(this.key(kind), wholeMark);
  }
}
