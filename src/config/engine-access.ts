/**
 * The rule that turns the engine settings (OPENSEARCH_URL, OPENSEARCH_USERNAME,
 * OPENSEARCH_PASSWORD(_FILE), OPENSEARCH_CA_FILE; src/config/settings.ts) into the URL the
 * rest of the code sees, which holds no credentials, and the access settings.
 */
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { ConfigError } from './kinds.js';

/**
 * How the API and the indexer prove themselves to a secured OpenSearch (the security plugin,
 * or a managed service): basic-auth credentials and the CA its TLS certificate must chain to.
 * The credentials come from OPENSEARCH_USERNAME with OPENSEARCH_PASSWORD or
 * OPENSEARCH_PASSWORD_FILE (a Docker secret), or from the user and password of
 * OPENSEARCH_URL, which are moved here: the URL the rest of the code sees holds none.
 */
export interface OpenSearchAccess {
  auth: { username: string; password: string } | undefined;
  /**
   * OPENSEARCH_CA_FILE: a PEM file of the CA(s) the engine's certificate must chain to. Unset:
   * the system's public CAs. Verification is never switched off (no "insecure" setting).
   */
  caFile: string | undefined;
}

/** A file's text, or a ConfigError naming the variable and the reason (never the content). */
function readSetting(variable: string, file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new ConfigError(`${variable} cannot be read: ${code} (${file})`);
  }
}

/**
 * The engine's URL(s) without credentials, and the access settings. Refused, each with one
 * line naming the variables: credentials given two ways (URL and variables, or password and
 * password file), half a pair, nodes with different users, credentials or a CA file for a
 * URL that is not https (a password would cross the network in clear text), and any of them
 * without OPENSEARCH_URL (the local node takes none).
 */
export function openSearchAccess(e: {
  OPENSEARCH_URL: string | undefined;
  OPENSEARCH_USERNAME: string | undefined;
  OPENSEARCH_PASSWORD: string | undefined;
  OPENSEARCH_PASSWORD_FILE: string | undefined;
  OPENSEARCH_CA_FILE: string | undefined;
}): { url: string | undefined; access: OpenSearchAccess } {
  const nodes = e.OPENSEARCH_URL?.split(',').map((part) => new URL(part)) ?? [];
  const withCredentials = nodes.filter((node) => node.username !== '' || node.password !== '');
  const decode = (text: string): string => {
    try {
      return decodeURIComponent(text);
    } catch {
      throw new ConfigError("OPENSEARCH_URL's user or password is not valid percent-encoding");
    }
  };
  const fromUrl = new Set(withCredentials.map((node) => `${decode(node.username)}:${decode(node.password)}`));
  let auth: OpenSearchAccess['auth'];
  if (withCredentials.length > 0) {
    if (e.OPENSEARCH_USERNAME || e.OPENSEARCH_PASSWORD || e.OPENSEARCH_PASSWORD_FILE)
      throw new ConfigError(
        'OPENSEARCH_URL holds a user and password and OPENSEARCH_USERNAME / OPENSEARCH_PASSWORD(_FILE) are set too: give the credentials one way',
      );
    if (withCredentials.length !== nodes.length || fromUrl.size !== 1)
      throw new ConfigError('OPENSEARCH_URL must give the same user and password on every node, or none');
    const first = withCredentials[0] as URL;
    if (first.username === '' || first.password === '')
      throw new ConfigError('OPENSEARCH_URL must hold both a user and a password, or neither');
    auth = { username: decode(first.username), password: decode(first.password) };
    for (const node of nodes) {
      node.username = '';
      node.password = '';
    }
  } else if (e.OPENSEARCH_USERNAME || e.OPENSEARCH_PASSWORD || e.OPENSEARCH_PASSWORD_FILE) {
    if (e.OPENSEARCH_PASSWORD && e.OPENSEARCH_PASSWORD_FILE)
      throw new ConfigError('OPENSEARCH_PASSWORD and OPENSEARCH_PASSWORD_FILE are both set: give one');
    if (!e.OPENSEARCH_USERNAME) throw new ConfigError('OPENSEARCH_PASSWORD(_FILE) needs OPENSEARCH_USERNAME');
    const password = e.OPENSEARCH_PASSWORD_FILE
      ? // a secret file usually ends with a newline that is not part of the password
        readSetting('OPENSEARCH_PASSWORD_FILE', e.OPENSEARCH_PASSWORD_FILE).replace(/\r?\n$/, '')
      : e.OPENSEARCH_PASSWORD;
    if (!password)
      throw new ConfigError(
        e.OPENSEARCH_PASSWORD_FILE
          ? 'OPENSEARCH_PASSWORD_FILE is empty'
          : 'OPENSEARCH_USERNAME needs OPENSEARCH_PASSWORD or OPENSEARCH_PASSWORD_FILE',
      );
    auth = { username: e.OPENSEARCH_USERNAME, password };
  }
  if ((auth || e.OPENSEARCH_CA_FILE) && nodes.length === 0)
    throw new ConfigError(
      'OpenSearch credentials or OPENSEARCH_CA_FILE need OPENSEARCH_URL (the local node takes neither)',
    );
  if (auth && nodes.some((node) => node.protocol !== 'https:'))
    throw new ConfigError(
      'OpenSearch credentials need https:// nodes in OPENSEARCH_URL: over http:// the password would cross the network in clear text',
    );
  if (e.OPENSEARCH_CA_FILE) {
    if (!nodes.some((node) => node.protocol === 'https:'))
      throw new ConfigError('OPENSEARCH_CA_FILE is set but no node in OPENSEARCH_URL is https://');
    const pem = readSetting('OPENSEARCH_CA_FILE', e.OPENSEARCH_CA_FILE);
    try {
      new X509Certificate(pem);
    } catch {
      throw new ConfigError(`OPENSEARCH_CA_FILE must be a PEM certificate (${e.OPENSEARCH_CA_FILE})`);
    }
  }
  return {
    url:
      withCredentials.length > 0
        ? nodes.map((node) => node.href.replace(/\/$/, '')).join(',')
        : e.OPENSEARCH_URL,
    access: { auth, caFile: e.OPENSEARCH_CA_FILE },
  };
}
