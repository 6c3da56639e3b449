/**
 * The studio's Content-Security-Policy, one string for both places that enforce it: the gateway
 * sends it on every response (any browser that opens the studio), and the desktop shell sets it on
 * every response its window receives from the gateway (src/main/policy.ts).
 *
 * - Scripts, styles, fonts and connections only from the gateway itself; inline styles because
 *   React sets style attributes; images also from data: and blob: (previews, masks, downloads).
 * - `frame-ancestors 'none'`: no page may frame the studio (clickjacking its buttons).
 * - `base-uri 'none'` and `form-action 'self'`: an injected tag cannot re-root relative URLs or
 *   post a form to another site.
 * - `object-src 'none'`: no plugins.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "img-src 'self' data: blob:",
  "style-src 'self' 'unsafe-inline'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');
