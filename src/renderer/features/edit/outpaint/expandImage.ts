import type { Dimensions } from '../../../../shared/sizeRules';
import type { Rect } from '../mask/maskDocument';

/**
 * The image an outpaint sends: a PNG of the new canvas size with the original's pixels at
 * `placed`, unchanged (decoded without colour management or premultiplication), and the new
 * area fully transparent.
 */
export async function expandImage(original: Blob, canvas: Dimensions, placed: Rect): Promise<Blob> {
  const bitmap = await createImageBitmap(original, {
    colorSpaceConversion: 'none',
    premultiplyAlpha: 'none',
  });
  try {
    const surface = new OffscreenCanvas(canvas.width, canvas.height);
    surface.getContext('2d')!.drawImage(bitmap, placed.x, placed.y);
    return await surface.convertToBlob({ type: 'image/png' });
  } finally {
    bitmap.close();
  }
}
