import type { Rect } from './rect';

/** Undo saves the mask in 64x64 tiles: a stroke's history is the few tiles it touched. */
export const TILE = 64;

export function tileRect(width: number, height: number, index: number): Rect {
  const tilesX = Math.ceil(width / TILE);
  const x = (index % tilesX) * TILE;
  const y = Math.floor(index / tilesX) * TILE;
  return { x, y, width: Math.min(TILE, width - x), height: Math.min(TILE, height - y) };
}

export function copyTile(
  coverage: Uint8Array,
  width: number,
  height: number,
  index: number,
): Uint8Array {
  const rect = tileRect(width, height, index);
  const out = new Uint8Array(rect.width * rect.height);
  for (let row = 0; row < rect.height; row++) {
    const start = (rect.y + row) * width + rect.x;
    out.set(coverage.subarray(start, start + rect.width), row * rect.width);
  }
  return out;
}

export function writeTile(
  coverage: Uint8Array,
  width: number,
  height: number,
  index: number,
  data: Uint8Array,
): Rect {
  const rect = tileRect(width, height, index);
  for (let row = 0; row < rect.height; row++) {
    coverage.set(
      data.subarray(row * rect.width, (row + 1) * rect.width),
      (rect.y + row) * width + rect.x,
    );
  }
  return rect;
}

/** Whether the tile in `coverage` still holds `data` (compared in place: no copy). */
export function tileEquals(
  coverage: Uint8Array,
  width: number,
  height: number,
  index: number,
  data: Uint8Array,
): boolean {
  const rect = tileRect(width, height, index);
  for (let row = 0; row < rect.height; row++) {
    const start = (rect.y + row) * width + rect.x;
    const from = row * rect.width;
    for (let x = 0; x < rect.width; x++) if (coverage[start + x] !== data[from + x]) return false;
  }
  return true;
}
