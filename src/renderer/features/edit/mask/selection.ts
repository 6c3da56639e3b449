/**
 * Rectangle and lasso selections as pixel sets: pure geometry on the mask's coverage bytes.
 *
 * A pixel belongs to a shape when its centre lies inside it (even-odd rule for a lasso that
 * crosses itself), so a rectangle and the polygon of its four corners select the same pixels,
 * and adding a shape then cutting it leaves the mask as it was.
 */
import type { Rect } from './maskDocument';

export interface Point {
  x: number;
  y: number;
}

/** A selection in image pixels: a dragged rectangle (two corners) or a lasso polygon. */
export type SelectionShape =
  { kind: 'rect'; from: Point; to: Point } | { kind: 'lasso'; points: readonly Point[] };

/** Add: the shape's pixels become "change"; cut: they become "keep". */
export type SelectionMode = 'add' | 'cut';

/** First pixel column (or row) whose centre is at or past `edge`. */
const firstCentreFrom = (edge: number) => Math.ceil(edge - 0.5);

/** The pixels the shape may touch, clipped to the image; null when it selects nothing. */
export function shapeBounds(shape: SelectionShape, width: number, height: number): Rect | null {
  const points = shape.kind === 'rect' ? [shape.from, shape.to] : shape.points;
  if (points.length === 0) return null;
  let minX = Infinity;
  let minY = Infinity;
  let maxX = -Infinity;
  let maxY = -Infinity;
  for (const p of points) {
    if (!Number.isFinite(p.x) || !Number.isFinite(p.y)) return null;
    minX = Math.min(minX, p.x);
    maxX = Math.max(maxX, p.x);
    minY = Math.min(minY, p.y);
    maxY = Math.max(maxY, p.y);
  }
  const x0 = Math.max(0, firstCentreFrom(minX));
  const y0 = Math.max(0, firstCentreFrom(minY));
  const x1 = Math.min(width, firstCentreFrom(maxX));
  const y1 = Math.min(height, firstCentreFrom(maxY));
  if (x1 <= x0 || y1 <= y0) return null;
  return { x: x0, y: y0, width: x1 - x0, height: y1 - y0 };
}

/**
 * Writes `value` into every pixel of `coverage` (width x height, one byte a pixel) inside the
 * shape; returns the rectangle that may have changed, or null when the shape covers no pixel
 * centre. Cost: the bounding box's rows times the lasso's edges, never a full-image pass.
 */
export function fillShape(
  coverage: Uint8Array,
  width: number,
  height: number,
  shape: SelectionShape,
  value: number,
): Rect | null {
  const box = shapeBounds(shape, width, height);
  if (!box) return null;
  if (shape.kind === 'rect') {
    for (let y = box.y; y < box.y + box.height; y++) {
      const row = y * width;
      coverage.fill(value, row + box.x, row + box.x + box.width);
    }
    return box;
  }
  fillPolygonRows(coverage, width, box, shape.points, value);
  return box;
}

/** Scanline fill at pixel centres: each row's edge crossings, sorted, filled pair by pair. */
function fillPolygonRows(
  coverage: Uint8Array,
  width: number,
  box: Rect,
  points: readonly Point[],
  value: number,
): void {
  const n = points.length;
  if (n < 3) return;
  const crossings: number[] = [];
  for (let y = box.y; y < box.y + box.height; y++) {
    const cy = y + 0.5;
    crossings.length = 0;
    for (let i = 0, j = n - 1; i < n; j = i++) {
      const a = points[i]!;
      const b = points[j]!;
      // Half-open on y: a vertex on the scanline counts once, a horizontal edge never.
      if (a.y <= cy !== b.y <= cy) crossings.push(a.x + ((cy - a.y) * (b.x - a.x)) / (b.y - a.y));
    }
    crossings.sort((p, q) => p - q);
    const row = y * width;
    for (let k = 0; k + 1 < crossings.length; k += 2) {
      const from = Math.max(box.x, firstCentreFrom(crossings[k]!));
      const to = Math.min(box.x + box.width, firstCentreFrom(crossings[k + 1]!));
      if (to > from) coverage.fill(value, row + from, row + to);
    }
  }
}

/** Whether the centre of pixel (px, py) is inside the polygon (even-odd): the reference test. */
export function centreInside(points: readonly Point[], px: number, py: number): boolean {
  const cx = px + 0.5;
  const cy = py + 0.5;
  let inside = false;
  for (let i = 0, j = points.length - 1; i < points.length; j = i++) {
    const a = points[i]!;
    const b = points[j]!;
    if (a.y <= cy !== b.y <= cy) {
      const x = a.x + ((cy - a.y) * (b.x - a.x)) / (b.y - a.y);
      if (cx >= x) inside = !inside;
    }
  }
  return inside;
}

/** The lasso as it is dragged: a point is kept only when it moved a pixel from the last one. */
export function extendLasso(points: Point[], next: Point, minStep = 1): boolean {
  const last = points.at(-1);
  if (last && Math.hypot(next.x - last.x, next.y - last.y) < minStep) return false;
  points.push(next);
  return true;
}
