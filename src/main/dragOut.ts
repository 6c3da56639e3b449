import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ipcMain, nativeImage, type IpcMainInvokeEvent } from 'electron';
import { IPC } from './channels';
import { assertTrustedSender, parseSaveArgs } from './dialogs';

/** The drag icon's width: a thumbnail of the image, as file managers show one. */
const ICON_WIDTH = 96;

export interface DragOutOptions {
  /** Only frames from the gateway's origin may start a drag. */
  origin: string;
  /** Where the dragged file is written (a folder of its own: emptied before each drag). */
  folder: string;
}

/**
 * Dragging a gallery image into another app: HTML5 drag carries no file out of Electron, so the
 * studio hands over the image's bytes and name, main writes them to a file of that name in its
 * own temporary folder, and `webContents.startDrag` drags that file, with the image as its icon.
 * The folder keeps only the latest dragged file (the receiving app has copied it by then).
 */
export function registerDragOutHandler({ origin, folder }: DragOutOptions): void {
  ipcMain.handle(
    IPC.startDrag,
    async (event: IpcMainInvokeEvent, name: unknown, bytes: unknown) => {
      assertTrustedSender(event, origin);
      const file = parseSaveArgs(name, bytes);
      await mkdir(folder, { recursive: true });
      for (const old of await readdir(folder)) await rm(join(folder, old), { force: true });
      const path = join(folder, file.name);
      await writeFile(path, file.bytes);
      const image = nativeImage.createFromPath(path);
      event.sender.startDrag({
        file: path,
        icon: image.isEmpty() ? image : image.resize({ width: ICON_WIDTH }),
      });
      return { path };
    },
  );
}
