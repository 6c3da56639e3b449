/**
 * Reading and converting image files in the browser: reference images from drops, pastes, the
 * file picker and the gallery, and the PNG conversion a mask needs (spec 4.2: same format).
 */
import { LIMITS } from '../../../shared/imageParams';

export type ImageFormat = 'png' | 'jpeg' | 'webp';

/** The format from the file's first bytes: names and MIME types of dropped files lie. */
export function sniffImageFormat(bytes: Uint8Array): ImageFormat | null {
  const b = (i: number) => bytes[i] ?? -1;
  if (b(0) === 0x89 && b(1) === 0x50 && b(2) === 0x4e && b(3) === 0x47) return 'png';
  if (b(0) === 0xff && b(1) === 0xd8 && b(2) === 0xff) return 'jpeg';
  const ascii = (from: number, to: number) =>
    String.fromCharCode(...Array.from(bytes.subarray(from, to)));
  if (bytes.length >= 12 && ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP') return 'webp';
  return null;
}

export const FORMAT_LABELS: Record<ImageFormat, string> = {
  png: 'PNG',
  jpeg: 'JPEG',
  webp: 'WebP',
};

export interface DecodedImage {
  blob: Blob;
  format: ImageFormat;
  width: number;
  height: number;
}

/** Why a file cannot be a reference image, in words for the person who dropped it. */
export class ImageFileError extends Error {
  override name = 'ImageFileError';
}

const SIZE_LIMIT_MB = LIMITS.maxInputFileBytes / (1024 * 1024);

/** Checks the format and reads the exact pixel dimensions of an image file. */
export async function decodeImageFile(blob: Blob, name: string): Promise<DecodedImage> {
  if (blob.size >= LIMITS.maxInputFileBytes) {
    throw new ImageFileError(
      `${name} is ${(blob.size / 1048576).toFixed(1)} MB; files must be under ${SIZE_LIMIT_MB} MB`,
    );
  }
  const head = new Uint8Array(await blob.slice(0, 16).arrayBuffer());
  const format = sniffImageFormat(head);
  if (!format) throw new ImageFileError(`${name} is not a PNG, JPEG or WebP image`);
  let bitmap: ImageBitmap;
  try {
    bitmap = await createImageBitmap(blob);
  } catch {
    throw new ImageFileError(`${name} could not be decoded; the file may be damaged`);
  }
  const { width, height } = bitmap;
  bitmap.close();
  const typed =
    blob.type === `image/${format}` ? blob : new Blob([blob], { type: `image/${format}` });
  return { blob: typed, format, width, height };
}

function canvasOf(width: number, height: number): HTMLCanvasElement {
  const canvas = document.createElement('canvas');
  canvas.width = width;
  canvas.height = height;
  return canvas;
}

export function canvasToPng(canvas: HTMLCanvasElement): Promise<Blob> {
  return new Promise((resolve, reject) =>
    canvas.toBlob(
      (blob) => (blob ? resolve(blob) : reject(new Error('The browser could not encode a PNG'))),
      'image/png',
    ),
  );
}

/** Decodes without colour management or premultiplication, so pixels come through unchanged. */
function decodeExact(blob: Blob): Promise<ImageBitmap> {
  return createImageBitmap(blob, { colorSpaceConversion: 'none', premultiplyAlpha: 'none' });
}

/** The same picture as PNG at the same pixel dimensions (the mask must match its format). */
export async function convertToPng(blob: Blob): Promise<Blob> {
  const bitmap = await decodeExact(blob);
  const canvas = canvasOf(bitmap.width, bitmap.height);
  canvas.getContext('2d')!.drawImage(bitmap, 0, 0);
  bitmap.close();
  return canvasToPng(canvas);
}

/** Encodes RGBA pixels as a PNG with alpha. */
export function rgbaToPng(
  rgba: Uint8ClampedArray<ArrayBuffer>,
  width: number,
  height: number,
): Promise<Blob> {
  const canvas = canvasOf(width, height);
  canvas.getContext('2d')!.putImageData(new ImageData(rgba, width, height), 0, 0);
  return canvasToPng(canvas);
}

/** The RGBA pixels of an image file, checked against the dimensions they must have. */
export async function readRgba(
  blob: Blob,
  width: number,
  height: number,
  what: string,
): Promise<Uint8ClampedArray> {
  let bitmap: ImageBitmap;
  try {
    bitmap = await decodeExact(blob);
  } catch {
    throw new ImageFileError(`${what} is not an image this browser can read`);
  }
  if (bitmap.width !== width || bitmap.height !== height) {
    const found = `${bitmap.width}x${bitmap.height}`;
    bitmap.close();
    throw new ImageFileError(
      `${what} is ${found} but the image is ${width}x${height}: a mask must have the image's exact dimensions`,
    );
  }
  const canvas = canvasOf(width, height);
  const ctx = canvas.getContext('2d', { willReadFrequently: true })!;
  ctx.drawImage(bitmap, 0, 0);
  bitmap.close();
  return ctx.getImageData(0, 0, width, height).data;
}

/** Image files in a drop or paste (other items, like text, are ignored). */
export function imageFilesOf(list: DataTransfer | null): File[] {
  if (!list) return [];
  return Array.from(list.files).filter((f) => f.type.startsWith('image/') || f.type === '');
}
