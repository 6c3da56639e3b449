import { describe, expect, it } from 'vitest';
import { MAX_HISTORY, MaskDocument } from './maskDocument';
import { maskRgba } from './maskPixels';

/** Typed-array equality without a slow deep diff of 60,000 elements. */
const same = (a: Uint8Array, b: Uint8Array) =>
  a.length === b.length && a.every((v, i) => v === b[i]);

const at = (doc: MaskDocument, x: number, y: number) => doc.coverage[y * doc.width + x];

function paintLine(
  doc: MaskDocument,
  diameter: number,
  from: [number, number],
  to: [number, number],
) {
  doc.beginStroke('brush', diameter, from[0], from[1]);
  doc.strokeTo(to[0], to[1]);
  return doc.endStroke();
}

describe('MaskDocument painting', () => {
  it('paints a capsule around the stroke with hard edges at image resolution', () => {
    const doc = new MaskDocument(100, 50);
    paintLine(doc, 10, [20, 25], [80, 25]);
    expect(at(doc, 20, 25)).toBe(255);
    expect(at(doc, 50, 21)).toBe(255); // 4.5 px from the line, inside radius 5
    expect(at(doc, 50, 30)).toBe(0); // 5.5 px away
    expect(at(doc, 10, 25)).toBe(0); // beyond the round cap
    expect(new Set(doc.coverage)).toEqual(new Set([0, 255]));
  });

  it('exports painted pixels as alpha 0 and the rest opaque, at the exact dimensions', () => {
    const doc = new MaskDocument(37, 23);
    doc.beginStroke('brush', 4, 10, 10);
    doc.endStroke();
    const rgba = maskRgba(doc.coverage);
    expect(rgba.length).toBe(37 * 23 * 4);
    const alpha = (x: number, y: number) => rgba[(y * 37 + x) * 4 + 3];
    expect(alpha(10, 10)).toBe(0);
    expect(alpha(9, 9)).toBe(0);
    expect(alpha(0, 0)).toBe(255);
    expect(alpha(36, 22)).toBe(255);
    // Every pixel is either fully transparent or fully opaque without feathering.
    for (let i = 3; i < rgba.length; i += 4) expect([0, 255]).toContain(rgba[i]);
  });

  it('erases with the eraser and clips strokes at the image edge', () => {
    const doc = new MaskDocument(20, 20);
    paintLine(doc, 40, [-10, -10], [30, 30]);
    expect(doc.changedPixels()).toBe(400);
    doc.beginStroke('eraser', 4, 10, 10);
    doc.endStroke();
    expect(at(doc, 10, 10)).toBe(0);
    expect(at(doc, 0, 0)).toBe(255);
  });

  it('reports empty until something is painted, and after erasing it all', () => {
    const doc = new MaskDocument(64, 64);
    expect(doc.isEmpty()).toBe(true);
    paintLine(doc, 6, [5, 5], [5, 5]);
    expect(doc.isEmpty()).toBe(false);
    doc.beginStroke('eraser', 100, 32, 32);
    doc.endStroke();
    expect(doc.isEmpty()).toBe(true);
  });
});

describe('MaskDocument undo and redo', () => {
  it('undoes and redoes whole strokes across tile boundaries', () => {
    const doc = new MaskDocument(300, 200);
    paintLine(doc, 8, [10, 10], [290, 190]);
    const afterFirst = doc.coverage.slice();
    paintLine(doc, 30, [150, 10], [150, 190]);
    const afterSecond = doc.coverage.slice();
    expect(doc.undo()).not.toBeNull();
    expect(same(doc.coverage, afterFirst)).toBe(true);
    doc.undo();
    expect(doc.isEmpty()).toBe(true);
    expect(doc.canUndo).toBe(false);
    doc.redo();
    expect(same(doc.coverage, afterFirst)).toBe(true);
    doc.redo();
    expect(same(doc.coverage, afterSecond)).toBe(true);
    expect(doc.canRedo).toBe(false);
  });

  it('undoes invert, clear and a loaded mask, and a new stroke drops the redo steps', () => {
    const doc = new MaskDocument(10, 10);
    paintLine(doc, 2, [1, 1], [1, 1]);
    const painted = doc.coverage.slice();
    doc.invert();
    expect(at(doc, 1, 1)).toBe(0);
    expect(at(doc, 5, 5)).toBe(255);
    doc.clear();
    expect(doc.isEmpty()).toBe(true);
    doc.undo();
    doc.undo();
    expect(same(doc.coverage, painted)).toBe(true);
    const loaded = new Uint8Array(100).fill(128);
    doc.replace(loaded);
    expect(same(doc.coverage, loaded)).toBe(true);
    doc.undo();
    expect(same(doc.coverage, painted)).toBe(true);
    expect(doc.canRedo).toBe(true);
    paintLine(doc, 2, [8, 8], [8, 8]);
    expect(doc.canRedo).toBe(false);
  });

  it('does not record a stroke that changed nothing, nor clearing an empty mask', () => {
    const doc = new MaskDocument(10, 10);
    doc.beginStroke('eraser', 4, 5, 5);
    expect(doc.endStroke()).toBe(false);
    expect(doc.clear()).toBeNull();
    expect(doc.canUndo).toBe(false);
  });

  it(`keeps the last ${MAX_HISTORY} steps (at least 50)`, () => {
    expect(MAX_HISTORY).toBeGreaterThanOrEqual(50);
    const doc = new MaskDocument(200, 200);
    for (let i = 0; i < MAX_HISTORY + 20; i++) paintLine(doc, 1, [i + 0.5, 0.5], [i + 0.5, 0.5]);
    expect(doc.undoDepth).toBe(MAX_HISTORY);
    while (doc.canUndo) doc.undo();
    // The 20 oldest strokes could not be undone any more; the rest were.
    expect(doc.changedPixels()).toBe(20);
  });

  it('bumps the version on every change', () => {
    const doc = new MaskDocument(10, 10);
    const v0 = doc.version;
    paintLine(doc, 2, [1, 1], [1, 1]);
    doc.undo();
    doc.redo();
    expect(doc.version).toBe(v0 + 3);
  });
});
