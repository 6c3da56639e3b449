import type { Rect } from './maskDocument';

/** One segment of a round brush's stroke: the capsule around (x0, y0)-(x1, y1). */
export interface Capsule {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
  radius: number;
  /** 0..255: how strongly the pixels are marked (pen pressure as opacity), 255 otherwise. */
  strength: number;
  /** A brush raises a pixel's change to `strength`; an eraser lowers it to 255 - `strength`. */
  raise: boolean;
}

/** The pixels the capsule may touch, clipped to the image; null when none. */
export function capsuleBounds(c: Capsule, width: number, height: number): Rect | null {
  const minX = Math.max(0, Math.floor(Math.min(c.x0, c.x1) - c.radius));
  const maxX = Math.min(width - 1, Math.ceil(Math.max(c.x0, c.x1) + c.radius));
  const minY = Math.max(0, Math.floor(Math.min(c.y0, c.y1) - c.radius));
  const maxY = Math.min(height - 1, Math.ceil(Math.max(c.y0, c.y1) + c.radius));
  if (minX > maxX || minY > maxY) return null;
  return { x: minX, y: minY, width: maxX - minX + 1, height: maxY - minY + 1 };
}

/**
 * Marks every pixel of `box` whose centre lies within the radius of the segment. Hard edges; a
 * brush never lowers a pixel and an eraser never raises one, so a lighter pass over a stronger
 * mark leaves it as it was.
 */
export function paintCapsule(coverage: Uint8Array, width: number, box: Rect, c: Capsule): void {
  const { x0, y0, raise } = c;
  const value = raise ? c.strength : 255 - c.strength;
  const dx = c.x1 - x0;
  const dy = c.y1 - y0;
  const length2 = dx * dx + dy * dy;
  const r2 = c.radius * c.radius;
  for (let py = box.y; py < box.y + box.height; py++) {
    const cy = py + 0.5;
    const row = py * width;
    for (let px = box.x; px < box.x + box.width; px++) {
      const cx = px + 0.5;
      let t = length2 === 0 ? 0 : ((cx - x0) * dx + (cy - y0) * dy) / length2;
      t = t < 0 ? 0 : t > 1 ? 1 : t;
      const ex = x0 + t * dx - cx;
      const ey = y0 + t * dy - cy;
      if (ex * ex + ey * ey > r2) continue;
      const i = row + px;
      if (raise ? coverage[i]! < value : coverage[i]! > value) coverage[i] = value;
    }
  }
}
