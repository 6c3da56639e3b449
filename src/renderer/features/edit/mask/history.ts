/**
 * The mask's undo steps and how each is taken back or done again. A stroke or a selection keeps
 * the 64x64 tiles it touched, as they were before (and, once undone, as they were after); invert
 * keeps nothing (it is its own inverse); a replaced mask keeps both whole masks (null = empty).
 */
import { invertCoverage } from './coverage';
import { unionRect, type Rect } from './rect';
import { copyTile, writeTile } from './tiles';

export type Entry =
  | { kind: 'tiles'; before: Map<number, Uint8Array>; after: Map<number, Uint8Array> | null }
  | { kind: 'invert' }
  | { kind: 'replace'; before: Uint8Array | null; after: Uint8Array | null };

interface Target {
  coverage: Uint8Array;
  width: number;
  height: number;
  full: Rect;
}

/** Takes the step back; returns the pixels to redraw. */
export function revert(entry: Entry, target: Target): Rect {
  const { coverage, width, height, full } = target;
  switch (entry.kind) {
    case 'invert':
      invertCoverage(coverage);
      return full;
    case 'replace':
      if (entry.before) coverage.set(entry.before);
      else coverage.fill(0);
      return full;
    case 'tiles': {
      const after = new Map<number, Uint8Array>();
      let rect: Rect | null = null;
      for (const [index, data] of entry.before) {
        after.set(index, copyTile(coverage, width, height, index));
        rect = unionRect(rect, writeTile(coverage, width, height, index, data));
      }
      entry.after = after;
      return rect ?? full;
    }
  }
}

/** Does the step again after it was taken back; returns the pixels to redraw. */
export function reapply(entry: Entry, target: Target): Rect {
  const { coverage, width, height, full } = target;
  switch (entry.kind) {
    case 'invert':
      invertCoverage(coverage);
      return full;
    case 'replace':
      if (entry.after) coverage.set(entry.after);
      else coverage.fill(0);
      return full;
    case 'tiles': {
      let rect: Rect | null = null;
      for (const [index, data] of entry.after ?? []) {
        rect = unionRect(rect, writeTile(coverage, width, height, index, data));
      }
      return rect ?? full;
    }
  }
}
