import { create } from 'zustand';
import { MaskDocument, type MaskTool, type PressureUse } from '../features/edit/mask/maskDocument';
import { DEFAULT_TINT_HEX, FEATHER_MAX } from '../features/edit/mask/maskPixels';
import type { SelectionMode, SelectionShape } from '../features/edit/mask/selection';

/** Painting tools and the two selections (drag a rectangle, draw a lasso). */
export type CanvasTool = MaskTool | 'rect' | 'lasso';

export const BRUSH_MIN = 2;
export const BRUSH_MAX = 800;
/** Masks kept for images that were first before (so reordering back keeps the painting). */
const KEPT_DOCUMENTS = 6;

/**
 * The mask editor's tools and the mask of the first reference image. The MaskDocument is
 * mutated in place while painting (it holds megabytes); `version` mirrors its version so
 * components re-render when it changes.
 */
export interface MaskState {
  tool: CanvasTool;
  /** Whether a selection adds to the change or cuts from it (Alt while dragging: the other). */
  selectionMode: SelectionMode;
  /** What a pen's pressure changes. */
  pressure: PressureUse;
  /** The overlay's colour, `#rrggbb`. */
  tint: string;
  /**
   * The source whose mask was carried from the step before ("Edit this result"): the editor
   * asks once whether to keep it or start clean.
   */
  carriedTo: string | null;
  /** Brush diameter in image pixels. */
  brushSize: number;
  /** Feather radius in image pixels. */
  feather: number;
  overlay: boolean;
  doc: MaskDocument | null;
  sourceId: string | null;
  version: number;
  empty: boolean;
  /** Share of the image that will change, 0..1. */
  changedShare: number;
  canUndo: boolean;
  canRedo: boolean;
  /** Uses the mask of `sourceId`, creating an empty one of that size if needed. */
  attach: (sourceId: string | null, width: number, height: number) => void;
  /** Call after changing `doc` directly (a finished stroke). */
  commit: () => void;
  setTool: (tool: CanvasTool) => void;
  setSelectionMode: (mode: SelectionMode) => void;
  setPressure: (use: PressureUse) => void;
  setTint: (tint: string) => void;
  select: (shape: SelectionShape, mode: SelectionMode) => void;
  /** Answers the carried mask's question: keep it, or start clean (one undo step). */
  settleCarried: (keep: boolean) => void;
  setBrushSize: (size: number) => void;
  /** [ and ]: about 20% a step, so small and huge brushes are both a few presses away. */
  nudgeBrush: (direction: 1 | -1) => void;
  setFeather: (radius: number) => void;
  setOverlay: (show: boolean) => void;
  undo: () => void;
  redo: () => void;
  invert: () => void;
  clear: () => void;
  load: (coverage: Uint8Array) => void;
  /**
   * Gives `sourceId` a mask with this coverage (a kept mask after a reload), used when that
   * source is attached. A fresh document: its undo history starts here.
   */
  seed: (sourceId: string, width: number, height: number, coverage: Uint8Array) => void;
  /**
   * "Edit this result": the next image starts with the current mask when it has the same size
   * (so a refinement repaints nothing). Returns whether the mask was carried.
   */
  carryTo: (sourceId: string, width: number, height: number) => boolean;
}

const clampBrush = (size: number) => Math.round(Math.min(BRUSH_MAX, Math.max(BRUSH_MIN, size)));

export const useMaskStore = create<MaskState>()((set, get) => {
  const documents = new Map<string, MaskDocument>();

  const summary = (doc: MaskDocument | null) => {
    if (!doc) return { version: 0, empty: true, changedShare: 0, canUndo: false, canRedo: false };
    const changed = doc.changedPixels();
    return {
      version: doc.version,
      empty: changed === 0,
      changedShare: changed / (doc.width * doc.height),
      canUndo: doc.canUndo,
      canRedo: doc.canRedo,
    };
  };

  const keep = (sourceId: string, doc: MaskDocument) => {
    documents.delete(sourceId);
    documents.set(sourceId, doc);
    while (documents.size > KEPT_DOCUMENTS) documents.delete(documents.keys().next().value!);
  };

  const act = (action: (doc: MaskDocument) => unknown) => {
    const doc = get().doc;
    if (!doc) return;
    action(doc);
    set(summary(doc));
  };

  return {
    tool: 'brush',
    selectionMode: 'add',
    pressure: 'size',
    tint: DEFAULT_TINT_HEX,
    carriedTo: null,
    brushSize: 64,
    feather: 0,
    overlay: true,
    doc: null,
    sourceId: null,
    version: 0,
    empty: true,
    changedShare: 0,
    canUndo: false,
    canRedo: false,

    attach: (sourceId, width, height) => {
      const current = get();
      if (
        current.sourceId === sourceId &&
        current.doc?.width === width &&
        current.doc.height === height
      ) {
        return;
      }
      let doc: MaskDocument | null = null;
      if (sourceId && width > 0 && height > 0) {
        const kept = documents.get(sourceId);
        doc =
          kept && kept.width === width && kept.height === height
            ? kept
            : new MaskDocument(width, height);
        keep(sourceId, doc);
      }
      set({ doc, sourceId, ...summary(doc) });
    },

    commit: () => set(summary(get().doc)),
    setTool: (tool) => set({ tool }),
    setSelectionMode: (selectionMode) => set({ selectionMode }),
    setPressure: (pressure) => set({ pressure }),
    setTint: (tint) => set({ tint }),
    select: (shape, mode) => act((doc) => doc.select(shape, mode)),
    settleCarried: (keep) => {
      if (!keep && get().carriedTo === get().sourceId) act((doc) => doc.clear());
      set({ carriedTo: null });
    },
    setBrushSize: (size) => set({ brushSize: clampBrush(size) }),
    nudgeBrush: (direction) => {
      const size = get().brushSize;
      const next = direction > 0 ? Math.max(size + 1, size * 1.2) : Math.min(size - 1, size / 1.2);
      set({ brushSize: clampBrush(next) });
    },
    setFeather: (radius) =>
      set({ feather: Math.round(Math.min(FEATHER_MAX, Math.max(0, radius))) }),
    setOverlay: (overlay) => set({ overlay }),
    undo: () => act((doc) => doc.undo()),
    redo: () => act((doc) => doc.redo()),
    invert: () => act((doc) => doc.invert()),
    clear: () => act((doc) => doc.clear()),
    load: (coverage) => act((doc) => doc.replace(coverage)),
    seed: (sourceId, width, height, coverage) => {
      if (coverage.length !== width * height) return;
      const doc = new MaskDocument(width, height);
      doc.coverage.set(coverage);
      keep(sourceId, doc);
      // Attached already (the reference came first): show the kept mask at once.
      if (get().sourceId === sourceId) set({ doc, ...summary(doc) });
    },
    carryTo: (sourceId, width, height) => {
      const current = get().doc;
      if (!current || current.width !== width || current.height !== height) return false;
      if (current.isEmpty()) return false;
      get().seed(sourceId, width, height, current.coverage);
      set({ carriedTo: sourceId });
      return true;
    },
  };
});
