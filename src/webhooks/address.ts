/**
 * Where a webhook may send: an `https:` URL whose host resolves to public unicast addresses
 * only. Private (10/8, 172.16/12, 192.168/16, fc00::/7), loopback, link-local (169.254/16 and
 * the cloud metadata address in it, fe80::/10), carrier-grade NAT, multicast, unspecified and
 * reserved ranges are refused (ipaddr.js names the range). `allowLoopback`
 * (WEBHOOK_ALLOW_LOOPBACK, for tests and local trials) also lets `http:` and loopback through.
 *
 * The check runs twice: when a webhook is created (its URL, so a typo is a 400 at once) and at
 * every connection, in the resolver the connection itself uses (`guardedLookup`), so a name
 * that resolved to a public address when checked and to a private one when sent (DNS
 * rebinding) is refused: the address checked is the address connected to.
 *
 *   checkUrl('https://hooks.example.jp/corpsearch', { allowLoopback: false })   // -> null (fine)
 *   checkUrl('http://169.254.169.254/', { allowLoopback: false })   // -> 'must use https'
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

export interface AddressPolicy {
  allowLoopback: boolean;
}

/** Why an address may not be sent to, or null when it may. */
export function refusedAddress(address: string, policy: AddressPolicy): string | null {
  if (!ipaddr.isValid(address)) return 'is not an IP address';
  // ::ffff:10.0.0.1 is 10.0.0.1
  const parsed = ipaddr.process(address);
  const range = parsed.range();
  if (range === 'unicast') return null;
  if (range === 'loopback' && policy.allowLoopback) return null;
  return `resolves to a ${range} address, which webhooks never reach`;
}

/** Why a webhook URL is refused, or null when it is fine (its name is resolved when sent). */
export function checkUrl(text: string, policy: AddressPolicy): string | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'must be an absolute URL';
  }
  const local = policy.allowLoopback && url.protocol === 'http:';
  if (url.protocol !== 'https:' && !local) return 'must use https';
  if (url.username || url.password) return 'must not carry a user name or password';
  if (url.hash) return 'must not have a fragment';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host)) return refusedAddress(host, policy);
  if (host === 'localhost' && !policy.allowLoopback)
    return 'resolves to a loopback address, which webhooks never reach';
  return null;
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * A `lookup` for net/tls connections: resolves as the system does, then refuses the connection
 * when any address the name has is refused (a name with one private address among public ones
 * is refused whole).
 */
export function guardedLookup(policy: AddressPolicy) {
  return (hostname: string, options: { all?: boolean; family?: number }, callback: LookupCallback): void => {
    dnsLookup(hostname, { all: true, family: options.family ?? 0 }, (error, addresses) => {
      if (error) return callback(error, []);
      for (const { address } of addresses) {
        const refused = refusedAddress(address, policy);
        if (refused) {
          const blocked = Object.assign(new Error(`refused address: ${hostname} ${refused}`), {
            code: 'EWEBHOOKADDRESS',
          });
          return callback(blocked, []);
        }
      }
      if (options.all) return callback(null, addresses);
      const [first] = addresses;
      if (!first) return callback(Object.assign(new Error('no address'), { code: 'ENOTFOUND' }), []);
      callback(null, first.address, first.family);
    });
  };
}
