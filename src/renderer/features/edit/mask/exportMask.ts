import { ImageFileError, rgbaToPng } from '../imageFiles';
import type { MaskDocument } from './maskDocument';
import { featherCoverage, maskRgba } from './maskPixels';

export const EMPTY_MASK_MESSAGE =
  'The mask is empty: paint the area to change, or send without a mask.';

/**
 * The mask file of spec 4.2: a PNG with alpha at the image's exact pixel size, transparent
 * (alpha 0) where the image changes and opaque elsewhere, feathered by `feather` pixels.
 */
export async function exportMaskPng(doc: MaskDocument, feather: number): Promise<Blob> {
  if (doc.isEmpty()) throw new ImageFileError(EMPTY_MASK_MESSAGE);
  const change = featherCoverage(doc.coverage, doc.width, doc.height, feather);
  return rgbaToPng(maskRgba(change), doc.width, doc.height);
}

const cache = new WeakMap<MaskDocument, { version: number; feather: number; png: Promise<Blob> }>();

/**
 * The same, remembered per mask version and feather: a Download and the send that follows share
 * one export. Only these two make the file; the on-screen preview copies the mask canvas.
 */
export function exportMaskCached(doc: MaskDocument, feather: number): Promise<Blob> {
  const hit = cache.get(doc);
  if (hit && hit.version === doc.version && hit.feather === feather) return hit.png;
  const png = exportMaskPng(doc, feather);
  cache.set(doc, { version: doc.version, feather, png });
  png.catch(() => cache.delete(doc));
  return png;
}
