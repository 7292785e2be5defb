/**
 * Security headers on every response (helmet): `X-Content-Type-Options: nosniff`,
 * `X-Frame-Options: DENY`, `Referrer-Policy: no-referrer`, HSTS, cross-origin isolation
 * headers, and a Content-Security-Policy.
 *
 * Two policies. The API answers JSON and YAML only, so by default nothing may load, run or
 * frame anything (`default-src 'none'`). The pages (`/docs`, Swagger UI from swagger-ui-dist
 * on this host) get `pageCsp`: scripts, styles, images and fetches from this origin only;
 * inline styles are allowed because swagger-ui-express writes a `<style>` block into its page
 * and Swagger UI sets style attributes, while inline scripts stay forbidden (its init script is
 * a file). A page with its own stricter policy (the console) sets it after this.
 * `upgrade-insecure-requests` is left out: on http://127.0.0.1 it would send the page's
 * assets to an https port nobody serves.
 */
import helmet from 'helmet';

const apiDirectives = {
  'default-src': ["'none'"],
  'base-uri': ["'none'"],
  'form-action': ["'none'"],
  'frame-ancestors': ["'none'"],
};

export const pageCsp = {
  'default-src': ["'self'"],
  'script-src': ["'self'"],
  'style-src': ["'self'", "'unsafe-inline'"],
  'img-src': ["'self'", 'data:'],
  'font-src': ["'self'", 'data:'],
  'connect-src': ["'self'"],
  'object-src': ["'none'"],
  'base-uri': ["'self'"],
  'form-action': ["'self'"],
  'frame-ancestors': ["'none'"],
};

export function securityHeaders() {
  return helmet({
    contentSecurityPolicy: { useDefaults: false, directives: apiDirectives },
    frameguard: { action: 'deny' },
    referrerPolicy: { policy: 'no-referrer' },
  });
}

/** The page policy, for routers that serve HTML (mounted after securityHeaders, so it wins). */
export function pageSecurityPolicy() {
  return helmet.contentSecurityPolicy({ useDefaults: false, directives: pageCsp });
}
