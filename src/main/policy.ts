import { isAbsolute, relative, resolve } from 'node:path';
import type { BrowserWindowConstructorOptions } from 'electron';
import { CONTENT_SECURITY_POLICY } from '../shared/contentSecurityPolicy';

export { CONTENT_SECURITY_POLICY };

/**
 * Pure security decisions for the desktop shell, kept apart from Electron so each rule is
 * unit-tested on its own. The gateway sends the same CSP to every browser (http/securityHeaders.ts).
 */

/** The only places a link in the studio may open, always in the user's browser. */
export const EXTERNAL_HOSTS: readonly string[] = [
  'github.com',
  'platform.openai.com',
  'help.openai.com',
];

function parseUrl(url: string): URL | undefined {
  try {
    return new URL(url);
  } catch {
    return undefined;
  }
}

/** https only, an exact allow-listed host, no credentials and no unusual port. */
export function isAllowedExternalUrl(url: string, hosts: readonly string[] = EXTERNAL_HOSTS) {
  const parsed = parseUrl(url);
  if (!parsed || parsed.protocol !== 'https:') return false;
  if (parsed.username !== '' || parsed.password !== '' || parsed.port !== '') return false;
  return hosts.includes(parsed.hostname);
}

/**
 * An OAuth authorize page may be opened in the user's browser only at a known issuer (the
 * provider's, an account's, the offline simulator's: `issuers` are their origins), over https or
 * plain http on this machine, and without credentials. Main only ever asks this of URLs the
 * gateway made for a sign-in that is waiting; the issuer check stops a page that started a
 * sign-in at an issuer of its own choosing.
 */
export function isAllowedSignInUrl(url: string, issuers: readonly string[]): boolean {
  const parsed = parseUrl(url);
  if (!parsed || parsed.username !== '' || parsed.password !== '') return false;
  if (!issuers.includes(parsed.origin)) return false;
  if (parsed.protocol === 'https:') return true;
  return parsed.protocol === 'http:' && LOOPBACK_HOSTS.has(parsed.hostname);
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** True when `url` has exactly the origin (scheme, host, port) of `origin`. */
export function isSameOrigin(url: string, origin: string): boolean {
  const a = parseUrl(url);
  const b = parseUrl(origin);
  if (!a || !b || a.origin === 'null') return false;
  return a.origin === b.origin;
}

/**
 * The studio may write to the clipboard (copy the address, a key, a request id); every other
 * permission (camera, microphone, notifications, geolocation, HID, serial, ...) is denied, for
 * requests and for the checks pages make before asking.
 */
export function isPermissionAllowed(permission: string, requestingUrl: string, origin: string) {
  return permission === 'clipboard-sanitized-write' && isSameOrigin(requestingUrl, origin);
}

/** A path inside `folder` (after resolving `..`), never the folder itself or anything beside it. */
export function isInsideFolder(path: string, folder: string): boolean {
  const rel = relative(resolve(folder), resolve(path));
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
}

export function buildWindowOptions(
  preload: string,
  dark: boolean,
): BrowserWindowConstructorOptions {
  return {
    width: 1180,
    height: 780,
    minWidth: 720,
    minHeight: 480,
    title: 'Atelier',
    show: false,
    // Matches the studio's own background so the first frame does not flash.
    backgroundColor: dark ? '#16161a' : '#f7f7f9',
    webPreferences: {
      preload,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
    },
  };
}

/** Response headers with any existing CSP (in whatever casing) replaced by ours. */
export function withContentSecurityPolicy(
  headers: Record<string, string | string[]> | undefined,
): Record<string, string | string[]> {
  const result: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (name.toLowerCase() !== 'content-security-policy') result[name] = value;
  }
  result['Content-Security-Policy'] = [CONTENT_SECURITY_POLICY];
  return result;
}
