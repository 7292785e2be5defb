import { Client } from '@opensearch-project/opensearch';

export function createOpenSearchClient(url: string): Client {
  return new Client({
    node: url,
    // bounded: a search never waits longer than the API's own deadline (DESIGN §4)
    requestTimeout: 10_000,
    maxRetries: 1,
    // no gzip: the API and OpenSearch share a host or a LAN, where compressing every request
    // and response costs CPU on both sides and saves no time
  });
}

export type { Client as OpenSearchClient };
