import { join } from 'node:path';
import { app, dialog, type BrowserWindow } from 'electron';
import { createGateway, type Gateway } from '../gateway';
import { registerDialogHandlers } from './dialogs';
import { claimSingleInstance, resolveDesktopDataDir, stopBeforeQuit } from './lifecycle';
import { createAppTray, type AppTray } from './tray';
import { createMainWindow, focusWindow } from './window';

// Built layout: out/main/index.js sits beside out/preload/index.cjs and out/renderer/.
const PRELOAD = join(import.meta.dirname, '../preload/index.cjs');
const STATIC_DIR = join(import.meta.dirname, '../renderer');
// TODO: when 8787 is taken (another program), fall back to port 0 and show the real address.
const GATEWAY_PORT = 8787;
// A quitting user should not wait the gateway's default 30 s drain; in-flight image requests are
// cancelled and recorded after this.
const QUIT_GRACE_MS = 5_000;

let gateway: Gateway | undefined;
let window: BrowserWindow | undefined;
let tray: AppTray | undefined;

/** Each new window signs in with a fresh one-time link: the session cookie is the studio's key. */
function openWindow(): void {
  if (window && !window.isDestroyed()) return focusWindow(window);
  if (!gateway) return;
  window = createMainWindow(gateway.createStudioLogin(), PRELOAD);
  window.on('closed', () => (window = undefined));
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

  gateway = await createGateway({
    host: '127.0.0.1',
    port: GATEWAY_PORT,
    dataDir: resolveDesktopDataDir(process.env, app.getPath('userData')),
    staticDir: STATIC_DIR,
  });
  const url = await gateway.listen();

  registerDialogHandlers({ origin: new URL(url).origin, getWindow: () => window });
  openWindow();
  tray = createAppTray(
    { state: 'running', url },
    { open: () => openWindow(), quit: () => app.quit() },
  );
  app.on('activate', () => openWindow());
  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit();
  });
}

/** Settles once startup has finished (or failed); tests await it. */
export const started = start().catch((error: unknown) => {
  console.error('Atelier could not start:', error);
  // A desktop user has no terminal to read; say it in a box before leaving.
  dialog.showErrorBox(
    'Atelier could not start',
    error instanceof Error ? error.message : String(error),
  );
  app.exit(1);
});
