/**
 * The mask being painted, at the image's exact pixel size, with stroke-level undo.
 *
 * `coverage` holds one byte per image pixel: 255 = change this pixel, 0 = keep it (values in
 * between come from loaded masks). It is the single source of truth: the overlay on screen and
 * the exported PNG are both computed from it, so what the overlay shows is what gets sent.
 *
 * Painting writes only the pixels under each stroke segment (no full-image pass per pointer
 * move). Undo is per stroke: before a stroke first touches a 64x64 tile, the tile is copied;
 * undo puts those copies back. A stroke over a small area costs a few KB of history, so well
 * over the 50 required steps fit even for a 4K image.
 */
import { fillShape, shapeBounds, type SelectionMode, type SelectionShape } from './selection';
import { capsuleBounds, paintCapsule } from './brush';
import { coverageIsEmpty, countChanged, invertCoverage } from './coverage';
import { reapply, revert, type Entry } from './history';
import { TILE, copyTile, tileEquals } from './tiles';
import type { Rect } from './rect';

export type MaskTool = 'brush' | 'eraser';

/**
 * What a pen's pressure (Pointer Events `pressure`, 0..1) changes: nothing, the brush's size
 * (full pressure = the set size), or its opacity (how strongly a pixel is marked to change).
 */
export type PressureUse = 'off' | 'size' | 'opacity';

export { unionRect, type Rect } from './rect';

/** Undo steps kept; the oldest are dropped beyond this. */
export const MAX_HISTORY = 100;

interface Stroke {
  brush: boolean;
  /** The set size's radius; pressure scales it in 'size' mode. */
  radius: number;
  pressure: PressureUse;
  x: number;
  y: number;
  saved: Map<number, Uint8Array>;
}

export class MaskDocument {
  readonly coverage: Uint8Array;
  /** Grows on every change: views and caches compare it to know they are stale. */
  version = 0;
  private undoStack: Entry[] = [];
  private redoStack: Entry[] = [];
  private stroke: Stroke | null = null;
  private readonly tilesX: number;

  constructor(
    readonly width: number,
    readonly height: number,
  ) {
    if (!Number.isInteger(width) || !Number.isInteger(height) || width < 1 || height < 1) {
      throw new RangeError(`A mask needs whole positive dimensions, got ${width}x${height}`);
    }
    this.coverage = new Uint8Array(width * height);
    this.tilesX = Math.ceil(width / TILE);
  }

  get full(): Rect {
    return { x: 0, y: 0, width: this.width, height: this.height };
  }

  get canUndo(): boolean {
    return this.undoStack.length > 0;
  }

  get canRedo(): boolean {
    return this.redoStack.length > 0;
  }

  get undoDepth(): number {
    return this.undoStack.length;
  }

  get painting(): boolean {
    return this.stroke !== null;
  }

  /**
   * Starts a stroke of a round brush `diameter` image pixels wide at (x, y). `pressure` (0..1,
   * a pen's) is used as `use` says; a mouse passes 1.
   */
  beginStroke(
    tool: MaskTool,
    diameter: number,
    x: number,
    y: number,
    pressure = 1,
    use: PressureUse = 'off',
  ): Rect | null {
    if (this.stroke) this.endStroke();
    this.stroke = {
      brush: tool === 'brush',
      radius: Math.max(0.5, diameter / 2),
      pressure: use,
      x,
      y,
      saved: new Map(),
    };
    return this.paintSegment(x, y, x, y, pressure);
  }

  /** Continues the stroke to (x, y); returns the pixels it changed (to redraw), if any. */
  strokeTo(x: number, y: number, pressure = 1): Rect | null {
    const stroke = this.stroke;
    if (!stroke) return null;
    const rect = this.paintSegment(stroke.x, stroke.y, x, y, pressure);
    stroke.x = x;
    stroke.y = y;
    return rect;
  }

  /** Ends the stroke; it becomes one undo step if it changed anything. */
  endStroke(): boolean {
    const stroke = this.stroke;
    this.stroke = null;
    if (!stroke || stroke.saved.size === 0) return false;
    const changed = [...stroke.saved].some(
      ([index, before]) => !tileEquals(this.coverage, this.width, this.height, index, before),
    );
    if (!changed) return false;
    this.record({ kind: 'tiles', before: stroke.saved, after: null });
    return true;
  }

  /**
   * Adds a rectangle or lasso to the change (or cuts it out): one undo step; returns the
   * pixels to redraw, or null when the shape covers no pixel.
   */
  select(shape: SelectionShape, mode: SelectionMode): Rect | null {
    this.endStroke();
    const box = shapeBounds(shape, this.width, this.height);
    if (!box) return null;
    const saved = new Map<number, Uint8Array>();
    this.saveTiles(box, saved);
    fillShape(this.coverage, this.width, this.height, shape, mode === 'add' ? 255 : 0);
    const changed = [...saved].some(
      ([index, before]) => !tileEquals(this.coverage, this.width, this.height, index, before),
    );
    if (changed) this.record({ kind: 'tiles', before: saved, after: null });
    return box;
  }

  /** Change becomes keep and keep becomes change. */
  invert(): Rect {
    this.endStroke();
    invertCoverage(this.coverage);
    this.record({ kind: 'invert' });
    return this.full;
  }

  /** Empties the mask (one undo step); null when it was already empty. */
  clear(): Rect | null {
    this.endStroke();
    if (this.isEmpty()) return null;
    return this.replace(new Uint8Array(this.coverage.length));
  }

  /** Replaces the whole mask, e.g. with a loaded mask file (one undo step). */
  replace(coverage: Uint8Array): Rect {
    if (coverage.length !== this.coverage.length) {
      throw new RangeError('The new mask does not have the image dimensions');
    }
    this.endStroke();
    const before = this.isEmpty() ? null : this.coverage.slice();
    this.coverage.set(coverage);
    this.record({ kind: 'replace', before, after: this.isEmpty() ? null : coverage.slice() });
    return this.full;
  }

  undo(): Rect | null {
    this.endStroke();
    const entry = this.undoStack.pop();
    if (!entry) return null;
    const rect = revert(entry, this);
    this.redoStack.push(entry);
    this.version += 1;
    return rect;
  }

  redo(): Rect | null {
    this.endStroke();
    const entry = this.redoStack.pop();
    if (!entry) return null;
    const rect = reapply(entry, this);
    this.undoStack.push(entry);
    this.version += 1;
    return rect;
  }

  isEmpty(): boolean {
    return coverageIsEmpty(this.coverage);
  }

  /** Pixels with any change, for "12% of the image will change". */
  changedPixels(): number {
    return countChanged(this.coverage);
  }

  private record(entry: Entry): void {
    this.undoStack.push(entry);
    if (this.undoStack.length > MAX_HISTORY) this.undoStack.shift();
    this.redoStack = [];
    this.version += 1;
  }

  /** Copies every tile `rect` touches that `saved` does not hold yet (the undo step's before). */
  private saveTiles(rect: Rect, saved: Map<number, Uint8Array>): void {
    const { x, y, width, height } = rect;
    for (let ty = Math.floor(y / TILE); ty <= Math.floor((y + height - 1) / TILE); ty++) {
      for (let tx = Math.floor(x / TILE); tx <= Math.floor((x + width - 1) / TILE); tx++) {
        const index = ty * this.tilesX + tx;
        if (!saved.has(index))
          saved.set(index, copyTile(this.coverage, this.width, this.height, index));
      }
    }
  }

  /** Paints one segment of the stroke, after saving the tiles it may touch. */
  private paintSegment(
    x0: number,
    y0: number,
    x1: number,
    y1: number,
    pressure: number,
  ): Rect | null {
    const stroke = this.stroke!;
    const p = Math.min(1, Math.max(0.05, Number.isFinite(pressure) ? pressure : 1));
    const segment = {
      x0,
      y0,
      x1,
      y1,
      radius: stroke.pressure === 'size' ? Math.max(0.5, stroke.radius * p) : stroke.radius,
      strength: stroke.pressure === 'opacity' ? Math.round(255 * p) : 255,
      raise: stroke.brush,
    };
    const box = capsuleBounds(segment, this.width, this.height);
    if (!box) return null;
    this.saveTiles(box, stroke.saved);
    paintCapsule(this.coverage, this.width, box, segment);
    return box;
  }
}
