/**
 * The Sentinel form of REDIS_URL, read without a connection (the setting's check, and
 * src/redis.ts, which connects):
 *
 *   sentinelTarget('redis-sentinel://127.0.0.1:26379,127.0.0.1:26380/corpsearch')
 *   // { sentinels: [{host: '127.0.0.1', port: 26379}, {host: '127.0.0.1', port: 26380}], name: 'corpsearch' }
 */
export interface SentinelTarget {
  sentinels: Array<{ host: string; port: number }>;
  /** The master name the Sentinels monitor. */
  name: string;
  username?: string;
  password?: string;
}

const sentinelForm = /^redis-sentinel:\/\/(?:([^@/]*)@)?([^/@]+)\/([A-Za-z0-9._-]+)\/?$/;

/**
 * The Sentinels and master name of a `redis-sentinel://` URL; undefined for any other URL;
 * throws (never repeating the URL, which may hold a password) when the form is broken.
 */
export function sentinelTarget(url: string): SentinelTarget | undefined {
  if (!url.startsWith('redis-sentinel:')) return undefined;
  const match = sentinelForm.exec(url);
  if (!match)
    throw new Error(
      'a redis-sentinel URL is redis-sentinel://[user:password@]host:port[,host:port...]/<master name>',
    );
  const [, credentials, hosts = '', name = ''] = match;
  const sentinels = hosts.split(',').map((part) => {
    const hostPort = /^([A-Za-z0-9.-]+|\[[0-9a-fA-F:]+\]):(\d{1,5})$/.exec(part.trim());
    const port = Number(hostPort?.[2]);
    if (!hostPort || port < 1 || port > 65535)
      throw new Error('each Sentinel of a redis-sentinel URL is host:port');
    return { host: (hostPort[1] as string).replace(/^\[|\]$/g, ''), port };
  });
  const target: SentinelTarget = { sentinels, name };
  if (credentials !== undefined) {
    const colon = credentials.indexOf(':');
    const user = decodeURIComponent(colon < 0 ? credentials : credentials.slice(0, colon));
    const password = colon < 0 ? '' : decodeURIComponent(credentials.slice(colon + 1));
    if (user) target.username = user;
    if (password) target.password = password;
  }
  return target;
}
