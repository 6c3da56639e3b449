/**
 * Outpainting's geometry: the bigger canvas an image is placed on, snapped to a size the spec
 * accepts (8.1: edges at most 3840 and multiples of 16, at most 3:1, 655,360 to 8,294,400
 * pixels), where the image sits on it, and the mask that marks the new area to fill.
 */
import { checkDimensions, SIZE_LIMITS, type Dimensions } from '../../../../shared/sizeRules';
import type { Rect } from '../mask/maskDocument';

/** Where the original image sits on the new canvas: each axis at its start, centre or end. */
export interface Anchor {
  x: 0 | 0.5 | 1;
  y: 0 | 0.5 | 1;
}

export const CENTRE: Anchor = { x: 0.5, y: 0.5 };

export const ANCHORS: readonly Anchor[] = [0, 0.5, 1].flatMap((y) =>
  [0, 0.5, 1].map((x) => ({ x, y }) as Anchor),
);

const { multipleOf: STEP, maxEdge, maxAspect, minPixels, maxPixels } = SIZE_LIMITS;
const up = (v: number) => Math.ceil(v / STEP) * STEP;
const down = (v: number) => Math.floor(v / STEP) * STEP;

/**
 * The valid canvas nearest to `wanted` that still holds the whole `original`: each edge rounded
 * up to a multiple of 16 and at least the original's, the short edge grown to keep 3:1, both
 * grown for the minimum pixels, the larger slack shrunk for the maximum. Null when no valid size
 * holds the original (an edge over 3840, or more than 8,294,400 pixels already).
 */
export function snapCanvasSize(wanted: Dimensions, original: Dimensions): Dimensions | null {
  const minW = up(original.width);
  const minH = up(original.height);
  if (minW > maxEdge || minH > maxEdge) return null;
  const clampEdge = (v: number, min: number) =>
    Math.min(down(maxEdge), Math.max(min, up(Number.isFinite(v) ? v : min)));
  let width = clampEdge(wanted.width, minW);
  let height = clampEdge(wanted.height, minH);
  // 3:1 at most: grow the short edge (shrinking the long one could cut into the original).
  if (width > maxAspect * height) height = Math.min(down(maxEdge), up(width / maxAspect));
  if (height > maxAspect * width) width = Math.min(down(maxEdge), up(height / maxAspect));
  // Too few pixels: grow both by the same factor.
  if (width * height < minPixels) {
    const k = Math.sqrt(minPixels / (width * height));
    width = Math.min(down(maxEdge), up(width * k));
    height = Math.min(down(maxEdge), up(height * k));
    while (width * height < minPixels && width < maxEdge) width += STEP;
    while (width * height < minPixels && height < maxEdge) height += STEP;
  }
  // Too many: take 16 px from the edge with the most room above the original, keeping 3:1.
  while (width * height > maxPixels) {
    const slackW = width - minW;
    const slackH = height - minH;
    if (slackW <= 0 && slackH <= 0) return null;
    if (slackW >= slackH) width -= STEP;
    else height -= STEP;
  }
  return checkDimensions(width, height) ? null : { width, height };
}

/** The original's rectangle on the canvas, by the anchor (whole pixels). */
export function placeOriginal(original: Dimensions, canvas: Dimensions, anchor: Anchor): Rect {
  return {
    x: Math.round((canvas.width - original.width) * anchor.x),
    y: Math.round((canvas.height - original.height) * anchor.y),
    width: original.width,
    height: original.height,
  };
}

/** The mask of an outpaint: every pixel outside the placed original is to change (255). */
export function outpaintCoverage(canvas: Dimensions, placed: Rect): Uint8Array {
  const coverage = new Uint8Array(canvas.width * canvas.height).fill(255);
  for (let y = placed.y; y < placed.y + placed.height; y++) {
    const row = y * canvas.width;
    coverage.fill(0, row + placed.x, row + placed.x + placed.width);
  }
  return coverage;
}

/** Whether the canvas adds anything around the original (otherwise there is nothing to fill). */
export function grows(canvas: Dimensions, original: Dimensions): boolean {
  return canvas.width > original.width || canvas.height > original.height;
}
