/**
 * The one reader of mappings/*.json. Each file (except analysis.json, the shared text
 * analysis) defines one index `{version, settings?, mappings}`; everything that needs a field
 * list or an index setting (index bootstrap, the response records, the indexer's transform and
 * rebuild) asks here, so a field added to a mapping reaches all of them.
 *
 *   mappingFields('jobs', 'corporate')          // the company fields copied onto a posting
 *   nestedObjectsLimit('corporates')            // 50000
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../project-root.js';

export const mappingsDir = path.join(projectRoot, 'mappings');

interface MappingProperty {
  type?: string;
  properties?: Record<string, MappingProperty>;
  [key: string]: unknown;
}

export interface IndexDefinition {
  name: string;
  version: number;
  settings: Record<string, unknown>;
  mappings: { properties: Record<string, MappingProperty>; [key: string]: unknown };
}

interface MappingFile {
  version: number;
  settings?: { index?: { mapping?: { nested_objects?: { limit?: number } } } } & Record<string, unknown>;
  mappings: IndexDefinition['mappings'];
}

function readJson<T>(file: string): T {
  return JSON.parse(readFileSync(path.join(mappingsDir, file), 'utf8')) as T;
}

let cached: IndexDefinition[] | undefined;

/**
 * Every index, sorted by name, with the shared analysis merged into its settings. Shards,
 * replicas and refresh are not here: bootstrap takes them from configuration (INDEX_SHARDS, ...).
 */
export function indexDefinitions(): IndexDefinition[] {
  if (!cached) {
    const { _comment, ...sharedSettings } = readJson<Record<string, unknown>>('analysis.json');
    const files = readdirSync(mappingsDir)
      .filter((file) => file.endsWith('.json') && file !== 'analysis.json')
      .map((file) => {
        const def = readJson<MappingFile>(file);
        return {
          name: file.replace(/\.json$/, ''),
          version: def.version,
          settings: { ...sharedSettings, ...def.settings },
          mappings: def.mappings,
        };
      });
    cached = [...files, ...derivedDefinitions(files)].sort((a, b) => a.name.localeCompare(b.name));
  }
  return structuredClone(cached);
}

/**
 * Indices whose mapping follows another's: the compiled queries of the watched saved searches,
 * matched against records as they change (the percolator, src/saved-searches/watch.ts).
 * `saved-search-queries` holds the company searches' and follows corporates,
 * `saved-job-search-queries` the job searches' and follows jobs: a percolated record is read with
 * its queries index's mapping, so that is the record's mapping plus the query's own fields, and
 * gains every field the record's index gains.
 */
function derivedDefinitions(files: IndexDefinition[]): IndexDefinition[] {
  const derived: Array<[name: string, from: string]> = [
    ['saved-search-queries', 'corporates'],
    ['saved-job-search-queries', 'jobs'],
  ];
  return derived.flatMap(([name, from]) => {
    const source = files.find((def) => def.name === from);
    if (!source) return [];
    return [
      {
        name,
        version: source.version,
        settings: source.settings,
        mappings: {
          ...source.mappings,
          properties: {
            ...source.mappings.properties,
            savedSearchId: { type: 'keyword' },
            userId: { type: 'keyword' },
            watchFields: { type: 'keyword' },
            query: { type: 'percolator' },
          },
        },
      },
    ];
  });
}

function definition(index: string): IndexDefinition {
  const def = indexDefinitions().find((candidate) => candidate.name === index);
  if (!def) throw new Error(`no mappings/${index}.json`);
  return def;
}

/** The property names at `objectPath` in an index's mapping (top level when empty). */
export function mappingFields(index: string, ...objectPath: string[]): string[] {
  let properties: Record<string, MappingProperty> = definition(index).mappings.properties;
  for (const key of objectPath) properties = properties[key]?.properties ?? {};
  return Object.keys(properties);
}

/** `index.mapping.nested_objects.limit` of an index (OpenSearch's default 10,000 when unset). */
export function nestedObjectsLimit(index: string): number {
  const settings = definition(index).settings as MappingFile['settings'];
  return settings?.index?.mapping?.nested_objects?.limit ?? 10_000;
}
