/**
 * The OpenSearch clients, built here and nowhere else.
 *
 *   const client = createOpenSearchClient(config.opensearchUrl); // searches: 10 s
 *   const writer = createBulkClient(client);                     // same connections, 120 s
 */
import { Client } from '@opensearch-project/opensearch';

/** What one search may take before the API answers 503 (docs/decisions.md, "Rate limits and credits"). */
export const searchRequestTimeoutMs = 10_000;
/** What one `_bulk` of a large batch, a delete-by-query or a rebuild read may take. */
export const bulkRequestTimeoutMs = 120_000;

/**
 * `url`: one node, or several separated by commas (`http://10.0.0.1:9200,http://10.0.0.2:9200`):
 * the client spreads requests over them and, when one stops answering, resends to another
 * (a search or a get is safe to resend) and leaves the dead one out until it answers again.
 */
export function createOpenSearchClient(url: string): Client {
  const nodes = url
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
  return new Client({
    nodes,
    // bounded: a search never waits longer than the API's own deadline
    requestTimeout: searchRequestTimeoutMs,
    maxRetries: 1,
    // no gzip: the API and OpenSearch share a host or a LAN, where compressing every request
    // and response costs CPU on both sides and saves no time
  });
}

/**
 * The client the indexer writes with: the same connection pool, a longer request timeout.
 * Closing the parent closes it too.
 */
export function createBulkClient(client: Client): Client {
  // the typings of child() accept only a subset of ClientOptions; requestTimeout is honoured
  return client.child({ requestTimeout: bulkRequestTimeoutMs } as never) as Client;
}

export type { Client as OpenSearchClient };
