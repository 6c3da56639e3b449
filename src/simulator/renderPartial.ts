import type { RawImage } from './render';

/** Block edge as a fraction of the short side, coarse to fine: partial 0 is the roughest draft. */
const BLOCKS_PER_SHORT_SIDE = [12, 40, 120];

/**
 * An earlier stage of the final frame: the frame pixelated, sharper with each index. Works on the
 * finished frame so a partial always previews the exact image that will arrive.
 */
export function pixelate(frame: RawImage, index: number): RawImage {
  const { width, height, channels, data } = frame;
  const blocks = BLOCKS_PER_SHORT_SIDE[Math.min(index, BLOCKS_PER_SHORT_SIDE.length - 1)]!;
  const block = Math.max(2, Math.round(Math.min(width, height) / blocks));
  const out = Buffer.allocUnsafe(data.length);
  const rowBytes = width * channels;
  for (let top = 0; top < height; top += block) {
    // Build the first row of this band from block-centre samples, then copy it down the band.
    const sampleY = Math.min(height - 1, top + (block >> 1));
    const rowStart = top * rowBytes;
    for (let left = 0; left < width; left += block) {
      const sampleX = Math.min(width - 1, left + (block >> 1));
      const src = (sampleY * width + sampleX) * channels;
      const end = Math.min(width, left + block);
      for (let x = left; x < end; x += 1)
        data.copy(out, rowStart + x * channels, src, src + channels);
    }
    const bandEnd = Math.min(height, top + block);
    for (let y = top + 1; y < bandEnd; y += 1)
      out.copy(out, y * rowBytes, rowStart, rowStart + rowBytes);
  }
  return { data: out, width, height, channels };
}
