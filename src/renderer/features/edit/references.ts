import { gateway } from '../../lib/api/images';
import { useEditStore, type ReferenceImage } from '../../stores/edit';
import { decodeImageFile } from './imageFiles';

let seq = 0;

/** Reads a file, blob or gallery image into a reference image (format and exact size checked). */
export async function toReference(
  blob: Blob,
  name: string,
  galleryId: string | null = null,
): Promise<ReferenceImage> {
  const decoded = await decodeImageFile(blob, name);
  return {
    id: `ref-${++seq}`,
    name,
    blob: decoded.blob,
    url: URL.createObjectURL(decoded.blob),
    width: decoded.width,
    height: decoded.height,
    format: decoded.format,
    galleryId,
  };
}

/**
 * Finds the gallery record of a result the studio just received, so editing it records the
 * chain (`x-atelier-parent-image`). Best effort: without it the edit still works.
 */
export function linkToGallery(referenceId: string, requestId: string | null, index: number): void {
  if (!requestId) return;
  void gateway.findImage(requestId, index).then((record) => {
    if (record) useEditStore.getState().setGalleryId(referenceId, record.id);
  });
}
