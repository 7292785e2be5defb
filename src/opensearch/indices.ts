/**
 * Index bootstrap: each file mappings/<name>.json (except analysis.json) defines one index
 * `{version, settings?, mappings}`. The API and the indexer address indices by alias
 * (`<prefix><name>`); the alias points at the versioned index `<prefix><name>-v<version>`,
 * so a mapping change is a new version reindexed behind the alias with no downtime.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../project-root.js';
import type { OpenSearchClient } from './client.js';

const mappingsDir = path.join(projectRoot, 'mappings');

interface IndexDefinition {
  name: string;
  version: number;
  settings: Record<string, unknown>;
  mappings: Record<string, unknown>;
}

function readJson(file: string): Record<string, unknown> {
  return JSON.parse(readFileSync(path.join(mappingsDir, file), 'utf8')) as Record<string, unknown>;
}

export function indexDefinitions(): IndexDefinition[] {
  const { _comment, ...sharedSettings } = readJson('analysis.json');
  return readdirSync(mappingsDir)
    .filter((file) => file.endsWith('.json') && file !== 'analysis.json')
    .sort()
    .map((file) => {
      const def = readJson(file) as {
        version: number;
        settings?: Record<string, unknown>;
        mappings: Record<string, unknown>;
      };
      return {
        name: file.replace(/\.json$/, ''),
        version: def.version,
        settings: { number_of_shards: 1, number_of_replicas: 0, ...sharedSettings, ...def.settings },
        mappings: def.mappings,
      };
    });
}

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
      body: { settings: def.settings, mappings: def.mappings, aliases: { [alias]: {} } } as never,
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
