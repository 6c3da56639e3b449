import sharp from 'sharp';

/** The one home of image fixtures for every suite: pictures, masks, decoding, pixel diffs. */

export interface Rect {
  left: number;
  top: number;
  width: number;
  height: number;
}

export interface Decoded {
  format: string | undefined;
  width: number;
  height: number;
  channels: number;
  pixels: Buffer;
}

/**
 * Decodes base64 image data for real, with sharp, to check what a client actually received.
 * `rgb` drops alpha so pixels compare across formats; `rgba` keeps it.
 */
export async function decodeB64(b64: string, channels: 'rgb' | 'rgba' = 'rgba'): Promise<Decoded> {
  const bytes = Buffer.from(b64, 'base64');
  const meta = await sharp(bytes).metadata();
  const pipeline = channels === 'rgba' ? sharp(bytes).ensureAlpha() : sharp(bytes).removeAlpha();
  const { data, info } = await pipeline.raw().toBuffer({ resolveWithObject: true });
  return {
    format: meta.format,
    width: info.width,
    height: info.height,
    channels: info.channels,
    pixels: data,
  };
}

/** A deterministic opaque picture: ramps and stripes, so that changed pixels are easy to tell. */
export async function testPicture(
  width: number,
  height: number,
  format: 'png' | 'jpeg' = 'png',
): Promise<Buffer> {
  const raw = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      const o = (y * width + x) * 3;
      raw[o] = (x * 255) / width;
      raw[o + 1] = (y * 255) / height;
      raw[o + 2] = ((x + y) * 7) % 256;
    }
  }
  const image = sharp(raw, { raw: { width, height, channels: 3 } });
  return format === 'png' ? image.png().toBuffer() : image.jpeg().toBuffer();
}

/** An RGBA mask: opaque everywhere except the hole, which is fully transparent (to be edited). */
export async function rectMask(width: number, height: number, hole: Rect): Promise<Buffer> {
  const raw = Buffer.alloc(width * height * 4, 255);
  for (let y = hole.top; y < hole.top + hole.height; y += 1) {
    for (let x = hole.left; x < hole.left + hole.width; x += 1) raw[(y * width + x) * 4 + 3] = 0;
  }
  return sharp(raw, { raw: { width, height, channels: 4 } })
    .png()
    .toBuffer();
}

/** Counts pixels that differ between two RGBA buffers, inside and outside a rectangle. */
export function diffByRegion(
  a: Buffer,
  b: Buffer,
  width: number,
  hole: Rect,
): { inside: number; outside: number; insideTotal: number } {
  let inside = 0;
  let outside = 0;
  const height = a.length / 4 / width;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      const same =
        a[i] === b[i] && a[i + 1] === b[i + 1] && a[i + 2] === b[i + 2] && a[i + 3] === b[i + 3];
      if (same) continue;
      const within =
        x >= hole.left && x < hole.left + hole.width && y >= hole.top && y < hole.top + hole.height;
      if (within) inside++;
      else outside++;
    }
  }
  return { inside, outside, insideTotal: hole.width * hole.height };
}

/** Mean absolute difference per channel value, 0..255. */
export function meanDiff(a: Buffer, b: Buffer): number {
  let sum = 0;
  for (let i = 0; i < a.length; i += 1) sum += Math.abs(a[i]! - b[i]!);
  return sum / a.length;
}
