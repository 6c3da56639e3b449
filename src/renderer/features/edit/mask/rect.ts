/** A rectangle of mask pixels: the mask's own word, apart so its parts need not import the document. */
export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** The smallest rectangle holding both (either may be null: nothing). */
export function unionRect(a: Rect | null, b: Rect | null): Rect | null {
  if (!a) return b;
  if (!b) return a;
  const x = Math.min(a.x, b.x);
  const y = Math.min(a.y, b.y);
  return {
    x,
    y,
    width: Math.max(a.x + a.width, b.x + b.width) - x,
    height: Math.max(a.y + a.height, b.y + b.height) - y,
  };
}
