import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkDimensions } from '../../../../shared/sizeRules';
import { ANCHORS, outpaintCoverage, placeOriginal, snapCanvasSize } from './outpaintGeometry';

describe('snapCanvasSize', () => {
  it('rounds each edge up to a multiple of 16, never below the original', () => {
    expect(snapCanvasSize({ width: 1500, height: 1000 }, { width: 1024, height: 768 })).toEqual({
      width: 1504,
      height: 1008,
    });
    expect(snapCanvasSize({ width: 10, height: 10 }, { width: 1024, height: 768 })).toEqual({
      width: 1024,
      height: 768,
    });
  });

  it('keeps 3:1 by growing the short edge and caps the pixels by the larger slack', () => {
    expect(snapCanvasSize({ width: 3840, height: 768 }, { width: 1024, height: 768 })).toEqual({
      width: 3840,
      height: 1280,
    });
    const big = snapCanvasSize({ width: 3840, height: 3840 }, { width: 1024, height: 1024 })!;
    expect(big.width * big.height).toBeLessThanOrEqual(8_294_400);
    expect(checkDimensions(big.width, big.height)).toBeNull();
  });

  it('refuses an original no valid size can hold', () => {
    expect(snapCanvasSize({ width: 4000, height: 100 }, { width: 3900, height: 100 })).toBeNull();
  });

  it('always gives a size the spec accepts that holds the original (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 64, max: 3840 }),
        fc.integer({ min: 64, max: 3840 }),
        fc.integer({ min: -100, max: 6000 }),
        fc.integer({ min: -100, max: 6000 }),
        (ow, oh, ww, wh) => {
          const snapped = snapCanvasSize({ width: ww, height: wh }, { width: ow, height: oh });
          if (!snapped) {
            // Only when the original, rounded up to 16 px, already has too many pixels.
            expect(Math.ceil(ow / 16) * Math.ceil(oh / 16) * 256).toBeGreaterThan(8_294_400);
            return;
          }
          expect(checkDimensions(snapped.width, snapped.height)).toBeNull();
          expect(snapped.width).toBeGreaterThanOrEqual(ow);
          expect(snapped.height).toBeGreaterThanOrEqual(oh);
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe('placeOriginal and outpaintCoverage', () => {
  it('puts the original at each anchor and marks only the rest', () => {
    const original = { width: 3, height: 2 };
    const canvas = { width: 5, height: 4 };
    const at = ANCHORS.map((a) => placeOriginal(original, canvas, a));
    expect(at[0]).toEqual({ x: 0, y: 0, width: 3, height: 2 });
    expect(at[4]).toEqual({ x: 1, y: 1, width: 3, height: 2 });
    expect(at[8]).toEqual({ x: 2, y: 2, width: 3, height: 2 });
    const coverage = outpaintCoverage(canvas, at[8]!);
    expect(coverage.filter((v) => v === 0).length).toBe(6);
    expect(coverage[2 * 5 + 2]).toBe(0);
    expect(coverage[0]).toBe(255);
  });
});
