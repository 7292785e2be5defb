/**
 * The signature on every webhook delivery (docs/webhooks.md, "Verifying a delivery"):
 *
 *   Corpsearch-Signature: t=1764390000,v1=5f1c…e2
 *
 * `v1` is the hex HMAC-SHA256, keyed with the webhook's secret, of the text
 * `<t>.<the raw request body>`, where `t` is the Unix time in seconds when the attempt was
 * signed. For a day after a secret is rotated the header carries a second `v1` made with the
 * previous secret, so a receiver can switch secrets without missing a delivery. A receiver
 * recomputes the HMAC over the bytes it received, compares in constant time with any `v1`, and
 * refuses a `t` older than its tolerance (5 minutes here), which stops a replayed capture.
 *
 *   const header = signatureHeader(body, ['whsec_…'], now)
 *   verifySignature(body, header, 'whsec_…', { now })   // -> true
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const signatureHeaderName = 'Corpsearch-Signature';

function hmac(secret: string, t: number, body: string): string {
  return createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');
}

/** The header for `body` signed at `now` with each secret (the current one first). */
export function signatureHeader(body: string, secrets: readonly string[], now: Date): string {
  const t = Math.floor(now.getTime() / 1000);
  return [`t=${t}`, ...secrets.map((secret) => `v1=${hmac(secret, t, body)}`)].join(',');
}

/**
 * True when `header` holds a `v1` made with `secret` over `body` at a `t` within
 * `toleranceSeconds` (300) of `now`. The receiver's side of the recipe, used by the tests.
 */
export function verifySignature(
  body: string,
  header: string,
  secret: string,
  options: { now?: Date; toleranceSeconds?: number } = {},
): boolean {
  const parts = header.split(',').map((part) => part.trim().split('='));
  const t = Number(parts.find(([name]) => name === 't')?.[1]);
  if (!Number.isInteger(t)) return false;
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  if (Math.abs(now - t) > (options.toleranceSeconds ?? 300)) return false;
  const expected = Buffer.from(hmac(secret, t, body), 'hex');
  return parts.some(([name, value]) => {
    if (name !== 'v1' || !value || !/^[0-9a-f]{64}$/.test(value)) return false;
    return timingSafeEqual(Buffer.from(value, 'hex'), expected);
  });
}
