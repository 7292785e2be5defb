/**
 * Configuration from the environment. Every setting has a local default, so `npm start`
 * works with nothing set: a local OpenSearch node, in-memory Redis equivalents.
 */
export interface Config {
  port: number;
  host: string;
  /** Unset: start or reuse the local node (src/local/opensearch-node.ts). */
  opensearchUrl: string | undefined;
  /** Unset: single-process mode with in-memory keys, limits and credits. */
  redisUrl: string | undefined;
  /** Prepended to every index and alias name, so test files and deployments never collide. */
  indexPrefix: string;
  /** Prepended to every Redis key. */
  redisPrefix: string;
  /** Load the sample data set when the indices are empty (`npm start`). */
  loadSampleData: boolean;
  logLevel: string;
}

function intFrom(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0)
    throw new Error(`${name} must be a whole number, got "${value}"`);
  return parsed;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return {
    port: intFrom(env.PORT, 8080, 'PORT'),
    host: env.HOST || '127.0.0.1',
    opensearchUrl: env.OPENSEARCH_URL || undefined,
    redisUrl: env.REDIS_URL || undefined,
    indexPrefix: env.INDEX_PREFIX ?? '',
    redisPrefix: env.REDIS_PREFIX ?? 'cs:',
    loadSampleData: env.LOAD_SAMPLE_DATA !== 'false',
    logLevel: env.LOG_LEVEL || 'info',
  };
}
