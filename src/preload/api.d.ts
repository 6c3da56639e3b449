/**
 * What the desktop shell adds to the studio's window. Absent when the studio is opened in a plain
 * browser, so every caller checks `window.atelier` first.
 */
interface AtelierDesktopApi {
  /** Asks where to save `bytes` (suggesting `name`); resolves `saved: false` if cancelled. */
  saveFile(
    name: string,
    bytes: Uint8Array,
  ): Promise<{ saved: true; path: string } | { saved: false }>;
  /** Shows the file at an absolute `path` in the system file manager. */
  revealInFolder(path: string): Promise<void>;
  /**
   * Opens the authorize page of the account sign-in `loginId` (from POST
   * /api/admin/accounts/login) in the system browser. Main asks the gateway for the address;
   * rejects when no such sign-in is waiting.
   */
  openSignIn(loginId: string): Promise<void>;
  /**
   * Drags an image file out to other apps (webContents.startDrag): main writes `bytes` as `name`
   * in its temporary drag folder and starts the drag from it. Call from a dragstart whose HTML
   * drag was prevented.
   */
  startDrag(name: string, bytes: Uint8Array): Promise<{ path: string }>;
  readonly platform: 'darwin' | 'win32' | 'linux' | (string & {});
}

interface Window {
  atelier?: AtelierDesktopApi;
}
