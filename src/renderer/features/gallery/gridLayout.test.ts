import { describe, expect, it } from 'vitest';
import {
  gridLayout,
  isFling,
  moveIndex,
  rowCount,
  sameRows,
  scrollToRow,
  visibleRows,
} from './gridLayout';

describe('gallery grid layout', () => {
  it('fits as many columns as the width allows and shares the rest among them', () => {
    expect(gridLayout(1000, 168, 12, 26)).toEqual({
      columns: 5,
      tile: 190,
      rowHeight: 228,
      gap: 12,
    });
    expect(gridLayout(100, 168, 12, 26).columns).toBe(1);
  });

  it('renders only the rows in view, with a little overscan', () => {
    // 5,000 images in 5 columns: 1,000 rows, of which about a screenful is rendered.
    const rows = rowCount(5000, 5);
    expect(rows).toBe(1000);
    expect(visibleRows(0, 800, 228, rows)).toEqual({ first: 0, last: 5 });
    expect(visibleRows(228 * 500, 800, 228, rows)).toEqual({ first: 498, last: 505 });
    expect(visibleRows(228 * 999, 800, 228, rows)).toEqual({ first: 997, last: 999 });
    expect(visibleRows(0, 800, 228, 0)).toEqual({ first: 0, last: -1 });
  });

  it('scrolls a row into view only when it is not already', () => {
    const layout = gridLayout(1000, 168, 12, 26);
    expect(scrollToRow(0, 0, 800, layout)).toBeNull();
    expect(scrollToRow(10, 0, 800, layout)).toBe(10 * 228 + 216 - 800);
    expect(scrollToRow(2, 1000, 800, layout)).toBe(456);
  });

  it('moves the focus with arrow keys, clamped to the grid', () => {
    expect(moveIndex('ArrowDown', 2, 12, 5)).toBe(7);
    expect(moveIndex('ArrowDown', 9, 12, 5)).toBe(11);
    expect(moveIndex('ArrowLeft', 0, 12, 5)).toBe(0);
    expect(moveIndex('End', 0, 12, 5)).toBe(11);
    expect(moveIndex('Enter', 0, 12, 5)).toBeNull();
  });

  it('tells a fling from reading, and a scroll within the same rows from a new range', () => {
    // A wheel notch (100 px in a 16 ms frame) is reading; 800 px a frame is a fling.
    expect(isFling(100, 16)).toBe(false);
    expect(isFling(800, 16)).toBe(true);
    expect(isFling(-800, 16)).toBe(true);
    expect(isFling(0, 0)).toBe(false);
    // Two events in the same millisecond: judged as if a millisecond apart.
    expect(isFling(9, 0)).toBe(true);
    expect(isFling(5, 0)).toBe(false);
    expect(sameRows({ first: 2, last: 9 }, { first: 2, last: 9 })).toBe(true);
    expect(sameRows({ first: 2, last: 9 }, { first: 3, last: 10 })).toBe(false);
    expect(sameRows(null, { first: 0, last: -1 })).toBe(false);
  });
});
