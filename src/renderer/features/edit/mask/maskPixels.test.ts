import { describe, expect, it } from 'vitest';
import {
  coverageFromRgba,
  featherCoverage,
  maskRgba,
  overlayRgba,
  paintedBounds,
} from './maskPixels';

/** A w x h coverage with the given rectangle painted. */
function block(w: number, h: number, x0: number, y0: number, x1: number, y1: number): Uint8Array {
  const c = new Uint8Array(w * h);
  for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) c[y * w + x] = 255;
  return c;
}

describe('featherCoverage', () => {
  it('is the identity at radius 0', () => {
    const c = block(10, 10, 2, 2, 5, 5);
    expect(featherCoverage(c, 10, 10, 0)).toEqual(c);
  });

  it('keeps painted pixels fully changed and fades linearly over the radius outside', () => {
    const w = 40;
    const c = block(w, 1, 10, 0, 20, 1); // a 1-pixel-high run from x=10 to x=19
    const f = featherCoverage(c, w, 1, 4);
    for (let x = 10; x < 20; x++) expect(f[x]).toBe(255);
    // distance d outside: 255 * (1 - d / 5)
    expect([f[20], f[21], f[22], f[23], f[24], f[25]]).toEqual([204, 153, 102, 51, 0, 0]);
    expect([f[9], f[8], f[7], f[6], f[5]]).toEqual([204, 153, 102, 51, 0]);
  });

  it('measures Euclidean distance, not steps', () => {
    const w = 21;
    const c = new Uint8Array(w * w);
    c[10 * w + 10] = 255;
    const f = featherCoverage(c, w, w, 10);
    const diagonal = f[13 * w + 13]!; // sqrt(18) = 4.24 px away
    expect(diagonal).toBe(Math.round(255 - Math.sqrt(18) * (255 / 11)));
    expect(f[10 * w + 14]).toBe(Math.round(255 - 4 * (255 / 11)));
    // Symmetric in every direction.
    expect(f[7 * w + 7]).toBe(diagonal);
  });

  it('leaves an empty mask empty and does not write outside the image', () => {
    expect(featherCoverage(new Uint8Array(16), 4, 4, 8)).toEqual(new Uint8Array(16));
    const c = block(8, 8, 0, 0, 1, 1);
    const f = featherCoverage(c, 8, 8, 50);
    expect(f.length).toBe(64);
    expect(f[63]).toBeGreaterThan(0); // corner is ~9.9 px away, within 50
  });
});

describe('mask file pixels', () => {
  it('turns change into transparency and back', () => {
    const change = new Uint8Array([0, 255, 128]);
    const rgba = maskRgba(change);
    expect(Array.from(rgba)).toEqual([0, 0, 0, 255, 0, 0, 0, 0, 0, 0, 0, 127]);
    expect(coverageFromRgba(rgba)).toEqual(change);
  });

  it('finds the bounding box of the painted pixels', () => {
    expect(paintedBounds(block(10, 10, 2, 3, 6, 9), 10, 10)).toEqual({
      x: 2,
      y: 3,
      width: 4,
      height: 6,
    });
    expect(paintedBounds(new Uint8Array(4), 2, 2)).toBeNull();
  });

  it('tints only the changed pixels of the overlay rectangle', () => {
    const change = new Uint8Array([0, 255, 0, 0, 0, 255]);
    const rgba = overlayRgba(
      change,
      3,
      { x: 1, y: 0, width: 2, height: 2 },
      {
        r: 1,
        g: 2,
        b: 3,
        opacity: 0.5,
      },
    );
    expect(Array.from(rgba)).toEqual([1, 2, 3, 128, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 128]);
  });
});
