/**
 * Token accounting of image calls (protocol page, section 3): one table for everyone who counts
 * tokens here: the simulator bills with it and the studio estimates with it, so estimates made
 * against the simulator are exact.
 */
import type { Quality } from './imageParams';

type Shape = 'square' | 'portrait' | 'landscape';

/** Output image tokens at the 1024 class: low / medium / high by shape (protocol page 3). */
export const OUTPUT_TOKENS_1024: Record<Exclude<Quality, 'auto'>, Record<Shape, number>> = {
  low: { square: 272, portrait: 408, landscape: 400 },
  medium: { square: 1056, portrait: 1584, landscape: 1568 },
  high: { square: 4160, portrait: 6240, landscape: 6208 },
};

/** Pixel count of the reference size of each shape: 1024x1024, 1024x1536, 1536x1024. */
const CLASS_PIXELS: Record<Shape, number> = {
  square: 1024 * 1024,
  portrait: 1024 * 1536,
  landscape: 1536 * 1024,
};

/** Each streamed partial image adds this many output image tokens. */
export const PARTIAL_IMAGE_TOKENS = 100;

function shapeOf(width: number, height: number): Shape {
  if (width === height) return 'square';
  return height > width ? 'portrait' : 'landscape';
}

/** Tokens of one output image of `width` x `height`; `auto` quality is estimated as medium. */
export function outputImageTokens(quality: Quality, width: number, height: number): number {
  const shape = shapeOf(width, height);
  const base = OUTPUT_TOKENS_1024[quality === 'auto' ? 'medium' : quality][shape];
  return Math.round((base * width * height) / CLASS_PIXELS[shape]);
}

/** One input image: shortest side scaled to 512 px, then 65 base tokens + 129 per 512 px tile. */
export function inputImageTokens(width: number, height: number): number {
  const scale = 512 / Math.min(width, height);
  const tiles = Math.ceil((width * scale) / 512) * Math.ceil((height * scale) / 512);
  return 65 + 129 * tiles;
}

/** About four characters per token: an estimate, the upstream counts the real ones. */
export function promptTokens(prompt: string): number {
  return Math.ceil(prompt.length / 4);
}
