/**
 * Index bootstrap: each file mappings/<name>.json (except analysis.json) defines one index
 * `{version, settings?, mappings}` (read by ./mappings.ts). The API and the indexer address indices by alias
 * (`<prefix><name>`); the alias points at the versioned index `<prefix><name>-v<version>`,
 * so a mapping change is a new version reindexed behind the alias with no downtime.
 */
import type { API } from '@opensearch-project/opensearch';
import type { OpenSearchClient } from './client.js';
import { indexDefinitions } from './mappings.js';

type IndicesCreateBody = API.Indices_Create_Request['body'];

/** Alias names the code uses, e.g. `indexNames('t1-').jobs === 't1-jobs'`. */
export function indexName(prefix: string, name: string): string {
  return `${prefix}${name}`;
}

/** Creates every missing versioned index and points its alias at it. Idempotent. */
export async function bootstrapIndices(client: OpenSearchClient, prefix: string): Promise<string[]> {
  const created: string[] = [];
  for (const def of indexDefinitions()) {
    const alias = indexName(prefix, def.name);
    const concrete = `${alias}-v${def.version}`;
    const exists = await client.indices.exists({ index: concrete });
    if (exists.body) continue;
    await client.indices.create({
      index: concrete,
      body: {
        settings: def.settings as NonNullable<IndicesCreateBody>['settings'],
        mappings: def.mappings as NonNullable<IndicesCreateBody>['mappings'],
        aliases: { [alias]: {} },
      },
    });
    created.push(concrete);
  }
  return created;
}

/** Deletes the indices under a prefix (tests). */
export async function dropIndices(client: OpenSearchClient, prefix: string): Promise<void> {
  for (const def of indexDefinitions()) {
    await client.indices.delete({
      index: `${indexName(prefix, def.name)}-v${def.version}`,
      ignore_unavailable: true,
    });
  }
}
