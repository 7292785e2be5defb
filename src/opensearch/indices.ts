/**
 * Index bootstrap: each file mappings/<name>.json (except analysis.json) defines one index
 * `{version, settings?, mappings}` (read by ./mappings.ts). The API and the indexer address indices by alias
 * (`<prefix><name>`); the alias points at the versioned index `<prefix><name>-v<version>`,
 * so a mapping change is a new version reindexed behind the alias with no downtime
 * (`npm run reindex`, ops/engine/reindex.ts). Once an alias exists, bootstrap leaves it where it points:
 * after a reindex that is an index named `<prefix><name>-v<version>-<suffix>`, and after a
 * mapping's version goes up, the old version until the operator reindexes. One change needs
 * no reindex: a top-level field new in a mapping file is added to the index the alias points
 * at when a writer starts (`addNewFields`), so that its writes carrying the field are not
 * refused by `dynamic: strict`.
 */
import type { API } from '@opensearch-project/opensearch';
import { type IndexShape, indexSettingsFrom } from '../config.js';
import { writeRequestTimeoutMs } from './client.js';
import type { Engine } from './engine.js';
import { type IndexDefinition, indexDefinitions } from './mappings.js';

type IndicesCreateBody = API.Indices_Create_Request['body'];

/** The defaults of INDEX_SHARDS / INDEX_REPLICAS / INDEX_REFRESH_INTERVAL (src/config.ts). */
const defaultShape: IndexShape = { shards: 1, replicas: undefined, refreshInterval: '1s' };

/** Alias names the code uses, e.g. `indexNames('t1-').jobs === 't1-jobs'`. */
export function indexName(prefix: string, name: string): string {
  return `${prefix}${name}`;
}

/**
 * Creates every missing versioned index and points its alias at it. Idempotent. `shape`:
 * shards, replicas, refresh of the indices it creates; the entry points pass `config.index`.
 */
export async function bootstrapIndices(
  client: Engine,
  prefix: string,
  shape: IndexShape = defaultShape,
  /**
   * Add a mapping file's new top-level fields to the live indices (`addNewFields`): the
   * writers' start-up (their engine user may change mappings; the API's reads only).
   */
  options: { addNewFields?: boolean } = {},
): Promise<string[]> {
  const created: string[] = [];
  for (const def of indexDefinitions()) {
    const alias = indexName(prefix, def.name);
    const concrete = `${alias}-v${def.version}`;
    if ((await client.indices.existsAlias({ name: alias, index: versionedPattern(alias) })).body) {
      if (options.addNewFields) await addNewFields(client, alias, def);
      continue;
    }
    const exists = await client.indices.exists({ index: concrete });
    if (exists.body) continue;
    // a mapping file's own settings win over the configured shape
    const settings = settingsFor(def, shape);
    try {
      await client.indices.create(
        {
          index: concrete,
          body: {
            settings: settings as NonNullable<IndicesCreateBody>['settings'],
            mappings: def.mappings as NonNullable<IndicesCreateBody>['mappings'],
            aliases: { [alias]: {} },
          },
        },
        // a busy cluster can take longer than a search's timeout to create an index, and a
        // timed-out create that the client resends finds the index already there
        { timeoutMs: writeRequestTimeoutMs },
      );
    } catch (error) {
      // another process (a second API or worker starting at the same moment) created it first;
      // the alias came with it in the same request
      if (errorType(error) === 'resource_already_exists_exception') continue;
      throw error;
    }
    created.push(concrete);
  }
  return created;
}

/**
 * Puts the mapping file's fields that the live index lacks (an additive change: documents
 * written before have no value there, and readers allow for that): new top-level fields, and
 * new fields inside an object field the index has (the jobs' `corporate` copy gaining a
 * company field). A changed field is left alone: that is a new mapping version and a reindex.
 */
async function addNewFields(client: Engine, alias: string, def: IndexDefinition): Promise<void> {
  const { body } = await client.indices.getMapping({ index: alias });
  for (const [index, live] of Object.entries(
    body as Record<string, { mappings?: { properties?: Record<string, MappingNode> } }>,
  )) {
    const added = missingFields(
      def.mappings.properties as Record<string, MappingNode>,
      live.mappings?.properties ?? {},
    );
    if (!added) continue;
    const properties = added as NonNullable<API.Indices_PutMapping_Request['body']>['properties'];
    await client.indices.putMapping({ index, body: { properties } });
  }
}

interface MappingNode {
  type?: string;
  properties?: Record<string, MappingNode>;
}

/** The fields of `wanted` that `live` lacks, at any depth of object fields; undefined: none. */
function missingFields(
  wanted: Record<string, MappingNode>,
  live: Record<string, MappingNode>,
): Record<string, MappingNode> | undefined {
  const missing: Record<string, MappingNode> = {};
  for (const [field, node] of Object.entries(wanted)) {
    const known = live[field];
    if (!known) missing[field] = node;
    else if (node.properties && known.properties) {
      const inner = missingFields(node.properties, known.properties);
      if (inner) missing[field] = { ...(node.type ? { type: node.type } : {}), properties: inner };
    }
  }
  return Object.keys(missing).length > 0 ? missing : undefined;
}

/** The settings an index is created with: the configured shape, then the mapping file's own. */
export function settingsFor(def: IndexDefinition, shape: IndexShape): Record<string, unknown> {
  return { ...indexSettingsFrom(shape), ...withNestedLimit(def, shape.nestedPostingLimit) };
}

/** The corporates settings with a lowered nested limit (tests: IndexShape.nestedPostingLimit). */
function withNestedLimit(def: IndexDefinition, limit: number | undefined): Record<string, unknown> {
  if (limit === undefined || def.name !== 'corporates') return def.settings;
  const index = (def.settings.index ?? {}) as Record<string, unknown>;
  const mapping = (index.mapping ?? {}) as Record<string, unknown>;
  return {
    ...def.settings,
    index: { ...index, mapping: { ...mapping, nested_objects: { limit } } },
  };
}

function errorType(error: unknown): string | undefined {
  return (error as { meta?: { body?: { error?: { type?: string } } } }).meta?.body?.error?.type;
}

/**
 * The indices an alias may point at (`<alias>-v*`): alias look-ups name them rather than every
 * index. With the security plugin, `HEAD /_alias/<alias>` asks about all indices, and a user
 * whose role covers only `<prefix>*` (deploy/opensearch-security/roles.yml) gets a 403 for it,
 * so neither the API nor the indexer could start (test/opensearch/engine-roles.test.ts).
 */
export function versionedPattern(alias: string): string {
  return `${alias}-v*`;
}

/**
 * The versioned indices of one alias, whether the alias points at them or not (a reindex
 * leaves the old one behind): `t-jobs-v1`, `t-jobs-v1-20261122t140501z`, ...
 */
export async function versionedIndices(client: Engine, alias: string): Promise<string[]> {
  const { body } = await client.indices.get(
    { index: versionedPattern(alias), expand_wildcards: 'all' },
    { ignore: [404] },
  );
  const own = new RegExp(`^${alias.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}-v\\d+(-[0-9a-z]+)?$`);
  return Object.keys(body ?? {})
    .filter((name) => own.test(name))
    .sort();
}

/** Deletes the indices under a prefix, every version (tests). */
export async function dropIndices(client: Engine, prefix: string): Promise<void> {
  for (const def of indexDefinitions()) {
    for (const index of await versionedIndices(client, indexName(prefix, def.name)))
      await client.indices.delete({ index, ignore_unavailable: true });
  }
}
