/**
 * Failures of access to a secured engine, named after the setting that fixes them. The words
 * are ours: never the engine's text, never a URL (it may hold a password), never a secret.
 *
 *   accessFailure(error)  // 'credentials' | 'permission' | 'certificate' | 'tls' | undefined
 *   describeStartFailure(error)
 *   // -> "OpenSearch refused the credentials (401): check OPENSEARCH_USERNAME and OPENSEARCH_PASSWORD ..."
 */
import { errors } from '@opensearch-project/opensearch';

export type AccessFailure = 'credentials' | 'permission' | 'certificate' | 'tls';

// Node's TLS messages: "self-signed certificate in certificate chain", "unable to verify the
// first certificate", "unable to get local issuer certificate", "Hostname/IP does not match
// certificate's altnames: ...", "certificate has expired"
const certificateMessage = /certificate|altnames/i;
// an https:// URL that reaches a plain-http port: "... SSL routines ... wrong version number"
const tlsMessage = /SSL routines|wrong version number|packet length too long/i;

export function accessFailure(error: unknown): AccessFailure | undefined {
  if (error instanceof errors.ResponseError) {
    if (error.meta.statusCode === 401) return 'credentials';
    if (error.meta.statusCode === 403) return 'permission';
    return undefined;
  }
  if (error instanceof errors.ConnectionError) {
    if (certificateMessage.test(error.message)) return 'certificate';
    if (tlsMessage.test(error.message)) return 'tls';
  }
  return undefined;
}

const explanations: Record<AccessFailure, string> = {
  credentials:
    'OpenSearch refused the credentials (401): check OPENSEARCH_USERNAME and OPENSEARCH_PASSWORD (or OPENSEARCH_PASSWORD_FILE, or the user in OPENSEARCH_URL)',
  permission:
    "OpenSearch denied this user a permission it needs (403): see the engine's roles in docs/operations.md",
  certificate:
    "OpenSearch's TLS certificate was refused: set OPENSEARCH_CA_FILE to the PEM of the CA that signed it, and use the host name the certificate names",
  tls: 'no TLS where OPENSEARCH_URL says https://: check the scheme and the port',
};

/** The one line a start-up that failed on the engine prints; other errors keep their message. */
export function describeStartFailure(error: unknown): string {
  const failure = accessFailure(error);
  if (failure) return explanations[failure];
  if (error instanceof errors.ResponseError) {
    const type = (error.meta.body as { error?: { type?: string } } | undefined)?.error?.type;
    return `OpenSearch answered ${error.meta.statusCode ?? 'an error'} at start-up${type ? ` (${type})` : ''}`;
  }
  return error instanceof Error ? error.message : String(error);
}
