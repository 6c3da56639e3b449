import sharp from 'sharp';

/** Raw RGBA pixels of an encoded image. */
export async function rgba(bytes: Buffer | Uint8Array) {
  const { data, info } = await sharp(bytes)
    .ensureAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

/**
 * An opaque PNG with structure everywhere (gradients and stripes), so any change an edit makes
 * shows in the pixels.
 */
export function patternPng(width: number, height: number, seed = 1): Promise<Buffer> {
  const data = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3;
      data[i] = (x * 255) / width;
      data[i + 1] = (y * 255) / height;
      data[i + 2] = ((x >> 4) + (y >> 4) + seed) % 2 ? 200 : 40;
    }
  }
  return sharp(data, { raw: { width, height, channels: 3 } })
    .png({ compressionLevel: 1 })
    .toBuffer();
}
