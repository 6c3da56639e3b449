import sharp from 'sharp';

export interface Decoded {
  width: number;
  height: number;
  format: string;
  channels: number;
  pixels: Buffer;
}

/** Decodes base64 image data for real, with sharp, to check what a client actually received. */
export async function decodeB64(b64: string): Promise<Decoded> {
  const bytes = Buffer.from(b64, 'base64');
  const meta = await sharp(bytes).metadata();
  const { data, info } = await sharp(bytes)
    .ensureAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  return {
    width: info.width,
    height: info.height,
    format: meta.format ?? 'unknown',
    channels: info.channels,
    pixels: data,
  };
}

/** A colourful opaque PNG: stripes so that changed pixels are easy to tell apart. */
export async function stripedPng(width: number, height: number): Promise<Buffer> {
  const raw = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3;
      raw[i] = (x * 7) & 0xff;
      raw[i + 1] = (y * 5) & 0xff;
      raw[i + 2] = ((x + y) * 3) & 0xff;
    }
  }
  return sharp(raw, { raw: { width, height, channels: 3 } })
    .png()
    .toBuffer();
}

/** A mask: opaque everywhere except a transparent rectangle (the region to edit). */
export async function rectMask(
  width: number,
  height: number,
  hole: { x: number; y: number; w: number; h: number },
): Promise<Buffer> {
  const raw = Buffer.alloc(width * height * 4, 255);
  for (let y = hole.y; y < hole.y + hole.h; y++) {
    for (let x = hole.x; x < hole.x + hole.w; x++) raw[(y * width + x) * 4 + 3] = 0;
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
  hole: { x: number; y: number; w: number; h: number },
): { inside: number; outside: number; insideTotal: number } {
  let inside = 0;
  let outside = 0;
  const height = a.length / 4 / width;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      const same =
        a[i] === b[i] && a[i + 1] === b[i + 1] && a[i + 2] === b[i + 2] && a[i + 3] === b[i + 3];
      const within = x >= hole.x && x < hole.x + hole.w && y >= hole.y && y < hole.y + hole.h;
      if (!same) {
        if (within) inside++;
        else outside++;
      }
    }
  }
  return { inside, outside, insideTotal: hole.w * hole.h };
}
