import { BrowserWindow, nativeTheme, shell, type Session, type WebContents } from 'electron';
import {
  buildWindowOptions,
  isAllowedExternalUrl,
  isPermissionAllowed,
  isSameOrigin,
  withContentSecurityPolicy,
} from './policy';

/** Opens the studio window on the gateway URL, locked to the gateway's origin. */
export function createMainWindow(url: string, preload: string): BrowserWindow {
  const origin = new URL(url).origin;
  const window = new BrowserWindow(buildWindowOptions(preload, nativeTheme.shouldUseDarkColors));
  secureSession(window.webContents.session, origin);
  guardWebContents(window.webContents, origin);
  window.once('ready-to-show', () => window.show());
  void window.loadURL(url);
  return window;
}

/**
 * No new windows, no navigation off the gateway (by link, by a server redirect, or inside a
 * frame); allow-listed https links go to the browser instead.
 */
export function guardWebContents(contents: WebContents, origin: string): void {
  contents.setWindowOpenHandler(({ url }) => {
    if (isAllowedExternalUrl(url)) void shell.openExternal(url);
    return { action: 'deny' };
  });
  const keepOnGateway = (event: { url: string; preventDefault: () => void }) => {
    if (isSameOrigin(event.url, origin)) return;
    event.preventDefault();
    if (isAllowedExternalUrl(event.url)) void shell.openExternal(event.url);
  };
  contents.on('will-navigate', keepOnGateway);
  // A redirect answered by the server is not a navigation the page started: guarded apart.
  contents.on('will-redirect', keepOnGateway);
  // The studio has no frames of its own: a frame (injected or not) never leaves the gateway and
  // never opens anything.
  contents.on('will-frame-navigate', (event) => {
    if (!isSameOrigin(event.url, origin)) event.preventDefault();
  });
  contents.on('will-attach-webview', (event) => event.preventDefault());
}

/**
 * CSP on every response from the gateway origin, and a deny-by-default permission policy for
 * both the requests a page makes and the checks it makes first (navigator.permissions.query,
 * device lists).
 */
export function secureSession(session: Session, origin: string): void {
  session.webRequest.onHeadersReceived((details, callback) => {
    if (!isSameOrigin(details.url, origin)) return callback({});
    callback({ responseHeaders: withContentSecurityPolicy(details.responseHeaders) });
  });
  session.setPermissionRequestHandler((_contents, permission, callback, details) => {
    callback(isPermissionAllowed(permission, details.requestingUrl, origin));
  });
  session.setPermissionCheckHandler((_contents, permission, requestingOrigin) =>
    isPermissionAllowed(permission, requestingOrigin, origin),
  );
  session.setDevicePermissionHandler(() => false);
}

/** Brings an existing window to the front (used when a second instance is launched). */
export function focusWindow(window: BrowserWindow | undefined): void {
  if (!window || window.isDestroyed()) return;
  if (window.isMinimized()) window.restore();
  window.show();
  window.focus();
}
