/**
 * The OpenSearch client, built here and nowhere else: the engine port (./engine.ts) is made
 * over it, and the rest of the project holds the port.
 *
 *   const client = createOpenSearchClient(config.opensearchUrl, config.opensearchAccess);
 *   const engine = engineOver(client); // 10 s a call; engine.writer(): 120 s
 */
import { readFileSync } from 'node:fs';
import { Client } from '@opensearch-project/opensearch';
import type { OpenSearchAccess } from '../config.js';

/** What one search may take before the API answers 503 (docs/decisions/filters.md). */
export const searchRequestTimeoutMs = 10_000;
/** What one `_bulk` of a large batch, a delete-by-query or a rebuild read may take (Engine.writer()). */
export const writeRequestTimeoutMs = 120_000;

/**
 * `url`: one node, or several separated by commas (`http://10.0.0.1:9200,http://10.0.0.2:9200`):
 * the client spreads requests over them and, when one stops answering, resends to another
 * (a search or a get is safe to resend) and leaves the dead one out until it answers again.
 */
/**
 * `access` (a secured engine, see OpenSearchAccess in src/config.ts): basic-auth credentials
 * sent on every request, and the CA file the https nodes' certificates must chain to. Node's
 * TLS checks the chain and the host name on every connection either way.
 */
export function createOpenSearchClient(url: string, access: Partial<OpenSearchAccess> = {}): Client {
  const nodes = url
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
  const client = new Client({
    nodes,
    ...(access.auth ? { auth: { username: access.auth.username, password: access.auth.password } } : {}),
    ...(access.caFile ? { ssl: { ca: readFileSync(access.caFile, 'utf8'), rejectUnauthorized: true } } : {}),
    // bounded: a search never waits longer than the API's own deadline
    requestTimeout: searchRequestTimeoutMs,
    maxRetries: 1,
    // no gzip: the API and OpenSearch share a host or a LAN, where compressing every request
    // and response costs CPU on both sides and saves no time
    // plain JSON.parse for the engine's answers: the client's default scans every answer
    // (tens of kB per search) with two regular expressions for "__proto__" and "constructor"
    // keys. JSON.parse never sets a prototype (such a key becomes an own property), the answers
    // come from our own cluster, and nothing here merges them into other objects: the records
    // are built from named fields (src/search/records.ts) and the compact copy is decoded by
    // JSON.parse as well (docs/decisions/api-cpu-cost.md)
    disablePrototypePoisoningProtection: true,
  });
  return client;
}
