/**
 * The arithmetic of the virtualised gallery grid: how many columns fit, how tall a row is, and
 * which rows the viewport shows. Only those rows are in the DOM, so 5,000 images cost what 30 do.
 */
export interface GridLayout {
  columns: number;
  /** Width and height of a thumbnail, px. */
  tile: number;
  /** Tile, caption and gap: the distance from one row's top to the next. */
  rowHeight: number;
  gap: number;
}

export const MIN_TILE = 168;
export const GAP = 12;
/** The prompt's line and the facts' line (size, cost, day) under a tile. */
export const CAPTION = 44;

export function gridLayout(
  width: number,
  minTile = MIN_TILE,
  gap = GAP,
  caption = CAPTION,
): GridLayout {
  const usable = Math.max(minTile, Math.floor(width));
  const columns = Math.max(1, Math.floor((usable + gap) / (minTile + gap)));
  const tile = Math.floor((usable - gap * (columns - 1)) / columns);
  return { columns, tile, rowHeight: tile + caption + gap, gap };
}

export interface VisibleRows {
  /** First and last row to render, overscan included; last < first when there are none. */
  first: number;
  last: number;
}

export function visibleRows(
  scrollTop: number,
  viewportHeight: number,
  rowHeight: number,
  rowCount: number,
  overscan = 2,
): VisibleRows {
  if (rowCount === 0 || rowHeight <= 0) return { first: 0, last: -1 };
  const top = Math.max(0, scrollTop);
  const first = Math.max(0, Math.floor(top / rowHeight) - overscan);
  const last = Math.min(rowCount - 1, Math.ceil((top + viewportHeight) / rowHeight) + overscan - 1);
  return { first, last: Math.max(first - 1, last) };
}

export const rowCount = (items: number, columns: number) => Math.ceil(items / Math.max(1, columns));

/**
 * The scrollTop that brings `row` fully into view, or null when it already is (keyboard moves).
 */
export function scrollToRow(
  row: number,
  scrollTop: number,
  viewportHeight: number,
  layout: GridLayout,
): number | null {
  const top = row * layout.rowHeight;
  const bottom = top + layout.rowHeight - layout.gap;
  if (top < scrollTop) return top;
  if (bottom > scrollTop + viewportHeight) return bottom - viewportHeight;
  return null;
}

/** Arrow keys, Home and End over a grid of `count` items: the index to move to, or null. */
export function moveIndex(
  key: string,
  index: number,
  count: number,
  columns: number,
  pageRows = 3,
): number | null {
  if (count === 0) return null;
  const clamp = (i: number) => Math.min(count - 1, Math.max(0, i));
  switch (key) {
    case 'ArrowRight':
      return clamp(index + 1);
    case 'ArrowLeft':
      return clamp(index - 1);
    case 'ArrowDown':
      return clamp(index + columns);
    case 'ArrowUp':
      return clamp(index - columns);
    case 'PageDown':
      return clamp(index + columns * pageRows);
    case 'PageUp':
      return clamp(index - columns * pageRows);
    case 'Home':
      return 0;
    case 'End':
      return count - 1;
    default:
      return null;
  }
}

/**
 * Scrolling faster than this (px per ms: 8,000 px a second, about ten screens, a fling or a
 * dragged scrollbar rather than reading; a wheel notch moves about 100 px a frame) leaves the
 * rows that fly by without thumbnails: each one is a request to the gateway and a decode that
 * would land in the frames of the scroll, for a picture nobody sees.
 */
export const FLING_PX_PER_MS = 8;

/** Whether a scroll of `deltaPx` in `deltaMs` is a fling (see FLING_PX_PER_MS). */
export function isFling(deltaPx: number, deltaMs: number): boolean {
  if (deltaPx === 0) return false;
  return Math.abs(deltaPx) > FLING_PX_PER_MS * Math.max(deltaMs, 1);
}

/** Whether two row ranges render the same rows (a scroll within a row changes nothing). */
export const sameRows = (a: VisibleRows | null, b: VisibleRows | null): boolean =>
  a === b || (a !== null && b !== null && a.first === b.first && a.last === b.last);
