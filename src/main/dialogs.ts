import { writeFile } from 'node:fs/promises';
import { isAbsolute, join, normalize } from 'node:path';
import { app, dialog, ipcMain, shell, type BrowserWindow, type IpcMainInvokeEvent } from 'electron';
import { IPC, type SaveFileResult } from './channels';
import { isInsideFolder, isSameOrigin } from './policy';

/** Larger than any image the gateway produces, small enough to refuse nonsense. */
export const MAX_SAVE_BYTES = 256 * 1024 * 1024;
const MAX_NAME_LENGTH = 255;
const MAX_PATH_LENGTH = 4096;

export class InvalidArgumentError extends Error {
  override name = 'InvalidArgumentError';
}

/** A save request carries a bare file name (the user picks the folder) and non-empty bytes. */
export function parseSaveArgs(name: unknown, bytes: unknown): { name: string; bytes: Uint8Array } {
  if (typeof name !== 'string' || name.trim() === '' || name.length > MAX_NAME_LENGTH) {
    throw new InvalidArgumentError(`name must be a file name of 1-${MAX_NAME_LENGTH} characters`);
  }
  if (/[/\\\0]/.test(name) || name === '.' || name === '..') {
    throw new InvalidArgumentError('name must be a plain file name, not a path');
  }
  if (!(bytes instanceof Uint8Array) || bytes.byteLength === 0) {
    throw new InvalidArgumentError('bytes must be a non-empty Uint8Array');
  }
  if (bytes.byteLength > MAX_SAVE_BYTES) {
    throw new InvalidArgumentError(`bytes must be at most ${MAX_SAVE_BYTES} bytes`);
  }
  return { name, bytes };
}

/**
 * A reveal request carries an absolute path inside Atelier's data folder (the gallery's files);
 * `..` segments are resolved before the check. Anything else gets the same refusal whether or not
 * it exists, so a page cannot use this to learn what is on the disk.
 */
export function parseRevealArgs(path: unknown, dataDir: string): string {
  if (typeof path !== 'string' || path === '' || path.length > MAX_PATH_LENGTH) {
    throw new InvalidArgumentError('path must be a non-empty string');
  }
  if (path.includes('\0') || !isAbsolute(path)) {
    throw new InvalidArgumentError('path must be an absolute file path');
  }
  const target = normalize(path);
  if (!isInsideFolder(target, dataDir)) {
    throw new InvalidArgumentError("path must be a file in Atelier's data folder");
  }
  return target;
}

export interface DialogHandlerOptions {
  /** Only frames from the gateway's origin may call these handlers. */
  origin: string;
  /** Atelier's data folder: the only place revealInFolder shows. */
  dataDir: string;
  getWindow: () => BrowserWindow | undefined;
}

/** Only the studio's own frames may call main: not a frame that navigated elsewhere. */
export function assertTrustedSender(
  event: Pick<IpcMainInvokeEvent, 'senderFrame'>,
  origin: string,
): void {
  const url = event.senderFrame?.url ?? '';
  if (!isSameOrigin(url, origin)) throw new Error(`IPC refused for untrusted frame: ${url}`);
}

export function registerDialogHandlers({ origin, dataDir, getWindow }: DialogHandlerOptions): void {
  const assertTrusted = (event: IpcMainInvokeEvent) => assertTrustedSender(event, origin);

  ipcMain.handle(IPC.saveFile, async (event, name: unknown, bytes: unknown) => {
    assertTrusted(event);
    const file = parseSaveArgs(name, bytes);
    const options = { defaultPath: join(app.getPath('downloads'), file.name) };
    const window = getWindow();
    const choice = window
      ? await dialog.showSaveDialog(window, options)
      : await dialog.showSaveDialog(options);
    if (choice.canceled || !choice.filePath) return { saved: false } satisfies SaveFileResult;
    await writeFile(choice.filePath, file.bytes);
    return { saved: true, path: choice.filePath } satisfies SaveFileResult;
  });

  ipcMain.handle(IPC.revealInFolder, async (event, path: unknown) => {
    assertTrusted(event);
    // No existence check: its answer would tell the page what is on the disk. A missing file
    // inside the data folder simply opens nothing.
    shell.showItemInFolder(parseRevealArgs(path, dataDir));
  });
}
