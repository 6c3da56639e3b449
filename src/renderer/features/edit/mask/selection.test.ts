import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MaskDocument } from './maskDocument';
import { centreInside, fillShape, type Point, type SelectionShape } from './selection';

const W = 40;
const H = 30;
const point = fc.record({
  x: fc.double({ min: -10, max: W + 10, noNaN: true }),
  y: fc.double({ min: -10, max: H + 10, noNaN: true }),
});
const lasso = fc.array(point, { minLength: 3, maxLength: 12 });
const rect = fc.record({ from: point, to: point });

function filled(shape: SelectionShape): Uint8Array {
  const coverage = new Uint8Array(W * H);
  fillShape(coverage, W, H, shape, 255);
  return coverage;
}

describe('fillShape', () => {
  it('fills the pixels whose centres a rectangle covers, from either corner', () => {
    const a = filled({ kind: 'rect', from: { x: 2, y: 3 }, to: { x: 5.6, y: 4.4 } });
    const b = filled({ kind: 'rect', from: { x: 5.6, y: 4.4 }, to: { x: 2, y: 3 } });
    expect(b).toEqual(a);
    const set = [...a.keys()].filter((i) => a[i] === 255).map((i) => [i % W, Math.floor(i / W)]);
    // Centres 2.5..5.5 across, 3.5 down: four pixels.
    expect(set).toEqual([
      [2, 3],
      [3, 3],
      [4, 3],
      [5, 3],
    ]);
  });

  it('fills a lasso exactly where the even-odd test puts pixel centres inside (property)', () => {
    fc.assert(
      fc.property(lasso, (points) => {
        const expected = new Uint8Array(W * H);
        for (let i = 0; i < expected.length; i++) {
          if (centreInside(points, i % W, Math.floor(i / W))) expected[i] = 255;
        }
        expect(filled({ kind: 'lasso', points })).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });

  it('a rectangle and the lasso of its four corners select the same pixels (property)', () => {
    fc.assert(
      fc.property(rect, ({ from, to }) => {
        const corners: Point[] = [from, { x: to.x, y: from.y }, to, { x: from.x, y: to.y }];
        expect(filled({ kind: 'rect', from, to })).toEqual(
          filled({ kind: 'lasso', points: corners }),
        );
      }),
      { numRuns: 500 },
    );
  });
});

describe('MaskDocument.select', () => {
  const shape = fc.oneof(
    rect.map((r) => ({ kind: 'rect', ...r }) as SelectionShape),
    lasso.map((points) => ({ kind: 'lasso', points }) as SelectionShape),
  );

  it('add only grows the change, cut only shrinks it, outside the shape nothing moves, and undo restores (property)', () => {
    fc.assert(
      fc.property(shape, shape, fc.constantFrom('add', 'cut'), (first, second, mode) => {
        const doc = new MaskDocument(W, H);
        doc.select(first, 'add');
        const before = doc.coverage.slice();
        doc.select(second, mode);
        const inside = filled(second);
        const expected = before.map((v, i) => (inside[i] === 0 ? v : mode === 'add' ? 255 : 0));
        expect(doc.coverage).toEqual(expected);
        if (!doc.coverage.every((v, i) => v === before[i])) {
          doc.undo();
          expect(doc.coverage).toEqual(before);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('adding a shape and cutting it again leaves an empty mask, in two undo steps', () => {
    const doc = new MaskDocument(W, H);
    const s: SelectionShape = {
      kind: 'lasso',
      points: [
        { x: 3, y: 3 },
        { x: 30, y: 5 },
        { x: 12, y: 25 },
      ],
    };
    doc.select(s, 'add');
    expect(doc.changedPixels()).toBeGreaterThan(100);
    doc.select(s, 'cut');
    expect(doc.isEmpty()).toBe(true);
    expect(doc.undoDepth).toBe(2);
  });
});

describe('pen pressure', () => {
  it('scales the brush size, or the strength of the change', () => {
    const sized = new MaskDocument(100, 100);
    sized.beginStroke('brush', 40, 50, 50, 0.25, 'size');
    sized.endStroke();
    const full = new MaskDocument(100, 100);
    full.beginStroke('brush', 40, 50, 50, 1, 'size');
    full.endStroke();
    // Radius 5 against 20: about a sixteenth of the pixels.
    expect(sized.changedPixels() / full.changedPixels()).toBeCloseTo(1 / 16, 1);

    const soft = new MaskDocument(100, 100);
    soft.beginStroke('brush', 20, 50, 50, 0.5, 'opacity');
    expect(soft.coverage[50 * 100 + 50]).toBe(128);
    // A harder pass raises it; a softer one never lowers it.
    soft.strokeTo(50, 50, 0.2);
    expect(soft.coverage[50 * 100 + 50]).toBe(128);
    soft.endStroke();
    soft.beginStroke('eraser', 20, 50, 50, 0.25, 'opacity');
    expect(soft.coverage[50 * 100 + 50]).toBe(128);
    soft.strokeTo(50, 50, 1);
    expect(soft.coverage[50 * 100 + 50]).toBe(0);
  });
});
