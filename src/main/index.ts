import { join } from 'node:path';
import { app, type BrowserWindow } from 'electron';
import { createGateway, savedListenAddress, type Gateway } from '../gateway';
import { resolveCallbackPort } from '../gateway/oauth/callbackPort';
import { registerDialogHandlers } from './dialogs';
import { registerDragOutHandler } from './dragOut';
import { reportStartupFailure } from './failureDialog';
import type { FailureContext } from './startupFailure';
import { listenPreferring } from './listen';
import { registerSignInHandler } from './signIn';
import { claimSingleInstance, resolveDesktopDataDir, stopBeforeQuit } from './lifecycle';
import { createAppTray, type AppTray } from './tray';
import { createMainWindow, focusWindow } from './window';

// Built layout: out/main/index.js sits beside out/preload/index.cjs and out/renderer/.
const PRELOAD = join(import.meta.dirname, '../preload/index.cjs');
const STATIC_DIR = join(import.meta.dirname, '../renderer');
// A quitting user should not wait the gateway's default 30 s drain; in-flight image requests are
// cancelled and recorded after this.
const QUIT_GRACE_MS = 5_000;

let gateway: Gateway | undefined;
let window: BrowserWindow | undefined;
let tray: AppTray | undefined;
/** What a failed start is explained with (failureDialog.ts), filled in as startup learns it. */
const failureContext: FailureContext = { dataDir: '' };

/** The window being opened (its login link is being issued): a second ask waits for it. */
let opening: Promise<void> | null = null;

/** Each new window signs in with a fresh one-time link: the session cookie is the studio's key. */
function openWindow(): Promise<void> {
  if (window && !window.isDestroyed()) {
    focusWindow(window);
    return Promise.resolve();
  }
  if (!gateway) return Promise.resolve();
  if (opening) return opening;
  opening = gateway
    .createStudioLogin()
    .then((loginUrl) => {
      window = createMainWindow(loginUrl, PRELOAD);
      window.on('closed', () => (window = undefined));
    })
    .finally(() => {
      opening = null;
    });
  return opening;
}

/** A window opened from the tray or the dock: a failure is reported, not thrown into Electron. */
function openWindowLater(): void {
  openWindow().catch((error: unknown) => console.error('Atelier: the window did not open', error));
}

async function start(): Promise<void> {
  if (!claimSingleInstance(app, () => focusWindow(window))) return;
  stopBeforeQuit(
    app,
    async () => {
      tray?.setStatus({ state: 'stopping' });
      await gateway?.close(QUIT_GRACE_MS);
    },
    { deadlineMs: QUIT_GRACE_MS + 5_000 },
  );
  await app.whenReady();

  const dataDir = resolveDesktopDataDir(process.env, app.getPath('userData'));
  failureContext.dataDir = dataDir;
  // As for `atelier serve`: 1455 unless ATELIER_OAUTH_CALLBACK_PORT says otherwise.
  const oauthCallbackPort = resolveCallbackPort(undefined, process.env);
  // Where other apps expect Atelier (Settings; 127.0.0.1:8787 until changed); when another
  // program holds that port, any free one (listen.ts).
  const { host, port: preferred } = await savedListenAddress(dataDir);
  failureContext.address = { host, port: preferred };
  const listening = await listenPreferring(
    (port) => createGateway({ host, port, dataDir, staticDir: STATIC_DIR, oauthCallbackPort }),
    preferred,
  );
  gateway = listening.gateway;
  const { url, portTaken } = listening;
  if (portTaken !== null) {
    console.warn(`Atelier: port ${portTaken} is in use by another program; serving on ${url}`);
  }

  const origin = new URL(url).origin;
  registerDialogHandlers({ origin, dataDir, getWindow: () => window });
  registerDragOutHandler({ origin, folder: join(app.getPath('temp'), 'atelier-drag') });
  registerSignInHandler({
    origin,
    signInUrl: (loginId) => gateway?.signInUrl(loginId) ?? null,
    issuers: () => gateway?.signInIssuers() ?? [],
  });
  await openWindow();
  tray = createAppTray(
    { state: 'running', url, portTaken },
    { open: openWindowLater, quit: () => app.quit() },
  );
  app.on('activate', openWindowLater);
  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit();
  });
}

/** Settles once startup has finished (or failed and been explained); tests await it. */
export const started = start().catch(async (error: unknown) => {
  console.error('Atelier could not start:', error);
  // A desktop user has no terminal to read: say what happened and offer what can be done.
  if (!failureContext.dataDir) failureContext.dataDir = app.getPath('userData');
  await reportStartupFailure(error, failureContext);
});
