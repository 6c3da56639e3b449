import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MaskDocument } from './maskDocument';
import { overlayRgba, type Tint } from './maskPixels';
import { copyTile, tileEquals } from './tiles';

/** A coverage of mostly none and full change, with soft values between (what masks hold). */
const coverageOf = (length: number) =>
  fc
    .uint8Array({ minLength: length, maxLength: length })
    .map((bytes) => bytes.map((b) => (b < 100 ? 0 : b > 200 ? 255 : b)));

const size = fc.record({
  width: fc.integer({ min: 1, max: 70 }),
  height: fc.integer({ min: 1, max: 70 }),
});

describe('the 4K fast paths give what the plain per-pixel loops gave', () => {
  it('overlayRgba: table look-ups equal four bytes a pixel, rounded', () => {
    const tint: fc.Arbitrary<Tint> = fc.record({
      r: fc.integer({ min: 0, max: 255 }),
      g: fc.integer({ min: 0, max: 255 }),
      b: fc.integer({ min: 0, max: 255 }),
      opacity: fc.double({ min: 0, max: 1, noNaN: true }),
    });
    fc.assert(
      fc.property(
        size.chain(({ width, height }) =>
          fc.record({
            width: fc.constant(width),
            height: fc.constant(height),
            change: coverageOf(width * height),
            x: fc.integer({ min: 0, max: width - 1 }),
            y: fc.integer({ min: 0, max: height - 1 }),
          }),
        ),
        tint,
        ({ width, height, change, x, y }, t) => {
          const rect = { x, y, width: width - x, height: height - y };
          const fast = overlayRgba(change, width, rect, t);
          const plain = new Uint8ClampedArray(rect.width * rect.height * 4);
          for (let row = 0; row < rect.height; row++) {
            for (let col = 0; col < rect.width; col++) {
              const c = change[(y + row) * width + x + col]!;
              if (c === 0) continue;
              const at = (row * rect.width + col) * 4;
              plain.set([t.r, t.g, t.b, Math.round(c * t.opacity)], at);
            }
          }
          expect(fast).toEqual(plain);
        },
      ),
    );
  });

  it('changedPixels: four at a time equals one at a time, any length', () => {
    fc.assert(
      fc.property(
        size.chain(({ width, height }) =>
          fc.tuple(fc.constant(width), fc.constant(height), coverageOf(width * height)),
        ),
        ([width, height, coverage]) => {
          const doc = new MaskDocument(width, height);
          doc.coverage.set(coverage);
          expect(doc.changedPixels()).toBe(coverage.filter((c) => c !== 0).length);
        },
      ),
    );
  });

  it('tileEquals: in place equals a copy compared', () => {
    fc.assert(
      fc.property(
        size.chain(({ width, height }) =>
          fc.tuple(
            fc.constant(width),
            fc.constant(height),
            coverageOf(width * height),
            fc.integer({ min: 0, max: width * height - 1 }),
          ),
        ),
        ([width, height, coverage, flip]) => {
          const saved = copyTile(coverage, width, height, 0);
          expect(tileEquals(coverage, width, height, 0, saved)).toBe(true);
          const changed = coverage.slice();
          changed[flip] = changed[flip] === 0 ? 255 : 0;
          const inTile = flip % width < 64 && Math.floor(flip / width) < 64;
          expect(tileEquals(changed, width, height, 0, saved)).toBe(!inTile);
        },
      ),
    );
  });
});
