import type { ImageRecord } from '../../../shared/admin';
import { adminUrls } from '../../lib/api/urls';
import { desktopApi } from '../../lib/desktop';
import { imageFileName } from '../../lib/files';

const MIME: Record<string, string> = { png: 'image/png', jpeg: 'image/jpeg', webp: 'image/webp' };

/** The name and type the dragged file gets: the same name a download gets. */
export function dragFile(image: ImageRecord): { name: string; type: string } {
  const type = MIME[image.outputFormat] ?? 'image/png';
  const name = imageFileName(new Blob([], { type }), new Date(image.createdAt), image.index);
  return { name, type };
}

/**
 * A gallery image dragged out of the studio. In a browser: Chromium's `DownloadURL`
 * (type:name:absolute URL), which a file manager or desktop turns into the file (fetched with the
 * studio's session), plus the URL as `text/uri-list` and `text/plain` for apps that take links.
 * In the desktop app the HTML drag is replaced by a real file drag from main
 * (`webContents.startDrag`), fetched here first; returns whether that happened.
 */
/** The drag data type that names a gallery image by id (dropped on a board). */
export const GALLERY_IMAGE_TYPE = 'application/x-atelier-image';

export function startImageDrag(
  event: DragEvent,
  image: ImageRecord,
  fetchFile: (id: string) => Promise<Blob>,
): boolean {
  const { name, type } = dragFile(image);
  // Which gallery image this is, for a drop on a board (BoardsBar.tsx).
  event.dataTransfer?.setData(GALLERY_IMAGE_TYPE, image.id);
  const desktop = desktopApi();
  if (desktop?.startDrag) {
    event.preventDefault();
    void fetchFile(image.id)
      .then(async (blob) => desktop.startDrag(name, new Uint8Array(await blob.arrayBuffer())))
      .catch(() => undefined);
    return true;
  }
  const data = event.dataTransfer;
  if (!data) return false;
  const url = new URL(adminUrls.file(image.id), window.location.href).href;
  data.effectAllowed = 'copy';
  data.setData('DownloadURL', `${type}:${name}:${url}`);
  data.setData('text/uri-list', url);
  data.setData('text/plain', url);
  return false;
}
